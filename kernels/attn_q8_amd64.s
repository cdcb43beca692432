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

// func dequantQ8_0RowsAVX2(dst *float32, tileBytes, kDim, row, dstStride int, src *byte, srcStride, headStride, heads, rows, blocks int)
// dequantQ8_0RowsGeneric's loop, row by row, each row head by head, each
// head's blocks in turn. kDim 0: row i's values at dst+i*dstStride (bytes),
// runs of 8 in a row; else rows row.. of K tiles of kDim floats, whose
// rows start at ((r&^7) + (r&3)*2)*kDim + ((r>>2)&1)*8 floats (kTileIndex)
// and hold their runs 16 floats apart. Heads tileBytes apart.
TEXT ·dequantQ8_0RowsAVX2(SB), NOSPLIT, $0-88
	MOVQ row+24(FP), AX
	MOVQ rows+72(FP), R13
	ADDQ AX, R13          // the end row
	MOVQ src+40(FP), R12  // the row's source
	MOVQ dst+0(FP), R14   // the row's destination (kDim 0)
	MOVQ $32, R8          // bytes from a run to the next
	CMPQ kDim+16(FP), $0
	JEQ  dqrstride
	MOVQ $64, R8

dqrstride:
	LEAQ (R8)(R8*2), R11

dqrrow:
	MOVQ R14, BX
	CMPQ kDim+16(FP), $0
	JEQ  dqrheads
	MOVQ AX, BX
	ANDQ $-8, BX
	MOVQ AX, DX
	ANDQ $3, DX
	LEAQ (BX)(DX*2), BX
	IMULQ kDim+16(FP), BX
	MOVQ AX, DX
	SHRQ $2, DX
	ANDQ $1, DX
	LEAQ (BX)(DX*8), BX
	SHLQ $2, BX
	ADDQ dst+0(FP), BX

dqrheads:
	MOVQ R12, R10 // the head's source
	MOVQ heads+64(FP), R9

dqrhead:
	MOVQ BX, DI
	MOVQ R10, SI
	MOVQ blocks+80(FP), CX

dqrblock:
	Q8_BLOCK
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, (DI)(R8*1)
	VMOVUPS Y2, (DI)(R8*2)
	VMOVUPS Y3, (DI)(R11*1)
	ADDQ    $34, SI
	LEAQ    (DI)(R8*4), DI
	DECQ    CX
	JNZ     dqrblock
	ADDQ    headStride+56(FP), R10
	ADDQ    tileBytes+8(FP), BX
	DECQ    R9
	JNZ     dqrhead
	ADDQ    srcStride+48(FP), R12
	ADDQ    dstStride+32(FP), R14
	INCQ    AX
	CMPQ    AX, R13
	JLT     dqrrow
	VZEROUPPER
	RET
