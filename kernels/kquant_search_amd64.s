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

// Registers of qkx2Block8AVX2: SI x, DI scratch, DX nums, CX candidates
// left; Y15 1.5*2^23 (as float and as bits), Y14 its bits + nmax.

// Transpose: value i of the eight sub-blocks into QX+32*i.
#define QGATHER(i) \
	VPCMPEQD   Y12, Y12, Y12        \
	VGATHERDPS Y12, 4*i(SI)(Y13*4), Y0 \
	VMOVUPS    Y0, QX+32*i(DI)

// Pass 1: sum of squares (Y0), min (Y1) and max (Y2) as ggml's compares
// keep them (VMINPS/VMAXPS return the old value on ties), largest |x|
// bits (Y3); Y11 is the abs mask.
#define QPASS1(i) \
	VMOVUPS QX+32*i(DI), Y4 \
	VMULPS  Y4, Y4, Y5      \
	VADDPS  Y5, Y0, Y0      \
	VMINPS  Y1, Y4, Y1      \
	VMAXPS  Y2, Y4, Y2      \
	VANDPS  Y11, Y4, Y5     \
	VPMAXUD Y5, Y3, Y3

// Pass 2: weights av_x + |x| (av_x in Y0), sum w (Y4), sum w*x (Y5).
#define QPASS2(i) \
	VANDPS  QX+32*i(DI), Y11, Y6 \
	VADDPS  Y6, Y0, Y6           \
	VMOVUPS Y6, QW+32*i(DI)      \
	VADDPS  Y6, Y4, Y4           \
	VMULPS  QX+32*i(DI), Y6, Y7  \
	VADDPS  Y7, Y5, Y5

// The level of x (in Y) for iscale ISC and min Y13: round, clamp on the
// bits to [0, nmax], back to float.
#define QLEVEL(ISC, Y) \
	VSUBPS  Y13, Y, Y   \
	VMULPS  ISC, Y, Y   \
	VADDPS  Y15, Y, Y   \
	VPMAXUD Y15, Y, Y   \
	VPMINUD Y14, Y, Y   \
	VSUBPS  Y15, Y, Y

// Pass 3: the starting fit's error (Y12), iscale Y8, scale Y9.
#define QPASS3(i) \
	VMOVUPS QX+32*i(DI), Y0   \
	VMOVAPS Y0, Y1            \
	QLEVEL(Y8, Y1)            \
	VMULPS  Y9, Y1, Y1        \
	VADDPS  Y13, Y1, Y1       \
	VSUBPS  Y0, Y1, Y1        \
	VMULPS  Y1, Y1, Y1        \
	VMULPS  QW+32*i(DI), Y1, Y1 \
	VADDPS  Y1, Y12, Y12

// A candidate's levels (stored) and sums: sum w*l (Y3), sum w*l*l (Y4),
// sum w*l*x (Y5); iscale in Y2.
#define QSUMS(i) \
	VMOVUPS QX+32*i(DI), Y6     \
	VMOVAPS Y6, Y7              \
	QLEVEL(Y2, Y7)              \
	VMOVUPS Y7, QLV+32*i(DI)    \
	VMULPS  QW+32*i(DI), Y7, Y8 \
	VADDPS  Y8, Y3, Y3          \
	VMULPS  Y7, Y8, Y9          \
	VADDPS  Y9, Y4, Y4          \
	VMULPS  Y6, Y8, Y8          \
	VADDPS  Y8, Y5, Y5

// A candidate's error (Y3) for scale Y8 and min Y9.
#define QERR(i) \
	VMOVUPS QLV+32*i(DI), Y4    \
	VMULPS  Y8, Y4, Y4          \
	VADDPS  Y9, Y4, Y4          \
	VSUBPS  QX+32*i(DI), Y4, Y4 \
	VMULPS  Y4, Y4, Y4          \
	VMULPS  QW+32*i(DI), Y4, Y4 \
	VADDPS  Y4, Y3, Y3

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
	VMOVDQU kqsIdx32<>(SB), Y13

	QGATHER(0)
	QGATHER(1)
	QGATHER(2)
	QGATHER(3)
	QGATHER(4)
	QGATHER(5)
	QGATHER(6)
	QGATHER(7)
	QGATHER(8)
	QGATHER(9)
	QGATHER(10)
	QGATHER(11)
	QGATHER(12)
	QGATHER(13)
	QGATHER(14)
	QGATHER(15)
	QGATHER(16)
	QGATHER(17)
	QGATHER(18)
	QGATHER(19)
	QGATHER(20)
	QGATHER(21)
	QGATHER(22)
	QGATHER(23)
	QGATHER(24)
	QGATHER(25)
	QGATHER(26)
	QGATHER(27)
	QGATHER(28)
	QGATHER(29)
	QGATHER(30)
	QGATHER(31)

	VXORPS  Y0, Y0, Y0
	VMOVUPS QX(DI), Y1
	VMOVAPS Y1, Y2
	VXORPS  Y3, Y3, Y3
	VMOVUPS kqsAbs<>(SB), Y11
	QPASS1(0)
	QPASS1(1)
	QPASS1(2)
	QPASS1(3)
	QPASS1(4)
	QPASS1(5)
	QPASS1(6)
	QPASS1(7)
	QPASS1(8)
	QPASS1(9)
	QPASS1(10)
	QPASS1(11)
	QPASS1(12)
	QPASS1(13)
	QPASS1(14)
	QPASS1(15)
	QPASS1(16)
	QPASS1(17)
	QPASS1(18)
	QPASS1(19)
	QPASS1(20)
	QPASS1(21)
	QPASS1(22)
	QPASS1(23)
	QPASS1(24)
	QPASS1(25)
	QPASS1(26)
	QPASS1(27)
	QPASS1(28)
	QPASS1(29)
	QPASS1(30)
	QPASS1(31)

	// Non-finite input: leave the block to the scalar search.
	BCAST($0x7f800000, X4, Y4)
	VPCMPGTD Y3, Y4, Y4
	VMOVMSKPS Y4, AX
	CMPL AX, $0xff
	JNE  qkx2fail
	VMOVUPS Y1, QMINX(DI)
	VMOVUPS Y2, QMAX(DI)

	// av_x = sqrtf(sum_x2/32)
	BCAST($0x42000000, X4, Y4)
	VDIVPS  Y4, Y0, Y0
	VSQRTPS Y0, Y0
	VANDPS  QX(DI), Y11, Y6
	VADDPS  Y6, Y0, Y6
	VMOVUPS Y6, QW(DI)
	VMOVAPS Y6, Y4
	VMULPS  QX(DI), Y6, Y5
	QPASS2(1)
	QPASS2(2)
	QPASS2(3)
	QPASS2(4)
	QPASS2(5)
	QPASS2(6)
	QPASS2(7)
	QPASS2(8)
	QPASS2(9)
	QPASS2(10)
	QPASS2(11)
	QPASS2(12)
	QPASS2(13)
	QPASS2(14)
	QPASS2(15)
	QPASS2(16)
	QPASS2(17)
	QPASS2(18)
	QPASS2(19)
	QPASS2(20)
	QPASS2(21)
	QPASS2(22)
	QPASS2(23)
	QPASS2(24)
	QPASS2(25)
	QPASS2(26)
	QPASS2(27)
	QPASS2(28)
	QPASS2(29)
	QPASS2(30)
	QPASS2(31)
	VMOVUPS Y4, QSUMW(DI)
	VMOVUPS Y5, QSUMX(DI)

	// The starting fit: min = min(minX, 0) (ggml's "if (min > 0) min = 0"),
	// lanes with max == min are done (scale 0, no candidates), iscale =
	// nmax/(max - min), scale = 1/iscale.
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
	// Bound on |iscale*(x - min)|: iscale*(max - min).
	VMULPS  Y7, Y8, Y10
	VANDPS  Y11, Y10, Y10
	VANDPS  Y6, Y10, Y10
	VXORPS  Y12, Y12, Y12
	QPASS3(0)
	QPASS3(1)
	QPASS3(2)
	QPASS3(3)
	QPASS3(4)
	QPASS3(5)
	QPASS3(6)
	QPASS3(7)
	QPASS3(8)
	QPASS3(9)
	QPASS3(10)
	QPASS3(11)
	QPASS3(12)
	QPASS3(13)
	QPASS3(14)
	QPASS3(15)
	QPASS3(16)
	QPASS3(17)
	QPASS3(18)
	QPASS3(19)
	QPASS3(20)
	QPASS3(21)
	QPASS3(22)
	QPASS3(23)
	QPASS3(24)
	QPASS3(25)
	QPASS3(26)
	QPASS3(27)
	QPASS3(28)
	QPASS3(29)
	QPASS3(30)
	QPASS3(31)
	VMOVAPS Y9, Y11

	// Candidates. Y13 min, Y12 best error, Y11 scale, Y10 bound.
qkx2loop:
	VBROADCASTSS (DX), Y0
	VMOVUPS QMAX(DI), Y1
	VSUBPS  Y13, Y1, Y1
	VDIVPS  Y1, Y0, Y2
	// |x - min| <= max(|max - min|, |minX - min|) (rounding is monotonic)
	VMOVUPS QMINX(DI), Y3
	VSUBPS  Y13, Y3, Y3
	VANDPS  kqsAbs<>(SB), Y3, Y3
	VANDPS  kqsAbs<>(SB), Y1, Y1
	VPMAXUD Y3, Y1, Y1
	VANDPS  kqsAbs<>(SB), Y2, Y3
	VMULPS  Y1, Y3, Y3
	VANDPS  QNOTDONE(DI), Y3, Y3
	VPMAXUD Y3, Y10, Y10
	VXORPS  Y3, Y3, Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	QSUMS(0)
	QSUMS(1)
	QSUMS(2)
	QSUMS(3)
	QSUMS(4)
	QSUMS(5)
	QSUMS(6)
	QSUMS(7)
	QSUMS(8)
	QSUMS(9)
	QSUMS(10)
	QSUMS(11)
	QSUMS(12)
	QSUMS(13)
	QSUMS(14)
	QSUMS(15)
	QSUMS(16)
	QSUMS(17)
	QSUMS(18)
	QSUMS(19)
	QSUMS(20)
	QSUMS(21)
	QSUMS(22)
	QSUMS(23)
	QSUMS(24)
	QSUMS(25)
	QSUMS(26)
	QSUMS(27)
	QSUMS(28)
	QSUMS(29)
	QSUMS(30)
	QSUMS(31)
	// D = sum_w*sum_l2 - sum_l^2; scale = (sum_w*sum_xl - sum_x*sum_l)/D;
	// min = (sum_l2*sum_x - sum_l*sum_xl)/D; min > 0: min = 0, scale =
	// sum_xl/sum_l2.
	VMULPS  QSUMW(DI), Y4, Y6
	VMULPS  Y3, Y3, Y7
	VSUBPS  Y7, Y6, Y6
	VXORPS  Y7, Y7, Y7
	VCMPPS  $0x0e, Y7, Y6, Y7
	VMULPS  QSUMW(DI), Y5, Y8
	VMULPS  QSUMX(DI), Y3, Y9
	VSUBPS  Y9, Y8, Y8
	VDIVPS  Y6, Y8, Y8
	VMULPS  QSUMX(DI), Y4, Y9
	VMULPS  Y5, Y3, Y0
	VSUBPS  Y0, Y9, Y9
	VDIVPS  Y6, Y9, Y9
	VXORPS  Y0, Y0, Y0
	VCMPPS  $0x0e, Y0, Y9, Y0
	VANDNPS Y9, Y0, Y9
	VDIVPS  Y4, Y5, Y5
	VBLENDVPS Y0, Y5, Y8, Y8
	VXORPS  Y3, Y3, Y3
	QERR(0)
	QERR(1)
	QERR(2)
	QERR(3)
	QERR(4)
	QERR(5)
	QERR(6)
	QERR(7)
	QERR(8)
	QERR(9)
	QERR(10)
	QERR(11)
	QERR(12)
	QERR(13)
	QERR(14)
	QERR(15)
	QERR(16)
	QERR(17)
	QERR(18)
	QERR(19)
	QERR(20)
	QERR(21)
	QERR(22)
	QERR(23)
	QERR(24)
	QERR(25)
	QERR(26)
	QERR(27)
	QERR(28)
	QERR(29)
	QERR(30)
	QERR(31)
	// Accept where D > 0 and error < best (not in done lanes).
	VCMPPS    $0x01, Y12, Y3, Y4
	VANDPS    Y7, Y4, Y4
	VANDPS    QNOTDONE(DI), Y4, Y4
	VBLENDVPS Y4, Y3, Y12, Y12
	VBLENDVPS Y4, Y8, Y11, Y11
	VBLENDVPS Y4, Y9, Y13, Y13
	ADDQ $4, DX
	DECQ CX
	JNZ  qkx2loop

	VANDPS  QNOTDONE(DI), Y11, Y11
	VXORPS  kqsSign<>(SB), Y13, Y13
	VMOVUPS Y11, QSCALES(DI)
	VMOVUPS Y13, QNEGMINS(DI)
	// ok: every bound below 4e6.
	BCAST($0x4a7423ff, X0, Y0)
	VPMAXUD   Y0, Y10, Y10
	VPCMPEQD  Y0, Y10, Y10
	VMOVMSKPS Y10, AX
	CMPL AX, $0xff
	SETEQ ret+40(FP)
	VZEROUPPER
	RET

qkx2fail:
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

