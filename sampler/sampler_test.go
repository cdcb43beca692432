package sampler

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// offConfig turns every filter and penalty off.
func offConfig(temp float32) Config {
	return Config{Temperature: temp, TopP: 1, RepeatPenalty: 1}
}

func mustNew(t testing.TB, cfg Config, vocab int) *Sampler {
	t.Helper()
	s, err := New(cfg, vocab)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func randomLogits(r *rand.Rand, n int, scale float32) []float32 {
	l := make([]float32, n)
	for i := range l {
		l[i] = float32(r.NormFloat64()) * scale
	}
	return l
}

func TestNewValidates(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	bad := []struct {
		name string
		mod  func(*Config)
	}{
		{"nan temperature", func(c *Config) { c.Temperature = nan }},
		{"inf temperature", func(c *Config) { c.Temperature = inf }},
		{"nan top-p", func(c *Config) { c.TopP = nan }},
		{"negative top-p", func(c *Config) { c.TopP = -0.1 }},
		{"nan min-p", func(c *Config) { c.MinP = nan }},
		{"min-p above 1", func(c *Config) { c.MinP = 1.01 }},
		{"negative top-k", func(c *Config) { c.TopK = -3 }},
		{"top-p above 1", func(c *Config) { c.TopP = 1.5 }},
		{"negative min-p", func(c *Config) { c.MinP = -1 }},
		{"negative repeat", func(c *Config) { c.RepeatPenalty = -1 }},
		{"nan repeat", func(c *Config) { c.RepeatPenalty = nan }},
		{"negative presence", func(c *Config) { c.PresencePenalty = -0.5 }},
		{"negative frequency", func(c *Config) { c.FrequencyPenalty = -0.5 }},
		{"inf frequency", func(c *Config) { c.FrequencyPenalty = inf }},
		{"last-n below -1", func(c *Config) { c.PenaltyLastN = -2 }},
	}
	for _, tc := range bad {
		cfg := DefaultConfig()
		tc.mod(&cfg)
		if _, err := New(cfg, 100); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: err = %v, want ErrInvalidConfig", tc.name, err)
		}
	}
	for _, v := range []int{0, -5} {
		if _, err := New(DefaultConfig(), v); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("vocab %d: err = %v, want ErrInvalidConfig", v, err)
		}
	}
	good := []func(*Config){
		func(c *Config) {},
		func(c *Config) { c.Temperature = 0 },
		func(c *Config) { c.Temperature = -1 },  // greedy
		func(c *Config) { c.TopK = 0 },          // off
		func(c *Config) { c.TopP = 0 },          // off
		func(c *Config) { c.TopP = 1 },          // off
		func(c *Config) { c.MinP = 0 },          // off
		func(c *Config) { c.RepeatPenalty = 0 }, // off
		func(c *Config) { *c = Config{} },       // greedy, nothing else
		func(c *Config) { c.MinP = 1 },
		func(c *Config) { c.PenaltyLastN = -1 },
		func(c *Config) { c.PenaltyLastN = 0 },
	}
	for i, mod := range good {
		cfg := DefaultConfig()
		mod(&cfg)
		if _, err := New(cfg, 100); err != nil {
			t.Errorf("good config %d rejected: %v", i, err)
		}
	}
}

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	want := Config{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1, PenaltyLastN: 64}
	if c != want {
		t.Fatalf("DefaultConfig = %+v, want %+v", c, want)
	}
}

func TestGreedyArgmaxAndTies(t *testing.T) {
	s := mustNew(t, offConfig(0), 10)
	logits := []float32{1, 5, 2, 7, -1, 3, 0, 7, 7, 2}
	for range 5 { // greedy must not depend on the RNG
		if got := s.Sample(logits); got != 3 {
			t.Fatalf("greedy = %d, want 3 (first of the tied maxima 3, 7, 8)", got)
		}
	}
	logits[3] = 6.9
	if got := s.Sample(logits); got != 7 {
		t.Fatalf("greedy = %d, want 7", got)
	}
}

func TestTopK1EqualsGreedy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	greedy := mustNew(t, offConfig(0), 500)
	for _, temp := range []float32{0.05, 0.5, 1, 3, 50} {
		cfg := DefaultConfig()
		cfg.TopK, cfg.Temperature, cfg.Seed = 1, temp, 9
		s := mustNew(t, cfg, 500)
		for i := range 200 {
			l := randomLogits(r, 500, 2)
			if i%3 == 0 { // force a tie at the top
				m := slices.Max(l)
				l[r.IntN(500)], l[r.IntN(500)] = m, m
			}
			if got, want := s.Sample(l), greedy.Sample(l); got != want {
				t.Fatalf("T=%v: top-k 1 picked %d, greedy %d", temp, got, want)
			}
		}
	}
}

func TestTopKOnlyBestAppear(t *testing.T) {
	const vocab, k = 1000, 7
	r := rand.New(rand.NewPCG(3, 4))
	logits := randomLogits(r, vocab, 0.3) // flat: without the cut, many ids would show up
	order := make([]int, vocab)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmpCandidates(candidate{id: int32(a), logit: logits[a]}, candidate{id: int32(b), logit: logits[b]})
	})
	allowed := map[int32]bool{}
	for _, id := range order[:k] {
		allowed[int32(id)] = true
	}
	cfg := offConfig(5)
	cfg.TopK = k
	s := mustNew(t, cfg, vocab)
	seen := map[int32]int{}
	for range 10000 {
		tok := s.Sample(logits)
		if !allowed[tok] {
			t.Fatalf("token %d (logit %v) outside the top %d", tok, logits[tok], k)
		}
		seen[tok]++
	}
	if len(seen) != k {
		t.Fatalf("only %d of the top %d tokens drawn in 10k draws at T=5", len(seen), k)
	}
}

// chiSquare compares observed counts with probabilities.
func chiSquare(counts []int, probs []float64, n int) float64 {
	var x float64
	for i, p := range probs {
		e := p * float64(n)
		d := float64(counts[i]) - e
		x += d * d / e
	}
	return x
}

func softmaxF64(l []float32, temp float64) []float64 {
	m := float64(slices.Max(l))
	p := make([]float64, len(l))
	var sum float64
	for i, v := range l {
		p[i] = math.Exp((float64(v) - m) / temp)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

func TestFrequenciesMatchSoftmax(t *testing.T) {
	logits := []float32{1.2, 0.3, -0.4, 2.0, 0.9, -1.5, 0.0, 1.6}
	const temp, n = 0.7, 200000
	cfg := offConfig(temp)
	cfg.Seed = 12345
	s := mustNew(t, cfg, len(logits))
	counts := make([]int, len(logits))
	for range n {
		counts[s.Sample(logits)]++
	}
	// 7 degrees of freedom: P(chi2 > 24.3) = 0.001. The seed is fixed, so
	// this cannot flake; a wrong temperature or an off-by-one in the
	// cumulative walk lands far above it.
	if x := chiSquare(counts, softmaxF64(logits, temp), n); x > 24.3 {
		t.Errorf("chi-square vs softmax(l/T) = %.1f > 24.3; counts %v", x, counts)
	}
	if x := chiSquare(counts, softmaxF64(logits, 1), n); x < 1000 {
		t.Errorf("counts also fit softmax(l) (chi-square %.1f): temperature has no effect", x)
	}
}

func TestTopPCutoffSampled(t *testing.T) {
	// Probabilities 0.5, 0.3, 0.15, 0.05 shuffled over ids.
	logits := []float32{lnf(0.15), lnf(0.5), lnf(0.05), lnf(0.3)}
	cases := []struct {
		p    float32
		want map[int32]float64 // id -> renormalized probability
	}{
		{0.75, map[int32]float64{1: 0.5 / 0.8, 3: 0.3 / 0.8}},
		{0.85, map[int32]float64{1: 0.5 / 0.95, 3: 0.3 / 0.95, 0: 0.15 / 0.95}},
		{0.4, map[int32]float64{1: 1}},
		{0, map[int32]float64{1: 0.5, 3: 0.3, 0: 0.15, 2: 0.05}}, // 0: off
	}
	for _, tc := range cases {
		cfg := offConfig(1)
		cfg.TopP, cfg.Seed = tc.p, 77
		s := mustNew(t, cfg, len(logits))
		const n = 40000
		counts := map[int32]int{}
		for range n {
			counts[s.Sample(logits)]++
		}
		for id, c := range counts {
			p, ok := tc.want[id]
			if !ok {
				t.Fatalf("top-p %v: drew excluded token %d", tc.p, id)
			}
			if got := float64(c) / n; math.Abs(got-p) > 0.015 {
				t.Errorf("top-p %v: token %d frequency %.3f, want %.3f", tc.p, id, got, p)
			}
		}
		if len(counts) != len(tc.want) {
			t.Errorf("top-p %v: drew %v, want exactly the ids of %v", tc.p, counts, tc.want)
		}
	}
}

func TestMinPCutoffSampled(t *testing.T) {
	logits := []float32{lnf(0.15), lnf(0.5), lnf(0.05), lnf(0.3)}
	cases := []struct {
		minP float32
		want []int32
	}{
		{0.2, []int32{0, 1, 3}}, // threshold 0.1: 0.05 goes
		{0.5, []int32{1, 3}},    // threshold 0.25: 0.15 goes
		{0.09, []int32{0, 1, 2, 3}},
		{1, []int32{1}},
	}
	for _, tc := range cases {
		for _, topK := range []int{0, 4} { // unsorted and sorted code paths
			cfg := offConfig(1)
			cfg.MinP, cfg.TopK, cfg.Seed = tc.minP, topK, 5
			s := mustNew(t, cfg, len(logits))
			seen := map[int32]bool{}
			for range 5000 {
				seen[s.Sample(logits)] = true
			}
			got := make([]int32, 0, len(seen))
			for id := range seen {
				got = append(got, id)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("min-p %v (top-k %d): drew %v, want %v", tc.minP, topK, got, tc.want)
			}
		}
	}
}

func lnf(p float64) float32 { return float32(math.Log(p)) }

func TestDeterminismBySeed(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rows := make([][]float32, 64)
	for i := range rows {
		rows[i] = randomLogits(r, 3000, 1)
	}
	run := func(seed uint64) []int32 {
		cfg := DefaultConfig()
		cfg.Seed, cfg.RepeatPenalty = seed, 1.1
		s := mustNew(t, cfg, 3000)
		out := make([]int32, len(rows))
		for i, l := range rows {
			out[i] = s.Sample(l)
			s.Accept(out[i])
		}
		return out
	}
	a, b := run(99), run(99)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different tokens:\n%v\n%v", a, b)
	}
	for _, seed := range []uint64{100, 99 | 1<<40} {
		if c := run(seed); slices.Equal(a, c) {
			t.Fatalf("seeds 99 and %d gave the same %d tokens", seed, len(a))
		}
	}
}

func TestResetReproduces(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	rows := make([][]float32, 40)
	for i := range rows {
		rows[i] = randomLogits(r, 200, 1.5)
	}
	cfg := DefaultConfig()
	cfg.Seed, cfg.RepeatPenalty, cfg.FrequencyPenalty, cfg.PenaltyLastN = 3, 1.3, 0.2, 8
	s := mustNew(t, cfg, 200)
	run := func() []int32 {
		out := make([]int32, len(rows))
		for i, l := range rows {
			out[i] = s.Sample(l)
			s.Accept(out[i])
		}
		return out
	}
	first := run()
	second := run() // continues: different RNG state and history
	s.Reset()
	third := run()
	if !slices.Equal(first, third) {
		t.Fatalf("after Reset:\n%v\nwant\n%v", third, first)
	}
	if slices.Equal(first, second) {
		t.Fatalf("without Reset the stream repeated itself; the test cannot tell Reset apart")
	}
}

func TestCallerLogitsUntouched(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	logits := randomLogits(r, 5000, 2)
	logits[17] = float32(math.NaN())
	logits[18] = float32(math.Inf(-1))
	orig := make([]uint32, len(logits))
	for i, v := range logits {
		orig[i] = math.Float32bits(v)
	}
	for _, cfg := range []Config{
		DefaultConfig(),
		{Temperature: 0.5, TopP: 0.9, RepeatPenalty: 1.5, FrequencyPenalty: 1, PresencePenalty: 1, PenaltyLastN: 64},
		{Temperature: 0, RepeatPenalty: 2, PenaltyLastN: 8},
		{Temperature: 2, TopP: 1, MinP: 0.1, RepeatPenalty: 1},
	} {
		s := mustNew(t, cfg, len(logits))
		for range 20 {
			s.Accept(s.Sample(logits))
		}
		for i, v := range logits {
			if math.Float32bits(v) != orig[i] {
				t.Fatalf("config %+v modified logits[%d]", cfg, i)
			}
		}
	}
}

func TestNonFiniteLogits(t *testing.T) {
	nan, ninf, pinf := float32(math.NaN()), float32(math.Inf(-1)), float32(math.Inf(1))
	logits := []float32{ninf, 0.5, nan, 0.2, ninf, nan, 0.1, ninf}
	for _, cfg := range []Config{
		offConfig(1),
		offConfig(0),
		DefaultConfig(),
		{Temperature: 3, TopK: 8, TopP: 0.99999, RepeatPenalty: 1},
		{Temperature: 3, MinP: 0.01, TopP: 1, RepeatPenalty: 1.5, PresencePenalty: 1, PenaltyLastN: 4},
	} {
		cfg.Seed = 11
		s := mustNew(t, cfg, len(logits))
		for range 3000 {
			tok := s.Sample(logits)
			if tok != 1 && tok != 3 && tok != 6 {
				t.Fatalf("config %+v drew token %d with logit %v", cfg, tok, logits[tok])
			}
			s.Accept(tok)
		}
	}

	// +Inf wins outright; two of them share the mass.
	s := mustNew(t, DefaultConfig(), 5)
	inf2 := []float32{1, pinf, 3, pinf, nan}
	seen := map[int32]int{}
	for range 2000 {
		seen[s.Sample(inf2)]++
	}
	if len(seen) != 2 || seen[1] < 800 || seen[3] < 800 {
		t.Fatalf("+Inf logits: drew %v, want ids 1 and 3 about equally", seen)
	}

	// Nothing finite at all: no panic, a valid id.
	for _, cfg := range []Config{DefaultConfig(), offConfig(1), offConfig(0)} {
		s := mustNew(t, cfg, 4)
		if got := s.Sample([]float32{nan, ninf, nan, ninf}); got != 0 {
			t.Fatalf("all -Inf/NaN: got %d, want 0", got)
		}
	}

	// Tiny temperature overflows logits/T to +Inf: still the argmax.
	cfg := offConfig(1e-38)
	s = mustNew(t, cfg, 3)
	if got := s.Sample([]float32{1, 3, 2}); got != 1 {
		t.Fatalf("overflowing temperature: got %d, want 1", got)
	}
}

func TestOddRowLengths(t *testing.T) {
	s := mustNew(t, DefaultConfig(), 4)
	if got := s.Sample(nil); got != -1 {
		t.Fatalf("empty row: got %d, want -1", got)
	}
	if got := s.Sample([]float32{0, 9}); got != 1 {
		t.Fatalf("short row: got %d, want 1", got)
	}
	if got := s.Sample([]float32{0, 0, 0, 0, 100}); got > 3 {
		t.Fatalf("long row: got %d beyond the vocabulary", got)
	}
	s.Accept(-1) // out-of-range ids are ignored, not a panic
	s.Accept(4)
}

func TestSampleDoesNotAllocate(t *testing.T) {
	const vocab = 32000
	r := rand.New(rand.NewPCG(11, 12))
	logits := randomLogits(r, vocab, 3)
	configs := map[string]Config{
		"default":   DefaultConfig(),
		"penalties": {Temperature: 0.7, TopK: 50, TopP: 0.9, MinP: 0.05, RepeatPenalty: 1.2, FrequencyPenalty: 0.1, PresencePenalty: 0.1, PenaltyLastN: 64},
		"greedy":    {Temperature: 0, RepeatPenalty: 1.1, PenaltyLastN: -1},
		"no-top-k":  {Temperature: 1, TopP: 0.99, MinP: 0.01, RepeatPenalty: 1},
		"temp-only": {Temperature: 1, TopP: 1, RepeatPenalty: 1},
	}
	for name, cfg := range configs {
		s := mustNew(t, cfg, vocab)
		for i := range 100 {
			s.Accept(int32(i * 7 % vocab))
		}
		allocs := testing.AllocsPerRun(50, func() {
			s.Accept(s.Sample(logits))
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Sample+Accept", name, allocs)
		}
	}
}

// The zero Config is greedy sampling with every other stage off.
func TestZeroConfigIsGreedy(t *testing.T) {
	s, err := New(Config{}, 5)
	if err != nil {
		t.Fatalf("zero config rejected: %v", err)
	}
	logits := []float32{0.1, 2, -1, 1.9, 0}
	for i := 0; i < 10; i++ {
		if id := s.Sample(logits); id != 1 {
			t.Fatalf("zero config sampled %d, want the argmax 1", id)
		}
		s.Accept(1) // no penalty may push it off the top
	}
}
