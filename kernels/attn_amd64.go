//go:build !purego

package kernels

import "github.com/gollm/gollm/quant"

// AVX2 versions of the flash-attention f16 helpers and the f32->f16
// conversion. Whole groups run in assembly with the generic lane layout and
// reduction order; the tails run the generic code.
func fillAVX2Attn(s *kernelSet) {
	s.dotF16F16 = attnDotF16Asm
	s.madF16 = madF16Asm
	s.scaleF16 = scaleF16Asm
	s.f16ToF32 = f16ToF32Asm
	s.f32ToF16 = f32ToF16Asm
	s.dotF16Rows = dotF16RowsAsm
	s.madF16Rows = madF16RowsAsm
	s.dotF16Rows2 = func(out1, out2 []float32, q1, q2, k []uint16, stride int) {
		dotF16RowsAsm(out1, q1, k, stride)
		dotF16RowsAsm(out2, q2, k, stride)
	}
	s.madF16Rows2 = func(acc1, acc2, v []uint16, stride int, ms1, vs1, ms2, vs2 []float32) {
		madF16RowsAsm(acc1, v, stride, ms1, vs1)
		madF16RowsAsm(acc2, v, stride, ms2, vs2)
	}
}

//go:noescape
func dotF16RowsAVX2(n32 int, q, k *uint16, stride, rows int, out *float32)

//go:noescape
func madF16RowsAVX2(n8 int, acc, v *uint16, stride, rows int, ms, vs *float32)

// dotF16RowsAsm runs rows whose length is a multiple of 32 in assembly
// (the generic function adds a tail in float64).
func dotF16RowsAsm(out []float32, q, k []uint16, stride int) {
	if len(q) == 0 || len(q)%32 != 0 {
		dotF16RowsGeneric(out, q, k, stride)
		return
	}
	_ = k[(len(out)-1)*stride+len(q)-1]
	dotF16RowsAVX2(len(q)/32, &q[0], &k[0], 2*stride, len(out), &out[0])
}

func madF16RowsAsm(acc, v []uint16, stride int, ms, vs []float32) {
	if len(acc) == 0 || len(acc)%8 != 0 {
		madF16RowsGeneric(acc, v, stride, ms, vs)
		return
	}
	_ = ms[len(vs)-1]
	_ = v[(len(vs)-1)*stride+len(acc)-1]
	madF16RowsAVX2(len(acc)/8, &acc[0], &v[0], 2*stride, len(vs), &ms[0], &vs[0])
}

// dotF16F16x32AVX2 returns reduce4x8 of the 4x8 FMA lanes over n32 groups
// of 32 elements (dotF16F16Generic without its tail).
//
//go:noescape
func dotF16F16x32AVX2(n32 int, x, y *uint16) float32

// madF16AVX2 sets y[i] = fp16(fma(x[i], v, y[i])) for 8*n8 elements.
//
//go:noescape
func madF16AVX2(n8 int, y, x *uint16, v float32)

// scaleF16AVX2 sets y[i] = fp16(y[i]*v) for 8*n8 elements.
//
//go:noescape
func scaleF16AVX2(n8 int, y *uint16, v float32)

// f16ToF32AVX2 widens 8*n8 halves.
//
//go:noescape
func f16ToF32AVX2(n8 int, dst *float32, src *uint16)

// f32ToF16AVX2 narrows 8*n8 floats with round-to-nearest-even.
//
//go:noescape
func f32ToF16AVX2(n8 int, dst *uint16, src *float32)

func attnDotF16Asm(x, y []uint16) float32 {
	y = y[:len(x)]
	np := len(x) &^ 31
	var sumf float64
	if np > 0 {
		sumf = float64(dotF16F16x32AVX2(np/32, &x[0], &y[0]))
	}
	for i := np; i < len(x); i++ {
		sumf += float64(quant.FP16ToFP32(x[i]) * quant.FP16ToFP32(y[i]))
	}
	return float32(sumf)
}

func madF16Asm(y, x []uint16, v float32) {
	x = x[:len(y)]
	n8 := len(y) &^ 7
	if n8 > 0 {
		madF16AVX2(n8/8, &y[0], &x[0], v)
	}
	if n8 < len(y) {
		madF16Generic(y[n8:], x[n8:], v)
	}
}

func scaleF16Asm(y []uint16, v float32) {
	n8 := len(y) &^ 7
	if n8 > 0 {
		scaleF16AVX2(n8/8, &y[0], v)
	}
	if n8 < len(y) {
		scaleF16Generic(y[n8:], v)
	}
}

func f16ToF32Asm(dst []float32, src []uint16) {
	src = src[:len(dst)]
	n8 := len(dst) &^ 7
	if n8 > 0 {
		f16ToF32AVX2(n8/8, &dst[0], &src[0])
	}
	if n8 < len(dst) {
		f16ToF32Generic(dst[n8:], src[n8:])
	}
}

func f32ToF16Asm(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	n8 := len(src) &^ 7
	if n8 > 0 {
		f32ToF16AVX2(n8/8, &dst[0], &src[0])
	}
	if n8 < len(src) {
		f32ToF16Generic(dst[n8:], src[n8:])
	}
}
