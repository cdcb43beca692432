package kernels

// vecDotQ4_0Q8_0Generic is Q4_0 x Q8_0: per block the exact integer sum
// of the 32 products, times d_w*d_a fused into the float32 sum, as
// llama.cpp's repacked Q4_0 kernels (ggml-cpu repack.cpp, q4_0_8x8 on
// AVX2) that its x86 builds run on matrices of 8n rows. (Unfused, a
// product now and then rounded differently: prompts of 25 tokens drifted
// 1e-2 of max|logit| off llama.cpp.)
func vecDotQ4_0Q8_0Generic(n int, w, a []byte) float32 {
	var sum float32
	for i := 0; i < n/qk; i++ {
		x := w[i*q4_0Bytes : (i+1)*q4_0Bytes]
		y := a[i*q8_0Bytes : (i+1)*q8_0Bytes]
		var s int32
		for j := 0; j < 16; j++ {
			v0 := int32(x[2+j]&0x0F) - 8
			v1 := int32(x[2+j]>>4) - 8
			s += v0*int32(int8(y[2+j])) + v1*int32(int8(y[2+16+j]))
		}
		sum = fma32(float32(s), f16at(x, 0)*f16at(y, 0), sum)
	}
	return sum
}
