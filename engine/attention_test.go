package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
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

// TestAttendF16HeadsTogether checks that the one-row f16 path gives each
// query head the same bits whether it runs alone or with the other heads
// of its KV head (in fours, in pairs: attendF16's nh), for groups of 8, 4,
// 3 and 2 and heads of 64 and 128, at positions below and above a cache
// block and a softmax chunk.
func TestAttendF16HeadsTogether(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	for _, c := range []Config{
		{Heads: 16, KVHeads: 2, HeadDim: 64, HeadDimV: 64},
		{Heads: 8, KVHeads: 2, HeadDim: 128, HeadDimV: 128},
		{Heads: 12, KVHeads: 4, HeadDim: 64, HeadDimV: 64},
		{Heads: 8, KVHeads: 4, HeadDim: 64, HeadDimV: 64},
	} {
		ac := newAttnCase(t, r, c, 32, ggml.F16, 2)
		s := newRunState(&ac.c, len(ac.tokPos))
		j := &s.attn
		j.views, j.tokSeq, j.tokPos, j.scale = ac.views, ac.tokSeq, ac.tokPos, ac.scale
		j.q, j.fastMin = ac.q, math.MaxInt
		items := len(ac.tokPos) * c.Heads
		together := make([]float32, items*c.HeadDimV)
		j.out = together
		j.run(0, items)
		alone := make([]float32, len(together))
		j.out = alone
		for i := 0; i < items; i++ {
			j.run(i, i+1)
		}
		for i := range alone {
			if math.Float32bits(alone[i]) != math.Float32bits(together[i]) {
				t.Fatalf("group %d, heads of %d: item %d element %d: %g together, %g alone",
					c.Heads/c.KVHeads, c.HeadDim, i/c.HeadDimV, i%c.HeadDimV, together[i], alone[i])
			}
		}
	}
}
