package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/quant"
)

// TestGELU checks the f16-table GELU against the function it tabulates:
// within f16 rounding of both input and output, exact at the clamps, and
// GeGLU is GELU times up in every implementation.
func TestGELU(t *testing.T) {
	x := make([]float32, 1000)
	up := make([]float32, len(x))
	for i := range x {
		x[i] = float32(i-500) / 40 // -12.5 .. 12.5
		up[i] = float32(i%7) - 3
	}
	saved := active
	defer func() { active = saved }()
	for _, impl := range append([]*kernelSet{genericSet}, simdSets(t)...) {
		active = impl
		g := make([]float32, len(x))
		GELU(g, x)
		for i, v := range x {
			want := float64(v) * 0.5 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*float64(v)*(1+0.044715*float64(v)*float64(v))))
			switch {
			case v <= -10:
				want = 0
			case v >= 10:
				want = float64(v)
			}
			// Input rounded to f16 (relative 2^-11), output too.
			if d := math.Abs(float64(g[i]) - want); d > 2e-3*math.Abs(want)+1e-4 {
				t.Errorf("gelu(%g) = %g, want %g", v, g[i], want)
			}
			if v > -10 && v < 10 && quant.FP16ToFP32(quant.FP32ToFP16(g[i])) != g[i] {
				t.Errorf("gelu(%g) = %g is not an f16 value", v, g[i])
			}
		}
		out := make([]float32, len(x))
		GeGLU(out, x, up)
		for i := range out {
			if out[i] != g[i]*up[i] {
				t.Fatalf("geglu[%d] = %g, want %g", i, out[i], g[i]*up[i])
			}
		}
		// In place over gate.
		cp := append([]float32(nil), x...)
		GeGLU(cp, cp, up)
		for i := range cp {
			if cp[i] != out[i] {
				t.Fatalf("%s: in-place geglu[%d] = %g, want %g", impl.name, i, cp[i], out[i])
			}
		}
	}
}

// TestGeGLUImplsBitExact compares every implementation's GeGLU and GELU
// with the generic code on float32 bit patterns spread over the whole
// range (subnormals, the clamps' neighbourhoods, infinities, NaNs), odd
// lengths (the SIMD groups' tail), and unaligned slices.
func TestGeGLUImplsBitExact(t *testing.T) {
	const n = 1<<16 + 13
	x := make([]float32, n+1)
	up := make([]float32, n+1)
	r := uint32(12345)
	for i := range x {
		r = r*1664525 + 1013904223
		switch i % 4 {
		case 0: // any bit pattern
			x[i] = math.Float32frombits(r)
		case 1: // the table's useful range
			x[i] = float32(int32(r)) / (1 << 27)
		case 2: // around the clamps
			x[i] = float32(10+float64(int32(r))/(1<<30)) * float32(1-2*int(r>>31&1))
		default: // steps of one f16 ulp around the rounding ties
			x[i] = math.Float32frombits(r&0x8000_0000 | 0x3c00_0000 + r&0x0fff_f000 | 0x1000)
		}
		up[i] = float32(int32(r>>1)) / (1 << 30)
	}
	x[1], x[2], x[3], x[5] = float32(math.Inf(1)), float32(math.Inf(-1)), -10, 10
	x[6], x[7] = math.Float32frombits(0x7fc00001), math.Float32frombits(0xff800001)
	same := func(a, b float32) bool {
		return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
	}
	tab := geluLookup()
	want := make([]float32, n+1)
	wantG := make([]float32, n+1)
	gegluGeneric(want, x, up, tab)
	gegluGeneric(wantG, x, nil, tab)
	saved := active
	defer func() { active = saved }()
	for _, impl := range simdSets(t) {
		active = impl
		for _, off := range []int{0, 1} {
			for _, l := range []int{n, 8, 15, 64} {
				xs, us := x[off:off+l], up[off:off+l]
				got := make([]float32, l)
				GeGLU(got, xs, us)
				gotG := make([]float32, l)
				GELU(gotG, xs)
				for i := range got {
					if !same(got[i], want[off+i]) || !same(gotG[i], wantG[off+i]) {
						t.Fatalf("%s: off %d len %d: x[%d] = %g (%#x): geglu %g, gelu %g; generic %g, %g",
							impl.name, off, l, i, xs[i], math.Float32bits(xs[i]), got[i], gotG[i], want[off+i], wantG[off+i])
					}
				}
			}
		}
	}
}

// BenchmarkGeGLU times one gemma3-1b FFN row (6912 elements) per op.
func BenchmarkGeGLU(b *testing.B) {
	r := rand.New(rand.NewPCG(19, 20))
	g, u := randFloats(r, 6912, 3), randFloats(r, 6912, 1)
	out := make([]float32, len(g))
	b.Run(Impl(), func(b *testing.B) {
		for b.Loop() {
			GeGLU(out, g, u)
		}
	})
}
