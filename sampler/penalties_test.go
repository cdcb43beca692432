package sampler

import (
	"math"
	"testing"
)

func TestPenaltiesExactValues(t *testing.T) {
	// Values worked by hand from llama_sampler_penalties_apply:
	//   l > 0: l/repeat, else l*repeat; then -= count*freq + (count>0)*presence.
	cfg := Config{Temperature: 1, RepeatPenalty: 2, FrequencyPenalty: 0.5, PresencePenalty: 1, PenaltyLastN: 64}
	s := mustNew(t, cfg, 6)
	for _, tok := range []int32{1, 2, 2, 3, 3, 3} {
		s.Accept(tok)
	}
	logits := []float32{4, 4, -1, 0, 3, -2}
	got := s.ApplyPenalties(nil, logits)
	want := []float32{
		4,                  // never seen
		4/2 - (0.5*1 + 1),  // 0.5
		-1*2 - (0.5*2 + 1), // -4
		0*2 - (0.5*3 + 1),  // -2.5
		3, -2,              // never seen
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("token %d: %v, want %v", i, got[i], want[i])
		}
	}
	if logits[1] != 4 || logits[3] != 0 {
		t.Fatal("ApplyPenalties modified its input")
	}
}

func TestPenaltyWindowSlides(t *testing.T) {
	cfg := Config{Temperature: 1, RepeatPenalty: 1, FrequencyPenalty: 1, PenaltyLastN: 3}
	s := mustNew(t, cfg, 5)
	for _, tok := range []int32{1, 2, 2, 4, 4, 4} { // window ends as [4 4 4]
		s.Accept(tok)
	}
	got := s.ApplyPenalties(nil, []float32{0, 0, 0, 0, 0})
	want := []float32{0, 0, 0, 0, -3}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("window [4 4 4]: got %v, want %v", got, want)
		}
	}
	s.Accept(2) // window [4 4 2]
	got = s.ApplyPenalties(got, []float32{0, 0, 0, 0, 0})
	want = []float32{0, 0, -1, 0, -2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("window [4 4 2]: got %v, want %v", got, want)
		}
	}
	s.Reset()
	got = s.ApplyPenalties(got, []float32{0, 0, 0, 0, 0})
	for i := range got {
		if got[i] != 0 {
			t.Fatalf("after Reset: got %v, want no penalties", got)
		}
	}
}

func TestPenaltyWindowModes(t *testing.T) {
	base := Config{Temperature: 1, RepeatPenalty: 1, PresencePenalty: 1}
	hist := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	cases := []struct {
		lastN, cap int
		penalized  int // how many of the most recent ids are penalized
	}{
		{0, 0, 0},
		{2, 0, 2},
		{-1, 5, 5},
		{-1, 0, 8}, // DefaultHistoryCap covers all 8
	}
	for _, tc := range cases {
		cfg := base
		cfg.PenaltyLastN, cfg.HistoryCap = tc.lastN, tc.cap
		s := mustNew(t, cfg, 8)
		for _, tok := range hist {
			s.Accept(tok)
		}
		got := s.ApplyPenalties(nil, make([]float32, 8))
		for i, v := range got {
			recent := i >= 8-tc.penalized
			if (v == -1) != recent || (v != -1 && v != 0) {
				t.Fatalf("last-n %d cap %d: got %v", tc.lastN, tc.cap, got)
			}
		}
	}
}

func TestPenaltiesSteerSampling(t *testing.T) {
	// Token 0 leads by 0.5; a repeat penalty of 2 halves it below token 1.
	cfg := Config{Temperature: 0, RepeatPenalty: 2, PenaltyLastN: 4}
	s := mustNew(t, cfg, 3)
	logits := []float32{3, 2.5, 1}
	if got := s.Sample(logits); got != 0 {
		t.Fatalf("before: %d, want 0", got)
	}
	s.Accept(0)
	if got := s.Sample(logits); got != 1 {
		t.Fatalf("after accepting 0: %d, want 1", got)
	}
	// Negative logits are multiplied, never divided toward zero.
	s.Reset()
	neg := []float32{-1, -1.5, -3}
	s.Accept(0)
	if got := s.Sample(neg); got != 1 {
		t.Fatalf("negative logits: %d, want 1 (-1*2 < -1.5)", got)
	}
}

func TestPenaltiesInfinite(t *testing.T) {
	cfg := Config{Temperature: 1, RepeatPenalty: 1.5, FrequencyPenalty: 1, PresencePenalty: 1, PenaltyLastN: 4}
	s := mustNew(t, cfg, 2)
	s.Accept(0)
	s.Accept(1)
	got := s.ApplyPenalties(nil, []float32{float32(math.Inf(-1)), float32(math.Inf(1))})
	if !math.IsInf(float64(got[0]), -1) || !math.IsInf(float64(got[1]), 1) {
		t.Fatalf("infinite logits after penalties: %v", got)
	}
}
