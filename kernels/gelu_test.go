package kernels

import (
	"math"
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
