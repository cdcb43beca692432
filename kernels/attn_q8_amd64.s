//go:build !purego

#include "textflag.h"

// Q8_0 rows for the one-row attention of a q8_0 cache (attn_q8.go): per
// block of 32, d (the f16 scale, broadcast and widened) times the 32
// quants widened to f32 (exact), rounded as quant.DequantizeRowQ8_0 does.

// Q8DQ sets Y to d (Y15) times the 8 quants at src+off.
#define Q8DQ(off, Y) \
	VPMOVSXBD off(SI), Y \
	VCVTDQ2PS Y, Y       \
	VMULPS    Y15, Y, Y

// Q8_BLOCK sets Y0-Y3 to the 32 values of the block at SI (its scale in
// every lane of Y15).
#define Q8_BLOCK \
	VPBROADCASTW (SI), X15 \
	VCVTPH2PS    X15, Y15  \
	Q8DQ(2, Y0)            \
	Q8DQ(10, Y1)           \
	Q8DQ(18, Y2)           \
	Q8DQ(26, Y3)

// func axpyQ8_0AVX2(y *float32, a float32, src *byte, blocks int)
// y += a*x, a*x rounded before the sum (VMULPS, VADDPS: Axpy's bits).
TEXT ·axpyQ8_0AVX2(SB), NOSPLIT, $0-32
	MOVQ         y+0(FP), DI
	VBROADCASTSS a+8(FP), Y14
	MOVQ         src+16(FP), SI
	MOVQ         blocks+24(FP), CX

aqblock:
	Q8_BLOCK
	VMULPS  Y14, Y0, Y0
	VMULPS  Y14, Y1, Y1
	VMULPS  Y14, Y2, Y2
	VMULPS  Y14, Y3, Y3
	VADDPS  0(DI), Y0, Y0
	VADDPS  32(DI), Y1, Y1
	VADDPS  64(DI), Y2, Y2
	VADDPS  96(DI), Y3, Y3
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $34, SI
	ADDQ    $128, DI
	DECQ    CX
	JNZ     aqblock
	VZEROUPPER
	RET

// func dequantQ8_0AVX2(dst *float32, stride int, src *byte, blocks int)
// Each run of 8 values stride bytes after the last (32: in a row; 64: a
// row of a K tile, AttnDequantKQ8_0).
TEXT ·dequantQ8_0AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), R8
	LEAQ (R8)(R8*2), R9
	MOVQ src+16(FP), SI
	MOVQ blocks+24(FP), CX

dqblock:
	Q8_BLOCK
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, (DI)(R8*1)
	VMOVUPS Y2, (DI)(R8*2)
	VMOVUPS Y3, (DI)(R9*1)
	ADDQ    $34, SI
	LEAQ    (DI)(R8*4), DI
	DECQ    CX
	JNZ     dqblock
	VZEROUPPER
	RET
