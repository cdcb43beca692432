//go:build !purego

#include "textflag.h"
#include "vnni_amd64.h"
#include "pairs_amd64.h"

// The Q8_0 prefill tile of the avx512vnni set.

DATA vBytes80<>+0(SB)/8, $0x8080808080808080
DATA vBytes80<>+8(SB)/8, $0x8080808080808080
DATA vBytes80<>+16(SB)/8, $0x8080808080808080
DATA vBytes80<>+24(SB)/8, $0x8080808080808080
GLOBL vBytes80<>(SB), RODATA|NOPTR, $32

// Q8_0 x Q8_0, four rows x four tokens with the tokens from their
// q8_0QuadTok quad at DI. Per pair the eight int32 lanes are one VPDPBUSD
// of the token's quants plus 128 (unsigned) and the row's signed quants,
// started from -128 * (the row's 4-byte sums): exactly the lanes of w*a.
// Sixteen accumulators in Y16-Y31 (EVEX registers), so each row's terms
// serve four tokens and each token's quants four rows. Rows at SI + k*wstride
// (wstride apart; R11 = 3*wstride); rows Y0-Y3, their -128*sums Y4-Y7,
// the tokens' unsigned quants Y8-Y11.
//
// The sixteen scales d_w*d_a of a block are written to the frame for
// eight blocks at a time before those blocks' products: the
// multiply-adds read them back as broadcasts, and a broadcast read right
// after the store that wrote it (the scales computed in the same step)
// made the whole tile 8-10% slower on an AMD Zen4 (BenchmarkMatMul Q8_0
// 5632x2048 ntok=64 CPU time 12.6 -> 11.3-11.6 ms). Two rows' scales
// take one conversion and one multiply (d_w of row r four times, then
// of row r+1, times the four d_a twice): the tile is bound by the
// multiply pipes, which the pairs' VPDPBUSD and multiply-adds fill
// (four tiles of 64 blocks in L1: 1.66-1.69 -> 1.61-1.65 us).

// Q80_TILE44 is the body of q8_0Tile4x4VNNI and its prefetching twin
// (own labels): PF_SETUP once, PF at each block, PF_NEXT after the rows
// move on by a block. Per chunk: DX = R8 = its blocks (CX's first eight
// at most; CX keeps the rest), R12 and R13 its first rows and quad, AX
// its scales.
#define Q80_TILE44(PF_SETUP, PF, PF_NEXT, chunk, scales, loop, done) \
	MOVQ nb+0(FP), CX \
	MOVQ w+8(FP), SI \
	MOVQ wstride+16(FP), BX \
	LEAQ (BX)(BX*2), R11 \
	MOVQ a+24(FP), DI \
	PF_SETUP \
	VXORPS Y16, Y16, Y16 \
	VXORPS Y17, Y17, Y17 \
	VXORPS Y18, Y18, Y18 \
	VXORPS Y19, Y19, Y19 \
	VXORPS Y20, Y20, Y20 \
	VXORPS Y21, Y21, Y21 \
	VXORPS Y22, Y22, Y22 \
	VXORPS Y23, Y23, Y23 \
	VXORPS Y24, Y24, Y24 \
	VXORPS Y25, Y25, Y25 \
	VXORPS Y26, Y26, Y26 \
	VXORPS Y27, Y27, Y27 \
	VXORPS Y28, Y28, Y28 \
	VXORPS Y29, Y29, Y29 \
	VXORPS Y30, Y30, Y30 \
	VXORPS Y31, Y31, Y31 \
	VMOVDQU vBytes80<>(SB), Y14 \
	VPXOR   Y15, Y15, Y15 \
	TESTQ   CX, CX \
	JZ      done \
chunk: \
	MOVQ    $8, DX \
	CMPQ    CX, DX \
	CMOVQLT CX, DX \
	SUBQ    DX, CX \
	MOVQ    SI, R12 \
	MOVQ    DI, R13 \
	LEAQ    sc-512(SP), AX \
	MOVQ    DX, R8 \
scales: \
	VBROADCASTF128 (R13), Y13 \
	VPBROADCASTW   0(R12), X12 \
	VPBROADCASTW   0(R12)(BX*1), X11 \
	VPUNPCKLQDQ    X11, X12, X12 \
	VCVTPH2PS      X12, Y12 \
	VMULPS         Y13, Y12, Y12 \
	VMOVUPS        Y12, 0(AX) \
	VPBROADCASTW   0(R12)(BX*2), X12 \
	VPBROADCASTW   0(R12)(R11*1), X11 \
	VPUNPCKLQDQ    X11, X12, X12 \
	VCVTPH2PS      X12, Y12 \
	VMULPS         Y13, Y12, Y12 \
	VMOVUPS        Y12, 32(AX) \
	ADDQ $34, R12 \
	ADDQ $288, R13 \
	ADDQ $64, AX \
	DECQ R8 \
	JNZ  scales \
	LEAQ sc-512(SP), AX \
loop: \
	PF \
	VMOVDQU      2(SI), Y0 \
	VPXOR        Y4, Y4, Y4 \
	VPDPBUSD     Y0, Y14, Y4 \
	VPSUBD       Y4, Y15, Y4 \
	VMOVDQU      2(SI)(BX*1), Y1 \
	VPXOR        Y5, Y5, Y5 \
	VPDPBUSD     Y1, Y14, Y5 \
	VPSUBD       Y5, Y15, Y5 \
	VMOVDQU      2(SI)(BX*2), Y2 \
	VPXOR        Y6, Y6, Y6 \
	VPDPBUSD     Y2, Y14, Y6 \
	VPSUBD       Y6, Y15, Y6 \
	VMOVDQU      2(SI)(R11*1), Y3 \
	VPXOR        Y7, Y7, Y7 \
	VPDPBUSD     Y3, Y14, Y7 \
	VPSUBD       Y7, Y15, Y7 \
	VMOVDQU      160(DI), Y8 \
	VMOVDQU      192(DI), Y9 \
	VMOVDQU      224(DI), Y10 \
	VMOVDQU      256(DI), Y11 \
	VMOVDQA      Y4, Y12 \
	VPDPBUSD     Y0, Y8, Y12 \
	VCVTDQ2PS    Y12, Y12 \
	VFMADD231PS.BCST 0(AX), Y12, Y16 \
	VMOVDQA      Y4, Y13 \
	VPDPBUSD     Y0, Y9, Y13 \
	VCVTDQ2PS    Y13, Y13 \
	VFMADD231PS.BCST 4(AX), Y13, Y17 \
	VMOVDQA      Y4, Y12 \
	VPDPBUSD     Y0, Y10, Y12 \
	VCVTDQ2PS    Y12, Y12 \
	VFMADD231PS.BCST 8(AX), Y12, Y18 \
	VMOVDQA      Y4, Y13 \
	VPDPBUSD     Y0, Y11, Y13 \
	VCVTDQ2PS    Y13, Y13 \
	VFMADD231PS.BCST 12(AX), Y13, Y19 \
	VMOVDQA      Y5, Y12 \
	VPDPBUSD     Y1, Y8, Y12 \
	VCVTDQ2PS    Y12, Y12 \
	VFMADD231PS.BCST 16(AX), Y12, Y20 \
	VMOVDQA      Y5, Y13 \
	VPDPBUSD     Y1, Y9, Y13 \
	VCVTDQ2PS    Y13, Y13 \
	VFMADD231PS.BCST 20(AX), Y13, Y21 \
	VMOVDQA      Y5, Y12 \
	VPDPBUSD     Y1, Y10, Y12 \
	VCVTDQ2PS    Y12, Y12 \
	VFMADD231PS.BCST 24(AX), Y12, Y22 \
	VMOVDQA      Y5, Y13 \
	VPDPBUSD     Y1, Y11, Y13 \
	VCVTDQ2PS    Y13, Y13 \
	VFMADD231PS.BCST 28(AX), Y13, Y23 \
	VMOVDQA      Y6, Y12 \
	VPDPBUSD     Y2, Y8, Y12 \
	VCVTDQ2PS    Y12, Y12 \
	VFMADD231PS.BCST 32(AX), Y12, Y24 \
	VMOVDQA      Y6, Y13 \
	VPDPBUSD     Y2, Y9, Y13 \
	VCVTDQ2PS    Y13, Y13 \
	VFMADD231PS.BCST 36(AX), Y13, Y25 \
	VMOVDQA      Y6, Y12 \
	VPDPBUSD     Y2, Y10, Y12 \
	VCVTDQ2PS    Y12, Y12 \
	VFMADD231PS.BCST 40(AX), Y12, Y26 \
	VMOVDQA      Y6, Y13 \
	VPDPBUSD     Y2, Y11, Y13 \
	VCVTDQ2PS    Y13, Y13 \
	VFMADD231PS.BCST 44(AX), Y13, Y27 \
	VMOVDQA      Y7, Y12 \
	VPDPBUSD     Y3, Y8, Y12 \
	VCVTDQ2PS    Y12, Y12 \
	VFMADD231PS.BCST 48(AX), Y12, Y28 \
	VMOVDQA      Y7, Y13 \
	VPDPBUSD     Y3, Y9, Y13 \
	VCVTDQ2PS    Y13, Y13 \
	VFMADD231PS.BCST 52(AX), Y13, Y29 \
	VMOVDQA      Y7, Y12 \
	VPDPBUSD     Y3, Y10, Y12 \
	VCVTDQ2PS    Y12, Y12 \
	VFMADD231PS.BCST 56(AX), Y12, Y30 \
	VMOVDQA      Y7, Y13 \
	VPDPBUSD     Y3, Y11, Y13 \
	VCVTDQ2PS    Y13, Y13 \
	VFMADD231PS.BCST 60(AX), Y13, Y31 \
	ADDQ $34, SI \
	PF_NEXT \
	ADDQ $288, DI \
	ADDQ $64, AX \
	DECQ DX \
	JNZ  loop \
	TESTQ CX, CX \
	JNZ   chunk \
done: \
	MOVQ out+32(FP), DX \
	MOVQ ostride+40(FP), BX \
	SHLQ $2, BX \
	TOKEN_ROWS4(Y16, Y20, Y24, Y28, X16, X20, X24, X28, DX, X12) \
	ADDQ BX, DX \
	TOKEN_ROWS4(Y17, Y21, Y25, Y29, X17, X21, X25, X29, DX, X12) \
	ADDQ BX, DX \
	TOKEN_ROWS4(Y18, Y22, Y26, Y30, X18, X22, X26, X30, DX, X12) \
	ADDQ BX, DX \
	TOKEN_ROWS4(Y19, Y23, Y27, Y31, X19, X23, X27, X31, DX, X12) \
	VZEROUPPER \
	RET

// Q80_PF_SETUP points R14 at the next tile's first row (the four rows
// after the tile's); Q80_PF asks for the block of those rows at the
// tile's offset, so that they arrive while this tile runs (a batch of a
// few tokens reads every row from DRAM once, the tile waiting on it).
#define Q80_PF_SETUP LEAQ (SI)(BX*4), R14
#define Q80_PF \
	PREFETCHT0 (R14)        \
	PREFETCHT0 (R14)(BX*1)  \
	PREFETCHT0 (R14)(BX*2)  \
	PREFETCHT0 (R14)(R11*1)
#define Q80_PF_NEXT ADDQ $34, R14
#define Q80_NONE

// func q8_0Tile4x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·q8_0Tile4x4VNNI(SB), NOSPLIT, $512-48
	Q80_TILE44(Q80_NONE, Q80_NONE, Q80_NONE, vq80t44chunk, vq80t44scales, vq80t44loop, vq80t44done)

// func q8_0Tile4x4VNNIPF(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
// q8_0Tile4x4VNNI prefetching the next tile's rows (vecDot4x4Few).
TEXT ·q8_0Tile4x4VNNIPF(SB), NOSPLIT, $512-48
	Q80_TILE44(Q80_PF_SETUP, Q80_PF, Q80_PF_NEXT, vq80t44pchunk, vq80t44pscales, vq80t44ploop, vq80t44pdone)
