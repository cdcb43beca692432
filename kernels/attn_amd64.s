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

// func dotF16RowsAVX2(n32 int, q, k *uint16, stride, rows int, out *float32)
// out[i] = the dotF16F16x32AVX2 sum of q and the row k + i*stride (bytes),
// for rows >= 1 rows of n32 >= 1 groups of 32 halves.
TEXT ·dotF16RowsAVX2(SB), NOSPLIT, $0-48
	MOVQ n32+0(FP), R8
	MOVQ q+8(FP), R9
	MOVQ k+16(FP), DI
	MOVQ stride+24(FP), BX
	MOVQ rows+32(FP), R10
	MOVQ out+40(FP), DX
	CMPQ R8, $2
	JEQ  drow64

drowloop:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   R9, SI
	MOVQ   DI, R11
	MOVQ   R8, CX

drowinner:
	VCVTPH2PS   0(SI), Y4
	VCVTPH2PS   0(R11), Y5
	VFMADD231PS Y5, Y4, Y0
	VCVTPH2PS   16(SI), Y6
	VCVTPH2PS   16(R11), Y7
	VFMADD231PS Y7, Y6, Y1
	VCVTPH2PS   32(SI), Y4
	VCVTPH2PS   32(R11), Y5
	VFMADD231PS Y5, Y4, Y2
	VCVTPH2PS   48(SI), Y6
	VCVTPH2PS   48(R11), Y7
	VFMADD231PS Y7, Y6, Y3
	ADDQ $64, SI
	ADDQ $64, R11
	DECQ CX
	JNZ  drowinner

	VADDPS       Y2, Y0, Y0
	VADDPS       Y3, Y1, Y1
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, (DX)
	ADDQ         $4, DX
	ADDQ         BX, DI
	DECQ         R10
	JNZ          drowloop
	VZEROUPPER
	RET

	// 64-element rows (the common head size): q stays widened in Y8-Y15.
drow64:
	VCVTPH2PS 0(R9), Y8
	VCVTPH2PS 16(R9), Y9
	VCVTPH2PS 32(R9), Y10
	VCVTPH2PS 48(R9), Y11
	VCVTPH2PS 64(R9), Y12
	VCVTPH2PS 80(R9), Y13
	VCVTPH2PS 96(R9), Y14
	VCVTPH2PS 112(R9), Y15

drow64loop:
	VXORPS       Y0, Y0, Y0
	VXORPS       Y1, Y1, Y1
	VXORPS       Y2, Y2, Y2
	VXORPS       Y3, Y3, Y3
	VCVTPH2PS    0(DI), Y4
	VFMADD231PS  Y4, Y8, Y0
	VCVTPH2PS    16(DI), Y5
	VFMADD231PS  Y5, Y9, Y1
	VCVTPH2PS    32(DI), Y6
	VFMADD231PS  Y6, Y10, Y2
	VCVTPH2PS    48(DI), Y7
	VFMADD231PS  Y7, Y11, Y3
	VCVTPH2PS    64(DI), Y4
	VFMADD231PS  Y4, Y12, Y0
	VCVTPH2PS    80(DI), Y5
	VFMADD231PS  Y5, Y13, Y1
	VCVTPH2PS    96(DI), Y6
	VFMADD231PS  Y6, Y14, Y2
	VCVTPH2PS    112(DI), Y7
	VFMADD231PS  Y7, Y15, Y3
	VADDPS       Y2, Y0, Y0
	VADDPS       Y3, Y1, Y1
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, (DX)
	ADDQ         $4, DX
	ADDQ         BX, DI
	DECQ         R10
	JNZ          drow64loop
	VZEROUPPER
	RET

// func madF16RowsAVX2(n8 int, acc, v *uint16, stride, rows int, ms, vs *float32)
// For each of rows >= 1 rows in order: acc = fp16(acc*ms[i]) unless
// ms[i] == 1, then acc = fp16(fma(row, vs[i], acc)) with row = v + i*stride
// (bytes); n8 >= 1 groups of 8 halves.
TEXT ·madF16RowsAVX2(SB), NOSPLIT, $0-56
	MOVQ n8+0(FP), R8
	MOVQ acc+8(FP), R9
	MOVQ v+16(FP), R10
	MOVQ stride+24(FP), BX
	MOVQ rows+32(FP), R11
	MOVQ ms+40(FP), R12
	MOVQ vs+48(FP), R13
	MOVL  $0x3f800000, AX
	VMOVD AX, X6
	CMPQ  R8, $8
	JEQ   mrow64

mrowloop:
	VMOVSS   (R12), X5
	VUCOMISS X6, X5
	JNE     mscale
	JPS     mscale
	JMP     mmad

mscale:
	VBROADCASTSS (R12), Y3
	MOVQ         R9, DI
	MOVQ         R8, CX

mscaleloop:
	VCVTPH2PS 0(DI), Y1
	VMULPS    Y3, Y1, Y1
	VCVTPS2PH $0, Y1, 0(DI)
	ADDQ      $16, DI
	DECQ      CX
	JNZ       mscaleloop

mmad:
	VBROADCASTSS (R13), Y3
	MOVQ         R9, DI
	MOVQ         R10, SI
	MOVQ         R8, CX

mmadloop:
	VCVTPH2PS   0(DI), Y1
	VCVTPH2PS   0(SI), Y2
	VFMADD231PS Y3, Y2, Y1
	VCVTPS2PH   $0, Y1, 0(DI)
	ADDQ        $16, SI
	ADDQ        $16, DI
	DECQ        CX
	JNZ         mmadloop

	ADDQ BX, R10
	ADDQ $4, R12
	ADDQ $4, R13
	DECQ R11
	JNZ  mrowloop
	VZEROUPPER
	RET

	// 64-element rows: the accumulator stays in Y8-Y15 as f32 values, each
	// step rounded to f16 and back (the same values a store and reload give).
mrow64:
	VCVTPH2PS 0(R9), Y8
	VCVTPH2PS 16(R9), Y9
	VCVTPH2PS 32(R9), Y10
	VCVTPH2PS 48(R9), Y11
	VCVTPH2PS 64(R9), Y12
	VCVTPH2PS 80(R9), Y13
	VCVTPH2PS 96(R9), Y14
	VCVTPH2PS 112(R9), Y15

mrow64loop:
	VMOVSS   (R12), X5
	VUCOMISS X6, X5
	JNE      m64scale
	JPS      m64scale
	JMP      m64mad

m64scale:
	VBROADCASTSS (R12), Y3
	VMULPS       Y3, Y8, Y8
	VCVTPS2PH    $0, Y8, X0
	VCVTPH2PS    X0, Y8
	VMULPS       Y3, Y9, Y9
	VCVTPS2PH    $0, Y9, X1
	VCVTPH2PS    X1, Y9
	VMULPS       Y3, Y10, Y10
	VCVTPS2PH    $0, Y10, X2
	VCVTPH2PS    X2, Y10
	VMULPS       Y3, Y11, Y11
	VCVTPS2PH    $0, Y11, X0
	VCVTPH2PS    X0, Y11
	VMULPS       Y3, Y12, Y12
	VCVTPS2PH    $0, Y12, X1
	VCVTPH2PS    X1, Y12
	VMULPS       Y3, Y13, Y13
	VCVTPS2PH    $0, Y13, X2
	VCVTPH2PS    X2, Y13
	VMULPS       Y3, Y14, Y14
	VCVTPS2PH    $0, Y14, X0
	VCVTPH2PS    X0, Y14
	VMULPS       Y3, Y15, Y15
	VCVTPS2PH    $0, Y15, X1
	VCVTPH2PS    X1, Y15

m64mad:
	VBROADCASTSS (R13), Y3
	VCVTPH2PS    0(R10), Y4
	VFMADD231PS  Y3, Y4, Y8
	VCVTPS2PH    $0, Y8, X0
	VCVTPH2PS    X0, Y8
	VCVTPH2PS    16(R10), Y5
	VFMADD231PS  Y3, Y5, Y9
	VCVTPS2PH    $0, Y9, X1
	VCVTPH2PS    X1, Y9
	VCVTPH2PS    32(R10), Y4
	VFMADD231PS  Y3, Y4, Y10
	VCVTPS2PH    $0, Y10, X2
	VCVTPH2PS    X2, Y10
	VCVTPH2PS    48(R10), Y5
	VFMADD231PS  Y3, Y5, Y11
	VCVTPS2PH    $0, Y11, X0
	VCVTPH2PS    X0, Y11
	VCVTPH2PS    64(R10), Y4
	VFMADD231PS  Y3, Y4, Y12
	VCVTPS2PH    $0, Y12, X1
	VCVTPH2PS    X1, Y12
	VCVTPH2PS    80(R10), Y5
	VFMADD231PS  Y3, Y5, Y13
	VCVTPS2PH    $0, Y13, X2
	VCVTPH2PS    X2, Y13
	VCVTPH2PS    96(R10), Y4
	VFMADD231PS  Y3, Y4, Y14
	VCVTPS2PH    $0, Y14, X0
	VCVTPH2PS    X0, Y14
	VCVTPH2PS    112(R10), Y5
	VFMADD231PS  Y3, Y5, Y15
	VCVTPS2PH    $0, Y15, X1
	VCVTPH2PS    X1, Y15
	ADDQ BX, R10
	ADDQ $4, R12
	ADDQ $4, R13
	DECQ R11
	JNZ  mrow64loop
	VCVTPS2PH $0, Y8, 0(R9)
	VCVTPS2PH $0, Y9, 16(R9)
	VCVTPS2PH $0, Y10, 32(R9)
	VCVTPS2PH $0, Y11, 48(R9)
	VCVTPS2PH $0, Y12, 64(R9)
	VCVTPS2PH $0, Y13, 80(R9)
	VCVTPS2PH $0, Y14, 96(R9)
	VCVTPS2PH $0, Y15, 112(R9)
	VZEROUPPER
	RET
