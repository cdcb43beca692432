package quant

import "math"

// The block quantizers start by finding the element of largest magnitude,
// keeping the first one on ties (C's `if (amax < fabsf(v)) { amax = ...;
// max = v; }`). On float bit patterns with the sign cleared, "larger
// magnitude" is "larger unsigned integer" for every value except NaN, so
// the scan is done on integers, where the compiler turns the update into
// conditional moves instead of a branch that mispredicts on every new
// record. NaN has the largest patterns of all, so a result at or above
// expInf (an infinity or a NaN) tells the caller to take its plain path,
// which has C's NaN behaviour.

// expInf is the bit pattern of +Inf: every finite magnitude is below it.
const expInf = 0x7f800000

// absMax32 returns the largest |v| over x as float bits (ab) and the bits
// of the first element with that magnitude (mb). With ab >= expInf the
// block holds an infinity or a NaN and mb means nothing. The two halves are
// scanned as independent chains and merged so that the first half wins ties,
// as a single forward scan would.
func absMax32(x *[32]float32) (ab, mb uint32) {
	var a0, m0, a1, m1 uint32
	for j := 0; j < 16; j++ {
		b0 := math.Float32bits(x[j])
		b1 := math.Float32bits(x[j+16])
		if v := b0 &^ (1 << 31); v > a0 {
			a0, m0 = v, b0
		}
		if v := b1 &^ (1 << 31); v > a1 {
			a1, m1 = v, b1
		}
	}
	if a1 > a0 {
		return a1, m1
	}
	return a0, m0
}

// absMaxBits returns the largest |v| over x as float bits (no sign kept):
// enough for the quantizers that only need amax. With a result >= expInf
// the slice holds an infinity or a NaN.
func absMaxBits(x *[32]float32) uint32 {
	var a0, a1 uint32
	for j := 0; j < 16; j++ {
		a0 = max(a0, math.Float32bits(x[j])&^(1<<31))
		a1 = max(a1, math.Float32bits(x[j+16])&^(1<<31))
	}
	return max(a0, a1)
}

// finiteF32 reports whether f is neither infinite nor NaN.
func finiteF32(f float32) bool { return math.Float32bits(f)&^(1<<31) < expInf }
