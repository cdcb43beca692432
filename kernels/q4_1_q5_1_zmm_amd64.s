//go:build !purego

#include "textflag.h"
#include "pairs_amd64.h"

// The avx512zmm set's Q4_1 and Q5_1 decode kernels: vecDotQ4_1Q8_1r4AVX2
// and vecDotQ5_1Q8_1r4AVX2 (vecdot_amd64.s: four rows wstride apart
// against one token, each row in vecDotQ4_1Q8_1AVX2's steps, same bits)
// with two rows per 512-bit register, the first row of a pair in the lower
// half. Per block of four rows the AVX2 kernels' ~52 (Q4_1) and ~64 (Q5_1)
// vector operations become ~30 and ~38: VPDPBUSD does the byte products and
// the lane sums in one; one load of the four rows' (d, m) pairs and one of
// the token's (d, s) give the scale products and the min terms in two
// operations; Q5_1's high bits come in as a mask register (KUNPCKDQ of
// the pair's two words) and a masked VPADDB of 16 instead of
// bytes_from_bits_32's shuffle, compare and blend. Both types' quants are
// unsigned, so no sign trick.
//
// Registers: Z15 = 0x0F bytes, Z16 = 0x10 bytes (Q5_1), Z19 the nibble
// shifts (q1zShift), Z20/Z21 the scale permutations (q1zPerm); Z0 and Z1
// the float accumulators of rows 0 and 1 and of rows 2 and 3; Y14's odd
// lanes the four rows' min terms (row k in lane 2k+1).

// q1zShift: VPSRLVQ counts per quadword, the same in both halves: 0 for
// the lower 128 bits (the low nibbles, elements 0-15), 4 for the upper
// (the high nibbles, elements 16-31).
DATA q1zShift<>+0(SB)/8, $0
DATA q1zShift<>+8(SB)/8, $0
DATA q1zShift<>+16(SB)/8, $4
DATA q1zShift<>+24(SB)/8, $4
GLOBL q1zShift<>(SB), RODATA|NOPTR, $32

// q1zPerm: VPERMPS indices as bytes (VPMOVZXBD widens them): lanes 0 and
// 2 of the scale vector across the two halves, then lanes 4 and 6.
DATA q1zPerm<>+0(SB)/8, $0x0000000000000000
DATA q1zPerm<>+8(SB)/8, $0x0202020202020202
DATA q1zPerm<>+16(SB)/8, $0x0404040404040404
DATA q1zPerm<>+24(SB)/8, $0x0606060606060606
GLOBL q1zPerm<>(SB), RODATA|NOPTR, $32

// Q1Z_SCALES reads the (d, m) f16 pairs of the four rows' blocks at
// off(row) and the token block's (d, s) at aoff(DI): Z6 = d_w*d_a of rows
// 0 and 1 across their halves, Z7 that of rows 2 and 3, and Y14 += m_w*s_a
// in lane 2k+1 for row k (fused, as the generic kernel; the even lanes
// gather d products nobody reads).
#define Q1Z_SCALES(off, aoff) \
	VMOVD        off(R11), X2         \
	VPINSRD      $1, off(R8), X2, X2  \
	VPINSRD      $2, off(R9), X2, X2  \
	VPINSRD      $3, off(R10), X2, X2 \
	VCVTPH2PS    X2, Y2               \
	VPBROADCASTD aoff(DI), X3         \
	VCVTPH2PS    X3, Y3               \
	VMULPS       Y3, Y2, Y5           \
	VFMADD231PS  Y3, Y2, Y14          \
	VPERMPS      Z5, Z20, Z6          \
	VPERMPS      Z5, Z21, Z7

// Q1Z_NIBBLES sets Zd to the 32 nibbles of the 16 bytes at off(A) in the
// lower half (low nibbles then high: elements 0-15, 16-31, NIBBLES's
// order) and those at off(B) in the upper; Yt scratch.
#define Q1Z_NIBBLES(off, A, B, Yd, Zd, Yt) \
	VBROADCASTI128 off(A), Yd       \
	VBROADCASTI128 off(B), Yt       \
	VINSERTI64X4   $1, Yt, Zd, Zd   \
	VPSRLVQ        Z19, Zd, Zd      \
	VPANDD         Z15, Zd, Zd

// Q5Z_HIGH adds 16 to the quants of Zd whose high bit is set: the uint32
// at off(A) for the lower half, at off(B) for the upper (bit e of a
// row's word is element e's).
#define Q5Z_HIGH(off, A, B, Zd) \
	KMOVD    off(A), K1          \
	KMOVD    off(B), K2          \
	KUNPCKDQ K1, K2, K3          \
	VPADDB   Z16, Zd, K3, Zd

// Q1Z_DOT: acc += Zd * float(the int32 lanes of the unsigned quants Zq
// times the token's block Z4), Zt scratch.
#define Q1Z_DOT(Zq, Zd, acc, Zt) \
	VPXORD      Zt, Zt, Zt  \
	VPDPBUSD    Z4, Zq, Zt  \
	VCVTDQ2PS   Zt, Zt      \
	VFMADD231PS Zt, Zd, acc

// Q41Z_BLOCK: the four rows' Q4_1 blocks at wo (d, m, qs[16] at wo+4)
// against the Q8_1 block at ao(DI) (d, s, qs[32] at ao+4).
#define Q41Z_BLOCK(wo, ao) \
	Q1Z_SCALES(wo, ao)                        \
	VBROADCASTI64X4 ao+4(DI), Z4              \
	Q1Z_NIBBLES(wo+4, R11, R8, Y8, Z8, Y9)    \
	Q1Z_NIBBLES(wo+4, R9, R10, Y11, Z11, Y12) \
	Q1Z_DOT(Z8, Z6, Z0, Z10)                  \
	Q1Z_DOT(Z11, Z7, Z1, Z13)

// Q51Z_BLOCK: the same for Q5_1 blocks (d, m, qh at wo+4, qs at wo+8).
#define Q51Z_BLOCK(wo, ao) \
	Q1Z_SCALES(wo, ao)                        \
	VBROADCASTI64X4 ao+4(DI), Z4              \
	Q1Z_NIBBLES(wo+8, R11, R8, Y8, Z8, Y9)    \
	Q5Z_HIGH(wo+4, R11, R8, Z8)               \
	Q1Z_NIBBLES(wo+8, R9, R10, Y11, Z11, Y12) \
	Q5Z_HIGH(wo+4, R9, R10, Z11)              \
	Q1Z_DOT(Z8, Z6, Z0, Z10)                  \
	Q1Z_DOT(Z11, Z7, Z1, Z13)

// Q1Z_PROLOGUE loads the arguments and constants: rows at R11, R8, R9,
// R10, the token at DI, CX blocks.
#define Q1Z_PROLOGUE \
	R4Z_ARGS                            \
	MOVL            $0x0F0F0F0F, AX     \
	VPBROADCASTD    AX, Z15             \
	MOVL            $0x10101010, AX     \
	VPBROADCASTD    AX, Z16             \
	VBROADCASTI64X4 q1zShift<>(SB), Z19 \
	VPMOVZXBD       q1zPerm<>+0(SB), Z20  \
	VPMOVZXBD       q1zPerm<>+16(SB), Z21 \
	VPXORD          Z0, Z0, Z0          \
	VPXORD          Z1, Z1, Z1          \
	VXORPS          Y14, Y14, Y14

// Q1Z_PF asks for the four rows' cache lines 1 KiB ahead (as the
// AVX2 four-row kernels).
#define Q1Z_PF \
	PREFETCHT0 1024(R11) \
	PREFETCHT0 1024(R8)  \
	PREFETCHT0 1024(R9)  \
	PREFETCHT0 1024(R10)

#define Q1Z_ADVANCE(wb, ab) \
	ADDQ $wb, R11 \
	ADDQ $wb, R8  \
	ADDQ $wb, R9  \
	ADDQ $wb, R10 \
	ADDQ $ab, DI

// Q1Z_OUT stores hsum(Y's lanes) + the min term at mem (X its low
// half, X4 scratch) to dst: X4_EPILOGUE_MIN's order.
#define Q1Z_OUT(Y, X, mem, dst) \
	HSUM8(Y, X, X4)    \
	VADDSS mem, X, X   \
	VMOVSS X, dst

// Q1Z_EPILOGUE stores out[k*ostride] = hsum(row k's lanes) + its min
// term (Y14's lane 2k+1, through the frame) and returns.
#define Q1Z_EPILOGUE \
	R4Z_OUT                          \
	VMOVUPS       Y14, 0(SP)         \
	VEXTRACTF64X4 $1, Z0, Y2         \
	VEXTRACTF64X4 $1, Z1, Y3         \
	Q1Z_OUT(Y0, X0, 4(SP), (DX))     \
	ADDQ          BX, DX             \
	Q1Z_OUT(Y2, X2, 12(SP), (DX))    \
	ADDQ          BX, DX             \
	Q1Z_OUT(Y1, X1, 20(SP), (DX))    \
	ADDQ          BX, DX             \
	Q1Z_OUT(Y3, X3, 28(SP), (DX))    \
	VZEROUPPER                       \
	RET

// Prefill: two rows (one pair, as above) by four tokens, each token in
// the single-row order (as the avx512vnni tiles, tile_amd64.s's Q1_TILE,
// same bits). The quad's float32 d and s (q8_1QuadScales at R12) serve
// every row; per block the pair's quants are made once for the four
// tokens, and each token costs one broadcast load and four operations
// for both rows where Q1_TILE spends five for one (its quants and scales
// once per row). Registers: tokens at DI, R9, R10, R13, their float
// accumulators Z0, Z1, Z12, Z13 (row 0 in the lower half); Z10 the min
// terms (lanes 0-3 row 0's tokens, 8-11 row 1's).

// Q1ZT_SCALES: Z6 = the pair's d_w across their halves, Z7 their m_w;
// Z10 += m_w * s of the four tokens (fused, as the generic kernel).
#define Q1ZT_SCALES \
	VPBROADCASTD    0(R11), X2      \
	VPBROADCASTD    0(R8), X3       \
	VINSERTI128     $1, X3, Y2, Y2  \
	VCVTPH2PS       Y2, Z2          \
	VMOVSLDUP       Z2, Z6          \
	VMOVSHDUP       Z2, Z7          \
	VBROADCASTF32X4 16(R12), Z3     \
	VFMADD231PS     Z3, Z7, Z10

// Q1ZT_TOK: acc += (d_w * token k's d) * float(the lanes of the pair's
// quants Z8 times token P's bytes).
#define Q1ZT_TOK(P, dk, acc) \
	VBROADCASTI64X4 4(P), Z4      \
	VPXORD          Z5, Z5, Z5    \
	VPDPBUSD        Z4, Z8, Z5    \
	VCVTDQ2PS       Z5, Z5        \
	VMULPS.BCST     dk(R12), Z6, Z9 \
	VFMADD231PS     Z5, Z9, acc

#define Q1ZT_TOKENS \
	Q1ZT_TOK(DI, 0, Z0)   \
	Q1ZT_TOK(R9, 4, Z1)   \
	Q1ZT_TOK(R10, 8, Z12) \
	Q1ZT_TOK(R13, 12, Z13)

#define Q41ZT_BLOCK \
	Q1ZT_SCALES                          \
	Q1Z_NIBBLES(4, R11, R8, Y8, Z8, Y11) \
	Q1ZT_TOKENS

#define Q51ZT_BLOCK \
	Q1ZT_SCALES                          \
	Q1Z_NIBBLES(8, R11, R8, Y8, Z8, Y11) \
	Q5Z_HIGH(4, R11, R8, Z8)             \
	Q1ZT_TOKENS

// Q1ZT_STORE writes token k's outputs (the halves of acc summed, plus
// their min terms, which the frame holds at 4k and 16+4k) and steps DX
// to the next token's.
#define Q1ZT_STORE(acc, Y, X, k) \
	VEXTRACTF64X4 $1, acc, Y5         \
	Q1Z_OUT(Y, X, k(SP), (DX))        \
	Q1Z_OUT(Y5, X5, 16+k(SP), 4(DX))  \
	ADDQ          BX, DX

// Q1ZT is the tiles' body: BLOCK on blocks of wb bytes.
#define Q1ZT(BLOCK, wb, loop, done) \
	MOVQ            nb+0(FP), CX        \
	MOVQ            w+8(FP), R11        \
	MOVQ            wstride+16(FP), BX  \
	LEAQ            (R11)(BX*1), R8     \
	MOVQ            a+24(FP), DI        \
	MOVQ            astride+32(FP), BX  \
	LEAQ            (DI)(BX*1), R9      \
	LEAQ            (R9)(BX*1), R10     \
	LEAQ            (R10)(BX*1), R13    \
	MOVQ            ad+40(FP), R12      \
	MOVL            $0x0F0F0F0F, AX     \
	VPBROADCASTD    AX, Z15             \
	MOVL            $0x10101010, AX     \
	VPBROADCASTD    AX, Z16             \
	VBROADCASTI64X4 q1zShift<>(SB), Z19 \
	VPXORD          Z0, Z0, Z0          \
	VPXORD          Z1, Z1, Z1          \
	VPXORD          Z12, Z12, Z12       \
	VPXORD          Z13, Z13, Z13       \
	VPXORD          Z10, Z10, Z10       \
	TESTQ           CX, CX              \
	JZ              done                \
loop:                                   \
	BLOCK                               \
	ADDQ $wb, R11                       \
	ADDQ $wb, R8                        \
	ADDQ $36, DI                        \
	ADDQ $36, R9                        \
	ADDQ $36, R10                       \
	ADDQ $36, R13                       \
	ADDQ $32, R12                       \
	DECQ CX                             \
	JNZ  loop                           \
done:                                   \
	VMOVUPS         X10, 0(SP)          \
	VEXTRACTF32X4   $2, Z10, X11        \
	VMOVUPS         X11, 16(SP)         \
	MOVQ            out+48(FP), DX      \
	MOVQ            ostride+56(FP), BX  \
	SHLQ            $2, BX              \
	Q1ZT_STORE(Z0, Y0, X0, 0)           \
	Q1ZT_STORE(Z1, Y1, X1, 4)           \
	Q1ZT_STORE(Z12, Y12, X12, 8)        \
	Q1ZT_STORE(Z13, Y13, X13, 12)       \
	VZEROUPPER                          \
	RET


// func vecDotQ4_1Q8_1r4ZMMVNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·vecDotQ4_1Q8_1r4ZMMVNNI(SB), NOSPLIT, $32-48
	Q1Z_PROLOGUE
	MOVQ CX, DX
	SHRQ $1, DX
	JZ   q41ztail

q41zloop:
	Q1Z_PF
	Q41Z_BLOCK(0, 0)
	Q41Z_BLOCK(20, 36)
	Q1Z_ADVANCE(40, 72)
	DECQ DX
	JNZ  q41zloop

q41ztail:
	TESTQ $1, CX
	JZ    q41zdone
	Q41Z_BLOCK(0, 0)

q41zdone:
	Q1Z_EPILOGUE

// func vecDotQ5_1Q8_1r4ZMMVNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·vecDotQ5_1Q8_1r4ZMMVNNI(SB), NOSPLIT, $32-48
	Q1Z_PROLOGUE
	MOVQ CX, DX
	SHRQ $1, DX
	JZ   q51ztail

q51zloop:
	Q1Z_PF
	Q51Z_BLOCK(0, 0)
	Q51Z_BLOCK(24, 36)
	Q1Z_ADVANCE(48, 72)
	DECQ DX
	JNZ  q51zloop

q51ztail:
	TESTQ $1, CX
	JZ    q51zdone
	Q51Z_BLOCK(0, 0)

q51zdone:
	Q1Z_EPILOGUE

// func q4_1Tile2x4ZMMVNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q4_1Tile2x4ZMMVNNI(SB), NOSPLIT, $32-64
	Q1ZT(Q41ZT_BLOCK, 20, q41ztloop, q41ztdone)

// func q5_1Tile2x4ZMMVNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q5_1Tile2x4ZMMVNNI(SB), NOSPLIT, $32-64
	Q1ZT(Q51ZT_BLOCK, 24, q51ztloop, q51ztdone)
