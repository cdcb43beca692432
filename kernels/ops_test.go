package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/quant"
)

func closeTo(got float32, want, tol float64) bool { return math.Abs(float64(got)-want) <= tol }

func TestRMSNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 7, 64, 2048} {
		x := randFloats(r, n, 3)
		w := randFloats(r, n, 1)
		const eps = 1e-5
		var ss float64
		for _, v := range x {
			ss += float64(v) * float64(v)
		}
		scale := 1 / math.Sqrt(ss/float64(n)+eps)
		out := make([]float32, n)
		RMSNorm(out, x, w, eps)
		for i := range x {
			want := float64(x[i]) * scale * float64(w[i])
			if !closeTo(out[i], want, 1e-6*math.Abs(want)+1e-12) {
				t.Fatalf("n=%d: out[%d] = %v, want %v", n, i, out[i], want)
			}
		}
		RMSNorm(x, x, w, eps) // in place
		for i := range x {
			if x[i] != out[i] {
				t.Fatalf("in-place RMSNorm differs at %d", i)
			}
		}
	}
}

// TestRMSNormRows: RMSNormRows gives RMSNorm's bits row by row, for row
// counts with and without whole fours, in place too, and writes nothing
// past the rows.
func TestRMSNormRows(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, dim := range []int{1, 7, 64, 2048} {
		for _, rows := range []int{1, 3, 4, 5, 9} {
			x := randFloats(r, rows*dim, 3)
			for i := range x { // rows of very different sizes
				x[i] *= float32(math.Pow(10, float64(i/dim%5-2)))
			}
			w := randFloats(r, dim, 1)
			want := make([]float32, rows*dim)
			for i := 0; i < rows; i++ {
				RMSNorm(want[i*dim:(i+1)*dim], x[i*dim:(i+1)*dim], w, 1e-6)
			}
			got := make([]float32, rows*dim+1)
			got[rows*dim] = -7
			RMSNormRows(got[:rows*dim], x, w, dim, 1e-6)
			if !sameBits(want, got[:rows*dim]) || got[rows*dim] != -7 {
				t.Fatalf("dim=%d rows=%d: RMSNormRows differs from RMSNorm per row", dim, rows)
			}
			RMSNormRows(x, x, w, dim, 1e-6)
			if !sameBits(want, x) {
				t.Fatalf("dim=%d rows=%d: in-place RMSNormRows differs", dim, rows)
			}
		}
	}
}

func TestSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 5, 100, 1000} {
		x := randFloats(r, n, 10)
		x[n/2] = float32(math.Inf(-1)) // a masked entry
		if n == 1 {
			x[0] = 3
		}
		m := math.Inf(-1)
		for _, v := range x {
			m = math.Max(m, float64(v))
		}
		want := make([]float64, n)
		var sum float64
		for i, v := range x {
			want[i] = math.Exp(float64(v) - m)
			sum += want[i]
		}
		Softmax(x)
		var got float64
		for i := range x {
			// float32 rounding of v-max (up to ~40 here) costs ~2.4e-6 relative.
			if !closeTo(x[i], want[i]/sum, 5e-6*want[i]/sum+1e-30) {
				t.Fatalf("n=%d: x[%d] = %v, want %v", n, i, x[i], want[i]/sum)
			}
			got += float64(x[i])
		}
		if math.Abs(got-1) > 1e-5 {
			t.Fatalf("n=%d: sum %v", n, got)
		}
	}
	Softmax(nil)
}

func TestSwiGLU(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	g := randFloats(r, 333, 5)
	g[0], g[1] = -100, 100 // saturation: silu -> 0 and x
	u := randFloats(r, 333, 2)
	out := make([]float32, 333)
	SwiGLU(out, g, u)
	for i := range g {
		x := float64(g[i])
		want := x / (1 + math.Exp(-x)) * float64(u[i])
		if !closeTo(out[i], want, 1e-6*math.Abs(want)+1e-30) {
			t.Fatalf("out[%d] = %v, want %v", i, out[i], want)
		}
	}
}

// TestFloatKernels checks Dot, Axpy, Add, DotF16, AxpyF16 and F32ToF16
// against float64 references and quant's scalar conversion.
func TestFloatKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{0, 1, 3, 8, 31, 64, 100, 1027} {
		a := randFloats(r, n, 1)
		b := randFloats(r, n, 1)
		var want, abs float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
			abs += math.Abs(float64(a[i]) * float64(b[i]))
		}
		if got := Dot(a, b); !closeTo(got, want, 1e-6*abs+1e-30) {
			t.Errorf("Dot n=%d = %v, want %v", n, got, want)
		}
		h := make([]uint16, n)
		F32ToF16(h, b)
		for i, v := range b {
			if h[i] != quant.FP32ToFP16(v) {
				t.Fatalf("F32ToF16(%v) = %#x, want %#x", v, h[i], quant.FP32ToFP16(v))
			}
		}
		want, abs = 0, 0
		for i := range a {
			p := float64(a[i]) * float64(quant.FP16ToFP32(h[i]))
			want += p
			abs += math.Abs(p)
		}
		if got := DotF16(a, h); !closeTo(got, want, 1e-6*abs+1e-30) {
			t.Errorf("DotF16 n=%d = %v, want %v", n, got, want)
		}
		y := randFloats(r, n, 1)
		y2 := append([]float32(nil), y...)
		y3 := append([]float32(nil), y...)
		Axpy(y, 0.37, a)
		AxpyF16(y2, -1.5, h)
		Add(y3, a)
		for i := range y {
			w1 := float64(y3[i]-a[i]) + 0.37*float64(a[i])
			if !closeTo(y[i], w1, 1e-6*(math.Abs(w1)+1)) {
				t.Fatalf("Axpy n=%d [%d] = %v, want %v", n, i, y[i], w1)
			}
		}
	}
}

// TestSwiGLUImplsBitExact runs SwiGLU with every implementation on inputs
// across exp's whole range (including the slow path beyond |x| ~ 87 that
// SIMD kernels may hand back to the generic code, NaN and infinities) and
// requires identical bits.
func TestSwiGLUImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const n = 4099
	g := make([]float32, n)
	for i := range g {
		switch i % 7 {
		case 0:
			g[i] = float32(r.NormFloat64()) * 100
		case 1:
			g[i] = float32(r.NormFloat64()) * 1e-3
		default:
			g[i] = float32(r.NormFloat64()) * 8
		}
	}
	g[100], g[200], g[300] = float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())
	g[408], g[416] = 87.5, -88.7
	u := randFloats(r, n, 2)
	defer SetImpl(active.name)
	want := make([]float32, n)
	if err := SetImpl("generic"); err != nil {
		t.Fatal(err)
	}
	SwiGLU(want, g, u)
	for _, s := range simdSets(t) {
		SetImpl(s.name)
		got := make([]float32, n)
		SwiGLU(got, g, u)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: out[%d] (gate %v) = %v, generic %v", s.name, i, g[i], got[i], want[i])
			}
		}
	}
}

func BenchmarkSwiGLU(b *testing.B) {
	r := rand.New(rand.NewPCG(17, 18))
	g, u := randFloats(r, 5632, 3), randFloats(r, 5632, 1)
	out := make([]float32, 5632)
	for b.Loop() {
		SwiGLU(out, g, u)
	}
}
