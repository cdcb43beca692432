package kernels

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// ropeRef rotates x (one head) in float64. If ggmlTheta, the angles are
// accumulated in float32 exactly as ggml does; otherwise they are exact.
func ropeRef(x []float64, dims, pos int, base float64, neox, ggmlTheta bool) {
	ts32 := float32(math.Pow(base, float64(-2/float32(dims))))
	th32 := float32(pos)
	for i := 0; i < dims/2; i++ {
		theta := float64(pos) * math.Pow(base, -2*float64(i)/float64(dims))
		if ggmlTheta {
			theta = float64(th32)
			th32 *= ts32
		}
		c, s := math.Cos(theta), math.Sin(theta)
		a, b := 2*i, 2*i+1
		if neox {
			a, b = i, i+dims/2
		}
		x0, x1 := x[a], x[b]
		x[a] = x0*c - x1*s
		x[b] = x0*s + x1*c
	}
}

func TestRoPE(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	const headDim, heads = 64, 3
	for _, neox := range []bool{false, true} {
		for _, dims := range []int{64, 32} { // full and partial rotation
			rp, err := NewRoPE(headDim, dims, 10000, neox, 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, pos := range []int{0, 1, 7, 99, 100, 3000} { // table and beyond
				x := randFloats(r, heads*headDim, 1)
				orig := append([]float32(nil), x...)
				rp.Apply(x, heads, pos)
				for h := 0; h < heads; h++ {
					for _, ggmlTheta := range []bool{true, false} {
						ref := make([]float64, headDim)
						for i := range ref {
							ref[i] = float64(orig[h*headDim+i])
						}
						ropeRef(ref, dims, pos, 10000, neox, ggmlTheta)
						// Against ggml's float32 angles the only error is
						// float32 cos/sin and rotation; against exact
						// angles, the float32 theta error grows with pos.
						tol := 2e-6
						if !ggmlTheta {
							tol = 2e-6 + 4e-7*float64(pos)
						}
						for i := range ref {
							if got := x[h*headDim+i]; math.Abs(float64(got)-ref[i]) > tol {
								t.Fatalf("neox=%v dims=%d pos=%d ggmlTheta=%v: x[%d][%d] = %v, want %v",
									neox, dims, pos, ggmlTheta, h, i, got, ref[i])
							}
						}
					}
				}
				// Dimensions past dims are untouched.
				for h := 0; h < heads; h++ {
					for i := dims; i < headDim; i++ {
						if x[h*headDim+i] != orig[h*headDim+i] {
							t.Fatalf("dim %d beyond ropeDim changed", i)
						}
					}
				}
			}
		}
	}
	if _, err := NewRoPE(64, 65, 10000, false, 1); !errors.Is(err, ErrBadRoPE) {
		t.Errorf("odd rope dim: err = %v", err)
	}
}

// TestRoPEImplsBitExact runs every implementation's rotation against the
// generic one: both pair layouts, rotated parts that fill whole vectors
// and that do not, heads wider than the rotated part, unaligned slices,
// and nothing past the rotated dims changed.
func TestRoPEImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, s := range simdSets(t) {
		for _, neox := range []bool{false, true} {
			for _, sh := range []struct{ headDim, dims int }{
				{64, 64}, {128, 128}, {128, 64}, {80, 80}, {96, 32}, {8, 8}, {16, 16}, {12, 12}, {6, 4}, {256, 256},
			} {
				for _, heads := range []int{1, 3, 32} {
					off := r.IntN(4)
					x := randFloats(r, off+heads*sh.headDim, 4)[off:]
					cs := make([]float32, sh.dims)
					for i := 0; i < sh.dims/2; i++ {
						a := r.Float64() * 100
						cs[2*i], cs[2*i+1] = float32(math.Cos(a)), float32(math.Sin(a))
					}
					want, got := slices.Clone(x), slices.Clone(x)
					genericSet.rope(want, cs, heads, sh.headDim, sh.dims, neox)
					s.rope(got, cs, heads, sh.headDim, sh.dims, neox)
					if !sameBits(want, got) {
						t.Errorf("%s neox=%v head %d dims %d heads %d: differs from the generic rotation", s.name, neox, sh.headDim, sh.dims, heads)
					}
				}
			}
		}
	}
}
