//go:build !purego

#include "textflag.h"

// KPF is how far ahead (bytes) the single-row kernels prefetch the weight
// stream: decode reads weights from DRAM, and prefetching a few KiB ahead
// cut the CPU time per matrix by 20-25% on the reference machine.
#define KPF 4096

// AVX2+FMA+F16C row dot products of the K-quants with Q8_K activations, nb
// whole 256-element blocks each. See vecdot_amd64.go for the contract.
//
// The float steps follow the generic kernels exactly, which follow
// llama.cpp on AVX2: Q2_K, Q3_K, Q5_K and Q6_K keep ggml_vec_dot's eight
// int32 lanes, scale them and accumulate them with one FMA per block
// (vecdot_lanes.go); Q4_K follows the repacked kernels (vecdot_repack.go):
// exact integers per block (one token) or per pair of sub-blocks (four
// tokens), fused into separate quant and min accumulators. The integer
// parts are exact in any order.

// shufW16 + 32k: VPSHUFB mask broadcasting int16 element k of each lane.
DATA shufW16<>+0(SB)/8, $0x0100010001000100
DATA shufW16<>+8(SB)/8, $0x0100010001000100
DATA shufW16<>+16(SB)/8, $0x0100010001000100
DATA shufW16<>+24(SB)/8, $0x0100010001000100
DATA shufW16<>+32(SB)/8, $0x0302030203020302
DATA shufW16<>+40(SB)/8, $0x0302030203020302
DATA shufW16<>+48(SB)/8, $0x0302030203020302
DATA shufW16<>+56(SB)/8, $0x0302030203020302
DATA shufW16<>+64(SB)/8, $0x0504050405040504
DATA shufW16<>+72(SB)/8, $0x0504050405040504
DATA shufW16<>+80(SB)/8, $0x0504050405040504
DATA shufW16<>+88(SB)/8, $0x0504050405040504
DATA shufW16<>+96(SB)/8, $0x0706070607060706
DATA shufW16<>+104(SB)/8, $0x0706070607060706
DATA shufW16<>+112(SB)/8, $0x0706070607060706
DATA shufW16<>+120(SB)/8, $0x0706070607060706
DATA shufW16<>+128(SB)/8, $0x0908090809080908
DATA shufW16<>+136(SB)/8, $0x0908090809080908
DATA shufW16<>+144(SB)/8, $0x0908090809080908
DATA shufW16<>+152(SB)/8, $0x0908090809080908
DATA shufW16<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufW16<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufW16<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufW16<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufW16<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufW16<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufW16<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufW16<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufW16<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA shufW16<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA shufW16<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA shufW16<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL shufW16<>(SB), RODATA|NOPTR, $256
DATA shufPair<>+0(SB)/8, $0x0000000000000000
DATA shufPair<>+8(SB)/8, $0x0101010101010101
DATA shufPair<>+16(SB)/8, $0x0202020202020202
DATA shufPair<>+24(SB)/8, $0x0303030303030303
DATA shufPair<>+32(SB)/8, $0x0404040404040404
DATA shufPair<>+40(SB)/8, $0x0505050505050505
DATA shufPair<>+48(SB)/8, $0x0606060606060606
DATA shufPair<>+56(SB)/8, $0x0707070707070707
DATA shufPair<>+64(SB)/8, $0x0808080808080808
DATA shufPair<>+72(SB)/8, $0x0909090909090909
DATA shufPair<>+80(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA shufPair<>+88(SB)/8, $0x0b0b0b0b0b0b0b0b
DATA shufPair<>+96(SB)/8, $0x0c0c0c0c0c0c0c0c
DATA shufPair<>+104(SB)/8, $0x0d0d0d0d0d0d0d0d
DATA shufPair<>+112(SB)/8, $0x0e0e0e0e0e0e0e0e
DATA shufPair<>+120(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL shufPair<>(SB), RODATA|NOPTR, $128
// shufPairW16 + 32k: VPSHUFB mask giving int16 element 2k of each lane in
// the low lane and 2k+1 in the high lane (scales of the two halves of 32
// elements).
DATA shufPairW16<>+0(SB)/8, $0x0100010001000100
DATA shufPairW16<>+8(SB)/8, $0x0100010001000100
DATA shufPairW16<>+16(SB)/8, $0x0302030203020302
DATA shufPairW16<>+24(SB)/8, $0x0302030203020302
DATA shufPairW16<>+32(SB)/8, $0x0504050405040504
DATA shufPairW16<>+40(SB)/8, $0x0504050405040504
DATA shufPairW16<>+48(SB)/8, $0x0706070607060706
DATA shufPairW16<>+56(SB)/8, $0x0706070607060706
DATA shufPairW16<>+64(SB)/8, $0x0908090809080908
DATA shufPairW16<>+72(SB)/8, $0x0908090809080908
DATA shufPairW16<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufPairW16<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufPairW16<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufPairW16<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufPairW16<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA shufPairW16<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL shufPairW16<>(SB), RODATA|NOPTR, $128

// q3kScaleBits: the per-dword shifts that unpack Q3_K's twelve scale
// bytes four at a time ([0 0 4 4]: low nibbles of words 0, 1, then their
// high nibbles; [0 2 4 6]: the 2-bit high parts from word 2), then the
// low-nibble mask.
DATA q3kScaleBits<>+0(SB)/8, $0x0000000000000000
DATA q3kScaleBits<>+8(SB)/8, $0x0000000400000004
DATA q3kScaleBits<>+16(SB)/8, $0x0000000200000000
DATA q3kScaleBits<>+24(SB)/8, $0x0000000600000004
DATA q3kScaleBits<>+32(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q3kScaleBits<>+40(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL q3kScaleBits<>(SB), RODATA|NOPTR, $48

// shufPair + 16m: VPSHUFB mask giving bytes [2m x8, 2m+1 x8].

#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T \
	VADDPS       T, X, X  \
	VMOVHLPS     X, X, T  \
	VADDPS       T, X, X  \
	VMOVSHDUP    X, T     \
	VADDSS       T, X, X

#define BYTE_CONST(v, X, Y) \
	MOVL         v, AX \
	VMOVD        AX, X \
	VPBROADCASTD X, Y

// One 64-element chunk j of a Q4_K block: 32 bytes of nibbles at
// 16+32j(SI), activations at 4+64j(DI); scales (int16, both lanes) in Y2.
#define Q4_K_CHUNK(j) \
	VMOVDQU    16+32*j(SI), Y10         \
	VPSRLW     $4, Y10, Y11             \
	VPAND      Y15, Y10, Y10            \
	VPAND      Y15, Y11, Y11            \
	VPMADDUBSW 4+64*j(DI), Y10, Y10     \
	VPMADDUBSW 4+64*j+32(DI), Y11, Y11  \
	VPSHUFB    shufW16<>+64*j(SB), Y2, Y12    \
	VPMADDWD   Y12, Y10, Y10            \
	VPSHUFB    shufW16<>+64*j+32(SB), Y2, Y12 \
	VPMADDWD   Y12, Y11, Y11            \
	VPADDD     Y10, Y9, Y9              \
	VPADDD     Y11, Y9, Y9

// Y9 += scales (s, s+1) x maddubs(Y5, 32 activation bytes at mem); the two
// scales of the 32 elements, as int16, come from Ysc (eight scale words in
// both lanes) through the shufPairW16 mask at byte offset k.
#define Q6_K_CHUNK(mem, Ysc, k) \
	VPMADDUBSW mem, Y5, Y5                     \
	VPSHUFB    shufPairW16<>+k(SB), Ysc, Y6    \
	VPMADDWD   Y6, Y5, Y5                      \
	VPADDD     Y5, Y9, Y9

// Half h (128 elements) of a Q6_K block: ql at 64h(SI), qh at 128+32h(SI),
// activations at 4+128h(DI); its eight scales as int16 in both lanes of
// Ysc. Quants are unsigned 0..63 here; the -32 offset is applied once per
// block through the bsums.
#define Q6_K_HALF(h, Ysc) \
	VMOVDQU 64*h(SI), Y10          \
	VMOVDQU 64*h+32(SI), Y11       \
	VMOVDQU 128+32*h(SI), Y12      \
	VPAND   Y15, Y10, Y5           \
	VPAND   Y14, Y12, Y6           \
	VPSLLW  $4, Y6, Y6             \
	VPOR    Y6, Y5, Y5             \
	Q6_K_CHUNK(4+128*h(DI), Ysc, 0) \
	VPAND   Y15, Y11, Y5           \
	VPSLLW  $2, Y12, Y6            \
	VPAND   Y13, Y6, Y6            \
	VPOR    Y6, Y5, Y5             \
	Q6_K_CHUNK(4+128*h+32(DI), Ysc, 32) \
	VPSRLW  $4, Y10, Y5            \
	VPAND   Y15, Y5, Y5            \
	VPAND   Y13, Y12, Y6           \
	VPOR    Y6, Y5, Y5             \
	Q6_K_CHUNK(4+128*h+64(DI), Ysc, 64) \
	VPSRLW  $4, Y11, Y5            \
	VPAND   Y15, Y5, Y5            \
	VPSRLW  $2, Y12, Y6            \
	VPAND   Y13, Y6, Y6            \
	VPOR    Y6, Y5, Y5             \
	Q6_K_CHUNK(4+128*h+96(DI), Ysc, 96)

// One Q6_K block at SI against the Q8_K block at DI, added to Y0: d =
// y.d * x.d (Y7), the -32 offset of every quant as 32 * scales . bsums
// (Y3), the unsigned quants' integer sum (Y9) minus it, times d. The
// sixteen scales widen once to int16 (Y2), which serves the bsums and,
// split into scales 0-7 (Y2) and 8-15 (Y8) in both lanes, one shuffle per
// 32 elements (a byte shuffle and a widening per 32 before).
#define Q6_K_BLOCK \
	VBROADCASTSS 0(DI), Y6        \
	VPBROADCASTW 208(SI), X7      \
	VCVTPH2PS    X7, Y7           \
	VMULPS       Y6, Y7, Y7       \
	VPMOVSXBW    192(SI), Y2      \
	VPMADDWD     260(DI), Y2, Y3  \
	VPSLLD       $5, Y3, Y3       \
	VPERMQ       $0xee, Y2, Y8    \
	VPERMQ       $0x44, Y2, Y2    \
	VPXOR        Y9, Y9, Y9       \
	Q6_K_HALF(0, Y2)              \
	Q6_K_HALF(1, Y8)              \
	VPSUBD       Y3, Y9, Y9       \
	VCVTDQ2PS    Y9, Y9           \
	VFMADD231PS  Y9, Y7, Y0

#define X4_PROLOGUE \
	MOVQ nb+0(FP), CX         \
	MOVQ w+8(FP), SI          \
	MOVQ a+16(FP), DI         \
	MOVQ stride+24(FP), BX    \
	LEAQ (DI)(BX*1), R8       \
	LEAQ (R8)(BX*1), R9       \
	LEAQ (R9)(BX*1), R10      \
	VXORPS Y0, Y0, Y0         \
	VXORPS Y1, Y1, Y1         \
	VXORPS Y8, Y8, Y8         \
	VXORPS Y9, Y9, Y9

#define X4_EPILOGUE \
	MOVQ out+32(FP), DX     \
	MOVQ ostride+40(FP), R11 \
	SHLQ $2, R11            \
	HSUM(Y0, X0, X2)        \
	HSUM(Y1, X1, X2)        \
	HSUM(Y8, X8, X2)        \
	HSUM(Y9, X9, X2)        \
	VMOVSS X0, (DX)         \
	ADDQ   R11, DX          \
	VMOVSS X1, (DX)         \
	ADDQ   R11, DX          \
	VMOVSS X8, (DX)         \
	ADDQ   R11, DX          \
	VMOVSS X9, (DX)         \
	VZEROUPPER              \
	RET

#define ADVANCE4(ab) \
	ADDQ $ab, DI  \
	ADDQ $ab, R8  \
	ADDQ $ab, R9  \
	ADDQ $ab, R10

// Q4_K, 4 tokens. Y2 scales, X3 mins, Y4-Y7 per-token int32 sums, Y10/Y11
// low/high nibbles, Y12/Y13 broadcast scales, Y14 temp.
#define Q4_K_TOK(P, ao, sumi) \
	VPMADDUBSW ao(P), Y10, Y14     \
	VPMADDWD   Y12, Y14, Y14       \
	VPADDD     Y14, sumi, sumi     \
	VPMADDUBSW ao+32(P), Y11, Y14  \
	VPMADDWD   Y13, Y14, Y14       \
	VPADDD     Y14, sumi, sumi

#define Q4_K_CHUNK4(qo, ao, so) \
	VMOVDQU qo(SI), Y10                     \
	VPSRLW  $4, Y10, Y11                    \
	VPAND   Y15, Y10, Y10                   \
	VPAND   Y15, Y11, Y11                   \
	VPSHUFB shufW16<>+so(SB), Y2, Y12       \
	VPSHUFB shufW16<>+so+32(SB), Y2, Y13    \
	Q4_K_TOK(DI, ao, Y4)                    \
	Q4_K_TOK(R8, ao, Y5)                    \
	Q4_K_TOK(R9, ao, Y6)                    \
	Q4_K_TOK(R10, ao, Y7)


// One pair of sub-blocks (64-element chunk) for four tokens in the gemm
// order: the four tokens' exact sums s (int32 lanes Y4-Y7 reduced to X4,
// lanes = tokens), then X0 = fma(float(s), X8, X0).
#define Q4_K_PAIR4(qo, ao, so) \
	VPXOR        Y4, Y4, Y4      \
	VPXOR        Y5, Y5, Y5      \
	VPXOR        Y6, Y6, Y6      \
	VPXOR        Y7, Y7, Y7      \
	Q4_K_CHUNK4(qo, ao, so)      \
	VPHADDD      Y5, Y4, Y4      \
	VPHADDD      Y7, Y6, Y6      \
	VPHADDD      Y6, Y4, Y4      \
	VEXTRACTI128 $1, Y4, X5      \
	VPADDD       X5, X4, X4      \
	VCVTDQ2PS    X4, X4          \
	VFMADD231PS  X4, X8, X0

// X4..X7 (token t: its four pairs' min terms) become pair k: the four
// tokens' min terms of pair k (X10-X13 scratch).
#define TRANSPOSE4_I32 \
	VPUNPCKLDQ  X5, X4, X10  \
	VPUNPCKHDQ  X5, X4, X11  \
	VPUNPCKLDQ  X7, X6, X12  \
	VPUNPCKHDQ  X7, X6, X13  \
	VPUNPCKLQDQ X12, X10, X4 \
	VPUNPCKHQDQ X12, X10, X5 \
	VPUNPCKLQDQ X13, X11, X6 \
	VPUNPCKHQDQ X13, X11, X7

// Q6_K, 4 tokens. X4 raw scales, Y5 unpacked quants, Y6 scales, Y7 temp,
// Y10/Y11 ql rows, Y13 = 0x30 bytes, Y2/Y3/Y12/Y14 per-token int32 sums;
// qh is re-read from memory per chunk.
#define Q6_K_TOK(P, ao, sumi) \
	VPMADDUBSW ao(P), Y5, Y7 \
	VPMADDWD   Y6, Y7, Y7    \
	VPADDD     Y7, sumi, sumi

#define Q6_K_SCALES(mo) \
	VPSHUFB   shufPair<>+mo(SB), X4, X6 \
	VPMOVSXBW X6, Y6

#define Q6_K_TOKS4(ao) \
	Q6_K_TOK(DI, ao, Y2)  \
	Q6_K_TOK(R8, ao, Y3)  \
	Q6_K_TOK(R9, ao, Y12) \
	Q6_K_TOK(R10, ao, Y14)

#define Q6_K_TOKS2(ao) \
	Q6_K_TOK(DI, ao, Y2)  \
	Q6_K_TOK(R8, ao, Y3)

// Half of a Q6_K block: ql at qlo(SI), qh at qho(SI), activations at ao,
// scale masks at mo..mo+48, for the tokens of TOKS (Q6_K_TOKS4 or
// Q6_K_TOKS2).
#define Q6_K_HALFN(qlo, qho, ao, m0, m1, m2, m3, TOKS) \
	VMOVDQU qlo(SI), Y10          \
	VMOVDQU qlo+32(SI), Y11       \
	VPAND   Y15, Y10, Y5          \
	VMOVDQU qho(SI), Y7           \
	VPSLLW  $4, Y7, Y7            \
	VPAND   Y13, Y7, Y7           \
	VPOR    Y7, Y5, Y5            \
	Q6_K_SCALES(m0)               \
	TOKS(ao)                \
	VPAND   Y15, Y11, Y5          \
	VMOVDQU qho(SI), Y7           \
	VPSLLW  $2, Y7, Y7            \
	VPAND   Y13, Y7, Y7           \
	VPOR    Y7, Y5, Y5            \
	Q6_K_SCALES(m1)               \
	TOKS(ao+32)             \
	VPSRLW  $4, Y10, Y5           \
	VPAND   Y15, Y5, Y5           \
	VPAND   qho(SI), Y13, Y7      \
	VPOR    Y7, Y5, Y5            \
	Q6_K_SCALES(m2)               \
	TOKS(ao+64)             \
	VPSRLW  $4, Y11, Y5           \
	VPAND   Y15, Y5, Y5           \
	VMOVDQU qho(SI), Y7           \
	VPSRLW  $2, Y7, Y7            \
	VPAND   Y13, Y7, Y7           \
	VPOR    Y7, Y5, Y5            \
	Q6_K_SCALES(m3)               \
	TOKS(ao+96)

// acc += y.d * x.d * (sumi - 32 * scales.bsums); Y10 = x.d.
#define Q6_K_FINISH(P, sumi, acc) \
	VPMOVSXBW    192(SI), Y5      \
	VPMADDWD     260(P), Y5, Y5   \
	VPSLLD       $5, Y5, Y5       \
	VPSUBD       Y5, sumi, sumi   \
	VCVTDQ2PS    sumi, sumi       \
	VBROADCASTSS 0(P), Y6         \
	VMULPS       Y10, Y6, Y6      \
	VFMADD231PS  sumi, Y6, acc



// X = the sum of the eight int32 lanes of Y (T scratch).
#define HSUM_I32(Y, X, T) \
	VEXTRACTI128 $1, Y, T    \
	VPADDD       T, X, X     \
	VPSHUFD      $0x4e, X, T \
	VPADDD       T, X, X     \
	VPSHUFD      $0xb1, X, T \
	VPADDD       T, X, X

// Xdst = the four int32 products mins . (bsums[2j] + bsums[2j+1]) of the
// Q8_K block at P (X3 = mins; Y10, X11 scratch).
#define Q4_K_MINS(P, Xdst) \
	VMOVDQU      260(P), Y10   \
	VEXTRACTI128 $1, Y10, X11  \
	VPHADDW      X11, X10, X10 \
	VPMADDWD     X3, X10, Xdst

// Stores the four lanes of X0 to out, out+ostride, ... and returns.
#define STORE_LANES4 \
	MOVQ       out+32(FP), DX      \
	MOVQ       ostride+40(FP), R11 \
	SHLQ       $2, R11             \
	VMOVSS     X0, (DX)            \
	ADDQ       R11, DX             \
	VEXTRACTPS $1, X0, (DX)        \
	ADDQ       R11, DX             \
	VEXTRACTPS $2, X0, (DX)        \
	ADDQ       R11, DX             \
	VEXTRACTPS $3, X0, (DX)        \
	VZEROUPPER                     \
	RET

// One 64-element chunk j of a Q5_K block: nibbles at 48+32j(SI) plus bit
// b0 (low half) or b1 (high half) of the qh bytes in Y14 as bit 4; Y13 =
// 0x01 bytes. Otherwise as Q4_K_CHUNK.
#define Q5_K_CHUNK(j, b0, b1) \
	VMOVDQU    48+32*j(SI), Y10         \
	VPSRLW     $4, Y10, Y11             \
	VPAND      Y15, Y10, Y10            \
	VPAND      Y15, Y11, Y11            \
	VPSRLW     $b0, Y14, Y12            \
	VPAND      Y13, Y12, Y12            \
	VPSLLW     $4, Y12, Y12             \
	VPOR       Y12, Y10, Y10            \
	VPSRLW     $b1, Y14, Y12            \
	VPAND      Y13, Y12, Y12            \
	VPSLLW     $4, Y12, Y12             \
	VPOR       Y12, Y11, Y11            \
	VPMADDUBSW 4+64*j(DI), Y10, Y10     \
	VPMADDUBSW 4+64*j+32(DI), Y11, Y11  \
	VPSHUFB    shufW16<>+64*j(SB), Y2, Y12    \
	VPMADDWD   Y12, Y10, Y10            \
	VPSHUFB    shufW16<>+64*j+32(SB), Y2, Y12 \
	VPMADDWD   Y12, Y11, Y11            \
	VPADDD     Y10, Y9, Y9              \
	VPADDD     Y11, Y9, Y9

// Q5_K chunk for four tokens: qh bytes in Y8, 0x01 bytes in Y1.
#define Q5_K_CHUNK4(qo, ao, so, b0, b1) \
	VMOVDQU qo(SI), Y10                     \
	VPSRLW  $4, Y10, Y11                    \
	VPAND   Y15, Y10, Y10                   \
	VPAND   Y15, Y11, Y11                   \
	VPSRLW  $b0, Y8, Y12                    \
	VPAND   Y1, Y12, Y12                    \
	VPSLLW  $4, Y12, Y12                    \
	VPOR    Y12, Y10, Y10                   \
	VPSRLW  $b1, Y8, Y12                    \
	VPAND   Y1, Y12, Y12                    \
	VPSLLW  $4, Y12, Y12                    \
	VPOR    Y12, Y11, Y11                   \
	VPSHUFB shufW16<>+so(SB), Y2, Y12       \
	VPSHUFB shufW16<>+so+32(SB), Y2, Y13    \
	Q4_K_TOK(DI, ao, Y4)                    \
	Q4_K_TOK(R8, ao, Y5)                    \
	Q4_K_TOK(R9, ao, Y6)                    \
	Q4_K_TOK(R10, ao, Y7)

// The sixteen 6-bit scales of the Q3_K block at SI (unpackQ3KScales), minus
// 32, as int16: Y2 = scales 0-7 in both lanes, Y3 = scales 8-15. X13 =
// 0x20 bytes, X15 = 0x03 bytes. In vector registers, four scale words at a
// time: the scalar unpacking took 36 instructions per block, a quarter of
// the decode kernel's.
#define Q3_K_SCALES \
	VMOVQ        96(SI), X2              \
	VPSHUFD      $0x44, X2, X2           \
	VPSRLVD      q3kScaleBits<>(SB), X2, X2 \
	VPAND        q3kScaleBits<>+32(SB), X2, X2 \
	VPBROADCASTD 104(SI), X3             \
	VPSRLVD      q3kScaleBits<>+16(SB), X3, X3 \
	VPAND        X15, X3, X3             \
	VPSLLD       $4, X3, X3              \
	VPOR         X3, X2, X2              \
	VPSUBB       X13, X2, X2             \
	VPMOVSXBW    X2, Y2                  \
	VPERMQ       $0xee, Y2, Y3           \
	VPERMQ       $0x44, Y2, Y2

// Q3_K, one 32-element group: bits 2s..2s+1 of the qs bytes in Y5 minus 4
// where bit b of the hmask bytes (inverted in Y4) is clear; activations at
// ao(DI); scale pair k of Ysc. Y9 += int32 lanes (ggml's q3_K order). The
// hmask bit goes to bit 2 in one shift (HBIT) and an AND with the 0x04
// bytes in Y14, so the second product is maddubs(4*(1-h), a) directly.
#define Q3_K_GROUP(sh, HBIT, hsrc, ao, Ysc, k) \
	VPSRLW     $sh, Y5, Y6                  \
	VPAND      Y15, Y6, Y6                  \
	HBIT                                    \
	VPAND      Y14, hsrc, Y7                \
	VPMADDUBSW ao(DI), Y6, Y6               \
	VPMADDUBSW ao(DI), Y7, Y7               \
	VPSUBW     Y7, Y6, Y6                   \
	VPSHUFB    shufPairW16<>+k(SB), Ysc, Y7 \
	VPMADDWD   Y7, Y6, Y6                   \
	VPADDD     Y6, Y9, Y9

// Bit b of the inverted hmask (Y4) at bit 2 of each byte of Y7 (for b = 2
// the mask reads Y4 itself), before the mask: word shifts by at most 5
// keep in each byte the bit that the mask keeps.
#define Q3_K_HB0 VPSLLW $2, Y4, Y7
#define Q3_K_HB1 VPSLLW $1, Y4, Y7
#define Q3_K_HB2
#define Q3_K_HB3 VPSRLW $1, Y4, Y7
#define Q3_K_HB4 VPSRLW $2, Y4, Y7
#define Q3_K_HB5 VPSRLW $3, Y4, Y7
#define Q3_K_HB6 VPSRLW $4, Y4, Y7
#define Q3_K_HB7 VPSRLW $5, Y4, Y7

// Q2_K, one 32-element group: bits 2s..2s+1 of the qs bytes in Y5 times
// the activations at ao(DI), scale pair k of Ysc; Y9 += int32 lanes.
#define Q2_K_GROUP(sh, ao, Ysc, k) \
	VPSRLW     $sh, Y5, Y6                  \
	VPAND      Y15, Y6, Y6                  \
	VPMADDUBSW ao(DI), Y6, Y6               \
	VPSHUFB    shufPairW16<>+k(SB), Ysc, Y7 \
	VPMADDWD   Y7, Y6, Y6                   \
	VPADDD     Y6, Y10, Y10

// func vecDotQ4_KQ8_KAVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ4_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS X0, X0, X0   // acc: the quants
	VXORPS X1, X1, X1   // accm: the mins
	BYTE_CONST($0x0F0F0F0F, X15, Y15)
	TESTQ CX, CX
	JZ    q4kdone

q4kloop:
	PREFETCHT0 KPF(SI)
	PREFETCHT0 KPF+64(SI)
	PREFETCHT0 KPF+128(SI)
	// Unpack the 8 six-bit scales and mins (ggml's utmp shuffle):
	// AX = scales 0-3, R8 = scales 4-7, R11 = mins 0-3, R9 = mins 4-7.
	MOVL 4(SI), AX
	MOVL 8(SI), BX
	MOVL 12(SI), R8
	MOVL R8, R9
	SHRL $4, R9
	ANDL $0x0f0f0f0f, R9
	MOVL BX, R10
	SHRL $6, R10
	ANDL $0x03030303, R10
	SHLL $4, R10
	ORL  R10, R9
	MOVL BX, R11
	ANDL $0x3f3f3f3f, R11
	ANDL $0x0f0f0f0f, R8
	MOVL AX, R10
	SHRL $6, R10
	ANDL $0x03030303, R10
	SHLL $4, R10
	ORL  R10, R8
	ANDL $0x3f3f3f3f, AX
	VMOVD     AX, X2
	VPINSRD   $1, R8, X2, X2
	VPINSRD   $2, R11, X2, X2
	VPINSRD   $3, R9, X2, X2
	VPMOVZXBW X2, Y2          // int16: scales 0-7 | mins 0-7
	VEXTRACTI128 $1, Y2, X3   // mins
	VPERMQ    $0x44, Y2, Y2   // scales in both lanes

	// mins . (bsums[2j] + bsums[2j+1])
	VMOVDQU      260(DI), Y4
	VEXTRACTI128 $1, Y4, X5
	VPHADDW      X5, X4, X4
	VPMADDWD     X3, X4, X4

	VPXOR Y9, Y9, Y9
	Q4_K_CHUNK(0)
	Q4_K_CHUNK(1)
	Q4_K_CHUNK(2)
	Q4_K_CHUNK(3)

	// The gemv order (vecDotQ4_KQ8_KGeneric): acc = fma(isum, x.d*y.d,
	// acc), accm = fma(summ, x.dmin*y.d, accm).
	VPSHUFD      $0x4e, X4, X5
	VPADDD       X5, X4, X4
	VPSHUFD      $0xb1, X4, X5
	VPADDD       X5, X4, X4
	HSUM_I32(Y9, X9, X5)
	VCVTDQ2PS    X9, X9
	VCVTDQ2PS    X4, X4
	VMOVSS       0(DI), X6
	VPBROADCASTW 0(SI), X7
	VCVTPH2PS    X7, X7
	VPBROADCASTW 2(SI), X8
	VCVTPH2PS    X8, X8
	VMULSS       X6, X7, X7
	VMULSS       X6, X8, X8
	VFMADD231SS  X9, X7, X0
	VFMADD231SS  X4, X8, X1

	ADDQ $144, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q4kloop

q4kdone:
	VSUBSS X1, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func vecDotQ6_KQ8_KAVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ6_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	BYTE_CONST($0x0F0F0F0F, X15, Y15)
	BYTE_CONST($0x03030303, X14, Y14)
	BYTE_CONST($0x30303030, X13, Y13)
	TESTQ CX, CX
	JZ    q6kdone

q6kloop:
	PREFETCHT0 KPF(SI)
	PREFETCHT0 KPF+64(SI)
	PREFETCHT0 KPF+128(SI)
	Q6_K_BLOCK
	ADDQ $210, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q6kloop

q6kdone:
	HSUM(Y0, X0, X2)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// Q6_K_R4PF asks for the next cache lines of the four rows at A-D (the
// four-row kernels: four DRAM streams).
#define Q6_K_R4PF(A, B, C, D) \
	PREFETCHT0 1024(A) \
	PREFETCHT0 1088(A) \
	PREFETCHT0 1152(A) \
	PREFETCHT0 1024(B) \
	PREFETCHT0 1088(B) \
	PREFETCHT0 1152(B) \
	PREFETCHT0 1024(C) \
	PREFETCHT0 1088(C) \
	PREFETCHT0 1152(C) \
	PREFETCHT0 1024(D) \
	PREFETCHT0 1088(D) \
	PREFETCHT0 1152(D)

// Q6_K_R4ROW runs Q6_K_BLOCK on the row at base with its accumulator kept
// at slot(SP) between blocks.
#define Q6_K_R4ROW(base, slot) \
	MOVQ    base, SI      \
	VMOVUPS slot(SP), Y0  \
	Q6_K_BLOCK            \
	VMOVUPS Y0, slot(SP)

// Four rows wstride bytes apart against one activation row, each with
// vecDotQ6_KQ8_KAVX2's steps (same bits), outputs ostride floats apart.
// Decode passes rows a quarter of its range apart: four DRAM streams.
// The body needs every free register, so the four accumulators live in
// the frame between blocks.

// func vecDotQ6_KQ8_Kr4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·vecDotQ6_KQ8_Kr4AVX2(SB), NOSPLIT, $128-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), R11
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (R11)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	VXORPS  Y0, Y0, Y0
	VMOVUPS Y0, 0(SP)
	VMOVUPS Y0, 32(SP)
	VMOVUPS Y0, 64(SP)
	VMOVUPS Y0, 96(SP)
	BYTE_CONST($0x0F0F0F0F, X15, Y15)
	BYTE_CONST($0x03030303, X14, Y14)
	BYTE_CONST($0x30303030, X13, Y13)
	TESTQ CX, CX
	JZ    q6kr4done

q6kr4loop:
	Q6_K_R4PF(R11, R8, R9, R10)
	Q6_K_R4ROW(R11, 0)
	Q6_K_R4ROW(R8, 32)
	Q6_K_R4ROW(R9, 64)
	Q6_K_R4ROW(R10, 96)
	ADDQ $210, R11
	ADDQ $210, R8
	ADDQ $210, R9
	ADDQ $210, R10
	ADDQ $292, DI
	DECQ CX
	JNZ  q6kr4loop

q6kr4done:
	MOVQ    out+32(FP), DX
	MOVQ    ostride+40(FP), BX
	SHLQ    $2, BX
	VMOVUPS 0(SP), Y0
	HSUM(Y0, X0, X2)
	VMOVSS  X0, (DX)
	ADDQ    BX, DX
	VMOVUPS 32(SP), Y0
	HSUM(Y0, X0, X2)
	VMOVSS  X0, (DX)
	ADDQ    BX, DX
	VMOVUPS 64(SP), Y0
	HSUM(Y0, X0, X2)
	VMOVSS  X0, (DX)
	ADDQ    BX, DX
	VMOVUPS 96(SP), Y0
	HSUM(Y0, X0, X2)
	VMOVSS  X0, (DX)
	VZEROUPPER
	RET

// Multi-token kernels: one weight row against four activation rows at DI,
// R8, R9, R10 (stride BX); out[0..3] receive the four dot products.

// func vecDotQ4_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·vecDotQ4_KQ8_Kx4AVX2(SB), NOSPLIT, $0-48
	X4_PROLOGUE
	BYTE_CONST($0x0F0F0F0F, X15, Y15)
	TESTQ CX, CX
	JZ    q4kx4done

q4kx4loop:
	MOVL 4(SI), AX
	MOVL 8(SI), DX
	MOVL 12(SI), R11
	MOVL R11, R12
	SHRL $4, R12
	ANDL $0x0f0f0f0f, R12
	MOVL DX, R13
	SHRL $6, R13
	ANDL $0x03030303, R13
	SHLL $4, R13
	ORL  R13, R12
	ANDL $0x3f3f3f3f, DX
	ANDL $0x0f0f0f0f, R11
	MOVL AX, R13
	SHRL $6, R13
	ANDL $0x03030303, R13
	SHLL $4, R13
	ORL  R13, R11
	ANDL $0x3f3f3f3f, AX
	VMOVD     AX, X2
	VPINSRD   $1, R11, X2, X2
	VPINSRD   $2, DX, X2, X2
	VPINSRD   $3, R12, X2, X2
	VPMOVZXBW X2, Y2
	VEXTRACTI128 $1, Y2, X3
	VPERMQ    $0x44, Y2, Y2

	// The gemm order (vecDotQ4_KQ8_KQuadGeneric), lanes = tokens: X8 =
	// x.d*y.d, X9 = x.dmin*y.d; per pair of sub-blocks acc (X0) =
	// fma(s, X8, acc); then the four pairs' min terms into accm (X1).
	VMOVSS       0(DI), X10
	VINSERTPS    $0x10, 0(R8), X10, X10
	VINSERTPS    $0x20, 0(R9), X10, X10
	VINSERTPS    $0x30, 0(R10), X10, X10
	VPBROADCASTW 0(SI), X8
	VCVTPH2PS    X8, X8
	VMULPS       X10, X8, X8
	VPBROADCASTW 2(SI), X9
	VCVTPH2PS    X9, X9
	VMULPS       X10, X9, X9
	Q4_K_PAIR4(16, 4, 0)
	Q4_K_PAIR4(48, 68, 64)
	Q4_K_PAIR4(80, 132, 128)
	Q4_K_PAIR4(112, 196, 192)
	Q4_K_MINS(DI, X4)
	Q4_K_MINS(R8, X5)
	Q4_K_MINS(R9, X6)
	Q4_K_MINS(R10, X7)
	TRANSPOSE4_I32
	VCVTDQ2PS    X4, X4
	VFMADD231PS  X4, X9, X1
	VCVTDQ2PS    X5, X5
	VFMADD231PS  X5, X9, X1
	VCVTDQ2PS    X6, X6
	VFMADD231PS  X6, X9, X1
	VCVTDQ2PS    X7, X7
	VFMADD231PS  X7, X9, X1

	ADDQ $144, SI
	ADVANCE4(292)
	DECQ CX
	JNZ  q4kx4loop

q4kx4done:
	VSUBPS X1, X0, X0
	STORE_LANES4

// func vecDotQ6_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
//
// Each block asks for the row 4 KiB ahead (the lines 4-5 blocks on): a
// batch of a few quads reads each row from DRAM once, and the first
// quad's call waited on it. Zen3, TinyLlama Q6_K --parallel 6/8 1.08x /
// 1.12x (medians of 3 alternating runs; 2 KiB ahead 0.96x of 4), pp512
// unchanged.
TEXT ·vecDotQ6_KQ8_Kx4AVX2(SB), NOSPLIT, $0-48
	X4_PROLOGUE
	BYTE_CONST($0x0F0F0F0F, X15, Y15)
	BYTE_CONST($0x30303030, X13, Y13)
	TESTQ CX, CX
	JZ    q6kx4done

q6kx4loop:
	PREFETCHT0 4096(SI)
	PREFETCHT0 4160(SI)
	PREFETCHT0 4224(SI)
	PREFETCHT0 4288(SI)
	VMOVDQU 192(SI), X4
	VPXOR   Y2, Y2, Y2
	VPXOR   Y3, Y3, Y3
	VPXOR   Y12, Y12, Y12
	VPXOR   Y14, Y14, Y14
	Q6_K_HALFN(0, 128, 4, 0, 16, 32, 48, Q6_K_TOKS4)
	Q6_K_HALFN(64, 160, 132, 64, 80, 96, 112, Q6_K_TOKS4)

	VPBROADCASTW 208(SI), X10
	VCVTPH2PS    X10, Y10
	Q6_K_FINISH(DI, Y2, Y0)
	Q6_K_FINISH(R8, Y3, Y1)
	Q6_K_FINISH(R9, Y12, Y8)
	Q6_K_FINISH(R10, Y14, Y9)

	ADDQ $210, SI
	ADVANCE4(292)
	DECQ CX
	JNZ  q6kx4loop

q6kx4done:
	X4_EPILOGUE

// The four-row kernels for two and four tokens: per row the block of
// vecDotQ6_KQ8_Kx4AVX2 for the tokens of EACH (Q6_K_EACH2: DI, R8;
// Q6_K_EACH4: DI, R8, R9, R10), token t's accumulator of the row kept at
// slot+32t(SP) between blocks, each pair in the single-row kernel's steps
// (same bits). Rows wstride bytes apart (decode's four streams, R11-R14),
// tokens astride apart: out[k*rstride+t*tstride] for row k, token t.
// EACH applies M (token P, its int32 sums, its accumulator, its slot).
#define Q6_K_EACH2(M, slot) \
	M(DI, Y2, Y0, slot) \
	M(R8, Y3, Y1, slot+32)

#define Q6_K_EACH4(M, slot) \
	Q6_K_EACH2(M, slot) \
	M(R9, Y12, Y8, slot+64) \
	M(R10, Y14, Y9, slot+96)

#define Q6_K_ACCLOAD(P, sumi, acc, off) VMOVUPS off(SP), acc
#define Q6_K_SUMZERO(P, sumi, acc, off) VPXOR sumi, sumi, sumi
#define Q6_K_ACCSTORE(P, sumi, acc, off) VMOVUPS acc, off(SP)
#define Q6_K_FINISHT(P, sumi, acc, off) Q6_K_FINISH(P, sumi, acc)

#define Q6_K_R4NROW(base, slot, EACH, TOKS) \
	MOVQ    base, SI                 \
	EACH(Q6_K_ACCLOAD, slot)         \
	VMOVDQU 192(SI), X4              \
	EACH(Q6_K_SUMZERO, slot)         \
	Q6_K_HALFN(0, 128, 4, 0, 16, 32, 48, TOKS) \
	Q6_K_HALFN(64, 160, 132, 64, 80, 96, 112, TOKS) \
	VPBROADCASTW 208(SI), X10        \
	VCVTPH2PS    X10, Y10            \
	EACH(Q6_K_FINISHT, slot)         \
	EACH(Q6_K_ACCSTORE, slot)

// The loop of a four-row kernel whose frame holds rowbytes of
// accumulators per row, cleared first.
#define Q6_K_R4N_LOOP(zero, loop, done, rowbytes, EACH, TOKS, ADV) \
	VXORPS Y0, Y0, Y0             \
	XORQ   AX, AX                 \
zero:                             \
	VMOVUPS Y0, (SP)(AX*1)        \
	ADDQ    $32, AX               \
	CMPQ    AX, $(4*rowbytes)     \
	JLT     zero                  \
	BYTE_CONST($0x0F0F0F0F, X15, Y15) \
	BYTE_CONST($0x30303030, X13, Y13) \
	TESTQ CX, CX                  \
	JZ    done                    \
loop:                             \
	Q6_K_R4PF(R11, R12, R13, R14) \
	Q6_K_R4NROW(R11, 0, EACH, TOKS) \
	Q6_K_R4NROW(R12, rowbytes, EACH, TOKS) \
	Q6_K_R4NROW(R13, 2*rowbytes, EACH, TOKS) \
	Q6_K_R4NROW(R14, 3*rowbytes, EACH, TOKS) \
	ADDQ $210, R11                \
	ADDQ $210, R12                \
	ADDQ $210, R13                \
	ADDQ $210, R14                \
	ADV                           \
	DECQ CX                       \
	JNZ  loop

// Stores the sum of the accumulator at off(SP) to idx (Y0, X2 scratch).
#define Q6_K_R4OUT(off, idx) \
	VMOVUPS off(SP), Y0 \
	HSUM(Y0, X0, X2)    \
	VMOVSS  X0, idx

#define Q6_K_R4X2ADV \
	ADDQ $292, DI \
	ADDQ $292, R8

// func vecDotQ6_KQ8_Kr4x2AVX2(nb int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)
TEXT ·vecDotQ6_KQ8_Kr4x2AVX2(SB), NOSPLIT, $256-64
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), R11
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	MOVQ astride+32(FP), R8
	ADDQ DI, R8
	LEAQ (R11)(BX*1), R12
	LEAQ (R12)(BX*1), R13
	LEAQ (R13)(BX*1), R14
	Q6_K_R4N_LOOP(q6kr4x2zero, q6kr4x2loop, q6kr4x2done, 64, Q6_K_EACH2, Q6_K_TOKS2, Q6_K_R4X2ADV)

q6kr4x2done:
	MOVQ out+40(FP), DX
	MOVQ rstride+48(FP), BX
	SHLQ $2, BX
	MOVQ tstride+56(FP), R11
	SHLQ $2, R11
	Q6_K_R4OUT(0, (DX))
	Q6_K_R4OUT(32, (DX)(R11*1))
	ADDQ BX, DX
	Q6_K_R4OUT(64, (DX))
	Q6_K_R4OUT(96, (DX)(R11*1))
	ADDQ BX, DX
	Q6_K_R4OUT(128, (DX))
	Q6_K_R4OUT(160, (DX)(R11*1))
	ADDQ BX, DX
	Q6_K_R4OUT(192, (DX))
	Q6_K_R4OUT(224, (DX)(R11*1))
	VZEROUPPER
	RET

// func vecDotQ6_KQ8_Kr4x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)
TEXT ·vecDotQ6_KQ8_Kr4x4AVX2(SB), NOSPLIT, $512-64
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), R11
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	MOVQ astride+32(FP), DX
	LEAQ (DI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	LEAQ (R11)(BX*1), R12
	LEAQ (R12)(BX*1), R13
	LEAQ (R13)(BX*1), R14
	Q6_K_R4N_LOOP(q6kr4x4zero, q6kr4x4loop, q6kr4x4done, 128, Q6_K_EACH4, Q6_K_TOKS4, ADVANCE4(292))

q6kr4x4done:
	MOVQ out+40(FP), DX
	MOVQ rstride+48(FP), BX
	SHLQ $2, BX
	MOVQ tstride+56(FP), R11
	SHLQ $2, R11
	LEAQ (R11)(R11*2), R12
	Q6_K_R4OUT(0, (DX))
	Q6_K_R4OUT(32, (DX)(R11*1))
	Q6_K_R4OUT(64, (DX)(R11*2))
	Q6_K_R4OUT(96, (DX)(R12*1))
	ADDQ BX, DX
	Q6_K_R4OUT(128, (DX))
	Q6_K_R4OUT(160, (DX)(R11*1))
	Q6_K_R4OUT(192, (DX)(R11*2))
	Q6_K_R4OUT(224, (DX)(R12*1))
	ADDQ BX, DX
	Q6_K_R4OUT(256, (DX))
	Q6_K_R4OUT(288, (DX)(R11*1))
	Q6_K_R4OUT(320, (DX)(R11*2))
	Q6_K_R4OUT(352, (DX)(R12*1))
	ADDQ BX, DX
	Q6_K_R4OUT(384, (DX))
	Q6_K_R4OUT(416, (DX)(R11*1))
	Q6_K_R4OUT(448, (DX)(R11*2))
	Q6_K_R4OUT(480, (DX)(R12*1))
	VZEROUPPER
	RET

// func vecDotQ5_KQ8_KAVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ5_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0   // acc: eight lanes
	VXORPS X1, X1, X1   // summs
	BYTE_CONST($0x0F0F0F0F, X15, Y15)
	BYTE_CONST($0x01010101, X13, Y13)
	TESTQ CX, CX
	JZ    q5kdone

q5kloop:
	PREFETCHT0 KPF(SI)
	PREFETCHT0 KPF+64(SI)
	PREFETCHT0 KPF+128(SI)
	// Unpack the 8 six-bit scales and mins (ggml's utmp shuffle):
	// AX = scales 0-3, R8 = scales 4-7, R11 = mins 0-3, R9 = mins 4-7.
	MOVL 4(SI), AX
	MOVL 8(SI), BX
	MOVL 12(SI), R8
	MOVL R8, R9
	SHRL $4, R9
	ANDL $0x0f0f0f0f, R9
	MOVL BX, R10
	SHRL $6, R10
	ANDL $0x03030303, R10
	SHLL $4, R10
	ORL  R10, R9
	MOVL BX, R11
	ANDL $0x3f3f3f3f, R11
	ANDL $0x0f0f0f0f, R8
	MOVL AX, R10
	SHRL $6, R10
	ANDL $0x03030303, R10
	SHLL $4, R10
	ORL  R10, R8
	ANDL $0x3f3f3f3f, AX
	VMOVD     AX, X2
	VPINSRD   $1, R8, X2, X2
	VPINSRD   $2, R11, X2, X2
	VPINSRD   $3, R9, X2, X2
	VPMOVZXBW X2, Y2          // int16: scales 0-7 | mins 0-7
	VEXTRACTI128 $1, Y2, X3   // mins
	VPERMQ    $0x44, Y2, Y2   // scales in both lanes

	// mins . (bsums[2j] + bsums[2j+1])
	VMOVDQU      260(DI), Y4
	VEXTRACTI128 $1, Y4, X5
	VPHADDW      X5, X4, X4
	VPMADDWD     X3, X4, X4

	VPXOR   Y9, Y9, Y9
	VMOVDQU 16(SI), Y14
	Q5_K_CHUNK(0, 0, 1)
	Q5_K_CHUNK(1, 2, 3)
	Q5_K_CHUNK(2, 4, 5)
	Q5_K_CHUNK(3, 6, 7)

	// ggml_vec_dot_q5_K_q8_K's order (vecDotQ5_KQ8_KGeneric): summs =
	// fma(-(y.d*x.dmin), summ, summs), acc = fma(y.d*x.d, lanes, acc).
	VPSHUFD      $0x4e, X4, X5
	VPADDD       X5, X4, X4
	VPSHUFD      $0xb1, X4, X5
	VPADDD       X5, X4, X4
	VCVTDQ2PS    X4, X4
	VBROADCASTSS 0(DI), Y6
	VPBROADCASTW 2(SI), X8
	VCVTPH2PS    X8, X8
	VMULSS       X8, X6, X8
	VFNMADD231SS X4, X8, X1
	VPBROADCASTW 0(SI), X7
	VCVTPH2PS    X7, Y7
	VMULPS       Y7, Y6, Y7
	VCVTDQ2PS    Y9, Y9
	VFMADD231PS  Y9, Y7, Y0

	ADDQ $176, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q5kloop

q5kdone:
	HSUM(Y0, X0, X2)
	VADDSS X1, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// Token t's step of ggml_vec_dot_q5_K_q8_K after a block: its eight
// float lanes (at mem) += (y.d*x.d) * lanes (int32 in sumi; X10 = x.d
// broadcast, Y12/Y13 scratch).
#define Q5_K_ACC(P, sumi, mem) \
	VBROADCASTSS 0(P), Y12     \
	VMULPS       Y12, Y10, Y12 \
	VCVTDQ2PS    sumi, sumi    \
	VMOVUPS      mem, Y13      \
	VFMADD231PS  sumi, Y12, Y13 \
	VMOVUPS      Y13, mem

// X (lane 0) = the eight-lane sum of the float lanes at mem (X12, X13
// scratch).
#define Q5_K_OUT(mem, X) \
	VMOVUPS mem, Y12     \
	HSUM(Y12, X12, X13)  \
	VMOVAPS X12, X

// The four-token kernels whose float lanes live in the frame between
// blocks (acc0-acc3): X4_PROLOGUE with them cleared, and X = the four
// tokens' horizontal sums (lane t, X5-X7 and X12/X13 scratch).
#define X4_FRAME_PROLOGUE \
	X4_PROLOGUE              \
	VMOVUPS Y0, acc0-128(SP) \
	VMOVUPS Y0, acc1-96(SP)  \
	VMOVUPS Y0, acc2-64(SP)  \
	VMOVUPS Y0, acc3-32(SP)

#define X4_FRAME_SUMS(X) \
	Q5_K_OUT(acc0-128(SP), X) \
	Q5_K_OUT(acc1-96(SP), X5) \
	Q5_K_OUT(acc2-64(SP), X6) \
	Q5_K_OUT(acc3-32(SP), X7) \
	VINSERTPS $0x10, X5, X, X \
	VINSERTPS $0x20, X6, X, X \
	VINSERTPS $0x30, X7, X, X

// func vecDotQ5_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·vecDotQ5_KQ8_Kx4AVX2(SB), NOSPLIT, $128-48
	X4_FRAME_PROLOGUE
	BYTE_CONST($0x0F0F0F0F, X15, Y15)
	BYTE_CONST($0x01010101, X1, Y1)
	TESTQ CX, CX
	JZ    q5kx4done

q5kx4loop:
	MOVL 4(SI), AX
	MOVL 8(SI), DX
	MOVL 12(SI), R11
	MOVL R11, R12
	SHRL $4, R12
	ANDL $0x0f0f0f0f, R12
	MOVL DX, R13
	SHRL $6, R13
	ANDL $0x03030303, R13
	SHLL $4, R13
	ORL  R13, R12
	ANDL $0x3f3f3f3f, DX
	ANDL $0x0f0f0f0f, R11
	MOVL AX, R13
	SHRL $6, R13
	ANDL $0x03030303, R13
	SHLL $4, R13
	ORL  R13, R11
	ANDL $0x3f3f3f3f, AX
	VMOVD     AX, X2
	VPINSRD   $1, R11, X2, X2
	VPINSRD   $2, DX, X2, X2
	VPINSRD   $3, R12, X2, X2
	VPMOVZXBW X2, Y2
	VEXTRACTI128 $1, Y2, X3
	VPERMQ    $0x44, Y2, Y2

	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VMOVDQU 16(SI), Y8
	Q5_K_CHUNK4(48, 4, 0, 0, 1)
	Q5_K_CHUNK4(80, 68, 64, 2, 3)
	Q5_K_CHUNK4(112, 132, 128, 4, 5)
	Q5_K_CHUNK4(144, 196, 192, 6, 7)

	// ggml_vec_dot_q5_K_q8_K's order per token (vecDotQ5_KQ8_KGeneric):
	// the eight lanes on the stack, summs in lane t of X0.
	VPBROADCASTW 0(SI), X10
	VCVTPH2PS    X10, Y10
	Q5_K_ACC(DI, Y4, acc0-128(SP))
	Q5_K_ACC(R8, Y5, acc1-96(SP))
	Q5_K_ACC(R9, Y6, acc2-64(SP))
	Q5_K_ACC(R10, Y7, acc3-32(SP))
	Q4_K_MINS(DI, X5)
	Q4_K_MINS(R8, X6)
	Q4_K_MINS(R9, X7)
	Q4_K_MINS(R10, X8)
	VPHADDD      X6, X5, X5
	VPHADDD      X8, X7, X7
	VPHADDD      X7, X5, X5
	VMOVSS       0(DI), X6
	VINSERTPS    $0x10, 0(R8), X6, X6
	VINSERTPS    $0x20, 0(R9), X6, X6
	VINSERTPS    $0x30, 0(R10), X6, X6
	VPBROADCASTW 2(SI), X8
	VCVTPH2PS    X8, X8
	VMULPS       X8, X6, X8
	VCVTDQ2PS    X5, X5
	VFNMADD231PS X5, X8, X0

	ADDQ $176, SI
	ADVANCE4(292)
	DECQ CX
	JNZ  q5kx4loop

q5kx4done:
	// out_t = hsum8(acc_t) + summs_t
	X4_FRAME_SUMS(X4)
	VADDPS    X0, X4, X0
	STORE_LANES4

// func vecDotQ3_KQ8_KAVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ3_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	BYTE_CONST($0x03030303, X15, Y15)
	BYTE_CONST($0x04040404, X14, Y14)
	BYTE_CONST($0x20202020, X13, Y13)
	VPCMPEQB Y12, Y12, Y12
	TESTQ CX, CX
	JZ    q3kdone

q3kloop:
	PREFETCHT0 KPF(SI)
	PREFETCHT0 KPF+64(SI)
	PREFETCHT0 KPF+128(SI)
	Q3_K_SCALES

	VMOVDQU 0(SI), Y4
	VPXOR   Y12, Y4, Y4       // inverted hmask
	VPXOR   Y9, Y9, Y9
	VMOVDQU 32(SI), Y5
	Q3_K_GROUP(0, Q3_K_HB0, Y7, 4, Y2, 0)
	Q3_K_GROUP(2, Q3_K_HB1, Y7, 36, Y2, 32)
	Q3_K_GROUP(4, Q3_K_HB2, Y4, 68, Y2, 64)
	Q3_K_GROUP(6, Q3_K_HB3, Y7, 100, Y2, 96)
	VMOVDQU 64(SI), Y5
	Q3_K_GROUP(0, Q3_K_HB4, Y7, 132, Y3, 0)
	Q3_K_GROUP(2, Q3_K_HB5, Y7, 164, Y3, 32)
	Q3_K_GROUP(4, Q3_K_HB6, Y7, 196, Y3, 64)
	Q3_K_GROUP(6, Q3_K_HB7, Y7, 228, Y3, 96)

	// acc += (y.d * x.d) * lanes
	VBROADCASTSS 0(DI), Y6
	VPBROADCASTW 108(SI), X7
	VCVTPH2PS    X7, Y7
	VMULPS       Y7, Y6, Y6
	VCVTDQ2PS    Y9, Y9
	VFMADD231PS  Y9, Y6, Y0

	ADDQ $110, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q3kloop

q3kdone:
	HSUM(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// Q3_K, 4 tokens: one 32-element group's quants q = bits - 4*(hmask bit
// clear), as signed bytes in Y6 and |q| in Y7, its scale pair k of Ysc in
// Y10, computed once; each token adds maddubs(|q|, sign(a, q)) . scales to
// its int32 lanes (the same integers as Q3_K_GROUP's two products: Q8_K
// quants never reach -128, so VPSIGNB cannot overflow).
#define Q3_K_GROUP4(sh, HBIT, hsrc, ao, Ysc, k) \
	VPSRLW     $sh, Y5, Y6                  \
	VPAND      Y15, Y6, Y6                  \
	HBIT                                    \
	VPAND      Y14, hsrc, Y7                \
	VPSUBB     Y7, Y6, Y6                   \
	VPABSB     Y6, Y7                       \
	VPSHUFB    shufPairW16<>+k(SB), Ysc, Y10 \
	Q3_K_TOK(DI, ao, Y0)                    \
	Q3_K_TOK(R8, ao, Y1)                    \
	Q3_K_TOK(R9, ao, Y8)                    \
	Q3_K_TOK(R10, ao, Y9)

#define Q3_K_TOK(P, ao, sumi) \
	VMOVDQU    ao(P), Y11       \
	VPSIGNB    Y6, Y11, Y11     \
	VPMADDUBSW Y11, Y7, Y11     \
	VPMADDWD   Y10, Y11, Y11    \
	VPADDD     Y11, sumi, sumi

// acc (on the stack) += (y.d * x.d) * float(sumi); Y7 = x.d.
#define Q3_K_FINISH(P, sumi, acc) \
	VBROADCASTSS 0(P), Y6     \
	VMULPS       Y7, Y6, Y6   \
	VCVTDQ2PS    sumi, sumi   \
	VMOVUPS      acc, Y11     \
	VFMADD231PS  sumi, Y6, Y11 \
	VMOVUPS      Y11, acc

// func vecDotQ3_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
//
// Each token's float steps are vecDotQ3_KQ8_KAVX2's: eight lanes, one FMA
// per block, the same horizontal sum.
TEXT ·vecDotQ3_KQ8_Kx4AVX2(SB), NOSPLIT, $128-48
	X4_FRAME_PROLOGUE
	BYTE_CONST($0x03030303, X15, Y15)
	BYTE_CONST($0x04040404, X14, Y14)
	BYTE_CONST($0x20202020, X13, Y13)
	VPCMPEQB Y12, Y12, Y12
	TESTQ CX, CX
	JZ    q3kx4done

q3kx4loop:
	Q3_K_SCALES

	VPXOR   Y0, Y0, Y0
	VPXOR   Y1, Y1, Y1
	VPXOR   Y8, Y8, Y8
	VPXOR   Y9, Y9, Y9
	VMOVDQU 0(SI), Y4
	VPXOR   Y12, Y4, Y4       // inverted hmask
	VMOVDQU 32(SI), Y5
	Q3_K_GROUP4(0, Q3_K_HB0, Y7, 4, Y2, 0)
	Q3_K_GROUP4(2, Q3_K_HB1, Y7, 36, Y2, 32)
	Q3_K_GROUP4(4, Q3_K_HB2, Y4, 68, Y2, 64)
	Q3_K_GROUP4(6, Q3_K_HB3, Y7, 100, Y2, 96)
	VMOVDQU 64(SI), Y5
	Q3_K_GROUP4(0, Q3_K_HB4, Y7, 132, Y3, 0)
	Q3_K_GROUP4(2, Q3_K_HB5, Y7, 164, Y3, 32)
	Q3_K_GROUP4(4, Q3_K_HB6, Y7, 196, Y3, 64)
	Q3_K_GROUP4(6, Q3_K_HB7, Y7, 228, Y3, 96)

	VPBROADCASTW 108(SI), X7
	VCVTPH2PS    X7, Y7
	Q3_K_FINISH(DI, Y0, acc0-128(SP))
	Q3_K_FINISH(R8, Y1, acc1-96(SP))
	Q3_K_FINISH(R9, Y8, acc2-64(SP))
	Q3_K_FINISH(R10, Y9, acc3-32(SP))

	ADDQ $110, SI
	ADVANCE4(292)
	DECQ CX
	JNZ  q3kx4loop

q3kx4done:
	X4_FRAME_SUMS(X0)
	STORE_LANES4

// Q2_K_BLOCK adds the block of the row at P against the activation block
// at DI to acc, as ggml_vec_dot_q2_K_q8_K: the scales (low nibbles) and
// mins (high) as int16, the int32 lanes of the eight groups (Y10) and of
// the mins against the block sums, pairwise (Y3), then acc =
// fma(-(y.d*x.dmin), min lanes, acc) and fma(y.d*x.d, lanes, acc), as
// vecDotQ2_KQ8_KGeneric. Y15 = 0x03 bytes, Y14 = 0x0F bytes; Y2-Y7 and
// Y10 scratch.
#define Q2_K_BLOCK(P, acc) \
	VMOVDQU   0(P), X2            \
	VPSRLW    $4, X2, X3          \
	VPAND     X14, X2, X2         \
	VPAND     X14, X3, X3         \
	VPMOVZXBW X2, Y2              \
	VPMOVZXBW X3, Y3              \
	VPMADDWD  260(DI), Y3, Y3     \
	VPERMQ    $0xee, Y2, Y4       \
	VPERMQ    $0x44, Y2, Y2       \
	VPXOR     Y10, Y10, Y10          \
	VMOVDQU   16(P), Y5           \
	Q2_K_GROUP(0, 4, Y2, 0)       \
	Q2_K_GROUP(2, 36, Y2, 32)     \
	Q2_K_GROUP(4, 68, Y2, 64)     \
	Q2_K_GROUP(6, 100, Y2, 96)    \
	VMOVDQU   48(P), Y5           \
	Q2_K_GROUP(0, 132, Y4, 0)     \
	Q2_K_GROUP(2, 164, Y4, 32)    \
	Q2_K_GROUP(4, 196, Y4, 64)    \
	Q2_K_GROUP(6, 228, Y4, 96)    \
	VBROADCASTSS 0(DI), Y6        \
	VPBROADCASTW 80(P), X7        \
	VCVTPH2PS    X7, Y7           \
	VPBROADCASTW 82(P), X4        \
	VCVTPH2PS    X4, Y4           \
	VMULPS       Y7, Y6, Y7       \
	VMULPS       Y4, Y6, Y4       \
	VCVTDQ2PS    Y3, Y3           \
	VFNMADD231PS Y3, Y4, acc      \
	VCVTDQ2PS    Y10, Y10           \
	VFMADD231PS  Y10, Y7, acc

// func vecDotQ2_KQ8_KAVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ2_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0   // eight float lanes (ggml_vec_dot_q2_K_q8_K)
	BYTE_CONST($0x03030303, X15, Y15)
	BYTE_CONST($0x0F0F0F0F, X14, Y14)
	TESTQ CX, CX
	JZ    q2kdone

q2kloop:
	PREFETCHT0 KPF(SI)
	PREFETCHT0 KPF+64(SI)
	PREFETCHT0 KPF+128(SI)
	Q2_K_BLOCK(SI, Y0)
	ADDQ $84, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q2kloop

q2kdone:
	HSUM(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func vecDotQ2_KQ8_Kr4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
//
// Four rows wstride bytes apart (SI, R8, R9, R10) against one activation
// row, each with vecDotQ2_KQ8_KAVX2's steps (same bits) into Y0, Y1, Y8,
// Y9; decode passes rows a quarter of its range apart (four DRAM
// streams), each asked for 1 KiB ahead. Its arguments sit where the x4
// kernels' do: X4_EPILOGUE stores the four sums.
TEXT ·vecDotQ2_KQ8_Kr4AVX2(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	BYTE_CONST($0x03030303, X15, Y15)
	BYTE_CONST($0x0F0F0F0F, X14, Y14)
	TESTQ CX, CX
	JZ    q2kr4done

q2kr4loop:
	PREFETCHT0 1024(SI)
	PREFETCHT0 1088(SI)
	PREFETCHT0 1024(R8)
	PREFETCHT0 1088(R8)
	PREFETCHT0 1024(R9)
	PREFETCHT0 1088(R9)
	PREFETCHT0 1024(R10)
	PREFETCHT0 1088(R10)
	Q2_K_BLOCK(SI, Y0)
	Q2_K_BLOCK(R8, Y1)
	Q2_K_BLOCK(R9, Y8)
	Q2_K_BLOCK(R10, Y9)
	ADDQ $84, SI
	ADDQ $84, R8
	ADDQ $84, R9
	ADDQ $84, R10
	ADDQ $292, DI
	DECQ CX
	JNZ  q2kr4loop

q2kr4done:
	X4_EPILOGUE

// Q2_K, 4 tokens: one group's 2-bit quants (Y6) and scale pair k of Ysc
// (Y10) computed once; each token adds maddubs(q, a) . scales to its
// int32 lanes (TOK), Q2_K_GROUP's integers.
#define Q2_K_GROUP4(TOK, sh, ao, Ysc, k) \
	VPSRLW     $sh, Y5, Y6                   \
	VPAND      Y15, Y6, Y6                   \
	VPSHUFB    shufPairW16<>+k(SB), Ysc, Y10 \
	TOK(DI, ao, Y0)                          \
	TOK(R8, ao, Y1)                          \
	TOK(R9, ao, Y8)                          \
	TOK(R10, ao, Y9)

#define Q2_K_TOK(P, ao, sumi) \
	VPMADDUBSW ao(P), Y6, Y11  \
	VPMADDWD   Y10, Y11, Y11   \
	VPADDD     Y11, sumi, sumi

// Q2_K_TOK_VNNI is Q2_K_TOK with VPDPWSSD for the multiply-add by the
// scales and the add (the same integers).
#define Q2_K_TOK_VNNI(P, ao, sumi) \
	VPMADDUBSW ao(P), Y6, Y11 \
	VPDPWSSD   Y10, Y11, sumi

// Token P's float steps of Q2_K_BLOCK on its lanes sumi, its float lanes
// at acc (the frame): Y7 = x.d, Y12 = x.dmin, Y2 = the mins as int16.
#define Q2_K_FINISH(P, sumi, acc) \
	VBROADCASTSS 0(P), Y6        \
	VMULPS       Y7, Y6, Y10     \
	VMULPS       Y12, Y6, Y6     \
	VPMADDWD     260(P), Y2, Y11 \
	VCVTDQ2PS    Y11, Y11        \
	VMOVUPS      acc, Y13        \
	VFNMADD231PS Y11, Y6, Y13    \
	VCVTDQ2PS    sumi, sumi      \
	VFMADD231PS  sumi, Y10, Y13  \
	VMOVUPS      Y13, acc

// Q2_K_X4_BODY is the Q2_K four-token kernels' body, TOK each token's
// integer step; loop and done their labels.
#define Q2_K_X4_BODY(TOK, loop, done) \
	X4_FRAME_PROLOGUE                 \
	BYTE_CONST($0x03030303, X15, Y15) \
	BYTE_CONST($0x0F0F0F0F, X14, Y14) \
	TESTQ CX, CX                      \
	JZ    done                        \
loop:                                     \
	VMOVDQU   0(SI), X2               \
	VPAND     X14, X2, X2             \
	VPMOVZXBW X2, Y2                  \
	VPERMQ    $0xee, Y2, Y3           \
	VPERMQ    $0x44, Y2, Y2           \
	VPXOR     Y0, Y0, Y0              \
	VPXOR     Y1, Y1, Y1              \
	VPXOR     Y8, Y8, Y8              \
	VPXOR     Y9, Y9, Y9              \
	VMOVDQU   16(SI), Y5              \
	Q2_K_GROUP4(TOK, 0, 4, Y2, 0)     \
	Q2_K_GROUP4(TOK, 2, 36, Y2, 32)   \
	Q2_K_GROUP4(TOK, 4, 68, Y2, 64)   \
	Q2_K_GROUP4(TOK, 6, 100, Y2, 96)  \
	VMOVDQU   48(SI), Y5              \
	Q2_K_GROUP4(TOK, 0, 132, Y3, 0)   \
	Q2_K_GROUP4(TOK, 2, 164, Y3, 32)  \
	Q2_K_GROUP4(TOK, 4, 196, Y3, 64)  \
	Q2_K_GROUP4(TOK, 6, 228, Y3, 96)  \
	VMOVDQU      0(SI), X2            \
	VPSRLW       $4, X2, X2           \
	VPAND        X14, X2, X2          \
	VPMOVZXBW    X2, Y2               \
	VPBROADCASTW 80(SI), X7           \
	VCVTPH2PS    X7, Y7               \
	VPBROADCASTW 82(SI), X12          \
	VCVTPH2PS    X12, Y12             \
	Q2_K_FINISH(DI, Y0, acc0-128(SP)) \
	Q2_K_FINISH(R8, Y1, acc1-96(SP))  \
	Q2_K_FINISH(R9, Y8, acc2-64(SP))  \
	Q2_K_FINISH(R10, Y9, acc3-32(SP)) \
	ADDQ $84, SI                      \
	ADVANCE4(292)                     \
	DECQ CX                           \
	JNZ  loop                         \
done:                                     \
	X4_FRAME_SUMS(X0)                 \
	STORE_LANES4

// func vecDotQ2_KQ8_Kx4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
//
// Each token's float steps are vecDotQ2_KQ8_KAVX2's: eight lanes, two FMAs
// per block, the same horizontal sum.
TEXT ·vecDotQ2_KQ8_Kx4AVX2(SB), NOSPLIT, $128-48
	Q2_K_X4_BODY(Q2_K_TOK, q2kx4loop, q2kx4done)

// func vecDotQ2_KQ8_Kx4VNNI(nb int, w, a *byte, stride int, out *float32, ostride int)
//
// vecDotQ2_KQ8_Kx4AVX2 with VPDPWSSD (the AVX-512 sets): per group and
// token two operations instead of three.
TEXT ·vecDotQ2_KQ8_Kx4VNNI(SB), NOSPLIT, $128-48
	Q2_K_X4_BODY(Q2_K_TOK_VNNI, q2kx4vloop, q2kx4vdone)
