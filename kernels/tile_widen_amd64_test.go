//go:build !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// wideAVX2Set returns the AVX2 set with the tiles over widened F16, BF16
// and Q8_0 rows, whether or not this CPU takes them by default
// (widenRowsFirst, widenQ8RowsFirst).
func wideAVX2Set(t testing.TB) *kernelSet {
	if !avx2Set.available {
		t.Skip("no AVX2 on this CPU")
	}
	s := *avx2Set
	widenHalfTiles(&s)
	widenQ8Tiles(&s)
	return &s
}

// TestWideRowsMatMul runs prefill over widened rows (tile_widen.go,
// tile_q8_wide.go) through MatMul, against the generic single-token
// kernels to the bit: rows that fill no whole tile or unit, lengths that
// are not whole groups (which keep the set's own tiles), batches around
// minTokens, one and two threads. It checks that the batches past
// minTokens took the rewrite.
func TestWideRowsMatMul(t *testing.T) {
	saved := active
	defer func() { active = saved }()
	active = wideAVX2Set(t)
	r := rand.New(rand.NewPCG(91, 92))
	pools := []*Pool{NewPool(1), NewPool(2)}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for _, wt := range []ggml.Type{ggml.F16, ggml.BF16, ggml.Q8_0} {
		tp := active.tileRewrite[wt]
		for _, sh := range []struct{ rows, cols int }{{3, 8}, {3, 32}, {17, 1200}, {17, 1216}, {100, 520}, {40, 61}, {5, 96}} {
			if sh.cols%blockElems(wt) != 0 {
				continue
			}
			w := randomWeights(r, wt, sh.rows*sh.cols, []float32{0.05, 300, 1e-4}[sh.rows%3], 7)
			m, err := NewMatrix(wt, sh.rows, sh.cols, w)
			if err != nil {
				t.Fatal(err)
			}
			for _, ntok := range []int{tp.minTokens - 1, tp.minTokens, 70, 129} {
				x := randFloats(r, ntok*sh.cols, []float32{1, 1e-3, 40}[ntok%3])
				for pi, p := range pools {
					a := NewScratch(sh.cols, ntok).Quantize(p, wt, x, ntok, sh.cols)
					job, _ := p.newMatmulJob(make([]float32, ntok*sh.rows), m, a)
					if took, want := job.rewrite != nil, ntok >= tp.minTokens && sh.cols%tp.colsMultiple == 0; took != want {
						t.Fatalf("%v %dx%d ntok=%d: rewrite taken %v, want %v", wt, sh.rows, sh.cols, ntok, took, want)
					}
					out := make([]float32, ntok*sh.rows)
					p.MatMul(out, m, a)
					for tok := 0; tok < ntok; tok++ {
						ref := twinOf(active).tokenDot(wt, tok, ntok)
						for row := 0; row < sh.rows; row++ {
							want := ref(sh.cols, m.Row(row), a.Row(tok))
							if got := out[tok*sh.rows+row]; math.Float32bits(got) != math.Float32bits(want) {
								t.Fatalf("%v %dx%d ntok=%d pool %d: out[tok %d, row %d] = %v, generic %v",
									wt, sh.rows, sh.cols, ntok, pi, tok, row, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// rewriteTestSets are the sets with tiles over rewritten rows that this
// CPU does not choose by default, for the kernel tests: the AVX2 set with
// the widened rows, and with the interleaved BF16 rows.
func rewriteTestSets(t testing.TB) []*kernelSet {
	if !avx2Set.available {
		return nil
	}
	var sets []*kernelSet
	if !widenRowsFirst || !widenQ8RowsFirst {
		sets = append(sets, wideAVX2Set(t))
	}
	if avx2Set.tileRewrite[ggml.BF16] != bf16IlvTiles {
		s := *avx2Set
		ilvBF16Tiles(&s)
		sets = append(sets, &s)
	}
	return sets
}
