//go:build !purego

#include "attn_avx512_amd64.h"
#include "textflag.h"

// AVX-512 versions of the f16-row attention kernels (attn_direct.go) for
// GQA models: four query heads of one KV head at a time, so that each
// cached row is widened once per four heads instead of once per head (the
// AVX2 kernels' widening costs as much as their multiply-adds). Same bits:
// the scores keep the K tile's row pairs (rows p | p+4 in the two halves of
// a register, attnScoresAVX512's lanes and REDUCE4 tree), the value sums
// are lane-wise chains of FMAs in row order.

// GQK_PAIR widens 8 halves of rows p (at A) and p+4 (at B) into Z.
#define GQK_PAIR(A, B, Z) \
	VMOVDQU32    A, X16   \
	VINSERTI32X4 $1, B, Y16, Y16 \
	VCVTPH2PS    Y16, Z

// GQK_HEAD adds one head's products with the four row pairs Z17-Z20 to its
// accumulators a0..a3; its 8 query elements (at Q) in both halves of Z21.
#define GQK_HEAD(Q, a0, a1, a2, a3) \
	VBROADCASTF64X4 Q, Z21        \
	VFMADD231PS     Z17, Z21, a0  \
	VFMADD231PS     Z18, Z21, a1  \
	VFMADD231PS     Z19, Z21, a2  \
	VFMADD231PS     Z20, Z21, a3

// func attnScoresF16GQAAVX512(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowGroups, dim8 int)
// heads and group multiples of 4. Per four heads of one group, rowGroups
// sets of eight rows kStride bytes apart: per 8 elements, four row pairs
// widened and sixteen FMAs (Z0-Z15: head h's pairs in Z4h..Z4h+3), then
// REDUCE4 per head into its eight scores. Strides in bytes; the heads'
// rows advance in the k argument slot and the quads left in the group in
// the frame.
TEXT ·attnScoresF16GQAAVX512(SB), NOSPLIT, $8-80
	MOVQ s+0(FP), DI
	MOVQ q+16(FP), SI
	MOVQ kStride+32(FP), R11
	LEAQ (R11)(R11*2), R12    // 3 rows
	MOVQ group+48(FP), AX
	SHRQ $2, AX
	MOVQ AX, left-8(SP)
	MOVQ heads+56(FP), R10
	SHRQ $2, R10
	MOVQ dim8+72(FP), R15
	SHLQ $5, R15              // bytes of one query
	LEAQ (R15)(R15*2), R8     // three queries

gqhead:
	MOVQ k+24(FP), DX         // this group's first row
	MOVQ DI, R14              // its scores
	MOVQ rowGroups+64(FP), R9

gqgroup:
	VPXORD  Z0, Z0, Z0
	VMOVAPS Z0, Z1
	VMOVAPS Z0, Z2
	VMOVAPS Z0, Z3
	VMOVAPS Z0, Z4
	VMOVAPS Z0, Z5
	VMOVAPS Z0, Z6
	VMOVAPS Z0, Z7
	VMOVAPS Z0, Z8
	VMOVAPS Z0, Z9
	VMOVAPS Z0, Z10
	VMOVAPS Z0, Z11
	VMOVAPS Z0, Z12
	VMOVAPS Z0, Z13
	VMOVAPS Z0, Z14
	VMOVAPS Z0, Z15
	MOVQ    DX, AX            // rows 0-3
	LEAQ    (DX)(R11*4), BX   // rows 4-7
	MOVQ    SI, R13
	MOVQ    dim8+72(FP), CX

gqdot:
	GQK_PAIR((AX), (BX), Z17)
	GQK_PAIR((AX)(R11*1), (BX)(R11*1), Z18)
	GQK_PAIR((AX)(R11*2), (BX)(R11*2), Z19)
	GQK_PAIR((AX)(R12*1), (BX)(R12*1), Z20)
	GQK_HEAD((R13), Z0, Z1, Z2, Z3)
	GQK_HEAD((R13)(R15*1), Z4, Z5, Z6, Z7)
	GQK_HEAD((R13)(R15*2), Z8, Z9, Z10, Z11)
	GQK_HEAD((R13)(R8*1), Z12, Z13, Z14, Z15)
	ADDQ $16, AX
	ADDQ $16, BX
	ADDQ $32, R13
	DECQ CX
	JNZ  gqdot

	MOVQ    sStride+8(FP), CX
	MOVQ    R14, BX
	REDUCE4(Z0, Z1, Z2, Z3, Z24, Z25, Z26, Z27, Y24, Y25)
	VMOVUPS Y24, (BX)
	ADDQ    CX, BX
	REDUCE4(Z4, Z5, Z6, Z7, Z24, Z25, Z26, Z27, Y24, Y25)
	VMOVUPS Y24, (BX)
	ADDQ    CX, BX
	REDUCE4(Z8, Z9, Z10, Z11, Z24, Z25, Z26, Z27, Y24, Y25)
	VMOVUPS Y24, (BX)
	ADDQ    CX, BX
	REDUCE4(Z12, Z13, Z14, Z15, Z24, Z25, Z26, Z27, Y24, Y25)
	VMOVUPS Y24, (BX)

	ADDQ $32, R14
	LEAQ (DX)(R11*8), DX
	DECQ R9
	JNZ  gqgroup

	MOVQ sStride+8(FP), CX
	LEAQ (DI)(CX*4), DI       // the next four heads
	LEAQ (SI)(R15*4), SI
	DECQ left-8(SP)
	JNZ  gqsame
	MOVQ group+48(FP), AX
	SHRQ $2, AX
	MOVQ AX, left-8(SP)
	MOVQ kHead+40(FP), AX
	ADDQ AX, k+24(FP)         // the next group's rows

gqsame:
	DECQ R10
	JNZ  gqhead
	VZEROUPPER
	RET

// GQV_LOAD sets a0..a3 to the 64 accumulators at register A times alpha
// at AL.
#define GQV_LOAD(A, AL, a0, a1, a2, a3) \
	VMOVUPS     0(A), a0          \
	VMOVUPS     64(A), a1         \
	VMOVUPS     128(A), a2        \
	VMOVUPS     192(A), a3        \
	VMULPS.BCST AL, a0, a0        \
	VMULPS.BCST AL, a1, a1        \
	VMULPS.BCST AL, a2, a2        \
	VMULPS.BCST AL, a3, a3

// GQV_STORE writes a0..a3 back to register A.
#define GQV_STORE(A, a0, a1, a2, a3) \
	VMOVUPS a0, 0(A)   \
	VMOVUPS a1, 64(A)  \
	VMOVUPS a2, 128(A) \
	VMOVUPS a3, 192(A)

// GQV_HEAD adds one head's weight of the row (at P, broadcast) times the
// row's 64 widened values Z16-Z19 to its accumulators a0..a3.
#define GQV_HEAD(P, a0, a1, a2, a3) \
	VFMADD231PS.BCST P, Z16, a0 \
	VFMADD231PS.BCST P, Z17, a1 \
	VFMADD231PS.BCST P, Z18, a2 \
	VFMADD231PS.BCST P, Z19, a3

// func attnAccumVGQAAVX512(acc *float32, dim64 int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32)
// heads and group multiples of 4, rows > 0. Per four heads of one group,
// strips of 64 elements of their accumulators (Z0-Z15: head h's in
// Z4h..Z4h+3) held in registers while every row's 64 values are widened
// once and take each head's weight; each element's chain of FMAs is
// attnAccumVAVX2's. Strides in bytes; the quads left in the group in the
// frame.
TEXT ·attnAccumVGQAAVX512(SB), NOSPLIT, $8-88
	MOVQ acc+0(FP), DI
	MOVQ p+16(FP), SI
	MOVQ pStride+24(FP), R8
	LEAQ (R8)(R8*2), R9       // 3 heads' weights
	MOVQ vStride+40(FP), R11
	MOVQ group+56(FP), AX
	SHRQ $2, AX
	MOVQ AX, left-8(SP)
	MOVQ heads+64(FP), R10
	SHRQ $2, R10
	MOVQ alpha+80(FP), R13
	MOVQ v+32(FP), R15        // the group's values in row 0

gvhead:
	MOVQ R15, R12             // the strip's values in row 0
	MOVQ DI, AX               // the strip's accumulators (first head)
	MOVQ dim64+8(FP), R14     // strips left

gvstrip:
	MOVQ dim64+8(FP), CX
	SHLQ $8, CX               // bytes of one head's accumulator
	MOVQ AX, BX
	GQV_LOAD(BX, 0(R13), Z0, Z1, Z2, Z3)
	ADDQ CX, BX
	GQV_LOAD(BX, 4(R13), Z4, Z5, Z6, Z7)
	ADDQ CX, BX
	GQV_LOAD(BX, 8(R13), Z8, Z9, Z10, Z11)
	ADDQ CX, BX
	GQV_LOAD(BX, 12(R13), Z12, Z13, Z14, Z15)
	MOVQ rows+72(FP), CX
	MOVQ R12, BX
	MOVQ SI, DX

gvrow:
	VCVTPH2PS 0(BX), Z16
	VCVTPH2PS 32(BX), Z17
	VCVTPH2PS 64(BX), Z18
	VCVTPH2PS 96(BX), Z19
	GQV_HEAD((DX), Z0, Z1, Z2, Z3)
	GQV_HEAD((DX)(R8*1), Z4, Z5, Z6, Z7)
	GQV_HEAD((DX)(R8*2), Z8, Z9, Z10, Z11)
	GQV_HEAD((DX)(R9*1), Z12, Z13, Z14, Z15)
	ADDQ R11, BX
	ADDQ $4, DX
	DECQ CX
	JNZ  gvrow

	MOVQ dim64+8(FP), CX
	SHLQ $8, CX
	MOVQ AX, BX
	GQV_STORE(BX, Z0, Z1, Z2, Z3)
	ADDQ CX, BX
	GQV_STORE(BX, Z4, Z5, Z6, Z7)
	ADDQ CX, BX
	GQV_STORE(BX, Z8, Z9, Z10, Z11)
	ADDQ CX, BX
	GQV_STORE(BX, Z12, Z13, Z14, Z15)
	ADDQ $256, AX
	ADDQ $128, R12
	DECQ R14
	JNZ  gvstrip

	MOVQ dim64+8(FP), CX
	SHLQ $10, CX              // four heads' accumulators
	ADDQ CX, DI
	LEAQ (SI)(R8*4), SI
	ADDQ $16, R13
	DECQ left-8(SP)
	JNZ  gvsame
	MOVQ group+56(FP), AX
	SHRQ $2, AX
	MOVQ AX, left-8(SP)
	MOVQ vHead+48(FP), AX
	ADDQ AX, R15              // the next group's values

gvsame:
	DECQ R10
	JNZ  gvhead
	VZEROUPPER
	RET
