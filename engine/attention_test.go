package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFMA32ByOneIsSum checks what softmaxFactors relies on: fma32(a, 1, c)
// (a float64 fused multiply-add rounded to float32) equals the float32 sum
// a + c for every pair, including far-apart exponents, subnormals, zeros
// of both signs and infinities (NaNs only need to stay NaNs).
func TestFMA32ByOneIsSum(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, float32(math.Inf(1)), float32(math.Inf(-1)),
		1 + 1.0/(1<<23), 1.0 / (1 << 24), 3.0 / (1 << 25)}
	check := func(a, c float32) {
		got, want := fma32(a, 1, c), a+c
		if math.IsNaN(float64(want)) {
			if !math.IsNaN(float64(got)) {
				t.Fatalf("fma32(%g, 1, %g) = %g, want NaN", a, c, got)
			}
			return
		}
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%g, 1, %g) = %g (%#x), float32 sum %g (%#x)", a, c, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	for _, a := range special {
		for _, c := range special {
			check(a, c)
		}
	}
	for range 2_000_000 {
		a := math.Float32frombits(r.Uint32())
		c := math.Float32frombits(r.Uint32())
		check(a, c)
		// Nearby exponents, where the rounding of the sum matters most.
		c = a * float32(1+r.Float64()) * float32(1-2*float64(r.IntN(2)))
		check(a, c)
		// Softmax-like: a running sum and a weight in (0, 1].
		check(float32(r.Float64()*100), float32(r.Float64()))
	}
}
