//go:build !purego

#include "textflag.h"
#include "pairs_amd64.h"

// The Q8_0 prefill tile of 8 rows x 4 tokens on 512-bit vectors: each ZMM
// accumulator holds two tokens' 8-lane sums for one row (tokens 0|1 or
// 2|3 of the q8_0QuadTok quad, whose unsigned quants lie side by side), so
// a VPDPBUSD serves two tokens and every step is q8_0Tile4x4VNNI's for
// each half: the same integer lanes, fma(float(lanes), d_w*d_a, acc), the
// 8-lane horizontal sum. Where the vector units are 512 bits wide (Zen5,
// Xeon) that halves the instructions per product.
//
// Registers: accumulators Z16-Z31 (row r: Z(16+2r) tokens 0|1, Z(17+2r)
// tokens 2|3); per block the tokens' unsigned quants Z8 (0|1) and Z9
// (2|3), their scales spread to halves Z10 (a0 x8 | a1 x8) and Z11 (a2 |
// a3); constants Z12/Z13 (the VPERMPS indices of those), Z14 (0x80
// bytes), Z15 (zero); Z0-Z4 per row. Rows at SI, SI+BX, SI+2BX,
// R12 = SI+3BX, SI+4BX, R12+2BX, R13 = SI+6BX, R12+4BX.

// vnniPairIdx holds the VPERMPS indices that spread a quad's four token
// scales to register halves: (0 x8 | 1 x8), then (2 x8 | 3 x8) (also read
// by q5_0Tile8x4VNNI).
DATA ·vnniPairIdx+0(SB)/8, $0x0000000000000000
DATA ·vnniPairIdx+8(SB)/8, $0x0000000000000000
DATA ·vnniPairIdx+16(SB)/8, $0x0000000000000000
DATA ·vnniPairIdx+24(SB)/8, $0x0000000000000000
DATA ·vnniPairIdx+32(SB)/8, $0x0000000100000001
DATA ·vnniPairIdx+40(SB)/8, $0x0000000100000001
DATA ·vnniPairIdx+48(SB)/8, $0x0000000100000001
DATA ·vnniPairIdx+56(SB)/8, $0x0000000100000001
DATA ·vnniPairIdx+64(SB)/8, $0x0000000200000002
DATA ·vnniPairIdx+72(SB)/8, $0x0000000200000002
DATA ·vnniPairIdx+80(SB)/8, $0x0000000200000002
DATA ·vnniPairIdx+88(SB)/8, $0x0000000200000002
DATA ·vnniPairIdx+96(SB)/8, $0x0000000300000003
DATA ·vnniPairIdx+104(SB)/8, $0x0000000300000003
DATA ·vnniPairIdx+112(SB)/8, $0x0000000300000003
DATA ·vnniPairIdx+120(SB)/8, $0x0000000300000003
GLOBL ·vnniPairIdx(SB), RODATA|NOPTR, $128

// Q8Z_ROW adds row block (scale at md, quants at mq) into a0 (tokens 0|1)
// and a1 (2|3).
#define Q8Z_ROW(md, mq, a0, a1) \
	VBROADCASTI64X4 mq, Z0      \
	VPXORD          Z1, Z1, Z1  \
	VPDPBUSD        Z0, Z14, Z1 \
	VPSUBD          Z1, Z15, Z1 \
	VPBROADCASTW    md, Y2      \
	VCVTPH2PS       Y2, Z2      \
	VMULPS          Z10, Z2, Z3 \
	VMULPS          Z11, Z2, Z2 \
	VMOVDQA64       Z1, Z4      \
	VPDPBUSD        Z0, Z8, Z4  \
	VCVTDQ2PS       Z4, Z4      \
	VFMADD231PS     Z3, Z4, a0  \
	VPDPBUSD        Z0, Z9, Z1  \
	VCVTDQ2PS       Z1, Z1      \
	VFMADD231PS     Z2, Z1, a1

// Q8Z_TILE84 is the body of q8_0Tile8x4VNNI and its twin that prefetches
// the next tile's rows (PF_SETUP once, PF at each block, PF_NEXT after
// the rows move on; own labels).
#define Q8Z_TILE84(PF_SETUP, PF, PF_NEXT, loop, done) \
	MOVQ nb+0(FP), CX \
	MOVQ w+8(FP), SI \
	MOVQ wstride+16(FP), BX \
	MOVQ a+24(FP), DI \
	LEAQ (SI)(BX*2), R12 \
	ADDQ BX, R12 \
	LEAQ (R12)(BX*2), R13 \
	ADDQ BX, R13 \
	PF_SETUP \
	ZERO_Z16_31 \
	VMOVDQU64 ·vnniPairIdx+0(SB), Z12 \
	VMOVDQU64 ·vnniPairIdx+64(SB), Z13 \
	MOVL         $0x80808080, AX \
	VPBROADCASTD AX, Z14 \
	VPXORD       Z15, Z15, Z15 \
	TESTQ CX, CX \
	JZ    done \
loop: \
	PF \
	VPERMPS   0(DI), Z12, Z10 \
	VPERMPS   0(DI), Z13, Z11 \
	VMOVDQU64 160(DI), Z8 \
	VMOVDQU64 224(DI), Z9 \
	Q8Z_ROW(0(SI), 2(SI), Z16, Z17) \
	Q8Z_ROW(0(SI)(BX*1), 2(SI)(BX*1), Z18, Z19) \
	Q8Z_ROW(0(SI)(BX*2), 2(SI)(BX*2), Z20, Z21) \
	Q8Z_ROW(0(R12), 2(R12), Z22, Z23) \
	Q8Z_ROW(0(SI)(BX*4), 2(SI)(BX*4), Z24, Z25) \
	Q8Z_ROW(0(R12)(BX*2), 2(R12)(BX*2), Z26, Z27) \
	Q8Z_ROW(0(R13), 2(R13), Z28, Z29) \
	Q8Z_ROW(0(R12)(BX*4), 2(R12)(BX*4), Z30, Z31) \
	ADDQ $34, SI \
	ADDQ $34, R12 \
	ADDQ $34, R13 \
	PF_NEXT \
	ADDQ $288, DI \
	DECQ CX \
	JNZ  loop \
done: \
	STORE8x4_Z16_31 \
	VZEROUPPER \
	RET

// Q8Z_PF_SETUP points R14 at the next tile's first row (the eight rows
// after the tile's), R8 at its fourth and R11 at its seventh (not R15,
// which a global access may clobber when linking dynamically); Q8Z_PF
// asks for those rows' block at the tile's offset (a batch of a few
// tokens reads every row from DRAM once, the tile waiting on it).
#define Q8Z_PF_SETUP \
	LEAQ (SI)(BX*8), R14  \
	LEAQ (R14)(BX*2), R8  \
	ADDQ BX, R8           \
	LEAQ (R8)(BX*2), R11  \
	ADDQ BX, R11

#define Q8Z_PF \
	PREFETCHT0 (R14)        \
	PREFETCHT0 (R14)(BX*1)  \
	PREFETCHT0 (R14)(BX*2)  \
	PREFETCHT0 (R8)         \
	PREFETCHT0 (R14)(BX*4)  \
	PREFETCHT0 (R8)(BX*2)   \
	PREFETCHT0 (R11)        \
	PREFETCHT0 (R8)(BX*4)

#define Q8Z_PF_NEXT \
	ADDQ $34, R14 \
	ADDQ $34, R8 \
	ADDQ $34, R11

#define Q8Z_NONE

// func q8_0Tile8x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·q8_0Tile8x4VNNI(SB), NOSPLIT, $0-48
	Q8Z_TILE84(Q8Z_NONE, Q8Z_NONE, Q8Z_NONE, q8z84loop, q8z84done)

// func q8_0Tile8x4VNNIPF(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
// q8_0Tile8x4VNNI prefetching the next tile's rows (vecDot8x4Few).
TEXT ·q8_0Tile8x4VNNIPF(SB), NOSPLIT, $0-48
	Q8Z_TILE84(Q8Z_PF_SETUP, Q8Z_PF, Q8Z_PF_NEXT, q8z84ploop, q8z84pdone)
