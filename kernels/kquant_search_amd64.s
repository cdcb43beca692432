//go:build !purego

#include "textflag.h"

// AVX2 versions of the K-quant scale searches (kquant_search.go has the
// contract and the generic twins): one sub-block per lane, every float32
// operation of ggml's, in its order, on each lane. No FMA: ggml rounds every
// product.

// Dword gather indices: value i of sub-block j sits 32*j (Q4_K/Q5_K) or
// 16*j (Q6_K) floats after value i of sub-block 0.
DATA kqsIdx32<>+0(SB)/4, $0
DATA kqsIdx32<>+4(SB)/4, $32
DATA kqsIdx32<>+8(SB)/4, $64
DATA kqsIdx32<>+12(SB)/4, $96
DATA kqsIdx32<>+16(SB)/4, $128
DATA kqsIdx32<>+20(SB)/4, $160
DATA kqsIdx32<>+24(SB)/4, $192
DATA kqsIdx32<>+28(SB)/4, $224
GLOBL kqsIdx32<>(SB), RODATA|NOPTR, $32

DATA kqsIdx16<>+0(SB)/4, $0
DATA kqsIdx16<>+4(SB)/4, $16
DATA kqsIdx16<>+8(SB)/4, $32
DATA kqsIdx16<>+12(SB)/4, $48
DATA kqsIdx16<>+16(SB)/4, $64
DATA kqsIdx16<>+20(SB)/4, $80
DATA kqsIdx16<>+24(SB)/4, $96
DATA kqsIdx16<>+28(SB)/4, $112
GLOBL kqsIdx16<>(SB), RODATA|NOPTR, $32

DATA kqsAbs<>+0(SB)/4, $0x7fffffff
DATA kqsAbs<>+4(SB)/4, $0x7fffffff
DATA kqsAbs<>+8(SB)/4, $0x7fffffff
DATA kqsAbs<>+12(SB)/4, $0x7fffffff
DATA kqsAbs<>+16(SB)/4, $0x7fffffff
DATA kqsAbs<>+20(SB)/4, $0x7fffffff
DATA kqsAbs<>+24(SB)/4, $0x7fffffff
DATA kqsAbs<>+28(SB)/4, $0x7fffffff
GLOBL kqsAbs<>(SB), RODATA|NOPTR, $32

DATA kqsSign<>+0(SB)/4, $0x80000000
DATA kqsSign<>+4(SB)/4, $0x80000000
DATA kqsSign<>+8(SB)/4, $0x80000000
DATA kqsSign<>+12(SB)/4, $0x80000000
DATA kqsSign<>+16(SB)/4, $0x80000000
DATA kqsSign<>+20(SB)/4, $0x80000000
DATA kqsSign<>+24(SB)/4, $0x80000000
DATA kqsSign<>+28(SB)/4, $0x80000000
GLOBL kqsSign<>(SB), RODATA|NOPTR, $32

DATA kqsPerm<>+0(SB)/4, $0
DATA kqsPerm<>+4(SB)/4, $4
DATA kqsPerm<>+8(SB)/4, $1
DATA kqsPerm<>+12(SB)/4, $5
DATA kqsPerm<>+16(SB)/4, $2
DATA kqsPerm<>+20(SB)/4, $6
DATA kqsPerm<>+24(SB)/4, $3
DATA kqsPerm<>+28(SB)/4, $7
GLOBL kqsPerm<>(SB), RODATA|NOPTR, $32

#define BCAST(v, X, Y) \
	MOVL         v, AX \
	VMOVD        AX, X \
	VPBROADCASTD X, Y

// Offsets into qkx2Scratch (checked by TestKSearchScratchLayout).
#define QX 0
#define QW 1024
#define QLV 2048
#define QMAX 3072
#define QMINX 3104
#define QSUMW 3136
#define QSUMX 3168
#define QNOTDONE 3200
#define QSCALES 3232
#define QNEGMINS 3264
#define QMIN 3296
#define QBEST 3328
#define QSCALE 3360
#define QBOUND 3392
#define QDPOS 3424
#define QSIZE 3456

// Everywhere below: Y15 holds 1.5*2^23 (as float and as bits), Y14 its bits
// + nmax; B is the scratch of one super-block, X its 256 values.

// Transpose: value i of the eight sub-blocks into QX+32*i(B).
#define QGATHER(X, B, i) \
	VPCMPEQD   Y12, Y12, Y12       \
	VGATHERDPS Y12, 4*i(X)(Y13*4), Y0 \
	VMOVUPS    Y0, QX+32*i(B)

// Pass 1: sum of squares (Y0), min (Y1) and max (Y2) as ggml's compares
// keep them (VMINPS/VMAXPS return the old value on ties), largest |x|
// bits (Y3); Y11 is the abs mask.
#define QPASS1(B, i) \
	VMOVUPS QX+32*i(B), Y4 \
	VMULPS  Y4, Y4, Y5     \
	VADDPS  Y5, Y0, Y0     \
	VMINPS  Y1, Y4, Y1     \
	VMAXPS  Y2, Y4, Y2     \
	VANDPS  Y11, Y4, Y5    \
	VPMAXUD Y5, Y3, Y3

// Pass 2: weights av_x + |x| (av_x in Y0), sum w (Y4), sum w*x (Y5).
#define QPASS2(B, i) \
	VANDPS  QX+32*i(B), Y11, Y6 \
	VADDPS  Y6, Y0, Y6          \
	VMOVUPS Y6, QW+32*i(B)      \
	VADDPS  Y6, Y4, Y4          \
	VMULPS  QX+32*i(B), Y6, Y7  \
	VADDPS  Y7, Y5, Y5

// The level of x (in Y) for iscale ISC and min MIN: round, clamp on the
// bits to [0, nmax], back to float.
#define QLEVEL(MIN, ISC, Y) \
	VSUBPS  MIN, Y, Y   \
	VMULPS  ISC, Y, Y   \
	VADDPS  Y15, Y, Y   \
	VPMAXUD Y15, Y, Y   \
	VPMINUD Y14, Y, Y   \
	VSUBPS  Y15, Y, Y

// Pass 3: the starting fit's error (Y12) for min Y13, iscale Y8, scale Y9.
#define QPASS3(B, i) \
	VMOVUPS QX+32*i(B), Y0     \
	VMOVAPS Y0, Y1             \
	QLEVEL(Y13, Y8, Y1)        \
	VMULPS  Y9, Y1, Y1         \
	VADDPS  Y13, Y1, Y1        \
	VSUBPS  Y0, Y1, Y1         \
	VMULPS  Y1, Y1, Y1         \
	VMULPS  QW+32*i(B), Y1, Y1 \
	VADDPS  Y1, Y12, Y12

// A candidate's levels (stored) and sums for min MIN, iscale ISC: sum w*l
// (SL), sum w*l*l (SL2), sum w*l*x (SXL); Y0-Y2 are scratch.
#define QSUMS(B, i, MIN, ISC, SL, SL2, SXL) \
	VMOVUPS QX+32*i(B), Y0     \
	QLEVEL(MIN, ISC, Y0)       \
	VMOVUPS Y0, QLV+32*i(B)    \
	VMULPS  QW+32*i(B), Y0, Y1 \
	VADDPS  Y1, SL, SL         \
	VMULPS  Y0, Y1, Y2         \
	VADDPS  Y2, SL2, SL2       \
	VMULPS  QX+32*i(B), Y1, Y1 \
	VADDPS  Y1, SXL, SXL

// A candidate's error (E) for scale S and min M; T is scratch.
#define QERR(B, i, S, M, E, T) \
	VMOVUPS QLV+32*i(B), T    \
	VMULPS  S, T, T           \
	VADDPS  M, T, T           \
	VSUBPS  QX+32*i(B), T, T  \
	VMULPS  T, T, T           \
	VMULPS  QW+32*i(B), T, T  \
	VADDPS  T, E, E

// The bound of a candidate: |x - min| <= max(|max - min|, |minX - min|)
// (rounding is monotonic), so no |iscale*(x - min)| exceeds |iscale| times
// that; the largest over the candidates is kept in QBOUND (done lanes
// excluded). Computes iscale = num/(max - min) into ISC from num in Y0;
// Y1, Y2 scratch.
#define QISCALE(B, MIN, ISC) \
	VMOVUPS QMAX(B), Y1              \
	VSUBPS  MIN, Y1, Y1              \
	VDIVPS  Y1, Y0, ISC              \
	VMOVUPS QMINX(B), Y2             \
	VSUBPS  MIN, Y2, Y2              \
	VANDPS  kqsAbs<>(SB), Y2, Y2     \
	VANDPS  kqsAbs<>(SB), Y1, Y1     \
	VPMAXUD Y2, Y1, Y1               \
	VANDPS  kqsAbs<>(SB), ISC, Y2    \
	VMULPS  Y1, Y2, Y2               \
	VANDPS  QNOTDONE(B), Y2, Y2      \
	VPMAXUD QBOUND(B), Y2, Y2        \
	VMOVUPS Y2, QBOUND(B)

// The least-squares fit of the sums: D = sum_w*sum_l2 - sum_l^2 (D > 0
// stored in QDPOS), scale S = (sum_w*sum_xl - sum_x*sum_l)/D, min M =
// (sum_l2*sum_x - sum_l*sum_xl)/D; where M > 0, M = 0 and S =
// sum_xl/sum_l2. Clobbers SXL, Y0-Y2.
#define QFIT(B, SL, SL2, SXL, S, M) \
	VMULPS  QSUMW(B), SL2, Y0    \
	VMULPS  SL, SL, Y1           \
	VSUBPS  Y1, Y0, Y0           \
	VXORPS  Y1, Y1, Y1           \
	VCMPPS  $0x0e, Y1, Y0, Y1    \
	VMOVUPS Y1, QDPOS(B)         \
	VMULPS  QSUMW(B), SXL, Y1    \
	VMULPS  QSUMX(B), SL, Y2     \
	VSUBPS  Y2, Y1, Y1           \
	VDIVPS  Y0, Y1, S            \
	VMULPS  QSUMX(B), SL2, Y1    \
	VMULPS  SXL, SL, Y2          \
	VSUBPS  Y2, Y1, Y1           \
	VDIVPS  Y0, Y1, M            \
	VXORPS  Y0, Y0, Y0           \
	VCMPPS  $0x0e, Y0, M, Y0     \
	VANDNPS M, Y0, M             \
	VDIVPS  SL2, SXL, SXL        \
	VBLENDVPS Y0, SXL, S, S

// Accept the candidate (error E, scale S, min M) where D > 0 and E < best,
// outside done lanes: best and scale in the scratch, min in MIN.
#define QACCEPT(B, E, S, M, MIN) \
	VMOVUPS   QBEST(B), Y0        \
	VCMPPS    $0x01, Y0, E, Y1    \
	VANDPS    QDPOS(B), Y1, Y1    \
	VANDPS    QNOTDONE(B), Y1, Y1 \
	VBLENDVPS Y1, E, Y0, Y0       \
	VMOVUPS   Y0, QBEST(B)        \
	VMOVUPS   QSCALE(B), Y2       \
	VBLENDVPS Y1, S, Y2, Y2       \
	VMOVUPS   Y2, QSCALE(B)       \
	VBLENDVPS Y1, M, MIN, MIN

// Results: scales (0 in done lanes) and negated mins into the scratch;
// the bound's lanes below 4e6 give all ones in Y0 (Y1 scratch).
#define QRESULT(B, MIN) \
	VMOVUPS QSCALE(B), Y0        \
	VANDPS  QNOTDONE(B), Y0, Y0  \
	VMOVUPS Y0, QSCALES(B)       \
	VXORPS  kqsSign<>(SB), MIN, Y0 \
	VMOVUPS Y0, QNEGMINS(B)      \
	BCAST($0x4a7423ff, X1, Y1)   \
	VPMAXUD QBOUND(B), Y1, Y0    \
	VPCMPEQD Y1, Y0, Y0

// func qkx2Block8AVX2(x *[256]float32, s *qkx2Scratch, nums *float32, n int, nmax float32, top uint32) bool
TEXT ·qkx2Block8AVX2(SB), NOSPLIT, $0-41
	MOVQ x+0(FP), SI
	MOVQ s+8(FP), DI
	MOVQ nums+16(FP), DX
	MOVQ n+24(FP), CX
	BCAST($0x4b400000, X15, Y15)
	MOVL top+36(FP), AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	// Prologue of the super-block at (SI), scratch at (DI).
	VMOVDQU kqsIdx32<>(SB), Y13
	QGATHER(SI, DI, 0)
	QGATHER(SI, DI, 1)
	QGATHER(SI, DI, 2)
	QGATHER(SI, DI, 3)
	QGATHER(SI, DI, 4)
	QGATHER(SI, DI, 5)
	QGATHER(SI, DI, 6)
	QGATHER(SI, DI, 7)
	QGATHER(SI, DI, 8)
	QGATHER(SI, DI, 9)
	QGATHER(SI, DI, 10)
	QGATHER(SI, DI, 11)
	QGATHER(SI, DI, 12)
	QGATHER(SI, DI, 13)
	QGATHER(SI, DI, 14)
	QGATHER(SI, DI, 15)
	QGATHER(SI, DI, 16)
	QGATHER(SI, DI, 17)
	QGATHER(SI, DI, 18)
	QGATHER(SI, DI, 19)
	QGATHER(SI, DI, 20)
	QGATHER(SI, DI, 21)
	QGATHER(SI, DI, 22)
	QGATHER(SI, DI, 23)
	QGATHER(SI, DI, 24)
	QGATHER(SI, DI, 25)
	QGATHER(SI, DI, 26)
	QGATHER(SI, DI, 27)
	QGATHER(SI, DI, 28)
	QGATHER(SI, DI, 29)
	QGATHER(SI, DI, 30)
	QGATHER(SI, DI, 31)
	VXORPS  Y0, Y0, Y0
	VMOVUPS QX(DI), Y1
	VMOVAPS Y1, Y2
	VXORPS  Y3, Y3, Y3
	VMOVUPS kqsAbs<>(SB), Y11
	QPASS1(DI, 0)
	QPASS1(DI, 1)
	QPASS1(DI, 2)
	QPASS1(DI, 3)
	QPASS1(DI, 4)
	QPASS1(DI, 5)
	QPASS1(DI, 6)
	QPASS1(DI, 7)
	QPASS1(DI, 8)
	QPASS1(DI, 9)
	QPASS1(DI, 10)
	QPASS1(DI, 11)
	QPASS1(DI, 12)
	QPASS1(DI, 13)
	QPASS1(DI, 14)
	QPASS1(DI, 15)
	QPASS1(DI, 16)
	QPASS1(DI, 17)
	QPASS1(DI, 18)
	QPASS1(DI, 19)
	QPASS1(DI, 20)
	QPASS1(DI, 21)
	QPASS1(DI, 22)
	QPASS1(DI, 23)
	QPASS1(DI, 24)
	QPASS1(DI, 25)
	QPASS1(DI, 26)
	QPASS1(DI, 27)
	QPASS1(DI, 28)
	QPASS1(DI, 29)
	QPASS1(DI, 30)
	QPASS1(DI, 31)
	// Non-finite input: leave the block to the scalar search.
	BCAST($0x7f800000, X4, Y4)
	VPCMPGTD  Y3, Y4, Y4
	VMOVMSKPS Y4, AX
	CMPL AX, $0xff
	JNE  qkx2fail
	VMOVUPS Y1, QMINX(DI)
	VMOVUPS Y2, QMAX(DI)
	// av_x = sqrtf(sum_x2/32); the weights and their sums.
	BCAST($0x42000000, X4, Y4)
	VDIVPS  Y4, Y0, Y0
	VSQRTPS Y0, Y0
	VANDPS  QX(DI), Y11, Y6
	VADDPS  Y6, Y0, Y6
	VMOVUPS Y6, QW(DI)
	VMOVAPS Y6, Y4
	VMULPS  QX(DI), Y6, Y5
	QPASS2(DI, 1)
	QPASS2(DI, 2)
	QPASS2(DI, 3)
	QPASS2(DI, 4)
	QPASS2(DI, 5)
	QPASS2(DI, 6)
	QPASS2(DI, 7)
	QPASS2(DI, 8)
	QPASS2(DI, 9)
	QPASS2(DI, 10)
	QPASS2(DI, 11)
	QPASS2(DI, 12)
	QPASS2(DI, 13)
	QPASS2(DI, 14)
	QPASS2(DI, 15)
	QPASS2(DI, 16)
	QPASS2(DI, 17)
	QPASS2(DI, 18)
	QPASS2(DI, 19)
	QPASS2(DI, 20)
	QPASS2(DI, 21)
	QPASS2(DI, 22)
	QPASS2(DI, 23)
	QPASS2(DI, 24)
	QPASS2(DI, 25)
	QPASS2(DI, 26)
	QPASS2(DI, 27)
	QPASS2(DI, 28)
	QPASS2(DI, 29)
	QPASS2(DI, 30)
	QPASS2(DI, 31)
	VMOVUPS Y4, QSUMW(DI)
	VMOVUPS Y5, QSUMX(DI)
	// The starting fit: min = minX, but 0 where minX > 0; lanes with
	// max == min are done (scale 0, no candidates); iscale = nmax/(max -
	// min), scale = 1/iscale, bound iscale*(max - min).
	VXORPS  Y10, Y10, Y10
	VCMPPS  $0x0e, Y10, Y1, Y6
	VANDNPS Y1, Y6, Y13
	VCMPPS  $0x04, Y13, Y2, Y6
	VMOVUPS Y6, QNOTDONE(DI)
	VSUBPS  Y13, Y2, Y7
	VBROADCASTSS nmax+32(FP), Y8
	VDIVPS  Y7, Y8, Y8
	BCAST($0x3f800000, X9, Y9)
	VDIVPS  Y8, Y9, Y9
	VMULPS  Y7, Y8, Y10
	VANDPS  Y11, Y10, Y10
	VANDPS  Y6, Y10, Y10
	VMOVUPS Y10, QBOUND(DI)
	VXORPS  Y12, Y12, Y12
	QPASS3(DI, 0)
	QPASS3(DI, 1)
	QPASS3(DI, 2)
	QPASS3(DI, 3)
	QPASS3(DI, 4)
	QPASS3(DI, 5)
	QPASS3(DI, 6)
	QPASS3(DI, 7)
	QPASS3(DI, 8)
	QPASS3(DI, 9)
	QPASS3(DI, 10)
	QPASS3(DI, 11)
	QPASS3(DI, 12)
	QPASS3(DI, 13)
	QPASS3(DI, 14)
	QPASS3(DI, 15)
	QPASS3(DI, 16)
	QPASS3(DI, 17)
	QPASS3(DI, 18)
	QPASS3(DI, 19)
	QPASS3(DI, 20)
	QPASS3(DI, 21)
	QPASS3(DI, 22)
	QPASS3(DI, 23)
	QPASS3(DI, 24)
	QPASS3(DI, 25)
	QPASS3(DI, 26)
	QPASS3(DI, 27)
	QPASS3(DI, 28)
	QPASS3(DI, 29)
	QPASS3(DI, 30)
	QPASS3(DI, 31)
	VMOVUPS Y13, QMIN(DI)
	VMOVUPS Y12, QBEST(DI)
	VMOVUPS Y9, QSCALE(DI)

	// Candidates: min in Y13; iscale Y11; sums Y3, Y4, Y5; scale Y6, min Y7,
	// error Y8.
qkx2loop:
	VBROADCASTSS (DX), Y0
	QISCALE(DI, Y13, Y11)
	VXORPS  Y3, Y3, Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	QSUMS(DI, 0, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 1, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 2, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 3, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 4, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 5, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 6, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 7, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 8, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 9, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 10, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 11, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 12, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 13, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 14, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 15, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 16, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 17, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 18, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 19, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 20, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 21, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 22, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 23, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 24, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 25, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 26, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 27, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 28, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 29, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 30, Y13, Y11, Y3, Y4, Y5)
	QSUMS(DI, 31, Y13, Y11, Y3, Y4, Y5)
	QFIT(DI, Y3, Y4, Y5, Y6, Y7)
	VXORPS  Y8, Y8, Y8
	QERR(DI, 0, Y6, Y7, Y8, Y9)
	QERR(DI, 1, Y6, Y7, Y8, Y9)
	QERR(DI, 2, Y6, Y7, Y8, Y9)
	QERR(DI, 3, Y6, Y7, Y8, Y9)
	QERR(DI, 4, Y6, Y7, Y8, Y9)
	QERR(DI, 5, Y6, Y7, Y8, Y9)
	QERR(DI, 6, Y6, Y7, Y8, Y9)
	QERR(DI, 7, Y6, Y7, Y8, Y9)
	QERR(DI, 8, Y6, Y7, Y8, Y9)
	QERR(DI, 9, Y6, Y7, Y8, Y9)
	QERR(DI, 10, Y6, Y7, Y8, Y9)
	QERR(DI, 11, Y6, Y7, Y8, Y9)
	QERR(DI, 12, Y6, Y7, Y8, Y9)
	QERR(DI, 13, Y6, Y7, Y8, Y9)
	QERR(DI, 14, Y6, Y7, Y8, Y9)
	QERR(DI, 15, Y6, Y7, Y8, Y9)
	QERR(DI, 16, Y6, Y7, Y8, Y9)
	QERR(DI, 17, Y6, Y7, Y8, Y9)
	QERR(DI, 18, Y6, Y7, Y8, Y9)
	QERR(DI, 19, Y6, Y7, Y8, Y9)
	QERR(DI, 20, Y6, Y7, Y8, Y9)
	QERR(DI, 21, Y6, Y7, Y8, Y9)
	QERR(DI, 22, Y6, Y7, Y8, Y9)
	QERR(DI, 23, Y6, Y7, Y8, Y9)
	QERR(DI, 24, Y6, Y7, Y8, Y9)
	QERR(DI, 25, Y6, Y7, Y8, Y9)
	QERR(DI, 26, Y6, Y7, Y8, Y9)
	QERR(DI, 27, Y6, Y7, Y8, Y9)
	QERR(DI, 28, Y6, Y7, Y8, Y9)
	QERR(DI, 29, Y6, Y7, Y8, Y9)
	QERR(DI, 30, Y6, Y7, Y8, Y9)
	QERR(DI, 31, Y6, Y7, Y8, Y9)
	QACCEPT(DI, Y8, Y6, Y7, Y13)
	ADDQ $4, DX
	DECQ CX
	JNZ  qkx2loop

	QRESULT(DI, Y13)
	VMOVMSKPS Y0, AX
	CMPL AX, $0xff
	SETEQ ret+40(FP)
	VZEROUPPER
	RET

qkx2fail:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET

// func qkx2Block8x2AVX2(x *[512]float32, s *[2]qkx2Scratch, nums *float32, n int, nmax float32, top uint32) bool
//
// Two super-blocks at once: each candidate of the search depends on the
// last through the min, so one super-block leaves the CPU waiting on
// latencies; a second one's independent work fills them.
TEXT ·qkx2Block8x2AVX2(SB), NOSPLIT, $0-41
	MOVQ x+0(FP), SI
	MOVQ s+8(FP), DI
	MOVQ nums+16(FP), DX
	MOVQ n+24(FP), CX
	LEAQ 1024(SI), R9
	LEAQ QSIZE(DI), R8
	BCAST($0x4b400000, X15, Y15)
	MOVL top+36(FP), AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	// Prologue of the super-block at (SI), scratch at (DI).
	VMOVDQU kqsIdx32<>(SB), Y13
	QGATHER(SI, DI, 0)
	QGATHER(SI, DI, 1)
	QGATHER(SI, DI, 2)
	QGATHER(SI, DI, 3)
	QGATHER(SI, DI, 4)
	QGATHER(SI, DI, 5)
	QGATHER(SI, DI, 6)
	QGATHER(SI, DI, 7)
	QGATHER(SI, DI, 8)
	QGATHER(SI, DI, 9)
	QGATHER(SI, DI, 10)
	QGATHER(SI, DI, 11)
	QGATHER(SI, DI, 12)
	QGATHER(SI, DI, 13)
	QGATHER(SI, DI, 14)
	QGATHER(SI, DI, 15)
	QGATHER(SI, DI, 16)
	QGATHER(SI, DI, 17)
	QGATHER(SI, DI, 18)
	QGATHER(SI, DI, 19)
	QGATHER(SI, DI, 20)
	QGATHER(SI, DI, 21)
	QGATHER(SI, DI, 22)
	QGATHER(SI, DI, 23)
	QGATHER(SI, DI, 24)
	QGATHER(SI, DI, 25)
	QGATHER(SI, DI, 26)
	QGATHER(SI, DI, 27)
	QGATHER(SI, DI, 28)
	QGATHER(SI, DI, 29)
	QGATHER(SI, DI, 30)
	QGATHER(SI, DI, 31)
	VXORPS  Y0, Y0, Y0
	VMOVUPS QX(DI), Y1
	VMOVAPS Y1, Y2
	VXORPS  Y3, Y3, Y3
	VMOVUPS kqsAbs<>(SB), Y11
	QPASS1(DI, 0)
	QPASS1(DI, 1)
	QPASS1(DI, 2)
	QPASS1(DI, 3)
	QPASS1(DI, 4)
	QPASS1(DI, 5)
	QPASS1(DI, 6)
	QPASS1(DI, 7)
	QPASS1(DI, 8)
	QPASS1(DI, 9)
	QPASS1(DI, 10)
	QPASS1(DI, 11)
	QPASS1(DI, 12)
	QPASS1(DI, 13)
	QPASS1(DI, 14)
	QPASS1(DI, 15)
	QPASS1(DI, 16)
	QPASS1(DI, 17)
	QPASS1(DI, 18)
	QPASS1(DI, 19)
	QPASS1(DI, 20)
	QPASS1(DI, 21)
	QPASS1(DI, 22)
	QPASS1(DI, 23)
	QPASS1(DI, 24)
	QPASS1(DI, 25)
	QPASS1(DI, 26)
	QPASS1(DI, 27)
	QPASS1(DI, 28)
	QPASS1(DI, 29)
	QPASS1(DI, 30)
	QPASS1(DI, 31)
	// Non-finite input: leave the block to the scalar search.
	BCAST($0x7f800000, X4, Y4)
	VPCMPGTD  Y3, Y4, Y4
	VMOVMSKPS Y4, AX
	CMPL AX, $0xff
	JNE  qkx2x2fail
	VMOVUPS Y1, QMINX(DI)
	VMOVUPS Y2, QMAX(DI)
	// av_x = sqrtf(sum_x2/32); the weights and their sums.
	BCAST($0x42000000, X4, Y4)
	VDIVPS  Y4, Y0, Y0
	VSQRTPS Y0, Y0
	VANDPS  QX(DI), Y11, Y6
	VADDPS  Y6, Y0, Y6
	VMOVUPS Y6, QW(DI)
	VMOVAPS Y6, Y4
	VMULPS  QX(DI), Y6, Y5
	QPASS2(DI, 1)
	QPASS2(DI, 2)
	QPASS2(DI, 3)
	QPASS2(DI, 4)
	QPASS2(DI, 5)
	QPASS2(DI, 6)
	QPASS2(DI, 7)
	QPASS2(DI, 8)
	QPASS2(DI, 9)
	QPASS2(DI, 10)
	QPASS2(DI, 11)
	QPASS2(DI, 12)
	QPASS2(DI, 13)
	QPASS2(DI, 14)
	QPASS2(DI, 15)
	QPASS2(DI, 16)
	QPASS2(DI, 17)
	QPASS2(DI, 18)
	QPASS2(DI, 19)
	QPASS2(DI, 20)
	QPASS2(DI, 21)
	QPASS2(DI, 22)
	QPASS2(DI, 23)
	QPASS2(DI, 24)
	QPASS2(DI, 25)
	QPASS2(DI, 26)
	QPASS2(DI, 27)
	QPASS2(DI, 28)
	QPASS2(DI, 29)
	QPASS2(DI, 30)
	QPASS2(DI, 31)
	VMOVUPS Y4, QSUMW(DI)
	VMOVUPS Y5, QSUMX(DI)
	// The starting fit: min = minX, but 0 where minX > 0; lanes with
	// max == min are done (scale 0, no candidates); iscale = nmax/(max -
	// min), scale = 1/iscale, bound iscale*(max - min).
	VXORPS  Y10, Y10, Y10
	VCMPPS  $0x0e, Y10, Y1, Y6
	VANDNPS Y1, Y6, Y13
	VCMPPS  $0x04, Y13, Y2, Y6
	VMOVUPS Y6, QNOTDONE(DI)
	VSUBPS  Y13, Y2, Y7
	VBROADCASTSS nmax+32(FP), Y8
	VDIVPS  Y7, Y8, Y8
	BCAST($0x3f800000, X9, Y9)
	VDIVPS  Y8, Y9, Y9
	VMULPS  Y7, Y8, Y10
	VANDPS  Y11, Y10, Y10
	VANDPS  Y6, Y10, Y10
	VMOVUPS Y10, QBOUND(DI)
	VXORPS  Y12, Y12, Y12
	QPASS3(DI, 0)
	QPASS3(DI, 1)
	QPASS3(DI, 2)
	QPASS3(DI, 3)
	QPASS3(DI, 4)
	QPASS3(DI, 5)
	QPASS3(DI, 6)
	QPASS3(DI, 7)
	QPASS3(DI, 8)
	QPASS3(DI, 9)
	QPASS3(DI, 10)
	QPASS3(DI, 11)
	QPASS3(DI, 12)
	QPASS3(DI, 13)
	QPASS3(DI, 14)
	QPASS3(DI, 15)
	QPASS3(DI, 16)
	QPASS3(DI, 17)
	QPASS3(DI, 18)
	QPASS3(DI, 19)
	QPASS3(DI, 20)
	QPASS3(DI, 21)
	QPASS3(DI, 22)
	QPASS3(DI, 23)
	QPASS3(DI, 24)
	QPASS3(DI, 25)
	QPASS3(DI, 26)
	QPASS3(DI, 27)
	QPASS3(DI, 28)
	QPASS3(DI, 29)
	QPASS3(DI, 30)
	QPASS3(DI, 31)
	VMOVUPS Y13, QMIN(DI)
	VMOVUPS Y12, QBEST(DI)
	VMOVUPS Y9, QSCALE(DI)

	// Prologue of the super-block at (R9), scratch at (R8).
	VMOVDQU kqsIdx32<>(SB), Y13
	QGATHER(R9, R8, 0)
	QGATHER(R9, R8, 1)
	QGATHER(R9, R8, 2)
	QGATHER(R9, R8, 3)
	QGATHER(R9, R8, 4)
	QGATHER(R9, R8, 5)
	QGATHER(R9, R8, 6)
	QGATHER(R9, R8, 7)
	QGATHER(R9, R8, 8)
	QGATHER(R9, R8, 9)
	QGATHER(R9, R8, 10)
	QGATHER(R9, R8, 11)
	QGATHER(R9, R8, 12)
	QGATHER(R9, R8, 13)
	QGATHER(R9, R8, 14)
	QGATHER(R9, R8, 15)
	QGATHER(R9, R8, 16)
	QGATHER(R9, R8, 17)
	QGATHER(R9, R8, 18)
	QGATHER(R9, R8, 19)
	QGATHER(R9, R8, 20)
	QGATHER(R9, R8, 21)
	QGATHER(R9, R8, 22)
	QGATHER(R9, R8, 23)
	QGATHER(R9, R8, 24)
	QGATHER(R9, R8, 25)
	QGATHER(R9, R8, 26)
	QGATHER(R9, R8, 27)
	QGATHER(R9, R8, 28)
	QGATHER(R9, R8, 29)
	QGATHER(R9, R8, 30)
	QGATHER(R9, R8, 31)
	VXORPS  Y0, Y0, Y0
	VMOVUPS QX(R8), Y1
	VMOVAPS Y1, Y2
	VXORPS  Y3, Y3, Y3
	VMOVUPS kqsAbs<>(SB), Y11
	QPASS1(R8, 0)
	QPASS1(R8, 1)
	QPASS1(R8, 2)
	QPASS1(R8, 3)
	QPASS1(R8, 4)
	QPASS1(R8, 5)
	QPASS1(R8, 6)
	QPASS1(R8, 7)
	QPASS1(R8, 8)
	QPASS1(R8, 9)
	QPASS1(R8, 10)
	QPASS1(R8, 11)
	QPASS1(R8, 12)
	QPASS1(R8, 13)
	QPASS1(R8, 14)
	QPASS1(R8, 15)
	QPASS1(R8, 16)
	QPASS1(R8, 17)
	QPASS1(R8, 18)
	QPASS1(R8, 19)
	QPASS1(R8, 20)
	QPASS1(R8, 21)
	QPASS1(R8, 22)
	QPASS1(R8, 23)
	QPASS1(R8, 24)
	QPASS1(R8, 25)
	QPASS1(R8, 26)
	QPASS1(R8, 27)
	QPASS1(R8, 28)
	QPASS1(R8, 29)
	QPASS1(R8, 30)
	QPASS1(R8, 31)
	// Non-finite input: leave the block to the scalar search.
	BCAST($0x7f800000, X4, Y4)
	VPCMPGTD  Y3, Y4, Y4
	VMOVMSKPS Y4, AX
	CMPL AX, $0xff
	JNE  qkx2x2fail
	VMOVUPS Y1, QMINX(R8)
	VMOVUPS Y2, QMAX(R8)
	// av_x = sqrtf(sum_x2/32); the weights and their sums.
	BCAST($0x42000000, X4, Y4)
	VDIVPS  Y4, Y0, Y0
	VSQRTPS Y0, Y0
	VANDPS  QX(R8), Y11, Y6
	VADDPS  Y6, Y0, Y6
	VMOVUPS Y6, QW(R8)
	VMOVAPS Y6, Y4
	VMULPS  QX(R8), Y6, Y5
	QPASS2(R8, 1)
	QPASS2(R8, 2)
	QPASS2(R8, 3)
	QPASS2(R8, 4)
	QPASS2(R8, 5)
	QPASS2(R8, 6)
	QPASS2(R8, 7)
	QPASS2(R8, 8)
	QPASS2(R8, 9)
	QPASS2(R8, 10)
	QPASS2(R8, 11)
	QPASS2(R8, 12)
	QPASS2(R8, 13)
	QPASS2(R8, 14)
	QPASS2(R8, 15)
	QPASS2(R8, 16)
	QPASS2(R8, 17)
	QPASS2(R8, 18)
	QPASS2(R8, 19)
	QPASS2(R8, 20)
	QPASS2(R8, 21)
	QPASS2(R8, 22)
	QPASS2(R8, 23)
	QPASS2(R8, 24)
	QPASS2(R8, 25)
	QPASS2(R8, 26)
	QPASS2(R8, 27)
	QPASS2(R8, 28)
	QPASS2(R8, 29)
	QPASS2(R8, 30)
	QPASS2(R8, 31)
	VMOVUPS Y4, QSUMW(R8)
	VMOVUPS Y5, QSUMX(R8)
	// The starting fit: min = minX, but 0 where minX > 0; lanes with
	// max == min are done (scale 0, no candidates); iscale = nmax/(max -
	// min), scale = 1/iscale, bound iscale*(max - min).
	VXORPS  Y10, Y10, Y10
	VCMPPS  $0x0e, Y10, Y1, Y6
	VANDNPS Y1, Y6, Y13
	VCMPPS  $0x04, Y13, Y2, Y6
	VMOVUPS Y6, QNOTDONE(R8)
	VSUBPS  Y13, Y2, Y7
	VBROADCASTSS nmax+32(FP), Y8
	VDIVPS  Y7, Y8, Y8
	BCAST($0x3f800000, X9, Y9)
	VDIVPS  Y8, Y9, Y9
	VMULPS  Y7, Y8, Y10
	VANDPS  Y11, Y10, Y10
	VANDPS  Y6, Y10, Y10
	VMOVUPS Y10, QBOUND(R8)
	VXORPS  Y12, Y12, Y12
	QPASS3(R8, 0)
	QPASS3(R8, 1)
	QPASS3(R8, 2)
	QPASS3(R8, 3)
	QPASS3(R8, 4)
	QPASS3(R8, 5)
	QPASS3(R8, 6)
	QPASS3(R8, 7)
	QPASS3(R8, 8)
	QPASS3(R8, 9)
	QPASS3(R8, 10)
	QPASS3(R8, 11)
	QPASS3(R8, 12)
	QPASS3(R8, 13)
	QPASS3(R8, 14)
	QPASS3(R8, 15)
	QPASS3(R8, 16)
	QPASS3(R8, 17)
	QPASS3(R8, 18)
	QPASS3(R8, 19)
	QPASS3(R8, 20)
	QPASS3(R8, 21)
	QPASS3(R8, 22)
	QPASS3(R8, 23)
	QPASS3(R8, 24)
	QPASS3(R8, 25)
	QPASS3(R8, 26)
	QPASS3(R8, 27)
	QPASS3(R8, 28)
	QPASS3(R8, 29)
	QPASS3(R8, 30)
	QPASS3(R8, 31)
	VMOVUPS Y13, QMIN(R8)
	VMOVUPS Y12, QBEST(R8)
	VMOVUPS Y9, QSCALE(R8)

	// Candidates: mins in Y13 (first) and Y12 (second); iscales Y11, Y10;
	// sums Y9, Y8, Y7 and Y6, Y5, Y4; then scale and min Y11, Y10 and Y9,
	// Y8; errors Y7, Y6.
	VMOVUPS QMIN(DI), Y13
	VMOVUPS QMIN(R8), Y12
qkx2x2loop:
	VBROADCASTSS (DX), Y0
	QISCALE(DI, Y13, Y11)
	QISCALE(R8, Y12, Y10)
	VXORPS  Y9, Y9, Y9
	VXORPS  Y8, Y8, Y8
	VXORPS  Y7, Y7, Y7
	VXORPS  Y6, Y6, Y6
	VXORPS  Y5, Y5, Y5
	VXORPS  Y4, Y4, Y4
	QSUMS(DI, 0, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 0, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 1, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 1, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 2, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 2, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 3, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 3, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 4, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 4, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 5, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 5, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 6, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 6, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 7, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 7, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 8, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 8, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 9, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 9, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 10, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 10, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 11, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 11, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 12, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 12, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 13, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 13, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 14, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 14, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 15, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 15, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 16, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 16, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 17, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 17, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 18, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 18, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 19, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 19, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 20, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 20, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 21, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 21, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 22, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 22, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 23, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 23, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 24, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 24, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 25, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 25, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 26, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 26, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 27, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 27, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 28, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 28, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 29, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 29, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 30, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 30, Y12, Y10, Y6, Y5, Y4)
	QSUMS(DI, 31, Y13, Y11, Y9, Y8, Y7)
	QSUMS(R8, 31, Y12, Y10, Y6, Y5, Y4)
	QFIT(DI, Y9, Y8, Y7, Y11, Y10)
	QFIT(R8, Y6, Y5, Y4, Y9, Y8)
	VXORPS  Y7, Y7, Y7
	VXORPS  Y6, Y6, Y6
	QERR(DI, 0, Y11, Y10, Y7, Y0)
	QERR(R8, 0, Y9, Y8, Y6, Y1)
	QERR(DI, 1, Y11, Y10, Y7, Y0)
	QERR(R8, 1, Y9, Y8, Y6, Y1)
	QERR(DI, 2, Y11, Y10, Y7, Y0)
	QERR(R8, 2, Y9, Y8, Y6, Y1)
	QERR(DI, 3, Y11, Y10, Y7, Y0)
	QERR(R8, 3, Y9, Y8, Y6, Y1)
	QERR(DI, 4, Y11, Y10, Y7, Y0)
	QERR(R8, 4, Y9, Y8, Y6, Y1)
	QERR(DI, 5, Y11, Y10, Y7, Y0)
	QERR(R8, 5, Y9, Y8, Y6, Y1)
	QERR(DI, 6, Y11, Y10, Y7, Y0)
	QERR(R8, 6, Y9, Y8, Y6, Y1)
	QERR(DI, 7, Y11, Y10, Y7, Y0)
	QERR(R8, 7, Y9, Y8, Y6, Y1)
	QERR(DI, 8, Y11, Y10, Y7, Y0)
	QERR(R8, 8, Y9, Y8, Y6, Y1)
	QERR(DI, 9, Y11, Y10, Y7, Y0)
	QERR(R8, 9, Y9, Y8, Y6, Y1)
	QERR(DI, 10, Y11, Y10, Y7, Y0)
	QERR(R8, 10, Y9, Y8, Y6, Y1)
	QERR(DI, 11, Y11, Y10, Y7, Y0)
	QERR(R8, 11, Y9, Y8, Y6, Y1)
	QERR(DI, 12, Y11, Y10, Y7, Y0)
	QERR(R8, 12, Y9, Y8, Y6, Y1)
	QERR(DI, 13, Y11, Y10, Y7, Y0)
	QERR(R8, 13, Y9, Y8, Y6, Y1)
	QERR(DI, 14, Y11, Y10, Y7, Y0)
	QERR(R8, 14, Y9, Y8, Y6, Y1)
	QERR(DI, 15, Y11, Y10, Y7, Y0)
	QERR(R8, 15, Y9, Y8, Y6, Y1)
	QERR(DI, 16, Y11, Y10, Y7, Y0)
	QERR(R8, 16, Y9, Y8, Y6, Y1)
	QERR(DI, 17, Y11, Y10, Y7, Y0)
	QERR(R8, 17, Y9, Y8, Y6, Y1)
	QERR(DI, 18, Y11, Y10, Y7, Y0)
	QERR(R8, 18, Y9, Y8, Y6, Y1)
	QERR(DI, 19, Y11, Y10, Y7, Y0)
	QERR(R8, 19, Y9, Y8, Y6, Y1)
	QERR(DI, 20, Y11, Y10, Y7, Y0)
	QERR(R8, 20, Y9, Y8, Y6, Y1)
	QERR(DI, 21, Y11, Y10, Y7, Y0)
	QERR(R8, 21, Y9, Y8, Y6, Y1)
	QERR(DI, 22, Y11, Y10, Y7, Y0)
	QERR(R8, 22, Y9, Y8, Y6, Y1)
	QERR(DI, 23, Y11, Y10, Y7, Y0)
	QERR(R8, 23, Y9, Y8, Y6, Y1)
	QERR(DI, 24, Y11, Y10, Y7, Y0)
	QERR(R8, 24, Y9, Y8, Y6, Y1)
	QERR(DI, 25, Y11, Y10, Y7, Y0)
	QERR(R8, 25, Y9, Y8, Y6, Y1)
	QERR(DI, 26, Y11, Y10, Y7, Y0)
	QERR(R8, 26, Y9, Y8, Y6, Y1)
	QERR(DI, 27, Y11, Y10, Y7, Y0)
	QERR(R8, 27, Y9, Y8, Y6, Y1)
	QERR(DI, 28, Y11, Y10, Y7, Y0)
	QERR(R8, 28, Y9, Y8, Y6, Y1)
	QERR(DI, 29, Y11, Y10, Y7, Y0)
	QERR(R8, 29, Y9, Y8, Y6, Y1)
	QERR(DI, 30, Y11, Y10, Y7, Y0)
	QERR(R8, 30, Y9, Y8, Y6, Y1)
	QERR(DI, 31, Y11, Y10, Y7, Y0)
	QERR(R8, 31, Y9, Y8, Y6, Y1)
	QACCEPT(DI, Y7, Y11, Y10, Y13)
	QACCEPT(R8, Y6, Y9, Y8, Y12)
	ADDQ $4, DX
	DECQ CX
	JNZ  qkx2x2loop

	QRESULT(DI, Y13)
	VMOVAPS Y0, Y3
	QRESULT(R8, Y12)
	VANDPS  Y3, Y0, Y0
	VMOVMSKPS Y0, AX
	CMPL AX, $0xff
	SETEQ ret+40(FP)
	VZEROUPPER
	RET

qkx2x2fail:
	MOVB $0, ret+40(FP)
	VZEROUPPER
	RET

// Offsets into q6kScratch.
#define SX 0
#define SW 1024
#define SWX 2048
#define SAMAX 3072
#define SSB 3136
#define SSCALES 3264

// Registers of q6kBlock16AVX2: SI x, DI scratch, DX nums, CX candidates
// left.

// Transpose value i of sub-blocks 8h..8h+7 into SX+512*h+32*i, with x*x
// and x*x*x; keep the largest |x| (AM) and its x (MX) as ggml's
// "ax > amax" does, and the largest |x| bits (Y5). Y12 indices, Y11 abs
// mask.
#define SGATHER(h, i, AM, MX) \
	VPCMPEQD   Y6, Y6, Y6                \
	VGATHERDPS Y6, 512*h+4*i(SI)(Y12*4), Y0 \
	VMOVUPS    Y0, SX+512*h+32*i(DI)      \
	VMULPS     Y0, Y0, Y7                 \
	VMOVUPS    Y7, SW+512*h+32*i(DI)      \
	VMULPS     Y0, Y7, Y7                 \
	VMOVUPS    Y7, SWX+512*h+32*i(DI)     \
	VANDPS     Y11, Y0, Y8                \
	VPMAXUD    Y8, Y5, Y5                 \
	VCMPPS     $0x0e, AM, Y8, Y6          \
	VBLENDVPS  Y6, Y8, AM, AM             \
	VBLENDVPS  Y6, Y0, MX, MX

// Element i of a candidate, both halves: level l = clamp(round(iscale*x),
// -32, 31) on the bits (Y14, Y13), sum x*x*x*l (Y8, Y6) and sum x*x*l*l
// (Y7, Y5); iscales in Y10, Y9.
#define SCAND(i) \
	VMULPS  SX+32*i(DI), Y10, Y0      \
	VMULPS  SX+512+32*i(DI), Y9, Y1   \
	VADDPS  Y15, Y0, Y0               \
	VADDPS  Y15, Y1, Y1               \
	VPMAXUD Y14, Y0, Y0               \
	VPMAXUD Y14, Y1, Y1               \
	VPMINUD Y13, Y0, Y0               \
	VPMINUD Y13, Y1, Y1               \
	VSUBPS  Y15, Y0, Y0               \
	VSUBPS  Y15, Y1, Y1               \
	VMULPS  SWX+32*i(DI), Y0, Y2      \
	VMULPS  SWX+512+32*i(DI), Y1, Y3  \
	VADDPS  Y2, Y8, Y8                \
	VADDPS  Y3, Y6, Y6                \
	VMULPS  SW+32*i(DI), Y0, Y2       \
	VMULPS  SW+512+32*i(DI), Y1, Y3   \
	VMULPS  Y0, Y2, Y2                \
	VMULPS  Y1, Y3, Y3                \
	VADDPS  Y2, Y7, Y7                \
	VADDPS  Y3, Y5, Y5

// Sums of the candidate at (DX) into Y8, Y7 (half 0) and Y6, Y5 (half 1).
#define SSUMS \
	VBROADCASTSS (DX), Y0 \
	VDIVPS  Y12, Y0, Y10  \
	VDIVPS  Y11, Y0, Y9   \
	VXORPS  Y8, Y8, Y8    \
	VXORPS  Y7, Y7, Y7    \
	VXORPS  Y6, Y6, Y6    \
	VXORPS  Y5, Y5, Y5    \
	SCAND(0) \
	SCAND(1) \
	SCAND(2) \
	SCAND(3) \
	SCAND(4) \
	SCAND(5) \
	SCAND(6) \
	SCAND(7) \
	SCAND(8) \
	SCAND(9) \
	SCAND(10) \
	SCAND(11) \
	SCAND(12) \
	SCAND(13) \
	SCAND(14) \
	SCAND(15)

// The first candidate: scale = sum_l2 != 0 ? sum_lx/sum_l2 : 0, best =
// scale*sum_lx, into SSB+off (scale) and SSB+off+32 (best).
#define SFIRST(LX, L2, off) \
	VDIVPS  L2, LX, Y0         \
	VXORPS  Y1, Y1, Y1         \
	VCMPPS  $0x04, Y1, L2, Y1  \
	VANDPS  Y1, Y0, Y0         \
	VMULPS  LX, Y0, Y1         \
	VMOVUPS Y0, SSB+off(DI)    \
	VMOVUPS Y1, SSB+off+32(DI)

// A later candidate wins where sum_l2 > 0 and sum_lx^2 > best*sum_l2.
#define SNEXT(LX, L2, off) \
	VMOVUPS   SSB+off+32(DI), Y2 \
	VMULPS    L2, Y2, Y3         \
	VMULPS    LX, LX, Y4         \
	VCMPPS    $0x0e, Y3, Y4, Y4  \
	VXORPS    Y3, Y3, Y3         \
	VCMPPS    $0x0e, Y3, L2, Y3  \
	VANDPS    Y3, Y4, Y4         \
	VDIVPS    L2, LX, Y0         \
	VMULPS    LX, Y0, Y1         \
	VBLENDVPS Y4, Y1, Y2, Y2     \
	VMOVUPS   Y2, SSB+off+32(DI) \
	VMOVUPS   SSB+off(DI), Y3    \
	VBLENDVPS Y4, Y0, Y3, Y3     \
	VMOVUPS   Y3, SSB+off(DI)

// func q6kBlock16AVX2(x *[256]float32, s *q6kScratch, nums *float32, n int) bool
TEXT ·q6kBlock16AVX2(SB), NOSPLIT, $0-33
	MOVQ x+0(FP), SI
	MOVQ s+8(FP), DI
	MOVQ nums+16(FP), DX
	MOVQ n+24(FP), CX
	VMOVDQU kqsIdx16<>(SB), Y12
	VMOVUPS kqsAbs<>(SB), Y11
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	SGATHER(0, 0, Y1, Y2)
	SGATHER(0, 1, Y1, Y2)
	SGATHER(0, 2, Y1, Y2)
	SGATHER(0, 3, Y1, Y2)
	SGATHER(0, 4, Y1, Y2)
	SGATHER(0, 5, Y1, Y2)
	SGATHER(0, 6, Y1, Y2)
	SGATHER(0, 7, Y1, Y2)
	SGATHER(0, 8, Y1, Y2)
	SGATHER(0, 9, Y1, Y2)
	SGATHER(0, 10, Y1, Y2)
	SGATHER(0, 11, Y1, Y2)
	SGATHER(0, 12, Y1, Y2)
	SGATHER(0, 13, Y1, Y2)
	SGATHER(0, 14, Y1, Y2)
	SGATHER(0, 15, Y1, Y2)
	SGATHER(1, 0, Y3, Y4)
	SGATHER(1, 1, Y3, Y4)
	SGATHER(1, 2, Y3, Y4)
	SGATHER(1, 3, Y3, Y4)
	SGATHER(1, 4, Y3, Y4)
	SGATHER(1, 5, Y3, Y4)
	SGATHER(1, 6, Y3, Y4)
	SGATHER(1, 7, Y3, Y4)
	SGATHER(1, 8, Y3, Y4)
	SGATHER(1, 9, Y3, Y4)
	SGATHER(1, 10, Y3, Y4)
	SGATHER(1, 11, Y3, Y4)
	SGATHER(1, 12, Y3, Y4)
	SGATHER(1, 13, Y3, Y4)
	SGATHER(1, 14, Y3, Y4)
	SGATHER(1, 15, Y3, Y4)

	BCAST($0x7f800000, X6, Y6)
	VPCMPGTD  Y5, Y6, Y6
	VMOVMSKPS Y6, AX
	CMPL AX, $0xff
	JNE  q6kfail
	VMOVUPS Y1, SAMAX(DI)
	VMOVUPS Y3, SAMAX+32(DI)
	VMOVAPS Y2, Y12
	VMOVAPS Y4, Y11
	BCAST($0x4b400000, X15, Y15)
	BCAST($0x4b3fffe0, X14, Y14)
	BCAST($0x4b40001f, X13, Y13)

	SSUMS
	SFIRST(Y8, Y7, 0)
	SFIRST(Y6, Y5, 64)
	DECQ CX
	JZ   q6kdone
q6kloop:
	ADDQ $4, DX
	SSUMS
	SNEXT(Y8, Y7, 0)
	SNEXT(Y6, Y5, 64)
	DECQ CX
	JNZ  q6kloop

q6kdone:
	// Sub-blocks with max |x| < GROUP_MAX_EPS get scale 0.
	BCAST($0x26901d7d, X2, Y2)
	VMOVUPS SAMAX(DI), Y0
	VCMPPS  $0x01, Y2, Y0, Y0
	VMOVUPS SSB(DI), Y1
	VANDNPS Y1, Y0, Y1
	VMOVUPS Y1, SSCALES(DI)
	VMOVUPS SAMAX+32(DI), Y0
	VCMPPS  $0x01, Y2, Y0, Y0
	VMOVUPS SSB+64(DI), Y1
	VANDNPS Y1, Y0, Y1
	VMOVUPS Y1, SSCALES+32(DI)
	MOVB $1, ret+32(FP)
	VZEROUPPER
	RET

q6kfail:
	MOVB $0, ret+32(FP)
	VZEROUPPER
	RET


// func kLevelsAVX2(x *[256]float32, d, a *[16]float32, h int, lo, hi, off int32, L *[256]uint8)
//
// L[i] = clamp(nearest_int((x[i] + a[j])/d[j]), lo, hi) + off for
// sub-blocks j of 32 values (h = 0) or 16 (h = 4: the second 16 of each 32
// use the next d and a), with ggml's nearest_int on the bits: ((bits of
// v + 1.5*2^23) & 0x7fffff) - 0x400000, exact for every v.
#define KLEV(c, GD, GA, Y) \
	VBROADCASTSS GD, Y4       \
	VBROADCASTSS GA, Y        \
	VADDPS  32*c(SI), Y, Y    \
	VDIVPS  Y4, Y, Y          \
	VADDPS  Y15, Y, Y         \
	VPAND   Y14, Y, Y         \
	VPSUBD  Y13, Y, Y         \
	VPMAXSD Y12, Y, Y         \
	VPMINSD Y11, Y, Y         \
	VPADDD  Y10, Y, Y

TEXT ·kLevelsAVX2(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ d+8(FP), DX
	MOVQ a+16(FP), BX
	MOVQ h+24(FP), R8
	MOVQ L+48(FP), DI
	BCAST($0x4b400000, X15, Y15)
	BCAST($0x007fffff, X14, Y14)
	BCAST($0x00400000, X13, Y13)
	MOVL lo+32(FP), AX
	VMOVD AX, X12
	VPBROADCASTD X12, Y12
	MOVL hi+36(FP), AX
	VMOVD AX, X11
	VPBROADCASTD X11, Y11
	MOVL off+40(FP), AX
	VMOVD AX, X10
	VPBROADCASTD X10, Y10
	VMOVDQU kqsPerm<>(SB), Y9
	LEAQ 4(R8), R9
	MOVQ $8, CX

klevloop:
	KLEV(0, (DX), (BX), Y0)
	KLEV(1, (DX), (BX), Y1)
	KLEV(2, (DX)(R8*1), (BX)(R8*1), Y2)
	KLEV(3, (DX)(R8*1), (BX)(R8*1), Y3)
	// Pack the 32 int32 (in [0, 63]) to bytes; the 128-bit lanes of the
	// packs interleave the four vectors by dwords, which VPERMD undoes.
	VPACKSSDW Y1, Y0, Y0
	VPACKSSDW Y3, Y2, Y2
	VPACKUSWB Y2, Y0, Y0
	VPERMD    Y0, Y9, Y0
	VMOVDQU   Y0, (DI)
	ADDQ $128, SI
	ADDQ R9, DX
	ADDQ R9, BX
	ADDQ $32, DI
	DECQ CX
	JNZ  klevloop
	VZEROUPPER
	RET
