//go:build !purego

#include "attn_amd64.h"
#include "attn_avx512_amd64.h"
#include "textflag.h"

// AVX-512 versions of the f16-row attention kernels (attn_direct.go) for
// GQA models: four (or two) query heads of one KV head at a time, so that each
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

// GQK_SCORES is the body of the 512-bit GQA score kernels for 1<<HL heads
// a pass: ZERO clears their accumulators, HEADS adds each head's products
// with the four row pairs, STORES reduces and stores each head's eight
// scores (at R14, sStride in CX). The heads' rows advance in the k
// argument slot and the passes left in the group in the frame.
#define GQK_SCORES(HL, ZERO, HEADS, STORES, lhead, lrows, ldot, lsame, lpf, lpfdone) \
	GQA_SCORES_ARGS(HL)                           \
	LEAQ (R11)(R11*2), R12                        \
lhead:                                            \
	GQA_SCORES_HEAD(lpf, lpfdone)                 \
lrows:                                            \
	ZERO                                          \
	MOVQ DX, AX                                   \
	LEAQ (DX)(R11*4), BX                          \
	MOVQ SI, R13                                  \
	MOVQ dim8+72(FP), CX                          \
ldot:                                             \
	GQK_PAIR((AX), (BX), Z17)                     \
	GQK_PAIR((AX)(R11*1), (BX)(R11*1), Z18)       \
	GQK_PAIR((AX)(R11*2), (BX)(R11*2), Z19)       \
	GQK_PAIR((AX)(R12*1), (BX)(R12*1), Z20)       \
	HEADS                                         \
	ADDQ $16, AX                                  \
	ADDQ $16, BX                                  \
	ADDQ $32, R13                                 \
	DECQ CX                                       \
	JNZ  ldot                                     \
	MOVQ sStride+8(FP), CX                        \
	STORES                                        \
	ADDQ $32, R14                                 \
	LEAQ (DX)(R11*8), DX                          \
	DECQ R9                                       \
	JNZ  lrows                                    \
	GQA_SCORES_NEXT(HL, lhead, lsame)

// The four heads' products (Z0-Z15: head h's pairs in Z4h..Z4h+3) and
// scores.
#define GQK_HEADS4 \
	GQK_HEAD((R13), Z0, Z1, Z2, Z3)           \
	GQK_HEAD((R13)(R15*1), Z4, Z5, Z6, Z7)    \
	GQK_HEAD((R13)(R15*2), Z8, Z9, Z10, Z11)  \
	GQK_HEAD((R13)(R8*1), Z12, Z13, Z14, Z15)

#define GQK_STORES4 \
	MOVQ    R14, BX                                        \
	REDUCE4(Z0, Z1, Z2, Z3, Z24, Z25, Z26, Z27, Y24, Y25)     \
	VMOVUPS Y24, (BX)                                      \
	ADDQ    CX, BX                                         \
	REDUCE4(Z4, Z5, Z6, Z7, Z24, Z25, Z26, Z27, Y24, Y25)     \
	VMOVUPS Y24, (BX)                                      \
	ADDQ    CX, BX                                         \
	REDUCE4(Z8, Z9, Z10, Z11, Z24, Z25, Z26, Z27, Y24, Y25)   \
	VMOVUPS Y24, (BX)                                      \
	ADDQ    CX, BX                                         \
	REDUCE4(Z12, Z13, Z14, Z15, Z24, Z25, Z26, Z27, Y24, Y25) \
	VMOVUPS Y24, (BX)

// The two heads' (Z0-Z7).
#define GQK_HEADS2 \
	GQK_HEAD((R13), Z0, Z1, Z2, Z3)        \
	GQK_HEAD((R13)(R15*1), Z4, Z5, Z6, Z7)

#define GQK_STORES2 \
	REDUCE4(Z0, Z1, Z2, Z3, Z24, Z25, Z26, Z27, Y24, Y25) \
	VMOVUPS Y24, (R14)                                 \
	REDUCE4(Z4, Z5, Z6, Z7, Z24, Z25, Z26, Z27, Y24, Y25) \
	VMOVUPS Y24, (R14)(CX*1)

// func attnScoresF16GQAAVX512(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)
// heads and group multiples of 4. Per four heads of one group, rowSets
// sets of eight rows kStride bytes apart: per 8 elements, four row pairs
// widened and sixteen FMAs (Z0-Z15: head h's pairs in Z4h..Z4h+3), then
// REDUCE4 per head into its eight scores. Strides in bytes; the heads'
// rows advance in the k argument slot and the quads left in the group in
// the frame.
TEXT ·attnScoresF16GQAAVX512(SB), NOSPLIT, $8-104
	GQK_SCORES(2, ZERO_Z0_Z15, GQK_HEADS4, GQK_STORES4, gqhead, gqrows, gqdot, gqsame, gqpf, gqpfd)

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

// GQV_LOADS, GQV_ROW and GQV_STORES: GQA_ACCV's parts on strips of 64
// (Z0-Z15: head h's in Z4h..Z4h+3).
#define GQV_LOADS \
	MOVQ AX, BX                            \
	GQV_LOAD(BX, 0(R13), Z0, Z1, Z2, Z3)   \
	ADDQ CX, BX                            \
	GQV_LOAD(BX, 4(R13), Z4, Z5, Z6, Z7)   \
	ADDQ CX, BX                            \
	GQV_LOAD(BX, 8(R13), Z8, Z9, Z10, Z11) \
	ADDQ CX, BX                            \
	GQV_LOAD(BX, 12(R13), Z12, Z13, Z14, Z15)

#define GQV_ROW \
	VCVTPH2PS 0(BX), Z16                      \
	VCVTPH2PS 32(BX), Z17                     \
	VCVTPH2PS 64(BX), Z18                     \
	VCVTPH2PS 96(BX), Z19                     \
	GQV_HEAD((DX), Z0, Z1, Z2, Z3)            \
	GQV_HEAD((DX)(R8*1), Z4, Z5, Z6, Z7)      \
	GQV_HEAD((DX)(R8*2), Z8, Z9, Z10, Z11)    \
	GQV_HEAD((DX)(R9*1), Z12, Z13, Z14, Z15)

#define GQV_STORES \
	MOVQ AX, BX                        \
	GQV_STORE(BX, Z0, Z1, Z2, Z3)      \
	ADDQ CX, BX                        \
	GQV_STORE(BX, Z4, Z5, Z6, Z7)      \
	ADDQ CX, BX                        \
	GQV_STORE(BX, Z8, Z9, Z10, Z11)    \
	ADDQ CX, BX                        \
	GQV_STORE(BX, Z12, Z13, Z14, Z15)

// func attnAccumVGQAAVX512(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int)
// Strips of 64 elements (GQA_ACCV): each row's 64 values widened once for
// four heads; each element's chain of FMAs is attnAccumVAVX2's.
TEXT ·attnAccumVGQAAVX512(SB), NOSPLIT, $8-112
	GQA_ACCV(2, 8, 256, 128, GQV_LOADS, GQV_ROW, GQV_STORES, gvhead, gvstrip, gvrow, gvsame, gvpf, gvpfd)

// func attnScoresF16GQ2AVX512(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)
// attnScoresF16GQAAVX512 for groups of two heads (Gemma-2, Qwen3's small
// models): per 8 elements, four row pairs widened and eight FMAs (head
// h's pairs in Z4h..Z4h+3).
TEXT ·attnScoresF16GQ2AVX512(SB), NOSPLIT, $8-104
	GQK_SCORES(1, ZERO_Z0_Z7, GQK_HEADS2, GQK_STORES2, gphead, gprows, gpdot, gpsame, gppf, gppfd)

// GQV8_LOAD, GQV8_HEAD, GQV8_STORE: GQV_LOAD, GQV_HEAD and GQV_STORE on
// strips of 128 (eight registers a head; the row's values in Z16-Z23).
#define GQV8_LOAD(A, AL, a0, a1, a2, a3, a4, a5, a6, a7) \
	GQV_LOAD(A, AL, a0, a1, a2, a3) \
	ADDQ $256, A                    \
	GQV_LOAD(A, AL, a4, a5, a6, a7)

#define GQV8_HEAD(P, a0, a1, a2, a3, a4, a5, a6, a7) \
	GQV_HEAD(P, a0, a1, a2, a3)  \
	VFMADD231PS.BCST P, Z20, a4  \
	VFMADD231PS.BCST P, Z21, a5  \
	VFMADD231PS.BCST P, Z22, a6  \
	VFMADD231PS.BCST P, Z23, a7

#define GQV8_STORE(A, a0, a1, a2, a3, a4, a5, a6, a7) \
	GQV_STORE(A, a0, a1, a2, a3) \
	ADDQ $256, A                 \
	GQV_STORE(A, a4, a5, a6, a7)

#define GQV2_LOADS512 \
	MOVQ AX, BX                                             \
	GQV8_LOAD(BX, 0(R13), Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)   \
	LEAQ (AX)(CX*1), BX                                     \
	GQV8_LOAD(BX, 4(R13), Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

#define GQV2_ROW512 \
	VCVTPH2PS 0(BX), Z16                                        \
	VCVTPH2PS 32(BX), Z17                                       \
	VCVTPH2PS 64(BX), Z18                                       \
	VCVTPH2PS 96(BX), Z19                                       \
	VCVTPH2PS 128(BX), Z20                                      \
	VCVTPH2PS 160(BX), Z21                                      \
	VCVTPH2PS 192(BX), Z22                                      \
	VCVTPH2PS 224(BX), Z23                                      \
	GQV8_HEAD((DX), Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)             \
	GQV8_HEAD((DX)(R8*1), Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

#define GQV2_STORES512 \
	MOVQ AX, BX                                             \
	GQV8_STORE(BX, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)          \
	LEAQ (AX)(CX*1), BX                                     \
	GQV8_STORE(BX, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// func attnAccumVGQ2AVX512(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int)
// attnAccumVGQAAVX512 for groups of two heads: strips of 128 elements,
// each row's 128 values widened once for the two heads.
TEXT ·attnAccumVGQ2AVX512(SB), NOSPLIT, $8-112
	GQA_ACCV(1, 9, 512, 256, GQV2_LOADS512, GQV2_ROW512, GQV2_STORES512, gphead, gpstrip, gprow, gpsame, gpvpf, gpvpfd)
