package quant

import (
	"math"
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
