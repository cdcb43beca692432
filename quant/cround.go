package quant

import "math"

// The reference quantizers are C code whose exact output depends on C's
// float-to-integer conversions. These helpers reproduce them on amd64 (where
// ggml's golden files come from) without relying on Go's
// implementation-defined conversion of out-of-range floats.

// absF32 is fabsf: it clears the sign bit, so -0 and NaN behave as in C.
func absF32(v float32) float32 {
	return math.Float32frombits(math.Float32bits(v) &^ (1 << 31))
}

// truncInt32 is C's (int) cast of a float as x86 performs it (cvttss2si):
// truncation toward zero, with NaN and out-of-range values giving INT_MIN.
func truncInt32(v float32) int32 {
	if !(v >= -2147483648 && v < 2147483648) { // NaN or |v| >= 2^31
		return math.MinInt32
	}
	return int32(v)
}

// truncInt8 is C's (int8_t) cast of a float: gcc converts to int32 and keeps
// the low byte.
func truncInt8(v float32) int8 { return int8(truncInt32(v)) }

// truncUint8 is C's (uint8_t) cast of a float, done the same way.
func truncUint8(v float32) uint8 { return uint8(truncInt32(v)) }

// roundInt8 is `int8_t q = roundf(v)`: round half away from zero, then the
// narrowing conversion above. It avoids math.Round (a float64 bit-twiddling
// call, the bulk of quantizing activations): below 2^23 truncation is exact
// and so is the remainder v - trunc(v), so comparing it with ±0.5 rounds
// exactly as roundf does; larger floats are integers already.
func roundInt8(v float32) int8 {
	if !(absF32(v) < 1<<23) { // NaN, or no fraction bits left
		return truncInt8(v)
	}
	t := int32(v)
	switch f := v - float32(t); {
	case f >= 0.5:
		t++
	case f <= -0.5:
		t--
	}
	return int8(t)
}

// roundSmall is roundInt8 for |v| < 2^22 only (callers prove the bound):
// trunc(v + copysign(0.49999997, v)) equals roundf(v) there. Adding the
// float just below one half cannot carry a fraction below .5 up to the
// next integer (the gap to it is at least one unit in the last place
// plus 2^-25, more than half the spacing of the sum), and a fraction of .5
// or more reaches it, the one tie (1 - 2^-25) rounding to the even 1.0.
// Branch-free, unlike roundInt8's comparisons, which mispredict about as
// often as a rounding goes up.
func roundSmall(v float32) int8 {
	c := math.Float32frombits(0x3effffff | math.Float32bits(v)&(1<<31))
	return int8(int32(v + c))
}
