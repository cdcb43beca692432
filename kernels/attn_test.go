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

// TestAttnRowsBitExact checks the batched flash-attention helpers against
// the per-row calls they replace (generic) and every implementation
// against the generic one: strided rows, row lengths with and without
// SIMD tails, scale factors of exactly 1 (skipped), 0, NaN and others.
func TestAttnRowsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 40))
	sets := append([]*kernelSet{genericSet}, simdSets(t)...)
	for _, n := range []int{8, 24, 32, 64, 96, 100, 128, 256} {
		const rows, stride = 19, 300
		q := randHalves(r, n, 1)
		k := randHalves(r, (rows-1)*stride+n, 2)
		v := randHalves(r, (rows-1)*stride+n, 2)
		ms, vs := make([]float32, rows), make([]float32, rows)
		for i := range ms {
			ms[i] = []float32{1, 1, 0.25, 1, 0, 0.999, float32(math.NaN())}[i%7]
			vs[i] = float32(r.Float64())
		}
		// Reference: one call per row.
		wantDot := make([]float32, rows)
		wantAcc := randHalves(r, n, 1)
		acc0 := slices.Clone(wantAcc)
		for i := range wantDot {
			wantDot[i] = genericSet.dotF16F16(q, k[i*stride:i*stride+n])
			if ms[i] != 1 {
				genericSet.scaleF16(wantAcc, ms[i])
			}
			genericSet.madF16(wantAcc, v[i*stride:i*stride+n], vs[i])
		}
		for _, s := range sets {
			got := make([]float32, rows)
			s.dotF16Rows(got, q, k, stride)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(wantDot[i]) {
					t.Errorf("%s DotF16Rows n=%d row %d: %v, want %v", s.name, n, i, got[i], wantDot[i])
				}
			}
			acc := slices.Clone(acc0)
			s.madF16Rows(acc, v, stride, ms, vs)
			if !slices.Equal(acc, wantAcc) {
				t.Errorf("%s MadF16Rows n=%d differs from per-row calls", s.name, n)
			}
			// The two-head versions: the same head twice, and with the
			// second head's factors reversed.
			got2 := make([]float32, rows)
			q2 := randHalves(r, n, 1)
			s.dotF16Rows2(got, got2, q, q2, k, stride)
			for i := range got {
				want2 := genericSet.dotF16F16(q2, k[i*stride:i*stride+n])
				if math.Float32bits(got[i]) != math.Float32bits(wantDot[i]) || math.Float32bits(got2[i]) != math.Float32bits(want2) {
					t.Errorf("%s DotF16Rows2 n=%d row %d differs", s.name, n, i)
				}
			}
			ms2, vs2 := slices.Clone(ms), slices.Clone(vs)
			slices.Reverse(ms2)
			slices.Reverse(vs2)
			wantAcc2 := slices.Clone(acc0)
			genericSet.madF16Rows(wantAcc2, v, stride, ms2, vs2)
			a1, a2 := slices.Clone(acc0), slices.Clone(acc0)
			s.madF16Rows2(a1, a2, v, stride, ms, vs, ms2, vs2)
			if !slices.Equal(a1, wantAcc) || !slices.Equal(a2, wantAcc2) {
				t.Errorf("%s MadF16Rows2 n=%d differs from per-row calls", s.name, n)
			}
			// Four heads, each with its own factors: finite ones (a 0 or a
			// NaN would erase what differed before it), half of them 1.
			var accs [4][]uint16
			var ms4, vs4 [4][]float32
			for h := range accs {
				accs[h] = slices.Clone(acc0)
				ms4[h], vs4[h] = make([]float32, rows), make([]float32, rows)
				for i := range ms4[h] {
					ms4[h][i], vs4[h][i] = 1, float32(r.Float64())
					if r.IntN(2) == 0 {
						ms4[h][i] = float32(0.5 + r.Float64()/2)
					}
				}
			}
			s.madRows4(accs, v, stride, ms4, vs4)
			for h := range accs {
				want := slices.Clone(acc0)
				genericSet.madF16Rows(want, v, stride, ms4[h], vs4[h])
				if !slices.Equal(accs[h], want) {
					t.Errorf("%s MadF16Rows4 n=%d head %d differs from per-row calls", s.name, n, h)
				}
			}
		}
	}
}

func BenchmarkAttnRows(b *testing.B) {
	r := rand.New(rand.NewPCG(47, 48))
	const n, rows, stride = 64, 16, 256
	q := randHalves(r, n, 1)
	k := randHalves(r, rows*stride, 1)
	acc := randHalves(r, n, 1)
	ms, vs := make([]float32, rows), make([]float32, rows)
	for i := range ms {
		ms[i], vs[i] = 1, 0.5
	}
	out := make([]float32, rows)
	b.Run("dot", func(b *testing.B) {
		for b.Loop() {
			DotF16Rows(out, q, k, stride)
		}
	})
	b.Run("mad", func(b *testing.B) {
		for b.Loop() {
			MadF16Rows(acc, k, stride, ms, vs)
		}
	})
	b.Run("mad-per-row", func(b *testing.B) {
		for b.Loop() {
			for i := 0; i < rows; i++ {
				MadF16(acc, k[i*stride:i*stride+n], vs[i])
			}
		}
	})
}
