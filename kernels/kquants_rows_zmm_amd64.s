//go:build !purego

#include "textflag.h"
#include "pairs_amd64.h"

// The avx512zmm set's four-row decode kernels of the K-quants it reads
// row by row (Q6_K, Q2_K: no packed layout): vecDotQ6_KQ8_Kr4AVX2 and
// vecDotQ2_KQ8_Kr4AVX2 (kquants_amd64.s: four rows a quarter of decode's
// range apart against one token, the single-row kernel's steps per row,
// same bits) with two rows per 512-bit register, the first row of a pair
// in the lower half. The activations come broadcast into both halves by
// a load, and VPDPWSSD does the scale pairs' multiply-add and the block
// sum's add in one.
//
// Q6_K: per 32 elements and pair of rows the AVX2 kernel's eight or nine
// vector operations for one row become seven or eight for two
// (VPTERNLOGD merges the low four bits with the high two). Registers:
// Z15 = 0x0F, Z14 = 0x03, Z13 = 0x30 bytes; Z20-Z23 the scale-pair
// shuffles (q6zShuf); the pairs' float accumulators Z0 (rows 0 and 1) and
// Z1 (rows 2 and 3).

// q6zShuf + 32k: VPSHUFB mask giving, in each 256-bit half, int16 element
// 2k of each 128-bit lane in the lower lane and 2k+1 in the upper
// (kquants_amd64.s's shufPairW16 in both halves).
DATA q6zShuf<>+0(SB)/8, $0x0100010001000100
DATA q6zShuf<>+8(SB)/8, $0x0100010001000100
DATA q6zShuf<>+16(SB)/8, $0x0302030203020302
DATA q6zShuf<>+24(SB)/8, $0x0302030203020302
DATA q6zShuf<>+32(SB)/8, $0x0504050405040504
DATA q6zShuf<>+40(SB)/8, $0x0504050405040504
DATA q6zShuf<>+48(SB)/8, $0x0706070607060706
DATA q6zShuf<>+56(SB)/8, $0x0706070607060706
DATA q6zShuf<>+64(SB)/8, $0x0908090809080908
DATA q6zShuf<>+72(SB)/8, $0x0908090809080908
DATA q6zShuf<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA q6zShuf<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA q6zShuf<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA q6zShuf<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA q6zShuf<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA q6zShuf<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL q6zShuf<>(SB), RODATA|NOPTR, $128

// ZSHUF_PAIRS loads the four scale-pair shuffles into Z20-Z23.
#define ZSHUF_PAIRS \
	VBROADCASTI64X4 q6zShuf<>+0(SB), Z20  \
	VBROADCASTI64X4 q6zShuf<>+32(SB), Z21 \
	VBROADCASTI64X4 q6zShuf<>+64(SB), Z22 \
	VBROADCASTI64X4 q6zShuf<>+96(SB), Z23

// ZJOIN sets Zd to the 32 bytes at off(A) in the lower half and at
// off(B) in the upper (Q6_K and Q2_K).
#define ZJOIN(off, A, B, Yd, Zd) \
	VMOVDQU      off(A), Yd \
	VINSERTI64X4 $1, off(B), Zd, Zd

// Q6Z_CHUNK adds 32 elements of both rows to the int32 sums Z9: their
// unsigned 6-bit quants in Zq (destroyed) times the activations at mem
// (broadcast into both halves, Z4), the int16 pairs times the two scales
// of the 32 (Zsc shuffled by Zm into Z16).
#define Q6Z_CHUNK(mem, Zsc, Zm, Zq) \
	VBROADCASTI64X4 mem, Z4      \
	VPMADDUBSW      Z4, Zq, Zq   \
	VPSHUFB         Zm, Zsc, Z16 \
	VPDPWSSD        Z16, Zq, Z9

// Q6Z_HALF is Q6_K_HALF on the pair: half h (128 elements) of the blocks
// at A and B, ql at 64h, qh at 128+32h, the activations at 4+128h(DI),
// the half's eight scales (int16, in both 128-bit lanes of each row's
// half) in Zsc. The quants of each 32 are the low or high nibbles of ql
// ORed with two bits of qh moved to bits 4 and 5 (VPTERNLOGD $0xF8: A |
// (B & C)).
#define Q6Z_HALF(A, B, h, Zsc) \
	ZJOIN(64*h, A, B, Y10, Z10)             \
	ZJOIN(64*h+32, A, B, Y11, Z11)          \
	ZJOIN(128+32*h, A, B, Y12, Z12)         \
	VPANDD     Z14, Z12, Z6                 \
	VPSLLW     $4, Z6, Z6                   \
	VPTERNLOGD $0xF8, Z15, Z10, Z6          \
	Q6Z_CHUNK(4+128*h(DI), Zsc, Z20, Z6)    \
	VPSLLW     $2, Z12, Z6                  \
	VPANDD     Z13, Z6, Z6                  \
	VPTERNLOGD $0xF8, Z15, Z11, Z6          \
	Q6Z_CHUNK(4+128*h+32(DI), Zsc, Z21, Z6) \
	VPSRLW     $4, Z10, Z5                  \
	VPANDD     Z15, Z5, Z5                  \
	VPTERNLOGD $0xF8, Z13, Z12, Z5          \
	Q6Z_CHUNK(4+128*h+64(DI), Zsc, Z22, Z5) \
	VPSRLW     $4, Z11, Z5                  \
	VPANDD     Z15, Z5, Z5                  \
	VPSRLW     $2, Z12, Z6                  \
	VPTERNLOGD $0xF8, Z13, Z6, Z5           \
	Q6Z_CHUNK(4+128*h+96(DI), Zsc, Z23, Z5)

// Q6Z_BLOCK is Q6_K_BLOCK on the pair of blocks at A and B against the
// Q8_K block at DI, added to acc: d = y.d * x.d (Z7), the -32 offset of
// every quant as 32 * scales . bsums (Z3), the unsigned quants' integer
// sums (Z9) minus it, times d.
#define Q6Z_BLOCK(A, B, acc) \
	VPBROADCASTW    208(A), X7         \
	VPBROADCASTW    208(B), X6         \
	VINSERTI128     $1, X6, Y7, Y7     \
	VCVTPH2PS       Y7, Z7             \
	VMULPS.BCST     0(DI), Z7, Z7      \
	VMOVDQU         192(A), X2         \
	VINSERTI128     $1, 192(B), Y2, Y2 \
	VPMOVSXBW       Y2, Z2             \
	VBROADCASTI64X4 260(DI), Z3        \
	VPMADDWD        Z3, Z2, Z3         \
	VPSLLD          $5, Z3, Z3         \
	VPERMQ          $0xee, Z2, Z8      \
	VPERMQ          $0x44, Z2, Z2      \
	VPXORD          Z9, Z9, Z9         \
	Q6Z_HALF(A, B, 0, Z2)              \
	Q6Z_HALF(A, B, 1, Z8)              \
	VPSUBD          Z3, Z9, Z9         \
	VCVTDQ2PS       Z9, Z9             \
	VFMADD231PS     Z9, Z7, acc

// Q6Z_PF asks for the next cache lines of the four rows (as Q6_K_R4PF).
#define Q6Z_PF(A) \
	PREFETCHT0 1024(A) \
	PREFETCHT0 1088(A) \
	PREFETCHT0 1152(A)

// Q2_K: per 32 elements and pair of rows, five vector operations (four
// for the first group of a 128) where the AVX2 kernel takes six for one
// row; the scales and mins of a pair are widened in one register, the
// mins' lanes against the block sums in one VPMADDWD. Registers: Z15 =
// 0x03 bytes, Y14 = 0x0F bytes; Z20-Z23 the scale-pair shuffles; Z16/Z17
// (rows 0 and 1) and Z18/Z19 (rows 2 and 3) the scales of the two halves
// of the block as int16 (Q2Z_SCALES), Z28/Z29 the mins' int32 lanes,
// Z10/Z11 the scaled quants' int32 lanes; Z0 and Z1 the float
// accumulators as for Q6_K.

// Q2Z_CONSTS: Z15 = 0x03 bytes, Y14 = 0x0F bytes, Z20-Z23 the shuffles.
#define Q2Z_CONSTS \
	MOVL         $0x03030303, AX \
	VPBROADCASTD AX, Z15         \
	MOVL         $0x0F0F0F0F, AX \
	VMOVD        AX, X14         \
	VPBROADCASTD X14, Y14        \
	ZSHUF_PAIRS

// Q2Z_SCALES widens the scales (low nibbles) and mins (high) of the
// blocks at A and B, A's in the lower half: Zlo = scales 0-7 in both
// 128-bit lanes of each half, Zhi = scales 8-15, Zmn = the mins' int32
// lanes against the block sums Z5 (lane l: m(2l)*bsum(2l) +
// m(2l+1)*bsum(2l+1), ggml's pairs). Y2, Y3 scratch.
#define Q2Z_SCALES(A, B, Zlo, Zhi, Zmn) \
	VMOVDQU     0(A), X2         \
	VINSERTI128 $1, 0(B), Y2, Y2 \
	VPSRLW      $4, Y2, Y3       \
	VPAND       Y14, Y2, Y2      \
	VPAND       Y14, Y3, Y3      \
	VPMOVZXBW   Y2, Z2           \
	VPMOVZXBW   Y3, Z3           \
	VPMADDWD    Z5, Z3, Zmn      \
	VPERMQ      $0x44, Z2, Zlo   \
	VPERMQ      $0xee, Z2, Zhi

// Q2Z_PAIR adds one group of 32 elements of a pair to its sums: the
// two-bit quants of Zq (already shifted) masked into Zt, times the
// activations Z4, the int16 pairs times the group's two scales (Zsc
// shuffled by Zm).
#define Q2Z_PAIR(Zq, Zt, Zsc, Zm, Zs, sum) \
	VPANDD     Z15, Zq, Zt \
	VPMADDUBSW Z4, Zt, Zt  \
	VPSHUFB    Zm, Zsc, Zs \
	VPDPWSSD   Zs, Zt, sum

// Q2Z_GROUP is group s of a 128-element half for both pairs: bits
// 2s..2s+1 of the quant bytes Z6 (rows 0, 1) and Z7 (rows 2, 3) against
// the activations at ao(DI).
#define Q2Z_GROUP(sh, ao, Zm, Zsc0, Zsc1) \
	VBROADCASTI64X4 ao(DI), Z4          \
	VPSRLW          $sh, Z6, Z8         \
	VPSRLW          $sh, Z7, Z12        \
	Q2Z_PAIR(Z8, Z8, Zsc0, Zm, Z9, Z10) \
	Q2Z_PAIR(Z12, Z12, Zsc1, Zm, Z13, Z11)

// Q2Z_GROUP0 is Q2Z_GROUP for s = 0 (no shift).
#define Q2Z_GROUP0(ao, Zm, Zsc0, Zsc1) \
	VBROADCASTI64X4 ao(DI), Z4          \
	Q2Z_PAIR(Z6, Z8, Zsc0, Zm, Z9, Z10) \
	Q2Z_PAIR(Z7, Z12, Zsc1, Zm, Z13, Z11)

// Q2Z_HALF is half c (128 elements: quant bytes 16+32c, activations
// 4+128c) of the four rows' blocks.
#define Q2Z_HALF(c, Zsc0, Zsc1) \
	ZJOIN(16+32*c, R11, R8, Y6, Z6)           \
	ZJOIN(16+32*c, R9, R10, Y7, Z7)           \
	Q2Z_GROUP0(4+128*c, Z20, Zsc0, Zsc1)      \
	Q2Z_GROUP(2, 4+128*c+32, Z21, Zsc0, Zsc1) \
	Q2Z_GROUP(4, 4+128*c+64, Z22, Zsc0, Zsc1) \
	Q2Z_GROUP(6, 4+128*c+96, Z23, Zsc0, Zsc1)

// Q2Z_FINISH is Q2_K_BLOCK's float steps for the pair at A and B: d =
// y.d * x.d and m = y.d * x.dmin per row across its half (the (d, dmin)
// words of both rows widened, then their even and odd lanes), acc =
// fma(-m, float(mins), acc), then fma(d, float(sums), acc).
#define Q2Z_FINISH(A, B, Zmn, sum, acc) \
	VPBROADCASTD 80(A), X2      \
	VPBROADCASTD 80(B), X3      \
	VINSERTI128  $1, X3, Y2, Y2 \
	VCVTPH2PS    Y2, Z2         \
	VMULPS.BCST  0(DI), Z2, Z2  \
	VMOVSLDUP    Z2, Z3         \
	VMOVSHDUP    Z2, Z2         \
	VCVTDQ2PS    Zmn, Zmn       \
	VFNMADD231PS Zmn, Z2, acc   \
	VCVTDQ2PS    sum, sum       \
	VFMADD231PS  sum, Z3, acc

// Q2_K prefill: two rows (one pair, as above) by four tokens, each token
// in vecDotQ2_KQ8_KAVX2's steps (same bits as vecDot and the AVX2
// one-row four-token kernel). Per group of 32 elements the pair's quants
// and scale pairs are made once for the four tokens: eleven vector
// operations for two rows and four tokens where the four-token kernel
// takes fifteen for one row. Registers: Z15 = 0x03 bytes, Y14 = 0x0F
// bytes, Z20-Z23 the scale-pair shuffles, Z16/Z17 the pair's scales
// (Q2Z_SCALES's Zlo/Zhi), Z24 its mins as int16; tokens at DI, R9, R10,
// R12, their int32 sums Z10-Z13 and float accumulators Z0, Z1, Z25, Z26.

// Q2ZT_TOK adds token P's products with the group's quants Z8 and
// shuffled scales Z9 to sum.
#define Q2ZT_TOK(P, ao, sum) \
	VBROADCASTI64X4 ao(P), Z4  \
	VPMADDUBSW      Z4, Z8, Z5 \
	VPDPWSSD        Z9, Z5, sum

// Q2ZT_GROUP is one group of 32 elements: the quant bytes Zsrc (shifted
// to the group's two bits) masked into Z8, the scales Zsc shuffled by Zm
// into Z9, then the four tokens.
#define Q2ZT_GROUP(Zsrc, ao, Zm, Zsc) \
	VPANDD   Z15, Zsrc, Z8 \
	VPSHUFB  Zm, Zsc, Z9   \
	Q2ZT_TOK(DI, ao, Z10)  \
	Q2ZT_TOK(R9, ao, Z11)  \
	Q2ZT_TOK(R10, ao, Z12) \
	Q2ZT_TOK(R12, ao, Z13)

#define Q2ZT_HALF(c, Zsc) \
	ZJOIN(16+32*c, R11, R8, Y6, Z6)      \
	Q2ZT_GROUP(Z6, 4+128*c, Z20, Zsc)    \
	VPSRLW $2, Z6, Z7                    \
	Q2ZT_GROUP(Z7, 4+128*c+32, Z21, Zsc) \
	VPSRLW $4, Z6, Z7                    \
	Q2ZT_GROUP(Z7, 4+128*c+64, Z22, Zsc) \
	VPSRLW $6, Z6, Z7                    \
	Q2ZT_GROUP(Z7, 4+128*c+96, Z23, Zsc)

// Q2ZT_FINISH is Q2Z_FINISH for token P: Z2 = the pair's x.d, Z3 its
// x.dmin (both across each row's half), times the token's y.d.
#define Q2ZT_FINISH(P, sum, acc) \
	VMULPS.BCST     0(P), Z3, Z7 \
	VBROADCASTI64X4 260(P), Z4   \
	VPMADDWD        Z4, Z24, Z5  \
	VCVTDQ2PS       Z5, Z5       \
	VFNMADD231PS    Z5, Z7, acc  \
	VMULPS.BCST     0(P), Z2, Z7 \
	VCVTDQ2PS       sum, sum     \
	VFMADD231PS     sum, Z7, acc

// Q2ZT_STORE stores the sums of acc's halves (rows 0 and 1) to (DX) and
// 4(DX), then steps DX to the next token's outputs.
#define Q2ZT_STORE(acc, Y, X) \
	STORE_PAIR(acc, Y, X, (DX), 4(DX), Y5, X5, X4) \
	ADDQ BX, DX

// func vecDotQ6_KQ8_Kr4ZMMVNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·vecDotQ6_KQ8_Kr4ZMMVNNI(SB), NOSPLIT, $0-48
	R4Z_ARGS
	MOVL            $0x0F0F0F0F, AX
	VPBROADCASTD    AX, Z15
	MOVL            $0x03030303, AX
	VPBROADCASTD    AX, Z14
	MOVL            $0x30303030, AX
	VPBROADCASTD    AX, Z13
	ZSHUF_PAIRS
	VPXORD          Z0, Z0, Z0
	VPXORD          Z1, Z1, Z1
	TESTQ CX, CX
	JZ    q6zdone

q6zloop:
	Q6Z_PF(R11)
	Q6Z_PF(R8)
	Q6Z_PF(R9)
	Q6Z_PF(R10)
	Q6Z_BLOCK(R11, R8, Z0)
	Q6Z_BLOCK(R9, R10, Z1)
	ADDQ $210, R11
	ADDQ $210, R8
	ADDQ $210, R9
	ADDQ $210, R10
	ADDQ $292, DI
	DECQ CX
	JNZ  q6zloop

q6zdone:
	R4Z_OUT
	R4Z_STORE
	VZEROUPPER
	RET

// func vecDotQ2_KQ8_Kr4ZMMVNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·vecDotQ2_KQ8_Kr4ZMMVNNI(SB), NOSPLIT, $0-48
	R4Z_ARGS
	Q2Z_CONSTS
	VPXORD          Z0, Z0, Z0
	VPXORD          Z1, Z1, Z1
	TESTQ CX, CX
	JZ    q2zdone

q2zloop:
	PREFETCHT0 1024(R11)
	PREFETCHT0 1088(R11)
	PREFETCHT0 1024(R8)
	PREFETCHT0 1088(R8)
	PREFETCHT0 1024(R9)
	PREFETCHT0 1088(R9)
	PREFETCHT0 1024(R10)
	PREFETCHT0 1088(R10)
	VBROADCASTI64X4 260(DI), Z5
	Q2Z_SCALES(R11, R8, Z16, Z17, Z28)
	Q2Z_SCALES(R9, R10, Z18, Z19, Z29)
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	Q2Z_HALF(0, Z16, Z18)
	Q2Z_HALF(1, Z17, Z19)
	Q2Z_FINISH(R11, R8, Z28, Z10, Z0)
	Q2Z_FINISH(R9, R10, Z29, Z11, Z1)
	ADDQ $84, R11
	ADDQ $84, R8
	ADDQ $84, R9
	ADDQ $84, R10
	ADDQ $292, DI
	DECQ CX
	JNZ  q2zloop

q2zdone:
	R4Z_OUT
	R4Z_STORE
	VZEROUPPER
	RET

// func q2_KTile2x4ZMMVNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q2_KTile2x4ZMMVNNI(SB), NOSPLIT, $0-64
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), R11
	MOVQ wstride+16(FP), BX
	LEAQ (R11)(BX*1), R8
	MOVQ a+24(FP), DI
	MOVQ astride+32(FP), BX
	LEAQ (DI)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	LEAQ (R10)(BX*1), R12
	Q2Z_CONSTS
	VPXORD          Z0, Z0, Z0
	VPXORD          Z1, Z1, Z1
	VPXORD          Z25, Z25, Z25
	VPXORD          Z26, Z26, Z26
	TESTQ CX, CX
	JZ    q2ztdone

q2ztloop:
	VMOVDQU     0(R11), X2
	VINSERTI128 $1, 0(R8), Y2, Y2
	VPSRLW      $4, Y2, Y3
	VPAND       Y14, Y2, Y2
	VPAND       Y14, Y3, Y3
	VPMOVZXBW   Y2, Z2
	VPMOVZXBW   Y3, Z24
	VPERMQ      $0x44, Z2, Z16
	VPERMQ      $0xee, Z2, Z17
	VPXORD      Z10, Z10, Z10
	VPXORD      Z11, Z11, Z11
	VPXORD      Z12, Z12, Z12
	VPXORD      Z13, Z13, Z13
	Q2ZT_HALF(0, Z16)
	Q2ZT_HALF(1, Z17)
	VPBROADCASTD 80(R11), X2
	VPBROADCASTD 80(R8), X3
	VINSERTI128  $1, X3, Y2, Y2
	VCVTPH2PS    Y2, Z2
	VMOVSHDUP    Z2, Z3
	VMOVSLDUP    Z2, Z2
	Q2ZT_FINISH(DI, Z10, Z0)
	Q2ZT_FINISH(R9, Z11, Z1)
	Q2ZT_FINISH(R10, Z12, Z25)
	Q2ZT_FINISH(R12, Z13, Z26)
	ADDQ $84, R11
	ADDQ $84, R8
	ADDQ $292, DI
	ADDQ $292, R9
	ADDQ $292, R10
	ADDQ $292, R12
	DECQ CX
	JNZ  q2ztloop

q2ztdone:
	MOVQ out+48(FP), DX
	MOVQ ostride+56(FP), BX
	SHLQ $2, BX
	Q2ZT_STORE(Z0, Y0, X0)
	Q2ZT_STORE(Z1, Y1, X1)
	VMOVAPS Z25, Z2
	VMOVAPS Z26, Z3
	Q2ZT_STORE(Z2, Y2, X2)
	Q2ZT_STORE(Z3, Y3, X3)
	VZEROUPPER
	RET
