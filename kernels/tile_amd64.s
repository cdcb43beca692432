//go:build !purego

#include "lanes_amd64.h"
#include "q5_0_amd64.h"
#include "textflag.h"

// Register-tiled prefill kernels: two weight rows against four activation
// rows per call, each of the eight dot products in its single-row
// kernel's float order. Sharing each row's block across the four tokens and
// each token's block across the two rows removes most of the loads and
// sign/abs steps of the one-row, four-token kernels.
//
// Q8_0 and Q5_0 weights x Q8_0 tokens in tinyBLAS's order
// (vecDotQ8_0Q8_0Generic, vecDotQ5_0Q8_0Generic): per pair and block acc
// += (d_w*d_a) * float(lanes), lane l = the products of bytes 4l..4l+3,
// then tinyBLAS's horizontal sum. Rows at SI and R8 (wstride apart),
// tokens at DI, R9, R10, R11 (astride apart), the tokens' scales as
// float32 from their quad layout at R12. Y0-Y7 accumulate pair (row r,
// token t) in Y(4r+t). A row's block is decoded once into signed bytes
// (Y10) and |w| (Y8), its four scale products d_w*d_a(t) sit in both
// lanes of Y13, from where one in-lane shuffle broadcasts each, and the
// int16 ones stay in Y12: a pair costs one token load and six
// operations, none of them a reload of a constant or of the row
// (tinyBLAS's AVX2 gemm4xN does the same steps). The earlier Q8_0 tile,
// which passed the scale products through the stack and reloaded the
// row and the ones as memory operands, ran prefill at 0.7x llama.cpp on
// an AMD EPYC Zen3.
//
// The tile is issue-bound (Zen3: about three of these vector operations
// per cycle, 2.9 cycles per pair and block measured), and the lane order
// costs a float conversion and a multiply-add per four products. Measured
// on that Zen3 and not kept: Q8_0 rows packed eight to a group (as Q4_0)
// with each block summed exactly in one int32 per row ran the prefill
// matmul 1.5-2x faster (TinyLlama pp512 +51%), but that order moves the
// tiny Q8_0 golden logits past their 2e-5 tolerance and makes a token's
// logits depend on its batch (scheduler TestDeterministic); the lane order
// on packed groups needs eight accumulators per token (four tokens do not
// fit sixteen registers), and one token at a time ran 1.2x slower than
// this tile; a packed decode in the lane order streamed 8% slower than
// the four-row kernel in the engine. A 2 x 4 tile in the exact-sum order
// with a transposing int32 reduction ran no faster than this one. On
// Intel CPUs prefill takes the tile over rows widened to int16 below
// (tile_q8_wide.go): four port-0/1 operations per pair instead of five.
//
// The Q8_0 tile asks for its rows 4 KiB ahead: a batch of one quad (four
// sequences decoded together) reads every row from DRAM once, and the
// tile, waiting on those loads, ran 4-token matmuls at a third of decode's
// weight stream (BenchmarkMatMulStream Q8_0 tok4 on that Zen3: 1.69-1.74
// -> 1.03-1.21 ms, prefetching 0.5/1/2/4/8 KiB ahead: 4 KiB best;
// TinyLlama Q8_0 --parallel 4 28.0 -> 41.3 tok/s; pp512 unchanged: 0.99x
// over four alternating runs, after a first three read 1.13x).

// Constants of the Q5_0 decoding (ggml's bytes_from_bits_32 and the
// nibble masks): +0 the shuffle sending byte i/8 of a broadcast uint32 to
// byte i, +32 the bytes ~(1 << i%8), +64 all ones, +96 0xF0, +128 0x0F.
DATA tileQ5<>+0(SB)/8, $0x0000000000000000
DATA tileQ5<>+8(SB)/8, $0x0101010101010101
DATA tileQ5<>+16(SB)/8, $0x0202020202020202
DATA tileQ5<>+24(SB)/8, $0x0303030303030303
DATA tileQ5<>+32(SB)/8, $0x7fbfdfeff7fbfdfe
DATA tileQ5<>+40(SB)/8, $0x7fbfdfeff7fbfdfe
DATA tileQ5<>+48(SB)/8, $0x7fbfdfeff7fbfdfe
DATA tileQ5<>+56(SB)/8, $0x7fbfdfeff7fbfdfe
DATA tileQ5<>+64(SB)/8, $0xffffffffffffffff
DATA tileQ5<>+72(SB)/8, $0xffffffffffffffff
DATA tileQ5<>+80(SB)/8, $0xffffffffffffffff
DATA tileQ5<>+88(SB)/8, $0xffffffffffffffff
DATA tileQ5<>+96(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA tileQ5<>+104(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA tileQ5<>+112(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA tileQ5<>+120(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA tileQ5<>+128(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA tileQ5<>+136(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA tileQ5<>+144(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA tileQ5<>+152(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL tileQ5<>(SB), RODATA|NOPTR, $160

// One pair: token at P, scale lane imm of Y13, accumulator acc.
#define TILE_PAIR(P, imm, acc) \
	VMOVDQU     2(P), Y14         \
	VPSIGNB     Y10, Y14, Y15     \
	VPMADDUBSW  Y15, Y8, Y15      \
	VPMADDWD    Y12, Y15, Y15     \
	VCVTDQ2PS   Y15, Y15          \
	VSHUFPS     $imm, Y13, Y13, Y14 \
	VFMADD231PS Y15, Y14, acc

// A row's block at W, decoded into Y10, against the four tokens into
// a0..a3.
#define TILE_ROW(W, a0, a1, a2, a3) \
	VPSIGNB      Y10, Y10, Y8     \
	VPBROADCASTW 0(W), X13        \
	VCVTPH2PS    X13, X13         \
	VMULPS       (R12), X13, X13  \
	VINSERTF128  $1, X13, Y13, Y13 \
	TILE_PAIR(DI, 0x00, a0)       \
	TILE_PAIR(R9, 0x55, a1)       \
	TILE_PAIR(R10, 0xaa, a2)      \
	TILE_PAIR(R11, 0xff, a3)

#define Q80_ROW(W, a0, a1, a2, a3) \
	VMOVDQU 2(W), Y10             \
	TILE_ROW(W, a0, a1, a2, a3)

// A Q5_0 row block at W, decoded into Y10 (q5_0_amd64.h), against the four
// tokens into a0..a3.
#define Q50_ROW(W, a0, a1, a2, a3) \
	Q5_0_DECODE(W, Y14, Y10, X10, X15, tileQ5<>+0(SB), tileQ5<>+32(SB), tileQ5<>+64(SB), tileQ5<>+96(SB), tileQ5<>+128(SB)) \
	TILE_ROW(W, a0, a1, a2, a3)

// TILE2X4_START sets the rows (SI, R8), the other tokens (R9-R11, S
// bytes after DI), the int16 ones (Y12) and clears the accumulators.
#define TILE2X4_START(S) \
	MOVQ w+8(FP), SI \
	MOVQ wstride+16(FP), R8 \
	ADDQ SI, R8 \
	LEAQ (DI)(S*1), R9 \
	LEAQ (R9)(S*1), R10 \
	LEAQ (R10)(S*1), R11 \
	VPCMPEQW Y12, Y12, Y12 \
	VPSRLW   $15, Y12, Y12 \
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

// The arguments into their registers (see above), the int16 ones in
// Y12, the accumulators cleared.
#define TILE2X4_PROLOGUE \
	MOVQ nb+0(FP), CX \
	MOVQ a+24(FP), DI \
	MOVQ astride+32(FP), BX \
	MOVQ ad+40(FP), R12 \
	TILE2X4_START(BX)

// Next block: weights wb bytes on, tokens one Q8_0 block, quad one column.
#define TILE2X4_ADVANCE(wb) \
	ADDQ wb, SI   \
	ADDQ wb, R8   \
	ADDQ $34, DI  \
	ADDQ $34, R9  \
	ADDQ $34, R10 \
	ADDQ $34, R11 \
	ADDQ $160, R12

// Stores pair (r, t) to out + t*ostride + r (floats) after tinyBLAS's
// horizontal sum.
#define TILE2X4_STORE \
	MOVQ out+48(FP), DX      \
	MOVQ ostride+56(FP), BX  \
	SHLQ $2, BX              \
	VEXTRACTF128 $1, Y0, X14 \
	VADDPS       X14, X0, X0  \
	VMOVHLPS     X0, X0, X14  \
	VADDPS       X14, X0, X0  \
	VMOVSHDUP    X0, X14       \
	VADDSS       X14, X0, X0  \
	VMOVSS       X0, 0(DX) \
	VEXTRACTF128 $1, Y4, X14 \
	VADDPS       X14, X4, X4  \
	VMOVHLPS     X4, X4, X14  \
	VADDPS       X14, X4, X4  \
	VMOVSHDUP    X4, X14       \
	VADDSS       X14, X4, X4  \
	VMOVSS       X4, 4(DX) \
	ADDQ BX, DX              \
	VEXTRACTF128 $1, Y1, X14 \
	VADDPS       X14, X1, X1  \
	VMOVHLPS     X1, X1, X14  \
	VADDPS       X14, X1, X1  \
	VMOVSHDUP    X1, X14       \
	VADDSS       X14, X1, X1  \
	VMOVSS       X1, 0(DX) \
	VEXTRACTF128 $1, Y5, X14 \
	VADDPS       X14, X5, X5  \
	VMOVHLPS     X5, X5, X14  \
	VADDPS       X14, X5, X5  \
	VMOVSHDUP    X5, X14       \
	VADDSS       X14, X5, X5  \
	VMOVSS       X5, 4(DX) \
	ADDQ BX, DX              \
	VEXTRACTF128 $1, Y2, X14 \
	VADDPS       X14, X2, X2  \
	VMOVHLPS     X2, X2, X14  \
	VADDPS       X14, X2, X2  \
	VMOVSHDUP    X2, X14       \
	VADDSS       X14, X2, X2  \
	VMOVSS       X2, 0(DX) \
	VEXTRACTF128 $1, Y6, X14 \
	VADDPS       X14, X6, X6  \
	VMOVHLPS     X6, X6, X14  \
	VADDPS       X14, X6, X6  \
	VMOVSHDUP    X6, X14       \
	VADDSS       X14, X6, X6  \
	VMOVSS       X6, 4(DX) \
	ADDQ BX, DX              \
	VEXTRACTF128 $1, Y3, X14 \
	VADDPS       X14, X3, X3  \
	VMOVHLPS     X3, X3, X14  \
	VADDPS       X14, X3, X3  \
	VMOVSHDUP    X3, X14       \
	VADDSS       X14, X3, X3  \
	VMOVSS       X3, 0(DX) \
	VEXTRACTF128 $1, Y7, X14 \
	VADDPS       X14, X7, X7  \
	VMOVHLPS     X7, X7, X14  \
	VADDPS       X14, X7, X7  \
	VMOVSHDUP    X7, X14       \
	VADDSS       X14, X7, X7  \
	VMOVSS       X7, 4(DX) \
	VZEROUPPER               \
	RET

// The several-quad tiles (vecDot2x4QFunc): the 2 x 4 tile's steps for nq
// quads in one call. TILE2X4_STORE_T writes the eight sums with the
// horizontal sums of the eight pairs done together, each in tinyBLAS's
// order as TILE2X4_STORE does it (lanes: hi + lo, then x0+x2 and x1+x3,
// then their sum): the halves of the pairs (row 0, t) and (row 1, t) into
// one vector each, their pairs of lanes added across two such vectors,
// one horizontal add for all eight; about half TILE2X4_STORE's
// operations. Out at DX, ostride bytes in BX; Y8, Y9 scratch, Y0-Y3
// clobbered; SI scratch.
// Ya = [lo + hi of Ya | lo + hi of Yb] (TILE_HALVES), Ya = [x0+x2, x1+x3
// of Ya, the same of Yb] in each 128-bit lane (TILE_LANEPAIRS); Y8, Y9
// scratch.
#define TILE_HALVES(Ya, Yb) \
	VPERM2F128 $0x20, Yb, Ya, Y8 \
	VPERM2F128 $0x31, Yb, Ya, Y9 \
	VADDPS     Y9, Y8, Ya

#define TILE_LANEPAIRS(Ya, Yb) \
	VSHUFPS $0x44, Yb, Ya, Y8 \
	VSHUFPS $0xEE, Yb, Ya, Y9 \
	VADDPS  Y9, Y8, Ya

#define TILE2X4_STORE_T \
	TILE2X4_SUMS_T                 \
	TILE2X4_WRITE_T

// TILE2X4_SUMS_T leaves the eight sums in X2 (tokens 0 and 1: rows 0, 1
// of each) and X3 (tokens 2 and 3); TILE2X4_WRITE_T stores them.
#define TILE2X4_SUMS_T \
	TILE_HALVES(Y0, Y4)            \
	TILE_HALVES(Y1, Y5)            \
	TILE_HALVES(Y2, Y6)            \
	TILE_HALVES(Y3, Y7)            \
	TILE_LANEPAIRS(Y0, Y1)         \
	TILE_LANEPAIRS(Y2, Y3)         \
	VHADDPS      Y2, Y0, Y0        \
	VEXTRACTF128 $1, Y0, X1        \
	VUNPCKLPS    X1, X0, X2        \
	VUNPCKHPS    X1, X0, X3

#define TILE2X4_WRITE_T \
	VMOVQ        X2, (DX)          \
	VMOVHPS      X2, (DX)(BX*1)    \
	VMOVQ        X3, (DX)(BX*2)    \
	LEAQ         (BX)(BX*2), SI    \
	VMOVHPS      X3, (DX)(SI*1)

// TILE2X4_QUADS runs ROW (the row-block macro) over nq quads, weights wb
// bytes a block: the quad's tokens from R13 (astride apart), its quad
// layout from R14, its outputs from DX; then R13, R14 and DX move on by
// four tokens, qstride bytes and four output rows. (R15 stays unused: a
// dynamically linked build's accesses to tileQ5<> would clobber it.)
#define TILE2X4_QUADS(ROW, wb, quad, loop, store) \
	MOVQ a+24(FP), R13             \
	MOVQ ad+40(FP), R14            \
	MOVQ out+56(FP), DX            \
	MOVQ ostride+64(FP), BX        \
	SHLQ $2, BX                    \
quad: \
	MOVQ nb+0(FP), CX              \
	MOVQ astride+32(FP), AX        \
	MOVQ R13, DI                   \
	MOVQ R14, R12                  \
	TILE2X4_START(AX)              \
	TESTQ CX, CX                   \
	JZ    store                    \
loop: \
	ROW(SI, Y0, Y1, Y2, Y3)        \
	ROW(R8, Y4, Y5, Y6, Y7)        \
	TILE2X4_ADVANCE(wb)            \
	DECQ CX                        \
	JNZ  loop                      \
store: \
	TILE2X4_STORE_T                \
	LEAQ (R13)(AX*4), R13          \
	ADDQ qstride+48(FP), R14       \
	LEAQ (DX)(BX*4), DX            \
	DECQ nq+72(FP)                 \
	JNZ  quad                      \
	VZEROUPPER                     \
	RET

// Q8_0 rows widened to int16 (tile_q8_wide.go) against the tokens' wide
// quads (q8_0QuadWide): per pair and block two VPMADDWD (even bytes, odd
// bytes) whose sum is tinyBLAS's lanes exactly, then the conversion and
// the multiply-add as above. Rows at SI and R8 (64 bytes a block), their
// scales as float32 at R9 and R10, the quad at R12 (288 bytes a block:
// the four tokens' scales twice, then each token's even and odd int16).
#define WIDE_PAIR(E, O, imm, acc) \
	VPMADDWD    E(R12), Y8, Y14   \
	VPMADDWD    O(R12), Y9, Y15   \
	VPADDD      Y15, Y14, Y14     \
	VCVTDQ2PS   Y14, Y14          \
	VSHUFPS     $imm, Y13, Y13, Y15 \
	VFMADD231PS Y14, Y15, acc

#define WIDE_ROW(W, S, a0, a1, a2, a3) \
	VMOVDQU      0(W), Y8         \
	VMOVDQU      32(W), Y9        \
	VBROADCASTSS 0(S), Y13        \
	VMULPS       0(R12), Y13, Y13 \
	WIDE_PAIR(32, 64, 0x00, a0)   \
	WIDE_PAIR(96, 128, 0x55, a1)  \
	WIDE_PAIR(160, 192, 0xaa, a2) \
	WIDE_PAIR(224, 256, 0xff, a3)

// WIDE_START sets the rows' int16 (SI, R8) and scales (R9, R10) from w,
// wstride and nb (CX), and clears the accumulators.
#define WIDE_START \
	MOVQ w+8(FP), SI \
	MOVQ wstride+16(FP), R8 \
	ADDQ SI, R8 \
	MOVQ CX, AX \
	SHLQ $6, AX \
	LEAQ (SI)(AX*1), R9 \
	LEAQ (R8)(AX*1), R10 \
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

#define WIDE_BLOCKS(loop, done) \
	TESTQ CX, CX \
	JZ    done \
loop: \
	WIDE_ROW(SI, R9, Y0, Y1, Y2, Y3)  \
	WIDE_ROW(R8, R10, Y4, Y5, Y6, Y7) \
	ADDQ $64, SI \
	ADDQ $64, R8 \
	ADDQ $4, R9 \
	ADDQ $4, R10 \
	ADDQ $288, R12 \
	DECQ CX \
	JNZ  loop \
done:

// Q80_ROW with the 2 x 4 kernel's prefetch of the rows 4 KiB ahead.
#define Q80_ROW_PF(W, a0, a1, a2, a3) \
	PREFETCHT0 4096(W)            \
	Q80_ROW(W, a0, a1, a2, a3)

// func q8_0Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q8_0Tile2x4AVX2(SB), NOSPLIT, $0-64
	TILE2X4_PROLOGUE
	TESTQ CX, CX
	JZ    q80t24done

q80t24loop:
	PREFETCHT0 4096(SI)
	PREFETCHT0 4096(R8)
	Q80_ROW(SI, Y0, Y1, Y2, Y3)
	Q80_ROW(R8, Y4, Y5, Y6, Y7)
	TILE2X4_ADVANCE($34)
	DECQ CX
	JNZ  q80t24loop

q80t24done:
	TILE2X4_STORE

// func q5_0Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q5_0Tile2x4AVX2(SB), NOSPLIT, $0-64
	TILE2X4_PROLOGUE
	TESTQ CX, CX
	JZ    q50t24done

q50t24loop:
	Q50_ROW(SI, Y0, Y1, Y2, Y3)
	Q50_ROW(R8, Y4, Y5, Y6, Y7)
	TILE2X4_ADVANCE($22)
	DECQ CX
	JNZ  q50t24loop

q50t24done:
	TILE2X4_STORE

// func q8_0Tile2x4QAVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, qstride int, out *float32, ostride, nq int)
TEXT ·q8_0Tile2x4QAVX2(SB), NOSPLIT, $0-80
	TILE2X4_QUADS(Q80_ROW_PF, $34, q80qquad, q80qloop, q80qstore)

// func q5_0Tile2x4QAVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, qstride int, out *float32, ostride, nq int)
TEXT ·q5_0Tile2x4QAVX2(SB), NOSPLIT, $0-80
	TILE2X4_QUADS(Q50_ROW, $22, q50qquad, q50qloop, q50qstore)

// func q5_0AsQ8_0AVX2(nb int, dst, src *byte)
// Writes nb Q5_0 blocks as Q8_0 blocks: the scale, then the values
// decoded by Q5_0_DECODE, as the Q5_0 tile does (q5_0RowAsQ8_0Generic).
TEXT ·q5_0AsQ8_0AVX2(SB), NOSPLIT, $0-24
	MOVQ nb+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	VMOVDQU tileQ5<>+0(SB), Y4
	VMOVDQU tileQ5<>+32(SB), Y5
	VMOVDQU tileQ5<>+64(SB), Y6
	VMOVDQU tileQ5<>+96(SB), Y7
	VMOVDQU tileQ5<>+128(SB), Y8

q5asq8loop:
	MOVWLZX      0(SI), AX
	MOVW         AX, 0(DI)
	Q5_0_DECODE(SI, Y14, Y10, X10, X15, Y4, Y5, Y6, Y7, Y8)
	VMOVDQU      Y10, 2(DI)
	ADDQ         $22, SI
	ADDQ         $34, DI
	DECQ         CX
	JNZ          q5asq8loop
	VZEROUPPER
	RET

// func q8_0WideTile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q8_0WideTile2x4AVX2(SB), NOSPLIT, $0-64
	MOVQ nb+0(FP), CX
	MOVQ ad+40(FP), R12
	WIDE_START
	WIDE_BLOCKS(q8wt24loop, q8wt24done)
	TILE2X4_STORE

// func q8_0WideTile2x4QAVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, qstride int, out *float32, ostride, nq int)
TEXT ·q8_0WideTile2x4QAVX2(SB), NOSPLIT, $0-80
	MOVQ ad+40(FP), R14
	MOVQ out+56(FP), DX
	MOVQ ostride+64(FP), BX
	SHLQ $2, BX

q8wtqquad:
	MOVQ nb+0(FP), CX
	MOVQ R14, R12
	WIDE_START
	WIDE_BLOCKS(q8wtqloop, q8wtqstore)
	TILE2X4_STORE_T
	ADDQ qstride+48(FP), R14
	LEAQ (DX)(BX*4), DX
	DECQ nq+72(FP)
	JNZ  q8wtqquad
	VZEROUPPER
	RET

// func widenQ8_0BlocksAVX2(nb int, src *byte, dq *byte, dqStride int, ds *byte, dsStride int)
// Writes nb Q8_0 blocks (src, 34 bytes apart) as int16: block b's even
// bytes then its odd bytes (64 bytes at dq + b*dqStride), and its scale
// as float32 at ds + b*dsStride (widenQ8_0Rows, packQ8_0QuadWide).
TEXT ·widenQ8_0BlocksAVX2(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ dq+16(FP), DI
	MOVQ dqStride+24(FP), AX
	MOVQ ds+32(FP), DX
	MOVQ dsStride+40(FP), BX
	TESTQ CX, CX
	JZ    wq8done

wq8loop:
	VMOVDQU      2(SI), Y0
	VPSLLW       $8, Y0, Y1
	VPSRAW       $8, Y1, Y1
	VPSRAW       $8, Y0, Y0
	VMOVDQU      Y1, 0(DI)
	VMOVDQU      Y0, 32(DI)
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, X2
	VMOVSS       X2, 0(DX)
	ADDQ         $34, SI
	ADDQ         AX, DI
	ADDQ         BX, DX
	DECQ         CX
	JNZ          wq8loop

wq8done:
	VZEROUPPER
	RET

// Q4_1 and Q5_1 weights x Q8_1 tokens (vecDotQ4_1Q8_1Generic,
// vecDotQ5_1Q8_1Generic: ggml_vec_dot_q4_1_q8_1's AVX2 order): per pair
// and block acc += (d_w*d_a) * float(lanes), the lanes VPMADDUBSW of the
// row's unsigned quants and the token's bytes summed in fours, and per row
// and token min += m_w*s_a (fused); out = tinyBLAS's horizontal sum + min.
// The quants need no sign step (they are unsigned), the tokens' d and s
// come as float32 from their quad (q8_1QuadScales at R12): a pair costs
// the token load and five operations where the one-row, four-token
// kernel (vecDotQ4_1Q8_1x4AVX2) spends seven, two of them converting the
// token's scale again for every row. Registers as in TILE_ROW; the row's
// quants in Y8, the 0x0F bytes in Y9, the rows' min terms for the four
// tokens in X10 and X11.

// tileQ51<>: 0x10 bytes (the Q5_1 high bit's place).
DATA tileQ51<>+0(SB)/8, $0x1010101010101010
DATA tileQ51<>+8(SB)/8, $0x1010101010101010
DATA tileQ51<>+16(SB)/8, $0x1010101010101010
DATA tileQ51<>+24(SB)/8, $0x1010101010101010
GLOBL tileQ51<>(SB), RODATA|NOPTR, $32

#define Q1_PAIR(P, imm, acc) \
	VPMADDUBSW  4(P), Y8, Y15       \
	VPMADDWD    Y12, Y15, Y15       \
	Q1_FINISH(imm, acc)

// Q1_PAIR_VNNI is Q1_PAIR with one VPDPBUSD for the lanes (the same
// integers: the products summed in fours exactly).
#define Q1_PAIR_VNNI(P, imm, acc) \
	VPXOR       Y15, Y15, Y15       \
	VPDPBUSD    4(P), Y8, Y15       \
	Q1_FINISH(imm, acc)

#define Q1_FINISH(imm, acc) \
	VCVTDQ2PS   Y15, Y15            \
	VSHUFPS     $imm, Y13, Y13, Y14 \
	VFMADD231PS Y15, Y14, acc

// Q1_ROW: the row block at W (its quants already in Y8) against the four
// tokens into a0..a3, its min term into mn.
#define Q1_ROW(PAIR, W, mn, a0, a1, a2, a3) \
	VPBROADCASTW 0(W), X13           \
	VCVTPH2PS    X13, X13            \
	VMULPS       (R12), X13, X13     \
	VINSERTF128  $1, X13, Y13, Y13   \
	VPBROADCASTW 2(W), X14           \
	VCVTPH2PS    X14, X14            \
	VFMADD231PS  16(R12), X14, mn    \
	PAIR(DI, 0x00, a0)               \
	PAIR(R9, 0x55, a1)               \
	PAIR(R10, 0xaa, a2)              \
	PAIR(R11, 0xff, a3)

// Q4_1 quants (16 bytes at off(W)): low nibbles then high nibbles in Y8.
#define Q41_QUANTS(W, off) \
	VMOVDQU     off(W), X8          \
	VPSRLW      $4, X8, X14         \
	VINSERTI128 $1, X14, Y8, Y8     \
	VPAND       Y9, Y8, Y8

#define Q41_ROW(PAIR, W, mn, a0, a1, a2, a3) \
	Q41_QUANTS(W, 4)                 \
	Q1_ROW(PAIR, W, mn, a0, a1, a2, a3)

// Q5_1: the nibbles at 8(W) ORed with 0x10 where bit i of qh (4(W)) is
// set, as ggml's bytes_from_bits_32.
#define Q51_ROW(PAIR, W, mn, a0, a1, a2, a3) \
	VPBROADCASTD 4(W), Y15                \
	VPSHUFB      tileQ5<>+0(SB), Y15, Y15 \
	VPOR         tileQ5<>+32(SB), Y15, Y15 \
	VPCMPEQB     tileQ5<>+64(SB), Y15, Y15 \
	VPAND        tileQ51<>+0(SB), Y15, Y15 \
	Q41_QUANTS(W, 8)                      \
	VPOR         Y15, Y8, Y8              \
	Q1_ROW(PAIR, W, mn, a0, a1, a2, a3)

// Q1_TILE is the body of the tiles: ROW's blocks of wb bytes, PAIR's
// products.
#define Q1_TILE(ROW, PAIR, wb, loop, done) \
	MOVQ nb+0(FP), CX                  \
	MOVQ a+24(FP), DI                  \
	MOVQ astride+32(FP), BX            \
	MOVQ ad+40(FP), R12                \
	TILE2X4_START(BX)                  \
	VXORPS       X10, X10, X10         \
	VXORPS       X11, X11, X11         \
	MOVL         $0x0F0F0F0F, AX       \
	VMOVD        AX, X9                \
	VPBROADCASTD X9, Y9                \
	TESTQ CX, CX                       \
	JZ    done                         \
loop: \
	ROW(PAIR, SI, X10, Y0, Y1, Y2, Y3) \
	ROW(PAIR, R8, X11, Y4, Y5, Y6, Y7) \
	ADDQ $wb, SI                       \
	ADDQ $wb, R8                       \
	ADDQ $36, DI                       \
	ADDQ $36, R9                       \
	ADDQ $36, R10                      \
	ADDQ $36, R11                      \
	ADDQ $32, R12                      \
	DECQ CX                            \
	JNZ  loop                          \
done: \
	MOVQ out+48(FP), DX                \
	MOVQ ostride+56(FP), BX            \
	SHLQ $2, BX                        \
	TILE2X4_SUMS_T                     \
	VUNPCKLPS    X11, X10, X4          \
	VUNPCKHPS    X11, X10, X5          \
	VADDPS       X4, X2, X2            \
	VADDPS       X5, X3, X3            \
	TILE2X4_WRITE_T                    \
	VZEROUPPER                         \
	RET

// func q4_1Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q4_1Tile2x4AVX2(SB), NOSPLIT, $0-64
	Q1_TILE(Q41_ROW, Q1_PAIR, 20, q41t24loop, q41t24done)

// func q5_1Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q5_1Tile2x4AVX2(SB), NOSPLIT, $0-64
	Q1_TILE(Q51_ROW, Q1_PAIR, 24, q51t24loop, q51t24done)

// func q4_1Tile2x4VNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
// (The avx512vnni sets' twins: VPDPBUSD for VPMADDUBSW and VPMADDWD.)
TEXT ·q4_1Tile2x4VNNI(SB), NOSPLIT, $0-64
	Q1_TILE(Q41_ROW, Q1_PAIR_VNNI, 20, q41v24loop, q41v24done)

// func q5_1Tile2x4VNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q5_1Tile2x4VNNI(SB), NOSPLIT, $0-64
	Q1_TILE(Q51_ROW, Q1_PAIR_VNNI, 24, q51v24loop, q51v24done)
