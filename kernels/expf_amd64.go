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
