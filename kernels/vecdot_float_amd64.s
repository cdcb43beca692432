//go:build !purego

#include "textflag.h"

// AVX2+FMA(+F16C) float dot products in llamafile tinyBLAS's order (rows a
// multiple of 8 long; see vecdot_float.go): per group of 8 elements one
// fused multiply-add into a single 8-lane accumulator per output, then
// ggml's horizontal sum. n8 is the number of groups.

#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T \
	VADDPS       T, X, X  \
	VMOVHLPS     X, X, T  \
	VADDPS       T, X, X  \
	VMOVSHDUP    X, T     \
	VADDSS       T, X, X

#define STORE4 \
	MOVQ out+32(FP), DX  \
	MOVQ ostride+40(FP), R11 \
	SHLQ $2, R11         \
	HSUM(Y0, X0, X4)     \
	HSUM(Y1, X1, X4)     \
	HSUM(Y2, X2, X4)     \
	HSUM(Y3, X3, X4)     \
	VMOVSS X0, (DX)      \
	ADDQ   R11, DX       \
	VMOVSS X1, (DX)      \
	ADDQ   R11, DX       \
	VMOVSS X2, (DX)      \
	ADDQ   R11, DX       \
	VMOVSS X3, (DX)      \
	VZEROUPPER           \
	RET

#define STORE4S \
	MOVQ out+32(FP), DX      \
	MOVQ ostride+40(FP), R11 \
	SHLQ $2, R11             \
	HSUM(Y0, X0, X4)         \
	HSUM(Y1, X1, X4)         \
	HSUM(Y2, X2, X4)         \
	HSUM(Y3, X3, X4)         \
	VMOVSS X0, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X1, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X2, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X3, (DX)          \
	VZEROUPPER               \
	RET

#define CLEAR4 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3

// func dotF16F16AVX2(n8 int, w, a *byte) float32
TEXT ·dotF16F16AVX2(SB), NOSPLIT, $0-28
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JZ     f16done

f16loop:
	VCVTPH2PS   (SI), Y1
	VCVTPH2PS   (DI), Y2
	VFMADD231PS Y2, Y1, Y0
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  f16loop

f16done:
	HSUM(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotF16F16r4AVX2(n8 int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·dotF16F16r4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	CLEAR4
	TESTQ CX, CX
	JZ    f16r4done

f16r4loop:
	VCVTPH2PS   (DI), Y5
	VCVTPH2PS   (SI), Y6
	VFMADD231PS Y5, Y6, Y0
	VCVTPH2PS   (R8), Y7
	VFMADD231PS Y5, Y7, Y1
	VCVTPH2PS   (R9), Y6
	VFMADD231PS Y5, Y6, Y2
	VCVTPH2PS   (R10), Y7
	VFMADD231PS Y5, Y7, Y3
	ADDQ $16, SI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	ADDQ $16, DI
	DECQ CX
	JNZ  f16r4loop

f16r4done:
	STORE4

// func dotF16F16x4AVX2(n8 int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·dotF16F16x4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ stride+24(FP), BX
	LEAQ (DI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	CLEAR4
	TESTQ CX, CX
	JZ    f16x4done

f16x4loop:
	VCVTPH2PS   (SI), Y5
	VCVTPH2PS   (DI), Y6
	VFMADD231PS Y6, Y5, Y0
	VCVTPH2PS   (R8), Y7
	VFMADD231PS Y7, Y5, Y1
	VCVTPH2PS   (R9), Y6
	VFMADD231PS Y6, Y5, Y2
	VCVTPH2PS   (R10), Y7
	VFMADD231PS Y7, Y5, Y3
	ADDQ $16, SI
	ADDQ $16, DI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	DECQ CX
	JNZ  f16x4loop

f16x4done:
	STORE4S

// func dotF32F32AVX2(n8 int, w, a *byte) float32
TEXT ·dotF32F32AVX2(SB), NOSPLIT, $0-28
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JZ     f32done

f32loop:
	VMOVUPS     (SI), Y1
	VFMADD231PS (DI), Y1, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  f32loop

f32done:
	HSUM(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotF32F32r4AVX2(n8 int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·dotF32F32r4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	CLEAR4
	TESTQ CX, CX
	JZ    f32r4done

f32r4loop:
	VMOVUPS     (DI), Y5
	VFMADD231PS (SI), Y5, Y0
	VFMADD231PS (R8), Y5, Y1
	VFMADD231PS (R9), Y5, Y2
	VFMADD231PS (R10), Y5, Y3
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, DI
	DECQ CX
	JNZ  f32r4loop

f32r4done:
	STORE4

// func dotF32F32x4AVX2(n8 int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·dotF32F32x4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ stride+24(FP), BX
	LEAQ (DI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	CLEAR4
	TESTQ CX, CX
	JZ    f32x4done

f32x4loop:
	VMOVUPS     (SI), Y5
	VFMADD231PS (DI), Y5, Y0
	VFMADD231PS (R8), Y5, Y1
	VFMADD231PS (R9), Y5, Y2
	VFMADD231PS (R10), Y5, Y3
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  f32x4loop

f32x4done:
	STORE4S

// func dotF16VecAVX2(n32 int, w, a *byte) float32
// ggml_vec_dot_f16's 4x8 lanes over n32 groups of 32 halves, reduced: the
// attention kernel's loop (attn_amd64.s), same arguments.
TEXT ·dotF16VecAVX2(SB), NOSPLIT, $0-28
	JMP ·dotF16F16x32AVX2(SB)

// func dotF32VecAVX2(n32 int, w, a *byte) float32
// ggml_vec_dot_f32's 4x8 FMA lanes over n32 groups of 32 floats, reduced
// as GGML_F32x8_REDUCE (reduce4x8).
TEXT ·dotF32VecAVX2(SB), NOSPLIT, $0-28
	MOVQ n32+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ  CX, CX
	JZ     f32vdone

f32vloop:
	VMOVUPS     0(SI), Y4
	VFMADD231PS 0(DI), Y4, Y0
	VMOVUPS     32(SI), Y5
	VFMADD231PS 32(DI), Y5, Y1
	VMOVUPS     64(SI), Y6
	VFMADD231PS 64(DI), Y6, Y2
	VMOVUPS     96(SI), Y7
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  f32vloop

f32vdone:
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

// ggml's reduce4x8 of one row's accumulators a0-a3 into the low lane of
// Xa0 (Xa1 scratch), as at the end of dotF16F16x32AVX2.
#define REDUCE4X8(a0, a1, a2, a3, Xa0, Xa1) \
	VADDPS       a2, a0, a0   \
	VADDPS       a3, a1, a1   \
	VADDPS       a1, a0, a0   \
	VEXTRACTF128 $1, a0, Xa1  \
	VADDPS       Xa1, Xa0, Xa0 \
	VMOVSHDUP    Xa0, Xa1     \
	VADDPS       Xa1, Xa0, Xa0 \
	VMOVHLPS     Xa0, Xa0, Xa1 \
	VADDSS       Xa1, Xa0, Xa0

// Two F16 rows at W0 and W1 against the float32 token at DI, n32 groups
// of 32 (CX), in dotF16F16x32AVX2's lanes: row W0 in Y0-Y3, row W1 in
// Y4-Y7, reduced into X0 and X4. Each token group is loaded once for both
// rows and never widened: two conversions per 16 products where the
// single-row kernel does four.
#define F16_R2_F32(W0, W1, loop, done) \
	VXORPS Y0, Y0, Y0            \
	VXORPS Y1, Y1, Y1            \
	VXORPS Y2, Y2, Y2            \
	VXORPS Y3, Y3, Y3            \
	VXORPS Y4, Y4, Y4            \
	VXORPS Y5, Y5, Y5            \
	VXORPS Y6, Y6, Y6            \
	VXORPS Y7, Y7, Y7            \
	MOVQ   n32+0(FP), CX         \
	XORQ   AX, AX                \
	XORQ   R13, R13              \
loop:                            \
	VMOVUPS     0(DI)(R13*1), Y8 \
	VCVTPH2PS   0(W0)(AX*1), Y9  \
	VCVTPH2PS   0(W1)(AX*1), Y10 \
	VFMADD231PS Y8, Y9, Y0       \
	VFMADD231PS Y8, Y10, Y4      \
	VMOVUPS     32(DI)(R13*1), Y8 \
	VCVTPH2PS   16(W0)(AX*1), Y9 \
	VCVTPH2PS   16(W1)(AX*1), Y10 \
	VFMADD231PS Y8, Y9, Y1       \
	VFMADD231PS Y8, Y10, Y5      \
	VMOVUPS     64(DI)(R13*1), Y8 \
	VCVTPH2PS   32(W0)(AX*1), Y9 \
	VCVTPH2PS   32(W1)(AX*1), Y10 \
	VFMADD231PS Y8, Y9, Y2       \
	VFMADD231PS Y8, Y10, Y6      \
	VMOVUPS     96(DI)(R13*1), Y8 \
	VCVTPH2PS   48(W0)(AX*1), Y9 \
	VCVTPH2PS   48(W1)(AX*1), Y10 \
	VFMADD231PS Y8, Y9, Y3       \
	VFMADD231PS Y8, Y10, Y7      \
	ADDQ $64, AX                 \
	ADDQ $128, R13               \
	DECQ CX                      \
	JNZ  loop                    \
done:                            \
	REDUCE4X8(Y0, Y1, Y2, Y3, X0, X1) \
	REDUCE4X8(Y4, Y5, Y6, Y7, X4, X5)

// func f16VecR4F32AVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
// Four F16 rows (w + k*wstride) in dotF16F16x32AVX2's order against one
// token already widened to float32 (the token's row in its quad,
// halfQuadF16), n32 >= 1 groups of 32: rows 0 and 1, then rows 2 and 3.
TEXT ·f16VecR4F32AVX2(SB), NOSPLIT, $0-48
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), R11
	SHLQ $2, R11
	LEAQ (SI)(BX*1), R8
	F16_R2_F32(SI, R8, f16r4loop1, f16r4done1)
	VMOVSS X0, (DX)
	ADDQ   R11, DX
	VMOVSS X4, (DX)
	ADDQ   R11, DX
	LEAQ (R8)(BX*1), SI
	LEAQ (SI)(BX*1), R8
	F16_R2_F32(SI, R8, f16r4loop2, f16r4done2)
	VMOVSS X0, (DX)
	ADDQ   R11, DX
	VMOVSS X4, (DX)
	VZEROUPPER
	RET
