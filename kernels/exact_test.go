package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestVecDotImplsBitExact checks that the SIMD kernels reproduce the generic
// kernels' float order exactly (not just within rounding): the generic
// kernels follow llama.cpp's accumulation order, and the purego and SIMD
// builds must give identical logits.
func TestVecDotImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for _, s := range simdSets(t) {
		for _, wt := range weightTypes {
			ref := twinOf(s)
			if sameFunc(s.vecDot[wt], ref.vecDot[wt]) {
				continue
			}
			at := vecDotType[wt]
			bs := max(blockSize(wt), blockSize(at), 8)
			for it := 0; it < 300; it++ {
				n := bs * (1 + it%9)
				w := randomWeights(r, wt, n, []float32{0.1, 1e-3, 50}[it%3], 4)
				if wt == ggml.Q8_0 {
					clampQ8(w)
				}
				a := make([]byte, rowBytes(at, n))
				genericSet.quantize[at](randFloats(r, n, []float32{1, 30, 1e-2}[it%3]), a)
				if g, v := ref.vecDot[wt](n, w, a), s.vecDot[wt](n, w, a); g != v {
					t.Errorf("%s %v n=%d: generic %v, %s %v", s.name, wt, n, g, s.name, v)
					break
				}
			}
		}
	}
}

// TestVecDot1ImplsBitExact checks the one-token (ggml_vec_dot order) float
// kernels of every implementation, and their four-row twins, against the
// generic ones: lengths with and without tails after the groups of 32,
// unaligned rows, an all-zero row.
func TestVecDot1ImplsBitExact(t *testing.T) {
	defer func(v bool) { streamPrefetch = v }(streamPrefetch)
	r := rand.New(rand.NewPCG(49, 50))
	for _, s := range simdSets(t) {
		for _, wt := range weightTypes {
			f := s.vecDot1[wt]
			if f == nil {
				continue
			}
			for _, n := range []int{1, 8, 31, 32, 33, 64, 100, 256, 2048} {
				w := randomWeights(r, wt, n, 1, 0)
				a := randomWeights(r, vecDotType[wt], n, 2, 0)
				wb, ab := make([]byte, len(w)+1), make([]byte, len(a)+3)
				copy(wb[1:], w)
				copy(ab[3:], a)
				g, v := twinOf(s).vecDot1[wt](n, w, a), f(n, wb[1:], ab[3:])
				if math.Float32bits(g) != math.Float32bits(v) {
					t.Errorf("%s %v n=%d: generic %v, %v", s.name, wt, n, g, v)
				}
				if f4 := s.vecDot1R4[wt]; f4 != nil {
					// Four rows at once, wstride bytes apart (odd), in
					// both forms of the kernels with a prefetching twin.
					rb := rowBytes(wt, n)
					ws := rb + 5
					w4 := make([]byte, 1+3*ws+rb)
					for k := 0; k < 4; k++ {
						copy(w4[1+k*ws:], randomWeights(r, wt, n, []float32{1, 1e-3, 40, 0}[k], 0))
					}
					for _, pf := range []bool{false, true} {
						streamPrefetch = pf
						out := make([]float32, 4*3)
						f4(n, w4[1:], ws, ab[3:], out, 3)
						for k := 0; k < 4; k++ {
							want := twinOf(s).vecDot1[wt](n, w4[1+k*ws:1+k*ws+rb], a)
							if got := out[3*k]; math.Float32bits(got) != math.Float32bits(want) {
								t.Errorf("%s %v four rows n=%d prefetch %v: row %d = %v, generic %v", s.name, wt, n, pf, k, got, want)
							}
						}
					}
				}
			}
		}
	}
}
