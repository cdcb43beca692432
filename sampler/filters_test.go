package sampler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func makeCandidates(l []float32) []candidate {
	c := make([]candidate, len(l))
	for i, v := range l {
		c[i] = candidate{id: int32(i), logit: v}
	}
	return c
}

func TestSelectTopMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 2, 5, 100, 1000, 5000} {
		for _, k := range []int{1, 2, 3, 40, 256, n / 3, n - 1, n} {
			if k < 1 || k > n {
				continue
			}
			l := randomLogits(r, n, 1)
			for i := range l { // plenty of ties
				if r.IntN(4) == 0 {
					l[i] = float32(math.Round(float64(l[i])))
				}
			}
			want := makeCandidates(l)
			sortCandidates(want)
			got := makeCandidates(l)
			selectTop(got, k)
			if !slices.Equal(got[:k], want[:k]) {
				t.Fatalf("n=%d k=%d: head differs from a full sort", n, k)
			}
			// The tail still holds every other candidate exactly once.
			ids := make([]int32, n)
			for i, c := range got {
				ids[i] = c.id
			}
			slices.Sort(ids)
			for i, id := range ids {
				if id != int32(i) {
					t.Fatalf("n=%d k=%d: candidates lost or duplicated", n, k)
				}
			}
		}
	}
}

func TestTopPAdaptiveExtends(t *testing.T) {
	// Nuclei much wider than the 256-entry head: top-p must extend the sorted
	// head (bucket partition of the tail, or a full sort) and still equal a
	// plain cumulative walk over the fully sorted set.
	r := rand.New(rand.NewPCG(23, 24))
	for _, shape := range []struct {
		n     int
		scale float32
	}{{3000, 0.1}, {20000, 1}, {20000, 3}, {50000, 8}} {
		l := randomLogits(r, shape.n, shape.scale)
		for _, p := range []float32{0.01, 0.1, 0.5, 0.9, 0.95, 0.999} {
			got := topP(makeCandidates(l), false, p)

			ref := makeCandidates(l)
			softmax(ref)
			sortCandidates(ref)
			var cum float32
			n := len(ref)
			for i := range ref {
				cum += ref[i].p
				if cum >= p {
					n = i + 1
					break
				}
			}
			if len(got) != n {
				t.Fatalf("n=%d scale=%v p=%v: kept %d, want %d", shape.n, shape.scale, p, len(got), n)
			}
			for i := range got {
				if got[i].id != ref[i].id {
					t.Fatalf("n=%d scale=%v p=%v: order differs at %d", shape.n, shape.scale, p, i)
				}
			}
		}
	}
}

func TestMinPSortedAndUnsortedAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for range 50 {
		l := randomLogits(r, 300, 2)
		for _, p := range []float32{0.01, 0.05, 0.3, 0.9, 1} {
			u := minP(makeCandidates(l), false, p)
			sc := makeCandidates(l)
			sortCandidates(sc)
			s := minP(sc, true, p)
			if len(u) != len(s) {
				t.Fatalf("p=%v: unsorted kept %d, sorted %d", p, len(u), len(s))
			}
			cut := slices.Max(l) + float32(math.Log(float64(p)))
			for i := 1; i < len(u); i++ {
				if u[i].id <= u[i-1].id {
					t.Fatalf("unsorted min-p reordered candidates")
				}
			}
			for _, c := range u {
				if c.logit < cut {
					t.Fatalf("p=%v: kept logit %v below %v", p, c.logit, cut)
				}
			}
		}
	}
}

// Four equal logits give probabilities of exactly 0.25, so p = 0.5 is reached
// exactly after two tokens: llama.cpp's test is cum >= p, which keeps two,
// not three.
func TestTopPExactBoundary(t *testing.T) {
	l := []float32{1, 1, 1, 1}
	if got := topP(makeCandidates(l), false, 0.5); len(got) != 2 || got[0].id != 0 || got[1].id != 1 {
		t.Fatalf("top-p 0.5 over four equal tokens kept %v, want ids 0 and 1", got)
	}
	cfg := offConfig(1)
	cfg.TopP = 0.5
	s := mustNew(t, cfg, 4)
	for range 2000 {
		if tok := s.Sample(l); tok > 1 {
			t.Fatalf("drew %d, outside the 0.5 nucleus {0, 1}", tok)
		}
	}
}
