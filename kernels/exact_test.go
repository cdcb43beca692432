package kernels

import (
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
			if sameFunc(s.vecDot[wt], genericSet.vecDot[wt]) {
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
				if g, v := genericSet.vecDot[wt](n, w, a), s.vecDot[wt](n, w, a); g != v {
					t.Errorf("%s %v n=%d: generic %v, %s %v", s.name, wt, n, g, s.name, v)
					break
				}
			}
		}
	}
}
