package kernels

import "math"

// Single-precision sine and cosine that reproduce glibc's sinf, cosf and
// sincosf bit for bit, as selected on x86-64 machines with FMA (glibc's
// "fma" ifunc variant of the ARM optimized-routines algorithm).
//
// Why not float32(math.Sin(float64(x)))? llama.cpp builds its RoPE tables
// with libm's cosf/sinf, and glibc's versions are not correctly rounded:
// about 1% of RoPE angles come out 1 ulp away from the correctly rounded
// value. Those ulps flip f16 roundings of cached keys and make logits drift
// from llama.cpp's. So we mirror glibc's evaluation exactly: the same
// reductions, the same double-precision polynomial and the same fused
// multiply-adds (that variant is compiled with FMA contraction, so every
// a + b*c in the C source is one rounding). Every a + b*c below is written
// as math.FMA so the Go compiler cannot choose differently.
//
// Outline: |x| < pi/4 evaluates the polynomial directly (|x| < 2^-12
// returns x resp. 1); |x| < 120 reduces by one fused multiply-subtract of
// the nearest multiple of pi/2; larger finite x reduces exactly with a
// 4/pi table in integer arithmetic. The quadrant picks the sine or cosine
// polynomial and the signs.

// sincosfPoly holds one set of polynomial coefficients. The second set has
// the cosine polynomial negated, which yields -cos without a separate
// negation in quadrants 2 and 3.
type sincosfPoly struct {
	c0, c1, c2, c3, c4 float64 // cosine: c0 + c1 x^2 + ... + c4 x^8
	s1, s2, s3         float64 // sine: x + s1 x^3 + s2 x^5 + s3 x^7
}

var sincosfTable = [2]sincosfPoly{
	{
		c0: 0x1p0, c1: -0x1.ffffffd0c621cp-2, c2: 0x1.55553e1068f19p-5,
		c3: -0x1.6c087e89a359dp-10, c4: 0x1.99343027bf8c3p-16,
		s1: -0x1.555545995a603p-3, s2: 0x1.1107605230bc4p-7, s3: -0x1.994eb3774cf24p-13,
	},
	{
		c0: -0x1p0, c1: 0x1.ffffffd0c621cp-2, c2: -0x1.55553e1068f19p-5,
		c3: 0x1.6c087e89a359dp-10, c4: -0x1.99343027bf8c3p-16,
		s1: -0x1.555545995a603p-3, s2: 0x1.1107605230bc4p-7, s3: -0x1.994eb3774cf24p-13,
	},
}

// sincosfSign is the sign of the sine argument per quadrant.
var sincosfSign = [4]float64{1, -1, -1, 1}

const (
	sincosfHpiInv = 0x1.45F306DC9C883p+23 // 2/pi scaled by 2^24: quadrant lands in bits 24..31
	sincosfHpi    = 0x1.921FB54442D18p0   // pi/2
	sincosfPi63   = 0x1.921FB54442D18p-62 // 2pi * 2^-64: scale of the fixed-point remainder

	// Thresholds on abstop12 (the top 12 bits of |x| as a float).
	sincosfTopPio4 = 0x3f4 // pi/4
	sincosfTopTiny = 0x398 // 2^-12
	sincosfTop120  = 0x42f // 120
	sincosfTopInf  = 0x7f8 // +Inf
)

// sincosfInvPio4 is 4/pi to 192 bits, stored so that each entry adds 8 new
// bits: a 96-bit window starting at any 8-bit boundary is arr[i], arr[i+4],
// arr[i+8].
var sincosfInvPio4 = [24]uint32{
	0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e,
	0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
	0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1,
	0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0,
	0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599,
	0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
}

// sinf32 returns glibc's sinf(x).
func sinf32(x float32) float32 {
	s, _ := sincosf32(x)
	return s
}

// cosf32 returns glibc's cosf(x).
func cosf32(x float32) float32 {
	_, c := sincosf32(x)
	return c
}

// sincosf32 returns glibc's sinf(x) and cosf(x) (equal to its sincosf: all
// three share the reduction and polynomials).
func sincosf32(y float32) (sin, cos float32) {
	yi := math.Float32bits(y)
	top := (yi >> 20) & 0x7ff
	x := float64(y)
	var (
		p      *sincosfPoly
		n      int     // quadrant; odd swaps the sine and cosine polynomials
		xs, x2 float64 // signed reduced argument and its square
	)
	switch {
	case top < sincosfTopPio4:
		if top < sincosfTopTiny {
			return y, 1
		}
		p, xs, x2 = &sincosfTable[0], x, x*x
	case top < sincosfTop120:
		r, k := sincosfReduceFast(x)
		n = k
		p = &sincosfTable[(k>>1)&1]
		xs, x2 = r*sincosfSign[k&3], r*r
	case top < sincosfTopInf:
		r, k := sincosfReduceLarge(yi)
		n = k
		q := k + int(yi>>31) // the input's sign shifts the quadrant by two half-turns
		p = &sincosfTable[(q>>1)&1]
		xs, x2 = r*sincosfSign[q&3], r*r
	default:
		nan := sincosfInvalid(yi)
		return nan, nan
	}

	x3 := xs * x2
	s1 := math.FMA(x2, p.s3, p.s2)
	x7 := x3 * x2
	s := math.FMA(x3, p.s1, xs)
	sp := float32(math.FMA(x7, s1, s))

	x4 := x2 * x2
	c2 := math.FMA(x2, p.c4, p.c3)
	c1 := math.FMA(x2, p.c1, p.c0)
	x6 := x4 * x2
	c := math.FMA(x4, p.c2, c1)
	cp := float32(math.FMA(x6, c2, c))

	if n&1 != 0 {
		return cp, sp
	}
	return sp, cp
}

// sincosfReduceFast returns x minus the nearest multiple k of pi/2, and k.
// The product and difference are fused, as in glibc's FMA build; pi/2 as a
// double makes this accurate for |x| < 120.
func sincosfReduceFast(x float64) (float64, int) {
	r := x * sincosfHpiInv
	// Truncation toward zero of a value scaled by 2^24, then rounding by
	// adding half a quadrant: avoids the bias of truncating negatives.
	k := (int32(r) + 0x800000) >> 24
	return math.FMA(-float64(k), sincosfHpi, x), int(k)
}

// sincosfReduceLarge reduces a finite |x| >= 120 given as float bits
// (sign ignored): a 32x96-bit product with the matching window of 4/pi
// gives the exact remainder modulo pi/2 as a 2.62 fixed-point number.
// Returns the remainder in radians (in [-pi/4, pi/4]) and the quadrant.
func sincosfReduceLarge(xi uint32) (float64, int) {
	arr := sincosfInvPio4[(xi>>26)&15:]
	shift := (xi >> 23) & 7
	m := (xi & 0xffffff) | 0x800000
	m <<= shift // the exponent's low 3 bits; higher bits chose the window

	res0 := uint64(m * arr[0]) // only the low 32 bits of this product matter
	res1 := uint64(m) * uint64(arr[4])
	res2 := uint64(m) * uint64(arr[8])
	res0 = res2>>32 | res0<<32
	res0 += res1

	n := (res0 + 1<<61) >> 62
	res0 -= n << 62
	return float64(int64(res0)) * sincosfPi63, int(n)
}

// sincosfInvalid is the result for NaN and ±Inf inputs: glibc computes
// (x-x)/(x-x), which on x86 keeps a NaN's payload (quieted) and turns an
// infinity into the default NaN, 0xffc00000.
func sincosfInvalid(yi uint32) float32 {
	if yi&0x7fffffff > 0x7f800000 {
		return math.Float32frombits(yi | 0x00400000)
	}
	return math.Float32frombits(0xffc00000)
}
