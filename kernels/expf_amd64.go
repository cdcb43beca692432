//go:build !purego

package kernels

//go:noescape
func expfNAVX2(n4 int, dst, src *float32) int

func expfNAsm(dst, src []float32) {
	n := len(src)
	dst = dst[:n]
	for i := 0; i < n; {
		if n4 := (n - i) / 4; n4 > 0 {
			i += expfNAVX2(n4, &dst[i], &src[i])
		}
		// A group with |x| >= 88 or NaN, or the last 1-3 values.
		for end := min(i+4, n); i < end; i++ {
			dst[i] = expf32(src[i])
		}
	}
}

//go:noescape
func expfNAVX512(n8 int, dst, src *float32) int

// expfNAsm512 is expfNAsm with the groups of eight on 512-bit registers
// (the avx512zmm set); a group with a value the vector code leaves out, and
// the last 1-7 values, take expfNAsm.
func expfNAsm512(dst, src []float32) {
	n := len(src)
	dst = dst[:n]
	for i := 0; i < n; {
		if n8 := (n - i) / 8; n8 > 0 {
			i += expfNAVX512(n8, &dst[i], &src[i])
		}
		end := min(i+8, n)
		expfNAsm(dst[i:end], src[i:end])
		i = end
	}
}
