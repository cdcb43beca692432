package kernels

// vecDotQ4_0Q8_0Generic is Q4_0 x Q8_0: per block the
// exact integer sum of the 32 products, scaled by d_w*d_a and added in
// float32.
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
		sum += float32(s) * (f16at(x, 0) * f16at(y, 0))
	}
	return sum
}
