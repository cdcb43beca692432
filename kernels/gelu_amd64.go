//go:build !purego

package kernels

// gegluAVX2 sets out[i] = tab[f16(x[i])] * up[i] for n8 (a multiple of 8)
// elements, with gelu's clamps (0 at or below -10, x at or above 10); up
// nil: no product (GELU).
//
//go:noescape
func gegluAVX2(n8 int, out, x, up, tab *float32)

// gegluAsm is gegluGeneric on AVX2 and F16C (len(x) a multiple of 8).
func gegluAsm(out, x, up, tab []float32) {
	n8 := len(x)
	if n8 == 0 {
		return
	}
	_ = out[n8-1]
	_ = tab[1<<16-1]
	var u *float32
	if up != nil {
		_ = up[n8-1]
		u = &up[0]
	}
	gegluAVX2(n8, &out[0], &x[0], u, &tab[0])
}
