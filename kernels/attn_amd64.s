//go:build !purego

#include "textflag.h"

// AVX2+FMA+F16C versions of the f16 flash-attention helpers (attn_f16.go),
// with the same lane layout and reduction order as the generic code. The
// Go wrappers in attn_amd64.go handle the tails.

// func dotF16F16x32AVX2(n32 int, x, y *uint16) float32
// Sum over n32 groups of 32 halves of x*y in 4x8 FMA lanes, reduced as
// reduce4x8.
TEXT ·dotF16F16x32AVX2(SB), NOSPLIT, $0-28
	MOVQ n32+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ  CX, CX
	JZ     dotdone

dotloop:
	VCVTPH2PS   0(SI), Y4
	VCVTPH2PS   0(DI), Y5
	VFMADD231PS Y5, Y4, Y0
	VCVTPH2PS   16(SI), Y6
	VCVTPH2PS   16(DI), Y7
	VFMADD231PS Y7, Y6, Y1
	VCVTPH2PS   32(SI), Y4
	VCVTPH2PS   32(DI), Y5
	VFMADD231PS Y5, Y4, Y2
	VCVTPH2PS   48(SI), Y6
	VCVTPH2PS   48(DI), Y7
	VFMADD231PS Y7, Y6, Y3
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  dotloop

dotdone:
	VADDPS       Y2, Y0, Y0
	VADDPS       Y3, Y1, Y1
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func madF16AVX2(n8 int, y, x *uint16, v float32)
// y = fp16(fma(x, v, y)) for n8 groups of 8.
TEXT ·madF16AVX2(SB), NOSPLIT, $0-28
	MOVQ         n8+0(FP), CX
	MOVQ         y+8(FP), DI
	MOVQ         x+16(FP), SI
	VBROADCASTSS v+24(FP), Y3
	TESTQ        CX, CX
	JZ           maddone

madloop:
	VCVTPH2PS   0(DI), Y1
	VCVTPH2PS   0(SI), Y2
	VFMADD231PS Y3, Y2, Y1
	VCVTPS2PH   $0, Y1, 0(DI)
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  madloop

maddone:
	VZEROUPPER
	RET

// func scaleF16AVX2(n8 int, y *uint16, v float32)
TEXT ·scaleF16AVX2(SB), NOSPLIT, $0-20
	MOVQ         n8+0(FP), CX
	MOVQ         y+8(FP), DI
	VBROADCASTSS v+16(FP), Y3
	TESTQ        CX, CX
	JZ           scldone

sclloop:
	VCVTPH2PS 0(DI), Y1
	VMULPS    Y3, Y1, Y1
	VCVTPS2PH $0, Y1, 0(DI)
	ADDQ $16, DI
	DECQ CX
	JNZ  sclloop

scldone:
	VZEROUPPER
	RET

// func f16ToF32AVX2(n8 int, dst *float32, src *uint16)
TEXT ·f16ToF32AVX2(SB), NOSPLIT, $0-24
	MOVQ n8+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	TESTQ CX, CX
	JZ    widedone

wideloop:
	VCVTPH2PS 0(SI), Y1
	VMOVUPS   Y1, 0(DI)
	ADDQ $16, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  wideloop

widedone:
	VZEROUPPER
	RET

// func f32ToF16AVX2(n8 int, dst *uint16, src *float32)
TEXT ·f32ToF16AVX2(SB), NOSPLIT, $0-24
	MOVQ n8+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	TESTQ CX, CX
	JZ    narrowdone

narrowloop:
	VMOVUPS   0(SI), Y1
	VCVTPS2PH $0, Y1, 0(DI)
	ADDQ $32, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  narrowloop

narrowdone:
	VZEROUPPER
	RET
