//go:build !purego

package kernels

// fillAVX2Rope gives the AVX2 set its RoPE rotation (rope_amd64.s): eight
// floats at a time, the fused multiply-adds of ropeGeneric.
func fillAVX2Rope(s *kernelSet) { s.rope = ropeAsm }

//go:noescape
func ropeNormAVX2(x, cs *float32, nHeads, headStride, dims8 int)

//go:noescape
func ropeNeoXAVX2(x, c, s *float32, nHeads, headStride, half8 int)

// ropeAsm rotates with the AVX2 kernels where the pairs fill whole
// vectors (dims a multiple of 8; NeoX: dims/2), else generically.
func ropeAsm(x, cs []float32, nHeads, headDim, dims int, neox bool) {
	if nHeads <= 0 || dims <= 0 {
		return
	}
	_ = x[(nHeads-1)*headDim+dims-1]
	_ = cs[dims-1]
	if !neox && dims%8 == 0 {
		ropeNormAVX2(&x[0], &cs[0], nHeads, 4*headDim, dims/8)
		return
	}
	half := dims / 2
	if neox && half%8 == 0 && half <= 256 {
		// The cos and sin apart, as NeoX pairs them (x[i], x[i+half]).
		var c, s [256]float32
		for i := 0; i < half; i++ {
			c[i], s[i] = cs[2*i], cs[2*i+1]
		}
		ropeNeoXAVX2(&x[0], &c[0], &s[0], nHeads, 4*headDim, half/8)
		return
	}
	ropeGeneric(x, cs, nHeads, headDim, dims, neox)
}
