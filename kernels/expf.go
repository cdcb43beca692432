package kernels

import "math"

// expf32 returns glibc's expf(x) bit for bit, as selected on x86-64
// machines with FMA (the "fma" ifunc variant of the ARM optimized-routines
// algorithm in sysdeps/ieee754/flt-32/e_expf.c).
//
// llama.cpp's flash attention takes its softmax weights from libm's expf;
// matching glibc exactly (rather than float32(math.Exp(float64(x))), which
// differs in the last bit for some arguments) keeps the f16 accumulator's
// roundings identical to llama.cpp's, and a table of 32 doubles is cheaper
// than math.Exp. Verified against glibc 2.36's expf on every float32 in
// [-104, 89] (see expf_test.go for the sampled regression test).
//
// Outline: x*32/ln2 = k + r with |r| <= 1/2 (k rounded to nearest even
// through the 1.5*2^52 shift), 2^(k/32) from the table with k/32's integer
// part added to the exponent bits, and 2^(r/32) from a cubic whose a*b+c
// steps are fused (that variant is compiled with FMA contraction, which
// also fuses x*32/ln2 into both the rounding and the remainder).
func expf32(x float32) float32 {
	abstop := math.Float32bits(x) >> 20 & 0x7ff
	if abstop >= expfTop88 {
		// |x| >= 88 or x is NaN.
		switch {
		case math.Float32bits(x) == math.Float32bits(float32(math.Inf(-1))):
			return 0
		case abstop >= expfTopInf:
			return x + x
		case x > 0x1.62e42ep6: // > log(2^128)
			return float32(math.Inf(1))
		case x < -0x1.9fe368p6: // < log(2^-150)
			return 0
		}
	}
	// GCC fuses both uses of z = InvLn2N*x into its additions.
	xd := float64(x)
	kd := math.FMA(expfInvLn2N, xd, expfShift)
	ki := math.Float64bits(kd)
	kd -= expfShift
	r := math.FMA(expfInvLn2N, xd, -kd)
	t := expfTab[ki%32] + ki<<(52-5)
	s := math.Float64frombits(t)
	zz := math.FMA(expfC0, r, expfC1)
	r2 := r * r
	y := math.FMA(expfC2, r, 1)
	y = math.FMA(zz, r2, y)
	return float32(y * s)
}

const (
	expfTop88   = 0x42b // top 12 bits of 88.0f
	expfTopInf  = 0x7f8
	expfShift   = 0x1.8p+52
	expfInvLn2N = 0x1.71547652b82fep+0 * 32
	expfC0      = 0x1.c6af84b912394p-5 / 32 / 32 / 32
	expfC1      = 0x1.ebfce50fac4f3p-3 / 32 / 32
	expfC2      = 0x1.62e42ff0c52d6p-1 / 32
)

// expfTab[i] = bits(2^(i/32)) - i<<47: adding k<<47 for k = 32q+i gives
// bits(2^(k/32)).
var expfTab = [32]uint64{
	0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
	0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
	0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
	0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
	0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
	0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
	0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
	0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
}

// ExpfN sets dst[i] = Expf(src[i]) for every i < len(src) (len(dst) must be
// at least len(src)); SIMD implementations evaluate several at once.
func ExpfN(dst, src []float32) {
	dst = dst[:len(src)]
	active.expfN(dst, src)
}

func expfNGeneric(dst, src []float32) {
	for i, x := range src {
		dst[i] = expf32(x)
	}
}
