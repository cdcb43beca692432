package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpfMatchesGlibc checks expf32 against outputs of glibc 2.36's expf
// (x86-64, FMA variant) recorded for arguments where glibc and
// float32(math.Exp(float64(x))) disagree, ordinary values, the subnormal
// range and the limits. (The port was compared with glibc on every float
// in [-110, 90]: identical.)
func TestExpfMatchesGlibc(t *testing.T) {
	for _, c := range [][2]uint32{
		{0xc18d73d1, 0x32b3e205}, // expf(-17.681551) = 2.0941124e-08; float32(math.Exp) = 2.0941123e-08
		{0xc066b00c, 0x3cded501}, // expf(-3.604495) = 0.027201178; float32(math.Exp) = 0.027201176
		{0xc01b0e67, 0x3db59c52}, // expf(-2.422754) = 0.08867706; float32(math.Exp) = 0.088677056
		{0xbfced0ee, 0x3e4b82db}, // expf(-1.615751) = 0.19874136; float32(math.Exp) = 0.19874135
		{0xbe5a2329, 0x3f4ee203}, // expf(-0.21302475) = 0.80813617; float32(math.Exp) = 0.8081361
		{0xbd676ab2, 0x3f71effd}, // expf(-0.056498237) = 0.9450682; float32(math.Exp) = 0.9450681
		{0x00000000, 0x3f800000}, // expf(0) = 1
		{0xbf800000, 0x3ebc5ab2}, // expf(-1) = 0.36787945
		{0x3f800000, 0x402df854}, // expf(1) = 2.7182817
		{0xbf000000, 0x3f1b4598}, // expf(-0.5) = 0.60653067
		{0xc1200000, 0x383e6bce}, // expf(-10) = 4.539993e-05
		{0xc2ae999a, 0x0084c38b}, // expf(-87.3) = 1.2192433e-38
		{0x4202422f, 0x56fc9f1c}, // expf(32.564632) = 1.3888015e+14
		{0xc27c65d9, 0x11fa2993}, // expf(-63.09946) = 3.9468667e-28
		{0x42b16666, 0x7f7a37fc}, // expf(88.7) = 3.3259769e+38
		{0xc2cfcccd, 0x00000001}, // expf(-103.9) = 1e-45
		{0xc2d00000, 0x00000000}, // expf(-104) = 0
		{0xff800000, 0x00000000}, // expf(-Inf) = 0
		{0x7f800000, 0x7f800000}, // expf(+Inf) = +Inf
		{0x42b20000, 0x7f800000}, // expf(89) overflows
	} {
		x := math.Float32frombits(c[0])
		if got := math.Float32bits(expf32(x)); got != c[1] {
			t.Errorf("expf32(%v) = %#08x (%v), glibc %#08x (%v)", x, got, math.Float32frombits(got), c[1], math.Float32frombits(c[1]))
		}
	}
	if v := expf32(float32(math.NaN())); v == v {
		t.Errorf("expf32(NaN) = %v", v)
	}
	// Elsewhere within an ulp of the correctly rounded value.
	r := rand.New(rand.NewPCG(45, 46))
	for i := 0; i < 100000; i++ {
		x := float32(r.Float64()*190 - 100)
		got, ref := expf32(x), float32(math.Exp(float64(x)))
		if d := int64(math.Float32bits(got)) - int64(math.Float32bits(ref)); d > 1 || d < -1 {
			t.Fatalf("expf32(%v) = %v, math.Exp %v", x, got, ref)
		}
	}
}

func BenchmarkExpf(b *testing.B) {
	x := float32(-3.25)
	var s float32
	for b.Loop() {
		s += expf32(x)
		x -= 1e-6
	}
	_ = s
}

// TestExpfNImplsBitExact checks every implementation's batched expf against
// the scalar port on arguments across the whole range, specials included,
// at every length and offset a SIMD kernel could split differently.
func TestExpfNImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	src := make([]float32, 1003)
	for i := range src {
		switch i % 5 {
		case 0:
			src[i] = float32(r.Float64()*220 - 120)
		case 1:
			src[i] = -float32(r.ExpFloat64() * 3)
		default:
			src[i] = float32(r.NormFloat64() * 10)
		}
	}
	src[10], src[20], src[30] = float32(math.Inf(-1)), float32(math.NaN()), float32(math.Inf(1))
	src[41], src[42] = 88, -88
	want := make([]float32, len(src))
	for i, x := range src {
		want[i] = expf32(x)
	}
	for _, s := range append([]*kernelSet{genericSet}, simdSets(t)...) {
		for _, off := range []int{0, 1, 3} {
			for _, n := range []int{0, 1, 4, 7, 8, 9, 15, 16, 24, 1000} {
				got := make([]float32, n)
				s.expfN(got, src[off:off+n])
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[off+i]) && !(got[i] != got[i] && want[off+i] != want[off+i]) {
						t.Fatalf("%s: expfN(%v) = %v, expf32 %v", s.name, src[off+i], got[i], want[off+i])
					}
				}
			}
		}
	}
}

func BenchmarkExpfN(b *testing.B) {
	src, dst := make([]float32, 16), make([]float32, 16)
	for i := range src {
		src[i] = -float32(i) * 0.37
	}
	for b.Loop() {
		ExpfN(dst, src)
	}
}
