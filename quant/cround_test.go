package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCConversions(t *testing.T) {
	nan := float32(math.NaN())
	i32 := []struct {
		in   float32
		want int32
	}{{-0.9, 0}, {2.99, 2}, {-2.99, -2}, {3e9, math.MinInt32}, {-3e9, math.MinInt32}, {nan, math.MinInt32}, {-2147483648, math.MinInt32}}
	for _, c := range i32 {
		if got := truncInt32(c.in); got != c.want {
			t.Errorf("truncInt32(%v) = %d, want %d", c.in, got, c.want)
		}
	}
	if got := truncInt8(300.7); got != 44 { // 300 & 0xff
		t.Errorf("truncInt8(300.7) = %d", got)
	}
	if got := truncUint8(32.5); got != 32 {
		t.Errorf("truncUint8(32.5) = %d", got)
	}
	r := []struct {
		in   float32
		want int8
	}{{2.5, 3}, {-2.5, -3}, {0.5, 1}, {-0.5, -1}, {0.49999997, 0}, {127.4, 127}, {-126.5, -127}, {nan, 0}}
	for _, c := range r {
		if got := roundInt8(c.in); got != c.want {
			t.Errorf("roundInt8(%v) = %d, want %d", c.in, got, c.want)
		}
	}
	if a := absF32(float32(math.Copysign(0, -1))); math.Float32bits(a) != 0 {
		t.Errorf("absF32(-0) bits %#x", math.Float32bits(a))
	}
}

// roundInt8 must agree with roundf (math.Round is the same function) for
// every float32: random bit patterns, plus every half and its neighbours.
func TestRoundInt8MatchesRoundf(t *testing.T) {
	check := func(v float32) {
		want := truncInt8(float32(math.Round(float64(v))))
		if got := roundInt8(v); got != want {
			t.Fatalf("roundInt8(%v [%#08x]) = %d, want %d", v, math.Float32bits(v), got, want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		check(math.Float32frombits(r.Uint32()))
		check(float32(r.NormFloat64() * 100))
	}
	for i := -300; i <= 300; i++ {
		h := float32(i) + 0.5
		check(h)
		check(math.Nextafter32(h, 1000))
		check(math.Nextafter32(h, -1000))
	}
	for _, v := range []float32{0.49999997, -0.49999997, 1 << 23, -(1 << 23), 8388607.5, -8388607.5, 1 << 31, float32(math.Inf(-1))} {
		check(v)
	}
}
