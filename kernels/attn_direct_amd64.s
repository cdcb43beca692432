//go:build !purego

#include "attn_amd64.h"
#include "lanes_amd64.h"
#include "textflag.h"

// AVX2 versions of the f16-row attention kernels (attn_direct.go): the
// loops of attnScoresAVX2 and attnAccumVAVX2 with each 8 elements of a row
// widened by VCVTPH2PS where those load the f32 tile.

// GQ_SCORES_AVX2 is the body of the AVX2 GQA score kernels for 1<<HL
// heads a pass and sets of ROWS rows: SETUP finishes the prologue, DOT
// widens 8 elements of the set's rows and adds each head's products into
// Y0-Y7, STORES reduces them (ATTN_REDUCE8) and stores the set's scores
// at R14, which then moves on SBYTES.
#define GQ_SCORES_AVX2(HL, SETUP, DOT, STORES, SBYTES, ROWS, lhead, lrows, ldot, lsame, lpf, lpfdone) \
	GQA_SCORES_ARGS(HL)                          \
	SETUP                                        \
lhead:                                           \
	GQA_SCORES_HEAD(lpf, lpfdone)                \
lrows:                                           \
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)  \
	MOVQ DX, AX                                  \
	MOVQ SI, R13                                 \
	MOVQ dim8+72(FP), CX                         \
ldot:                                            \
	DOT                                          \
	ADDQ $16, AX                                 \
	ADDQ $32, R13                                \
	DECQ CX                                      \
	JNZ  ldot                                    \
	ATTN_REDUCE8                                 \
	STORES                                       \
	ADDQ $SBYTES, R14                            \
	LEAQ (DX)(R11*ROWS), DX                      \
	DECQ R9                                      \
	JNZ  lrows                                   \
	GQA_SCORES_NEXT(HL, lhead, lsame)

// Four heads, two rows a set (Y0-Y7: head h's rows in Y2h, Y2h+1; R12
// sStride): the eight scores two per head.
#define GQ4_SETUP \
	MOVQ sStride+8(FP), R12

#define GQ4_DOT \
	VCVTPH2PS (AX), Y8                    \
	VCVTPH2PS (AX)(R11*1), Y9             \
	GQA2_HEAD((R13), Y10, Y0, Y1)         \
	GQA2_HEAD((R13)(R15*1), Y11, Y2, Y3)  \
	GQA2_HEAD((R13)(R15*2), Y12, Y4, Y5)  \
	GQA2_HEAD((R13)(R8*1), Y13, Y6, Y7)

#define GQ4_STORES \
	MOVQ         R14, BX          \
	VMOVQ        X10, (BX)        \
	VMOVHPS      X10, (BX)(R12*1) \
	VEXTRACTF128 $1, Y10, X11     \
	LEAQ         (BX)(R12*2), BX  \
	VMOVQ        X11, (BX)        \
	VMOVHPS      X11, (BX)(R12*1)

// Two heads, four rows a set (Y0-Y7: head h's rows in Y4h..Y4h+3; R12
// three rows): the eight scores four per head.
#define GQ2_SETUP \
	LEAQ (R11)(R11*2), R12

#define GQ2_DOT \
	VCVTPH2PS (AX), Y8                      \
	VCVTPH2PS (AX)(R11*1), Y9               \
	VCVTPH2PS (AX)(R11*2), Y10              \
	VCVTPH2PS (AX)(R12*1), Y11              \
	GQ2_HEAD((R13), Y0, Y1, Y2, Y3)         \
	GQ2_HEAD((R13)(R15*1), Y4, Y5, Y6, Y7)

#define GQ2_STORES \
	MOVQ         sStride+8(FP), CX \
	VMOVUPS      X10, (R14)        \
	VEXTRACTF128 $1, Y10, X11      \
	VMOVUPS      X11, (R14)(CX*1)

// func attnScoresF16AVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowGroups, dim8 int)
// For each head (each group of group heads reading rows kHead bytes after
// the previous group's), rowGroups sets of eight rows kStride bytes apart:
// eight accumulators (one per row), one query load, eight widenings and
// eight FMAs per 8 elements, then attnScoresAVX2's transpose reduction
// into the eight scores. Strides in bytes. The heads' rows advance in the
// k argument slot and the heads left in the group in the frame (every
// register is taken).
TEXT ·attnScoresF16AVX2(SB), NOSPLIT, $8-80
	MOVQ s+0(FP), DI
	MOVQ sStride+8(FP), R8
	MOVQ q+16(FP), SI
	MOVQ kStride+32(FP), R11
	LEAQ (R11)(R11*2), R12    // 3 rows
	MOVQ group+48(FP), AX
	MOVQ AX, left-8(SP)
	MOVQ heads+56(FP), R10
	MOVQ dim8+72(FP), R15
	SHLQ $5, R15              // bytes of one query

sfhead:
	MOVQ k+24(FP), DX         // this group's first row
	MOVQ DI, R14              // its scores
	MOVQ rowGroups+64(FP), R9

sfgroup:
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	MOVQ   DX, AX             // rows 0-3
	LEAQ   (DX)(R11*4), BX    // rows 4-7
	MOVQ   SI, R13
	MOVQ   dim8+72(FP), CX

sfdot:
	VMOVUPS     (R13), Y8
	VCVTPH2PS   (AX), Y9
	VFMADD231PS Y9, Y8, Y0
	VCVTPH2PS   (AX)(R11*1), Y10
	VFMADD231PS Y10, Y8, Y1
	VCVTPH2PS   (AX)(R11*2), Y11
	VFMADD231PS Y11, Y8, Y2
	VCVTPH2PS   (AX)(R12*1), Y12
	VFMADD231PS Y12, Y8, Y3
	VCVTPH2PS   (BX), Y9
	VFMADD231PS Y9, Y8, Y4
	VCVTPH2PS   (BX)(R11*1), Y10
	VFMADD231PS Y10, Y8, Y5
	VCVTPH2PS   (BX)(R11*2), Y11
	VFMADD231PS Y11, Y8, Y6
	VCVTPH2PS   (BX)(R12*1), Y12
	VFMADD231PS Y12, Y8, Y7
	ADDQ        $16, AX
	ADDQ        $16, BX
	ADDQ        $32, R13
	DECQ        CX
	JNZ         sfdot

	ATTN_REDUCE8
	VMOVUPS    Y10, (R14)

	ADDQ $32, R14
	LEAQ (DX)(R11*8), DX
	DECQ R9
	JNZ  sfgroup

	ADDQ R8, DI
	ADDQ R15, SI
	DECQ left-8(SP)
	JNZ  sfsame
	MOVQ group+48(FP), AX
	MOVQ AX, left-8(SP)
	MOVQ kHead+40(FP), AX
	ADDQ AX, k+24(FP)         // the next group's rows

sfsame:
	DECQ R10
	JNZ  sfhead
	VZEROUPPER
	RET

// func attnAccumVF16AVX2(acc *float32, dim8 int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32)
// Per head (each group of group heads reading rows vHead bytes after the
// previous group's; the heads left in the group in the frame), strips of 8
// vectors of the accumulator (then single vectors) held in registers while
// every row's values of the strip are widened and take the row's weight;
// each element's chain of FMAs is attnAccumVAVX2's. Strides in bytes;
// rows > 0.
TEXT ·attnAccumVF16AVX2(SB), NOSPLIT, $8-88
	MOVQ acc+0(FP), DI
	MOVQ p+16(FP), SI
	MOVQ pStride+24(FP), R8
	MOVQ vStride+40(FP), R11
	MOVQ vHead+48(FP), R14
	MOVQ group+56(FP), AX
	MOVQ AX, left-8(SP)
	MOVQ heads+64(FP), R10
	MOVQ alpha+80(FP), R13
	MOVQ v+32(FP), R15        // the head's values in row 0

avfhead:
	MOVQ R15, R12             // the strip's values in row 0
	MOVQ dim8+8(FP), R9       // vectors left
	MOVQ DI, AX               // the strip's accumulators
	VBROADCASTSS (R13), Y14   // alpha

avfs8:
	CMPQ R9, $8
	JB   avfs1
	VMULPS 0(AX), Y14, Y0
	VMULPS 32(AX), Y14, Y1
	VMULPS 64(AX), Y14, Y2
	VMULPS 96(AX), Y14, Y3
	VMULPS 128(AX), Y14, Y4
	VMULPS 160(AX), Y14, Y5
	VMULPS 192(AX), Y14, Y6
	VMULPS 224(AX), Y14, Y7
	MOVQ rows+72(FP), CX
	MOVQ R12, BX
	MOVQ SI, DX

avfs8row:
	VBROADCASTSS (DX), Y15
	VCVTPH2PS    0(BX), Y8
	VFMADD231PS  Y8, Y15, Y0
	VCVTPH2PS    16(BX), Y9
	VFMADD231PS  Y9, Y15, Y1
	VCVTPH2PS    32(BX), Y10
	VFMADD231PS  Y10, Y15, Y2
	VCVTPH2PS    48(BX), Y11
	VFMADD231PS  Y11, Y15, Y3
	VCVTPH2PS    64(BX), Y8
	VFMADD231PS  Y8, Y15, Y4
	VCVTPH2PS    80(BX), Y9
	VFMADD231PS  Y9, Y15, Y5
	VCVTPH2PS    96(BX), Y10
	VFMADD231PS  Y10, Y15, Y6
	VCVTPH2PS    112(BX), Y11
	VFMADD231PS  Y11, Y15, Y7
	ADDQ         R11, BX
	ADDQ         $4, DX
	DECQ         CX
	JNZ          avfs8row
	VMOVUPS Y0, 0(AX)
	VMOVUPS Y1, 32(AX)
	VMOVUPS Y2, 64(AX)
	VMOVUPS Y3, 96(AX)
	VMOVUPS Y4, 128(AX)
	VMOVUPS Y5, 160(AX)
	VMOVUPS Y6, 192(AX)
	VMOVUPS Y7, 224(AX)
	ADDQ $256, AX
	ADDQ $128, R12
	SUBQ $8, R9
	JMP  avfs8

avfs1:
	TESTQ R9, R9
	JZ    avfnext
	VMULPS 0(AX), Y14, Y0
	MOVQ rows+72(FP), CX
	MOVQ R12, BX
	MOVQ SI, DX

avfs1row:
	VBROADCASTSS (DX), Y15
	VCVTPH2PS    0(BX), Y8
	VFMADD231PS  Y8, Y15, Y0
	ADDQ         R11, BX
	ADDQ         $4, DX
	DECQ         CX
	JNZ          avfs1row
	VMOVUPS Y0, 0(AX)
	ADDQ $32, AX
	ADDQ $16, R12
	DECQ R9
	JMP  avfs1

avfnext:
	MOVQ dim8+8(FP), AX
	SHLQ $5, AX
	ADDQ AX, DI               // the next head's accumulator
	ADDQ R8, SI
	ADDQ $4, R13
	DECQ left-8(SP)
	JNZ  avfsame
	MOVQ group+56(FP), AX
	MOVQ AX, left-8(SP)
	ADDQ R14, R15             // the next group's values

avfsame:
	DECQ R10
	JNZ  avfhead
	VZEROUPPER
	RET

// GQA2_HEAD adds one head's products with rows 0 and 1 (Y8, Y9) to its
// accumulators a0, a1; its 8 query elements at Q, loaded into Y.
#define GQA2_HEAD(Q, Y, a0, a1) \
	VMOVUPS     Q, Y          \
	VFMADD231PS Y8, Y, a0     \
	VFMADD231PS Y9, Y, a1

// func attnScoresF16GQAAVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)
// heads and group multiples of 4: attnScoresF16AVX2 for four heads of one
// group and two rows at a time (rowSets pairs of rows), each 8 elements of the two rows widened
// once for the four heads (Y0-Y7: head h's rows in Y2h, Y2h+1), then
// ATTN_REDUCE8 into the eight scores (the same tree per score), stored
// two per head. Strides in bytes; the heads' rows advance in the k
// argument slot and the quads left in the group in the frame.
TEXT ·attnScoresF16GQAAVX2(SB), NOSPLIT, $8-104
	GQ_SCORES_AVX2(2, GQ4_SETUP, GQ4_DOT, GQ4_STORES, 8, 2, gq2head, gq2rows, gq2dot, gq2same, gq2pf, gq2pfd)

// GQV2_LOAD sets a0, a1 to the 16 accumulators at register A times alpha
// at AL (Y15 scratch).
#define GQV2_LOAD(A, AL, a0, a1) \
	VBROADCASTSS AL, Y15       \
	VMULPS       0(A), Y15, a0 \
	VMULPS       32(A), Y15, a1

// GQV2_HEAD adds one head's weight of the row (at P, broadcast into Y)
// times the row's 16 widened values Y8, Y9 to its accumulators a0, a1.
#define GQV2_HEAD(P, Y, a0, a1) \
	VBROADCASTSS P, Y         \
	VFMADD231PS  Y8, Y, a0    \
	VFMADD231PS  Y9, Y, a1

// GQV2_LOADS, GQV2_ROW and GQV2_STORES: GQA_ACCV's parts on strips of 16
// (Y0-Y7: head h's in Y2h, Y2h+1).
#define GQV2_LOADS \
	MOVQ AX, BX                   \
	GQV2_LOAD(BX, 0(R13), Y0, Y1) \
	ADDQ CX, BX                   \
	GQV2_LOAD(BX, 4(R13), Y2, Y3) \
	ADDQ CX, BX                   \
	GQV2_LOAD(BX, 8(R13), Y4, Y5) \
	ADDQ CX, BX                   \
	GQV2_LOAD(BX, 12(R13), Y6, Y7)

#define GQV2_ROW \
	VCVTPH2PS 0(BX), Y8                \
	VCVTPH2PS 16(BX), Y9               \
	GQV2_HEAD((DX), Y10, Y0, Y1)       \
	GQV2_HEAD((DX)(R8*1), Y11, Y2, Y3) \
	GQV2_HEAD((DX)(R8*2), Y12, Y4, Y5) \
	GQV2_HEAD((DX)(R9*1), Y13, Y6, Y7)

#define GQV2_STORES \
	MOVQ    AX, BX     \
	VMOVUPS Y0, 0(BX)  \
	VMOVUPS Y1, 32(BX) \
	ADDQ    CX, BX     \
	VMOVUPS Y2, 0(BX)  \
	VMOVUPS Y3, 32(BX) \
	ADDQ    CX, BX     \
	VMOVUPS Y4, 0(BX)  \
	VMOVUPS Y5, 32(BX) \
	ADDQ    CX, BX     \
	VMOVUPS Y6, 0(BX)  \
	VMOVUPS Y7, 32(BX)

// func attnAccumVGQAAVX2(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int)
// attnAccumVF16AVX2 for four heads of one group at a time (GQA_ACCV):
// strips of 16 elements, each row's 16 values widened once for the four
// heads.
TEXT ·attnAccumVGQAAVX2(SB), NOSPLIT, $8-112
	GQA_ACCV(2, 6, 64, 32, GQV2_LOADS, GQV2_ROW, GQV2_STORES, gv2head, gv2strip, gv2row, gv2same, gv2pf, gv2pfd)

// GQ2_HEAD adds one head's products with rows 0-3 (Y8-Y11) to its
// accumulators a0..a3; its 8 query elements at Q, loaded into Y12.
#define GQ2_HEAD(Q, a0, a1, a2, a3) \
	VMOVUPS     Q, Y12        \
	VFMADD231PS Y8, Y12, a0   \
	VFMADD231PS Y9, Y12, a1   \
	VFMADD231PS Y10, Y12, a2  \
	VFMADD231PS Y11, Y12, a3

// func attnScoresF16GQ2AVX2(s *float32, sStride int, q *float32, k *uint16, kStride, kHead, group, heads, rowSets, dim8 int, pf uintptr, pfLines, pfPer int)
// attnScoresF16GQAAVX2 for groups of two heads and four rows at a time
// (rowSets quads of rows): each 8 elements of the four rows widened once
// for the two heads (Y0-Y7: head h's rows in Y4h..Y4h+3), then
// ATTN_REDUCE8, stored four per head.
TEXT ·attnScoresF16GQ2AVX2(SB), NOSPLIT, $8-104
	GQ_SCORES_AVX2(1, GQ2_SETUP, GQ2_DOT, GQ2_STORES, 16, 4, gp2head, gp2rows, gp2dot, gp2same, gp2pf, gp2pfd)

// GQ2V_LOADS, GQ2V_ROW and GQ2V_STORES: GQA_ACCV's parts for two heads
// on strips of 32 (Y0-Y7: head h's in Y4h..Y4h+3).
#define GQ2V_LOADS \
	MOVQ AX, BX                   \
	GQV2_LOAD(BX, 0(R13), Y0, Y1) \
	ADDQ $64, BX                  \
	GQV2_LOAD(BX, 0(R13), Y2, Y3) \
	LEAQ (AX)(CX*1), BX           \
	GQV2_LOAD(BX, 4(R13), Y4, Y5) \
	ADDQ $64, BX                  \
	GQV2_LOAD(BX, 4(R13), Y6, Y7)

#define GQ2V_HEAD(P, a0, a1, a2, a3) \
	VBROADCASTSS P, Y12        \
	VFMADD231PS  Y8, Y12, a0   \
	VFMADD231PS  Y9, Y12, a1   \
	VFMADD231PS  Y10, Y12, a2  \
	VFMADD231PS  Y11, Y12, a3

#define GQ2V_ROW \
	VCVTPH2PS 0(BX), Y8                   \
	VCVTPH2PS 16(BX), Y9                  \
	VCVTPH2PS 32(BX), Y10                 \
	VCVTPH2PS 48(BX), Y11                 \
	GQ2V_HEAD((DX), Y0, Y1, Y2, Y3)       \
	GQ2V_HEAD((DX)(R8*1), Y4, Y5, Y6, Y7)

#define GQ2V_STORES \
	MOVQ    AX, BX      \
	VMOVUPS Y0, 0(BX)   \
	VMOVUPS Y1, 32(BX)  \
	VMOVUPS Y2, 64(BX)  \
	VMOVUPS Y3, 96(BX)  \
	LEAQ    (AX)(CX*1), BX \
	VMOVUPS Y4, 0(BX)   \
	VMOVUPS Y5, 32(BX)  \
	VMOVUPS Y6, 64(BX)  \
	VMOVUPS Y7, 96(BX)

// func attnAccumVGQ2AVX2(acc *float32, strips int, p *float32, pStride int, v *uint16, vStride, vHead, group, heads, rows int, alpha *float32, pf uintptr, pfLines, pfPer int)
// attnAccumVGQAAVX2 for groups of two heads: strips of 32 elements, each
// row's 32 values widened once for the two heads.
TEXT ·attnAccumVGQ2AVX2(SB), NOSPLIT, $8-112
	GQA_ACCV(1, 7, 128, 64, GQ2V_LOADS, GQ2V_ROW, GQ2V_STORES, gp2vhead, gp2vstrip, gp2vrow, gp2vsame, gp2vpf, gp2vpfd)
