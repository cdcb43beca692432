package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gollm/gollm/quant"
)

// randHalves returns n random IEEE halves of magnitude around scale
// (including subnormal halves when scale is tiny).
func randHalves(r *rand.Rand, n int, scale float32) []uint16 {
	h := make([]uint16, n)
	for i := range h {
		h[i] = quant.FP32ToFP16(float32(r.NormFloat64()) * scale)
	}
	return h
}

// TestAttnF16ImplsBitExact checks the SIMD flash-attention helpers against
// the generic ones bit for bit, at lengths with and without tails.
func TestAttnF16ImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for _, s := range simdSets(t) {
		for _, n := range []int{0, 1, 7, 8, 31, 32, 33, 64, 100, 128, 256} {
			for _, scale := range []float32{1, 1e-5, 300} {
				x, y := randHalves(r, n, scale), randHalves(r, n, 1)
				if g, v := genericSet.dotF16F16(x, y), s.dotF16F16(x, y); g != v && !(g != g && v != v) {
					t.Errorf("%s DotF16F16 n=%d scale %v: generic %v, %v", s.name, n, scale, g, v)
				}
				v := float32(r.NormFloat64())
				ya, yb := slices.Clone(y), slices.Clone(y)
				genericSet.madF16(ya, x, v)
				s.madF16(yb, x, v)
				if !slices.Equal(ya, yb) {
					t.Errorf("%s MadF16 n=%d scale %v differs", s.name, n, scale)
				}
				genericSet.scaleF16(ya, v*scale)
				s.scaleF16(yb, v*scale)
				if !slices.Equal(ya, yb) {
					t.Errorf("%s ScaleF16 n=%d differs", s.name, n)
				}
				fa, fb := make([]float32, n), make([]float32, n)
				genericSet.f16ToF32(fa, x)
				s.f16ToF32(fb, x)
				if !slices.Equal(fa, fb) {
					t.Errorf("%s F16ToF32 n=%d differs", s.name, n)
				}
				// Narrowing: normal, subnormal-result, overflowing and
				// halfway values.
				src := randFloats(r, n, scale*70000)
				for i := range src {
					if i%5 == 0 {
						src[i] = float32(math.Ldexp(float64(2*r.IntN(2048)+1), -25)) // exact ties in the subnormal range
					}
				}
				ha, hb := make([]uint16, n), make([]uint16, n)
				genericSet.f32ToF16(ha, src)
				s.f32ToF16(hb, src)
				if !slices.Equal(ha, hb) {
					t.Errorf("%s F32ToF16 n=%d scale %v differs", s.name, n, scale)
				}
			}
		}
	}
}

func BenchmarkAttnF16(b *testing.B) {
	r := rand.New(rand.NewPCG(39, 40))
	const n = 128 // a head
	x, y := randHalves(r, n, 1), randHalves(r, n, 1)
	for _, s := range implementations {
		if !s.available {
			continue
		}
		b.Run(s.name+"/DotF16F16", func(b *testing.B) {
			for b.Loop() {
				s.dotF16F16(x, y)
			}
		})
		b.Run(s.name+"/MadF16", func(b *testing.B) {
			for b.Loop() {
				s.madF16(y, x, 0.5)
			}
		})
	}
}
