package kernels

// Q4_K in llama.cpp's repacked float order.
//
// On AVX2 llama.cpp repacks every Q4_K matrix whose row count is a multiple
// of 8 into blocks of eight interleaved rows (ggml-cpu/repack.cpp,
// block_q4_Kx8) and multiplies it with ggml_gemv_q4_K_8x8_q8_K (one token)
// or ggml_gemm_q4_K_8x8_q8_K (four tokens). A prompt batch of n tokens goes
// through the gemm in groups of four (its activations quantized four rows at
// a time, same values as quantize_row_q8_K) and through the gemv for the
// last n%4 tokens; one-token decode uses the gemv.
//
// Both kernels compute, per pair k of 32-element sub-blocks (2k, 2k+1), the
// exact integers
//
//	s(k) = sc(2k)*dot(2k) + sc(2k+1)*dot(2k+1)
//	m(k) = mn(2k)*P(2k) + mn(2k+1)*P(2k+1)   (P: the sub-block's activation sum)
//
// and keep two float accumulators, acc for the quants (scale d_w*d_a) and
// accm for the mins (scale dmin_w*d_a), each updated with fused
// multiply-adds; the result is acc - accm. They differ in when the
// integers become floats: the gemm converts and accumulates every pair
// (four FMAs per super-block and accumulator), the gemv first sums the
// four pairs of a super-block in integers (one FMA).

// q4KPairs returns s(k) and m(k) of one Q4_K block x against the Q8_K block
// y.
func q4KPairs(x, y []byte) (s, m [4]int32) {
	qs := x[16:144]
	a := y[4:]
	for k := 0; k < 4; k++ {
		// Sub-block 2k is the low nibbles of qs[32k..32k+31], 2k+1 the high.
		var lo, hi int32
		for l := 0; l < 32; l++ {
			b := qs[32*k+l]
			lo += int32(b&0x0F) * int32(int8(a[64*k+l]))
			hi += int32(b>>4) * int32(int8(a[64*k+32+l]))
		}
		d0, m0 := scaleMinK4(2*k, x[4:16])
		d1, m1 := scaleMinK4(2*k+1, x[4:16])
		s[k] = int32(d0)*lo + int32(d1)*hi
		m[k] = int32(m0)*(q8KBsum(y, 4*k)+q8KBsum(y, 4*k+1)) + int32(m1)*(q8KBsum(y, 4*k+2)+q8KBsum(y, 4*k+3))
	}
	return s, m
}

// vecDotQ4_KQ8_KGeneric is the gemv order (decode, and the last n%4 tokens
// of a batch).
func vecDotQ4_KQ8_KGeneric(n int, w, a []byte) float32 {
	var acc, accm float32
	for i := 0; i < n/qkK; i++ {
		x := w[i*q4_KBytes : (i+1)*q4_KBytes]
		y := a[i*q8_KBytes : (i+1)*q8_KBytes]
		s, m := q4KPairs(x, y)
		yd := f32at(y, 0)
		acc = fma32(float32(s[0]+s[1]+s[2]+s[3]), f16at(x, 0)*yd, acc)
		accm = fma32(float32(m[0]+m[1]+m[2]+m[3]), f16at(x, 2)*yd, accm)
	}
	return acc - accm
}

// vecDotQ4_KQ8_KQuadGeneric is the gemm order (the tokens of a batch that
// fall in whole groups of four).
func vecDotQ4_KQ8_KQuadGeneric(n int, w, a []byte) float32 {
	var acc, accm float32
	for i := 0; i < n/qkK; i++ {
		x := w[i*q4_KBytes : (i+1)*q4_KBytes]
		y := a[i*q8_KBytes : (i+1)*q8_KBytes]
		s, m := q4KPairs(x, y)
		yd := f32at(y, 0)
		dd, dm := f16at(x, 0)*yd, f16at(x, 2)*yd
		for k := 0; k < 4; k++ {
			acc = fma32(float32(s[k]), dd, acc)
			accm = fma32(float32(m[k]), dm, accm)
		}
	}
	return acc - accm
}
