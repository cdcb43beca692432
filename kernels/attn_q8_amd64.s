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

// Q8_RESCALE multiplies the accumulators a0-a3 by the factor at (R),
// unless it is 1.0: then it jumps to skip. Y14 scratch.
#define Q8_RESCALE(R, skip, a0, a1, a2, a3) \
	CMPL         (R), $0x3f800000 \
	JEQ          skip             \
	VBROADCASTSS (R), Y14         \
	VMULPS       Y14, a0, a0      \
	VMULPS       Y14, a1, a1      \
	VMULPS       Y14, a2, a2      \
	VMULPS       Y14, a3, a3

// Q8_ADD adds the weight at (R) times Q8_BLOCK's values Y0-Y3 to the
// accumulators a0-a3 (the product rounded, then the sum: Axpy's bits).
// Y12, Y14 scratch.
#define Q8_ADD(R, a0, a1, a2, a3) \
	VBROADCASTSS (R), Y14 \
	VMULPS       Y14, Y0, Y12 \
	VADDPS       Y12, a0, a0  \
	VMULPS       Y14, Y1, Y12 \
	VADDPS       Y12, a1, a1  \
	VMULPS       Y14, Y2, Y12 \
	VADDPS       Y12, a2, a2  \
	VMULPS       Y14, Y3, Y12 \
	VADDPS       Y12, a3, a3

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

// func axpyQ8_0RowsAVX2(y *float32, blocks int, v *byte, stride int, ms, vs *float32, rows int)
// axpyQ8_0RowsGeneric: for each row, y *= ms[r] where ms[r] is not 1,
// then y += vs[r]*x (vs*x rounded, then the sum: Axpy's). Block column by block
// column, its 32 accumulators held in Y8-Y11 over the rows (each value
// gets the same operations in the same order as row by row).
TEXT ·axpyQ8_0RowsAVX2(SB), NOSPLIT, $0-56
	MOVQ y+0(FP), DI
	MOVQ blocks+8(FP), BX
	MOVQ v+16(FP), R8 // the block column's first row

aqrcol:
	VMOVUPS 0(DI), Y8
	VMOVUPS 32(DI), Y9
	VMOVUPS 64(DI), Y10
	VMOVUPS 96(DI), Y11
	MOVQ    R8, SI
	MOVQ    ms+32(FP), R11
	MOVQ    vs+40(FP), R12
	MOVQ    rows+48(FP), CX

aqrrow:
	Q8_RESCALE(R11, aqradd, Y8, Y9, Y10, Y11)

aqradd:
	Q8_BLOCK
	Q8_ADD(R12, Y8, Y9, Y10, Y11)
	ADDQ         stride+24(FP), SI
	ADDQ         $4, R11
	ADDQ         $4, R12
	DECQ         CX
	JNZ          aqrrow
	VMOVUPS      Y8, 0(DI)
	VMOVUPS      Y9, 32(DI)
	VMOVUPS      Y10, 64(DI)
	VMOVUPS      Y11, 96(DI)
	ADDQ         $128, DI
	ADDQ         $34, R8
	DECQ         BX
	JNZ          aqrcol
	VZEROUPPER
	RET

// func axpyQ8_0Rows2AVX2(y1, y2 *float32, blocks int, v *byte, stride int, ms1, vs1, ms2, vs2 *float32, rows int)
// axpyQ8_0RowsAVX2 for two heads at once (y1 in Y8-Y11, y2 in Y4-Y7),
// each value block dequantized once; the same steps for each.
TEXT ·axpyQ8_0Rows2AVX2(SB), NOSPLIT, $0-80
	MOVQ y1+0(FP), DI
	MOVQ y2+8(FP), DX
	MOVQ blocks+16(FP), BX
	MOVQ v+24(FP), R8 // the block column's first row

aq2col:
	VMOVUPS 0(DI), Y8
	VMOVUPS 32(DI), Y9
	VMOVUPS 64(DI), Y10
	VMOVUPS 96(DI), Y11
	VMOVUPS 0(DX), Y4
	VMOVUPS 32(DX), Y5
	VMOVUPS 64(DX), Y6
	VMOVUPS 96(DX), Y7
	MOVQ    R8, SI
	MOVQ    ms1+40(FP), R11
	MOVQ    vs1+48(FP), R12
	MOVQ    ms2+56(FP), R13
	MOVQ    vs2+64(FP), R14
	MOVQ    rows+72(FP), CX

aq2row:
	Q8_RESCALE(R11, aq2rescale2, Y8, Y9, Y10, Y11)

aq2rescale2:
	Q8_RESCALE(R13, aq2add, Y4, Y5, Y6, Y7)

aq2add:
	Q8_BLOCK
	Q8_ADD(R12, Y8, Y9, Y10, Y11)
	Q8_ADD(R14, Y4, Y5, Y6, Y7)
	ADDQ         stride+32(FP), SI
	ADDQ         $4, R11
	ADDQ         $4, R12
	ADDQ         $4, R13
	ADDQ         $4, R14
	DECQ         CX
	JNZ          aq2row
	VMOVUPS      Y8, 0(DI)
	VMOVUPS      Y9, 32(DI)
	VMOVUPS      Y10, 64(DI)
	VMOVUPS      Y11, 96(DI)
	VMOVUPS      Y4, 0(DX)
	VMOVUPS      Y5, 32(DX)
	VMOVUPS      Y6, 64(DX)
	VMOVUPS      Y7, 96(DX)
	ADDQ         $128, DI
	ADDQ         $128, DX
	ADDQ         $34, R8
	DECQ         BX
	JNZ          aq2col
	VZEROUPPER
	RET
