//go:build !purego

#include "q4k_amd64.h"
#include "quad_amd64.h"
#include "lanes_amd64.h"
#include "textflag.h"

// Packed (row-interleaved) kernels; layouts in packed.go and packed_q8.go.
// Each reproduces, per row, the float steps of the generic single-row
// kernel of its type, with eight rows in the eight lanes of a vector.

// PKPF is how far ahead (bytes) the kernels prefetch their group's stream:
// 16 Q4_0 block columns. Decode reads weights from DRAM; this distance
// measured 10-15% faster than one of 4 block columns.
#define PKPF 2304

// Prefetches the three cache lines a Q4_0 block column may touch, 1 KiB
// ahead of W (the four-stream kernels: with four streams in flight a
// shorter distance than PKPF suffices).
#define PK_PF4(W) \
	PREFETCHT0 1024(W) \
	PREFETCHT0 1088(W) \
	PREFETCHT0 1152(W)

// Q4K_GEMV4 is the body of q4_Kx8Gemv4AVX2 and its prefetching twin (PF
// Q4K_PF4 or Q4K_NOPF4 at each half-chunk turn). (Here, before the first
// TEXT: go vet reads argument names against the preceding function.)
#define Q4K_GEMV4(PF, col, chunk, done) \
	GEMV4_ARGS \
	PK_CONSTS \
	Q4K_ZERO4(Y13) \
	TESTQ   CX, CX \
	JZ      done \
col: \
	VPXOR Y8, Y8, Y8 \
	VPXOR Y9, Y9, Y9 \
	VPXOR Y10, Y10, Y10 \
	VPXOR Y11, Y11, Y11 \
	XORQ  R11, R11 \
	XORQ  R12, R12 \
chunk: \
	PF \
	Q4K_CHUNK4G \
	ADDQ $256, R11 \
	ADDQ $16, R12 \
	CMPQ R12, $64 \
	JLT  chunk \
	Q4K_FLOAT4G(SI, Y8, 0) \
	Q4K_FLOAT4G(R8, Y9, 64) \
	Q4K_FLOAT4G(R9, Y10, 128) \
	Q4K_FLOAT4G(R10, Y11, 192) \
	Q4K_NEXT4(Q8K_QUAD_MAIN) \
	DECQ CX \
	JNZ  col \
done: \
	MOVQ    out+32(FP), DX \
	MOVQ    ostride+40(FP), BX \
	SHLQ    $2, BX \
	Q4K_STORE4(BX) \
	VZEROUPPER \
	RET

// Q4K_PF4 asks for the chunk's 256 bytes of each stream two block columns
// (2368 bytes) ahead, as the zmm kernel's VQ4K_PF4 (on Intel CPUs:
// streamPrefetch); Q4K_NOPF4 does not.
#define Q4K_PF4 \
	PREFETCHT0 2528(SI)(R11*1) \
	PREFETCHT0 2592(SI)(R11*1) \
	PREFETCHT0 2656(SI)(R11*1) \
	PREFETCHT0 2720(SI)(R11*1) \
	PREFETCHT0 2528(R8)(R11*1) \
	PREFETCHT0 2592(R8)(R11*1) \
	PREFETCHT0 2656(R8)(R11*1) \
	PREFETCHT0 2720(R8)(R11*1) \
	PREFETCHT0 2528(R9)(R11*1) \
	PREFETCHT0 2592(R9)(R11*1) \
	PREFETCHT0 2656(R9)(R11*1) \
	PREFETCHT0 2720(R9)(R11*1) \
	PREFETCHT0 2528(R10)(R11*1) \
	PREFETCHT0 2592(R10)(R11*1) \
	PREFETCHT0 2656(R10)(R11*1) \
	PREFETCHT0 2720(R10)(R11*1)

#define Q4K_NOPF4

// Y15 = 0x0F bytes, Y13 = int16 ones.
#define PK_CONSTS \
	MOVL         $0x0F0F0F0F, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15        \
	VPCMPEQW     Y13, Y13, Y13   \
	VPSRLW       $15, Y13, Y13

// Y4 = low nibbles, Y5 = high nibbles of the 32 bytes at mem.
#define PK_NIBBLES(mem) \
	VMOVDQU mem, Y4     \
	VPSRLW  $4, Y4, Y5  \
	VPAND   Y15, Y4, Y4 \
	VPAND   Y15, Y5, Y5

// Stores Y8..Y11 (tokens 0..3) to out, out+ostride, ... (ostride in floats),
// the first ntok of them.
#define PK_STORE4(name) \
	MOVQ    ostride+32(FP), BX \
	SHLQ    $2, BX             \
	MOVQ    ntok+40(FP), AX    \
	VMOVUPS Y8, (DX)           \
	CMPQ    AX, $2             \
	JLT     name          \
	ADDQ    BX, DX             \
	VMOVUPS Y9, (DX)           \
	CMPQ    AX, $3             \
	JLT     name          \
	ADDQ    BX, DX             \
	VMOVUPS Y10, (DX)          \
	CMPQ    AX, $4             \
	JLT     name          \
	ADDQ    BX, DX             \
	VMOVUPS Y11, (DX)          \
name:                     \
	VZEROUPPER                 \
	RET

// A packed gemm's body: the arguments into their registers, the
// accumulators cleared, COL(EACH) per block column, then the stores (loop,
// done and ret: the function's labels).
#define PK_GEMM(COL, EACH, loop, done, ret) \
	MOVQ nb+0(FP), CX  \
	MOVQ w+8(FP), SI   \
	MOVQ a+16(FP), DI  \
	MOVQ out+24(FP), DX \
	Q40_GM_ZERO        \
	TESTQ CX, CX       \
	JZ    done         \
loop:                  \
	COL(EACH)          \
	JNZ loop           \
done:                  \
	PK_STORE4(ret)

// Piece c of a Q4_0 block column (weights at wo(W), token 0's activation
// pieces c and 4+c at ao(DI) and ao+64(DI)) added to the int16 sums in Y0;
// Y2-Y5 scratch.
#define Q40_GV_PIECE(W, wo, ao) \
	PK_NIBBLES(wo(W))         \
	VPBROADCASTD ao(DI), Y2   \
	VPBROADCASTD ao+64(DI), Y3 \
	VPMADDUBSW   Y2, Y4, Y4   \
	VPMADDUBSW   Y3, Y5, Y5   \
	VPADDW       Y4, Y0, Y0   \
	VPADDW       Y5, Y0, Y0

// One Q4_0 block column of the group at W for token 0 of the quad at DI,
// added to the float accumulator acc; Y0-Y5 scratch.
#define Q40_GV_COL(W, acc) \
	PK_NIBBLES(16(W)) \
	VPBROADCASTD 32(DI), Y2 \
	VPBROADCASTD 96(DI), Y3 \
	VPMADDUBSW   Y2, Y4, Y0 \
	VPMADDUBSW   Y3, Y5, Y1 \
	VPADDW       Y1, Y0, Y0 \
	Q40_GV_PIECE(W, 48, 48) \
	Q40_GV_PIECE(W, 80, 64) \
	Q40_GV_PIECE(W, 112, 80) \
	VPMADDWD     Y13, Y0, Y0 \
	VPBROADCASTD 16(DI), Y1 \
	VPSLLD       $3, Y1, Y1 \
	VPSUBD       Y1, Y0, Y0 \
	VCVTDQ2PS    Y0, Y0 \
	VCVTPH2PS    (W), Y1 \
	VBROADCASTSS (DI), Y2 \
	VMULPS       Y2, Y1, Y1 \
	VFMADD231PS  Y1, Y0, acc

// Q4_0 x Q8_0, one group of eight rows against token 0 of the quads.
//
// Per block: the unsigned nibbles u of piece c (Y4 low: elements 4c..4c+3,
// Y5 high: 16+4c..) times the broadcast activation pieces c and 4+c, summed
// in int16 (eight products of at most 2*15*127 fit), widened to int32 and
// minus 8 * sum(a): exactly the block integer sum of (u-8)*a per row. Then,
// as vecDotQ4_0Q8_0Generic: acc = fma(float(s), d_w * d_a, acc).

// func q4_0x8GemvAVX2(nb int, w, a *byte, out *float32)
TEXT ·q4_0x8GemvAVX2(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	PK_CONSTS
	VXORPS Y7, Y7, Y7
	TESTQ  CX, CX
	JZ     q40gvdone

q40gvloop:
	PREFETCHT0 PKPF(SI)
	PREFETCHT0 PKPF+64(SI)
	PREFETCHT0 PKPF+128(SI)
	Q40_GV_COL(SI, Y7)
	ADDQ         $144, SI
	ADDQ         $160, DI
	DECQ         CX
	JNZ          q40gvloop

q40gvdone:
	VMOVUPS Y7, (DX)
	VZEROUPPER
	RET

// Four groups gstride bytes apart in step, as q4_0x8Gemv4VNNI (four DRAM
// streams per core); float accumulators Y7, Y6, Y8, Y9.

// Q40_GEMV4 is the body of q4_0x8Gemv4AVX2 and its prefetching twin (PF
// Q40_PF16 or Q40_NOPF at each block column, own labels).
#define Q40_GEMV4(PF, loop, done) \
	GEMV4_ARGS                 \
	PK_CONSTS                  \
	VXORPS Y7, Y7, Y7          \
	VXORPS Y6, Y6, Y6          \
	VXORPS Y8, Y8, Y8          \
	VXORPS Y9, Y9, Y9          \
	TESTQ  CX, CX              \
	JZ     done                \
loop:                          \
	PF                         \
	Q40_GV_COL(SI, Y7)         \
	Q40_GV_COL(R8, Y6)         \
	Q40_GV_COL(R9, Y8)         \
	Q40_GV_COL(R10, Y9)        \
	GEMV4_NEXT($144)           \
	ADDQ $160, DI              \
	DECQ CX                    \
	JNZ  loop                  \
done:                          \
	GEMV4_OUT                  \
	VMOVUPS Y7, (DX)           \
	ADDQ    BX, DX             \
	VMOVUPS Y6, (DX)           \
	ADDQ    BX, DX             \
	VMOVUPS Y8, (DX)           \
	ADDQ    BX, DX             \
	VMOVUPS Y9, (DX)           \
	VZEROUPPER                 \
	RET

#define Q40_PF16 \
	PK_PF4(SI)  \
	PK_PF4(R8)  \
	PK_PF4(R9)  \
	PK_PF4(R10)

#define Q40_NOPF

// func q4_0x8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
TEXT ·q4_0x8Gemv4AVX2(SB), NOSPLIT, $0-48
	Q40_GEMV4(Q40_NOPF, q40gv4loop, q40gv4done)

// func q4_0x8Gemv4PfAVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// q4_0x8Gemv4AVX2 with software prefetch.
TEXT ·q4_0x8Gemv4PfAVX2(SB), NOSPLIT, $0-48
	Q40_GEMV4(Q40_PF16, q40gv4ploop, q40gv4pdone)

// Q4_0 x Q8_0, one group of eight rows against the first two, three or
// four tokens of the quads: out[t*ostride+r] for t < ntok. Y0-Y3 are the
// tokens' int16 then int32 block sums, Y8-Y11 their float accumulators;
// the nibbles of each piece are unpacked once for the tokens. Each token
// takes the same steps in every variant (the gemv's, Q40_GV_COL), so the
// variants differ only in how many tokens share the unpacking: a batch
// of two or three tokens (as many sequences decoded together) no longer
// pays for four.

// Token k's products with the first piece of a block column (its int16
// sums start in YS).
#define Q40_GM_FIRST(k, YS, YF, c) \
	VPBROADCASTD 32+4*k(DI), Y6 \
	VPMADDUBSW   Y6, Y4, YS     \
	VPBROADCASTD 96+4*k(DI), Y14 \
	VPMADDUBSW   Y14, Y5, Y7    \
	VPADDW       Y7, YS, YS

// Token k's products with piece c (1..3) added to YS.
#define Q40_GM_PIECE(k, YS, YF, c) \
	VPBROADCASTD 32+16*c+4*k(DI), Y6 \
	VPMADDUBSW   Y6, Y4, Y6  \
	VPADDW       Y6, YS, YS  \
	VPBROADCASTD 96+16*c+4*k(DI), Y14 \
	VPMADDUBSW   Y14, Y5, Y7 \
	VPADDW       Y7, YS, YS

// Token k's block sum (YS) scaled into its float accumulator YF; Y12
// holds the rows' scales.
#define Q40_GM_FLOAT(k, YS, YF, c) \
	VPMADDWD     Y13, YS, YS   \
	VPBROADCASTD 16+4*k(DI), Y6 \
	VPSLLD       $3, Y6, Y6   \
	VPSUBD       Y6, YS, YS   \
	VCVTDQ2PS    YS, YS       \
	VBROADCASTSS 4*k(DI), Y7  \
	VMULPS       Y7, Y12, Y7  \
	VFMADD231PS  Y7, YS, YF

#define Q40_GM_ZERO \
	PK_CONSTS           \
	VXORPS Y8, Y8, Y8   \
	VXORPS Y9, Y9, Y9   \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11

// Q40_EACHn applies the per-token macro M (above: k, its int16 then int32
// sums YS, its float accumulator YF, and the piece c) to the first n tokens.
#define Q40_EACH2(M, c) \
	M(0, Y0, Y8, c) \
	M(1, Y1, Y9, c)

#define Q40_EACH3(M, c) \
	Q40_EACH2(M, c) \
	M(2, Y2, Y10, c)

#define Q40_EACH4(M, c) \
	Q40_EACH3(M, c) \
	M(3, Y3, Y11, c)

// One block column of the group at SI for the tokens of EACH (one of
// Q40_EACHn), then on to the next; ZF as DECQ leaves it.
#define Q40_GM_COL(EACH) \
	PREFETCHT0 PKPF(SI)           \
	PREFETCHT0 PKPF+64(SI)        \
	PREFETCHT0 PKPF+128(SI)       \
	PK_NIBBLES(16(SI))            \
	EACH(Q40_GM_FIRST, 0)         \
	PK_NIBBLES(48(SI))            \
	EACH(Q40_GM_PIECE, 1)         \
	PK_NIBBLES(80(SI))            \
	EACH(Q40_GM_PIECE, 2)         \
	PK_NIBBLES(112(SI))           \
	EACH(Q40_GM_PIECE, 3)         \
	VCVTPH2PS (SI), Y12           \
	EACH(Q40_GM_FLOAT, 0)         \
	ADDQ $144, SI                 \
	ADDQ $160, DI                 \
	DECQ CX

// func q4_0x8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
TEXT ·q4_0x8GemmAVX2(SB), NOSPLIT, $0-48
	PK_GEMM(Q40_GM_COL, Q40_EACH4, q40gmloop, q40gmdone, q40gmret)

// func q4_0x8Gemm3AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
// Tokens 0-2 (ntok 3).
TEXT ·q4_0x8Gemm3AVX2(SB), NOSPLIT, $0-48
	PK_GEMM(Q40_GM_COL, Q40_EACH3, q40gm3loop, q40gm3done, q40gm3ret)

// func q4_0x8Gemm2AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
// Tokens 0-1 (ntok 2).
TEXT ·q4_0x8Gemm2AVX2(SB), NOSPLIT, $0-48
	PK_GEMM(Q40_GM_COL, Q40_EACH2, q40gm2loop, q40gm2done, q40gm2ret)

// Q4_K x Q8_K, one group of eight rows (layouts: q4_KGroupBytes and
// q8_KQuad in packed_q8.go).
//
// The Q4_K gemv kernels issue no software prefetch: on an AMD EPYC Zen4
// one PREFETCHT0 per cache line of each stream (19 per block column, two
// columns ahead, four streams) doubled the CPU time of decode streaming
// from DRAM (BenchmarkMatMulStream Q4_K/tok1, cpu-ns/op 805-1050k with,
// 330-390k without, alternating; two prefetches per column far ahead:
// 560-680k). On an AMD EPYC Zen3 (where this AVX2 set runs by default)
// prefetches 1-8 columns ahead changed nothing either, and a four-group
// gemv in the style of the other packed types (each piece of the four
// groups in turn) streamed slower than one group at a time (20.7 vs 23-25
// GB/s with two threads, 10.5 vs 13-14 GB/s with one). Four groups taking
// turns by whole block columns (q4_Kx8Gemv4AVX2) do not: on the same Zen3
// they decoded Llama-2-7B Q4_K_M 5% faster than one group at a time
// (median of 6 alternating runs, 5.41 vs 5.13 tok/s; TinyLlama unchanged,
// 32.9 vs 32.7), and ran its 32000-row output matrix from DRAM 19% faster.
//
// Per row, the float order of llama.cpp's repacked kernels
// (vecdot_repack.go): the gemv (one token) sums a block column to the
// exact integers isum = sum_j sc(j)*dot(j) and summ = sum_j m(j)*P(j) and
// accumulates acc = fma(isum, d_w*d_a, acc), accm = fma(summ,
// dmin_w*d_a, accm); the gemm (four tokens) accumulates acc per pair of
// sub-blocks (chunk) and the min terms per chunk in a second pass over
// the block columns. The result is acc - accm. A piece's products fit
// int16 for four pieces (eight byte products of at most 2*15*127 per int16
// half), so each half chunk (pieces 4h..4h+3) is summed in int16 and then
// scaled with one VPMADDWD by the scale pairs.

// One piece for token 0: the 32 bytes at wo(W)(R11) against the
// activation slots at ao(DI)(R11) (low nibbles) and ao+16(DI)(R11)
// (high), added to int16 acc.
#define Q4K_PIECE1(W, wo, ao, acc) \
	VMOVDQU      wo(W)(R11*1), Y4     \
	VPSRLW       $4, Y4, Y5           \
	VPAND        Y15, Y4, Y4          \
	VPAND        Y15, Y5, Y5          \
	VPBROADCASTD ao(DI)(R11*1), Y2    \
	VPMADDUBSW   Y2, Y4, Y4           \
	VPBROADCASTD ao+16(DI)(R11*1), Y3 \
	VPMADDUBSW   Y3, Y5, Y5           \
	VPADDW       Y4, acc, acc         \
	VPADDW       Y5, acc, acc

// Half h of chunk k (R11 = 256k, R12 = 16k) of the group at W for token 0
// into the int32 sums isum (Y0, Y2-Y6 scratch).
#define Q4K_HALF1(W, h, isum) \
	VPXOR     Y0, Y0, Y0                         \
	Q4K_PIECE1(W, 160+128*h, 80+128*h, Y0)       \
	Q4K_PIECE1(W, 160+128*h+32, 80+128*h+32, Y0) \
	Q4K_PIECE1(W, 160+128*h+64, 80+128*h+64, Y0) \
	Q4K_PIECE1(W, 160+128*h+96, 80+128*h+96, Y0) \
	VPMOVZXBW 32(W)(R12*1), Y6                   \
	VPMADDWD  Y6, Y0, Y0                         \
	VPADDD    Y0, isum, isum

// Y12 = summ of token t for the group at W: the min pairs of chunk k times
// the token's sum pairs, over k (Y6, Y7 scratch).
#define Q4K_MINS(W, t) \
	VPMOVZXBW    96(W), Y6       \
	VPBROADCASTD 16+4*t(DI), Y7  \
	VPMADDWD     Y7, Y6, Y12     \
	VPMOVZXBW    112(W), Y6      \
	VPBROADCASTD 32+4*t(DI), Y7  \
	VPMADDWD     Y7, Y6, Y6      \
	VPADDD       Y6, Y12, Y12    \
	VPMOVZXBW    128(W), Y6      \
	VPBROADCASTD 48+4*t(DI), Y7  \
	VPMADDWD     Y7, Y6, Y6      \
	VPADDD       Y6, Y12, Y12    \
	VPMOVZXBW    144(W), Y6      \
	VPBROADCASTD 64+4*t(DI), Y7  \
	VPMADDWD     Y7, Y6, Y6      \
	VPADDD       Y6, Y12, Y12

// The gemv step of token t for the group at W: acc = fma(isum, d_w*d_a,
// acc), accm = fma(summ, dmin_w*d_a, accm), isum in I (clobbered), summ in
// Y12 (clobbered); Y6, Y7 scratch.
#define Q4K_FLOAT(W, t, I, acc, accm) \
	VCVTDQ2PS    Y12, Y12     \
	VBROADCASTSS 4*t(DI), Y7  \
	VCVTPH2PS    16(W), Y6    \
	VMULPS       Y7, Y6, Y6   \
	VFMADD231PS  Y12, Y6, accm \
	VCVTPH2PS    (W), Y6      \
	VMULPS       Y7, Y6, Y6   \
	VCVTDQ2PS    I, I         \
	VFMADD231PS  I, Y6, acc

// The gemv kernels loop over the four chunks (R11 = 256k, R12 = 16k)
// rather than unroll them: the unrolled four-group gemv was about 9 KiB of
// code, and Q5_K kernels of that size measured front-end bound on a Zen3.

// func q4_Kx8GemvAVX2(nb int, w, a *byte, out *float32)
TEXT ·q4_Kx8GemvAVX2(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	PK_CONSTS
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ  CX, CX
	JZ     q4kgvdone

q4kgvloop:
	VPXOR Y8, Y8, Y8
	XORQ  R11, R11
	XORQ  R12, R12

q4kgvchunk:
	Q4K_HALF1(SI, 0, Y8)
	Q4K_HALF1(SI, 1, Y8)
	ADDQ $256, R11
	ADDQ $16, R12
	CMPQ R12, $64
	JLT  q4kgvchunk
	Q4K_MINS(SI, 0)
	Q4K_FLOAT(SI, 0, Y8, Y10, Y11)
	ADDQ $1184, SI
	ADDQ $Q8K_QUAD_MAIN, DI
	DECQ CX
	JNZ  q4kgvloop

q4kgvdone:
	VSUBPS  Y11, Y10, Y10
	VMOVUPS Y10, (DX)
	VZEROUPPER
	RET

// Chunk k (R11 = 256k, R12 = 16k) of the four groups, by half chunk in
// turn, into their int32 sums Y8-Y11: 128 bytes of each stream at a time.
#define Q4K_CHUNK4G \
	Q4K_HALF1(SI, 0, Y8)   \
	Q4K_HALF1(R8, 0, Y9)   \
	Q4K_HALF1(R9, 0, Y10)  \
	Q4K_HALF1(R10, 0, Y11) \
	Q4K_HALF1(SI, 1, Y8)   \
	Q4K_HALF1(R8, 1, Y9)   \
	Q4K_HALF1(R9, 1, Y10)  \
	Q4K_HALF1(R10, 1, Y11)

// The gemv step of the group at W with isum I, its acc and accm at off and
// off+32 in the frame (Y13 scratch).
#define Q4K_FLOAT4G(W, I, off) \
	Q4K_MINS(W, 0)                 \
	VMOVUPS off(SP), Y13           \
	VMOVUPS off+32(SP), Y14        \
	Q4K_FLOAT(W, 0, I, Y13, Y14)   \
	VMOVUPS Y13, off(SP)           \
	VMOVUPS Y14, off+32(SP)

// q4_Kx8Gemv4AVX2 is the gemv on four groups gstride bytes apart (four
// DRAM streams per core), group g's outputs at out + g*ostride floats,
// each with the gemv's float steps. The groups take turns by half chunk
// (128 bytes of each stream), their block-column integer sums in Y8-Y11,
// acc and accm in the frame (64g, 64g+32). On the Zen3 a pure read of four
// streams in turns of 18 cache lines (a block column) ran at 19-22 GB/s,
// in turns of 1-9 lines at 26-30: turns by whole block column (the
// earlier version of this kernel) left DRAM idle, and one group at a
// time more so. Also measured there and not kept: software prefetches of
// each turn's group 1-4 columns ahead, every or every other line (9-90%
// slower, with whole-column turns). On Intel CPUs the twin that
// prefetches two columns ahead runs (streamPrefetch; Xeon, --kernels
// avx2, tok1: 19.2-20.9 -> 21.3-24.1 GB/s).

// func q4_Kx8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
TEXT ·q4_Kx8Gemv4AVX2(SB), NOSPLIT, $256-48
	Q4K_GEMV4(Q4K_NOPF4, q4kg4col, q4kg4chunk, q4kg4done)

// func q4_Kx8Gemv4PfAVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// q4_Kx8Gemv4AVX2 prefetching its streams (streamPrefetch).
TEXT ·q4_Kx8Gemv4PfAVX2(SB), NOSPLIT, $256-48
	Q4K_GEMV4(Q4K_PF4, q4kg4pcol, q4kg4pchunk, q4kg4pdone)

// The one-token kernels in the four-token (gemm) order, for batches whose
// every token must take that order whatever their size (the server's
// batch-invariant passes, MatMul's uniform order): per row and chunk k,
// acc = fma(float(s_k), d_w*d_a, acc) and accm = fma(float(m_k),
// dmin_w*d_a, accm) (vecDotQ4_KQ8_KQuadGeneric), where the gemv above
// takes one step per block column. Token 0 of the quad at DI (the Go
// wrappers point DI at token t's fields).

// (Q4K_QSTEP, q4k_amd64.h: the float steps of a chunk.)

// func q4_Kx8GemvQAVX2(nb int, w, a *byte, out *float32)
TEXT ·q4_Kx8GemvQAVX2(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	PK_CONSTS
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ  CX, CX
	JZ     q4kgqdone

q4kgqloop:
	VBROADCASTSS (DI), Y7
	VCVTPH2PS    (SI), Y12
	VMULPS       Y7, Y12, Y12 // d_w*d_a
	VCVTPH2PS    16(SI), Y14
	VMULPS       Y7, Y14, Y14 // dmin_w*d_a
	XORQ         R11, R11
	XORQ         R12, R12

q4kgqchunk:
	VPXOR Y8, Y8, Y8
	Q4K_HALF1(SI, 0, Y8)
	Q4K_HALF1(SI, 1, Y8)
	Q4K_QSTEP(SI, Y8, Y12, Y14, Y10, Y11)
	ADDQ $256, R11
	ADDQ $16, R12
	CMPQ R12, $64
	JLT  q4kgqchunk
	ADDQ $1184, SI
	ADDQ $Q8K_QUAD_MAIN, DI
	DECQ CX
	JNZ  q4kgqloop

q4kgqdone:
	VSUBPS  Y11, Y10, Y10
	VMOVUPS Y10, (DX)
	VZEROUPPER
	RET

// Q4K_QSTEP for the group at W with chunk sums I, its acc and accm at off
// and off+32 in the frame, its scales 256 bytes further (Y13, Y14 scratch).
#define Q4K_QSTEP4G(W, I, off) \
	VMOVUPS off(SP), Y13                                \
	VMOVUPS off+32(SP), Y14                             \
	Q4K_QSTEP(W, I, off+256(SP), off+288(SP), Y13, Y14) \
	VMOVUPS Y13, off(SP)                                \
	VMOVUPS Y14, off+32(SP)

// q4_Kx8Gemv4QAVX2 is q4_Kx8GemvQAVX2 on four groups gstride bytes apart,
// read as q4_Kx8Gemv4AVX2 reads them (by half chunk in turn).

// func q4_Kx8Gemv4QAVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
TEXT ·q4_Kx8Gemv4QAVX2(SB), NOSPLIT, $512-48
	GEMV4_ARGS
	PK_CONSTS
	Q4K_ZERO4(Y13)
	TESTQ   CX, CX
	JZ      q4kq4done

q4kq4col:
	VBROADCASTSS (DI), Y7
	Q4K_DDM(SI, 256)
	Q4K_DDM(R8, 320)
	Q4K_DDM(R9, 384)
	Q4K_DDM(R10, 448)
	XORQ R11, R11
	XORQ R12, R12

q4kq4chunk:
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	VPXOR Y10, Y10, Y10
	VPXOR Y11, Y11, Y11
	Q4K_CHUNK4G
	Q4K_QSTEP4G(SI, Y8, 0)
	Q4K_QSTEP4G(R8, Y9, 64)
	Q4K_QSTEP4G(R9, Y10, 128)
	Q4K_QSTEP4G(R10, Y11, 192)
	ADDQ $256, R11
	ADDQ $16, R12
	CMPQ R12, $64
	JLT  q4kq4chunk
	Q4K_NEXT4(Q8K_QUAD_MAIN)
	DECQ CX
	JNZ  q4kq4col

q4kq4done:
	MOVQ    out+32(FP), DX
	MOVQ    ostride+40(FP), BX
	SHLQ    $2, BX
	Q4K_STORE4(BX)
	VZEROUPPER
	RET

// Two tokens at once in the four-token order on four groups (the
// few-token path's pairs under a uniform order): each piece's nibbles
// unpacked once for the token at DI and the next (4 bytes on in every
// slot), int16 sums Y0 and Y1, the chunk sums of group g and token t in
// Y(7+2g+t); in the frame per group g and token t (slot 2g+t) acc and
// accm at 64 slot, d_w*d_a and dmin_w*d_a 512 bytes further.

#define Q4K_PIECE2(W, wo, ao) \
	VMOVDQU      wo(W)(R11*1), Y4     \
	VPSRLW       $4, Y4, Y5           \
	VPAND        Y15, Y4, Y4          \
	VPAND        Y15, Y5, Y5          \
	VPBROADCASTD ao(DI)(R11*1), Y2    \
	VPMADDUBSW   Y2, Y4, Y2           \
	VPADDW       Y2, Y0, Y0           \
	VPBROADCASTD ao+16(DI)(R11*1), Y3 \
	VPMADDUBSW   Y3, Y5, Y3           \
	VPADDW       Y3, Y0, Y0           \
	VPBROADCASTD ao+4(DI)(R11*1), Y2  \
	VPMADDUBSW   Y2, Y4, Y2           \
	VPADDW       Y2, Y1, Y1           \
	VPBROADCASTD ao+20(DI)(R11*1), Y3 \
	VPMADDUBSW   Y3, Y5, Y3           \
	VPADDW       Y3, Y1, Y1

// Half h of chunk k (R11 = 256k, R12 = 16k) of the group at W for both
// tokens into their int32 sums s0 and s1 (Y0-Y6 scratch).
#define Q4K_HALF2(W, h, s0, s1) \
	VPXOR     Y0, Y0, Y0                         \
	VPXOR     Y1, Y1, Y1                         \
	Q4K_PIECE2(W, 160+128*h, 80+128*h)           \
	Q4K_PIECE2(W, 160+128*h+32, 80+128*h+32)     \
	Q4K_PIECE2(W, 160+128*h+64, 80+128*h+64)     \
	Q4K_PIECE2(W, 160+128*h+96, 80+128*h+96)     \
	VPMOVZXBW 32(W)(R12*1), Y6                   \
	VPMADDWD  Y6, Y0, Y0                         \
	VPADDD    Y0, s0, s0                         \
	VPMADDWD  Y6, Y1, Y1                         \
	VPADDD    Y1, s1, s1

// The chunk's float steps of token t (0, 1) for the group at W, chunk sums
// I, frame slot at off (Y0-Y3 scratch).
#define Q4K_QSTEP2(W, t, I, off) \
	VMOVUPS      off(SP), Y0                  \
	VMOVUPS      off+32(SP), Y1               \
	VCVTDQ2PS    I, I                         \
	VFMADD231PS  off+512(SP), I, Y0           \
	VPMOVZXBW    96(W)(R12*1), Y2             \
	VPBROADCASTD 16+4*t(DI)(R12*1), Y3        \
	VPMADDWD     Y3, Y2, Y2                   \
	VCVTDQ2PS    Y2, Y2                       \
	VFMADD231PS  off+544(SP), Y2, Y1          \
	VMOVUPS      Y0, off(SP)                  \
	VMOVUPS      Y1, off+32(SP)

// d_w*d_a_t and dmin_w*d_a_t of the group at W for both tokens (d_a_0 in
// Y0, d_a_1 in Y1) into the frame slots at off and off+64 (Y2, Y3
// scratch).
#define Q4K_DDM2(W, off) \
	VCVTPH2PS (W), Y2            \
	VMULPS    Y0, Y2, Y3         \
	VMOVUPS   Y3, off+512(SP)    \
	VMULPS    Y1, Y2, Y3         \
	VMOVUPS   Y3, off+576(SP)    \
	VCVTPH2PS 16(W), Y2          \
	VMULPS    Y0, Y2, Y3         \
	VMOVUPS   Y3, off+544(SP)    \
	VMULPS    Y1, Y2, Y3         \
	VMOVUPS   Y3, off+608(SP)

// Group g's two outputs: token t's acc - accm at out + t*tstride (BX bytes).
#define Q4K_OUT2(off) \
	VMOVUPS off(SP), Y0        \
	VSUBPS  off+32(SP), Y0, Y0 \
	VMOVUPS Y0, (DX)           \
	VMOVUPS off+64(SP), Y0     \
	VSUBPS  off+96(SP), Y0, Y0 \
	VMOVUPS Y0, (DX)(BX*1)

// func q4_Kx8Gemv4Qx2AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride, tstride int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q4_Kx8Gemv4Qx2AVX2(SB), 0, $1024-56
	GEMV4_ARGS
	MOVL         $0x0F0F0F0F, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15
	VXORPS  Y0, Y0, Y0
	XORQ    AX, AX

q4kq2zero:
	VMOVUPS Y0, (SP)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, $512
	JLT     q4kq2zero
	TESTQ   CX, CX
	JZ      q4kq2done

q4kq2col:
	VBROADCASTSS (DI), Y0
	VBROADCASTSS 4(DI), Y1
	Q4K_DDM2(SI, 0)
	Q4K_DDM2(R8, 128)
	Q4K_DDM2(R9, 256)
	Q4K_DDM2(R10, 384)
	XORQ R11, R11
	XORQ R12, R12

q4kq2chunk:
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	VPXOR Y10, Y10, Y10
	VPXOR Y11, Y11, Y11
	VPXOR Y12, Y12, Y12
	VPXOR Y13, Y13, Y13
	VPXOR Y14, Y14, Y14
	Q4K_HALF2(SI, 0, Y7, Y8)
	Q4K_HALF2(R8, 0, Y9, Y10)
	Q4K_HALF2(R9, 0, Y11, Y12)
	Q4K_HALF2(R10, 0, Y13, Y14)
	Q4K_HALF2(SI, 1, Y7, Y8)
	Q4K_HALF2(R8, 1, Y9, Y10)
	Q4K_HALF2(R9, 1, Y11, Y12)
	Q4K_HALF2(R10, 1, Y13, Y14)
	Q4K_QSTEP2(SI, 0, Y7, 0)
	Q4K_QSTEP2(SI, 1, Y8, 64)
	Q4K_QSTEP2(R8, 0, Y9, 128)
	Q4K_QSTEP2(R8, 1, Y10, 192)
	Q4K_QSTEP2(R9, 0, Y11, 256)
	Q4K_QSTEP2(R9, 1, Y12, 320)
	Q4K_QSTEP2(R10, 0, Y13, 384)
	Q4K_QSTEP2(R10, 1, Y14, 448)
	ADDQ $256, R11
	ADDQ $16, R12
	CMPQ R12, $64
	JLT  q4kq2chunk
	Q4K_NEXT4(Q8K_QUAD_MAIN)
	DECQ CX
	JNZ  q4kq2col

q4kq2done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), CX
	SHLQ $2, CX
	MOVQ tstride+48(FP), BX
	SHLQ $2, BX
	Q4K_OUT2(0)
	ADDQ CX, DX
	Q4K_OUT2(128)
	ADDQ CX, DX
	Q4K_OUT2(256)
	ADDQ CX, DX
	Q4K_OUT2(384)
	VZEROUPPER
	RET

// The four-token version (gemm order, a whole quad): int16 sums Y0-Y3,
// int32 chunk sums Y4-Y7, float accumulators Y8, Y10, Y11, Y13; the
// nibbles of each piece are unpacked once (Y12 low, Y14 high). The min
// terms are accumulated after the main loop, in Y4-Y7.

// One piece for the four tokens.
#define Q4K_PIECE4(wo, ao) \
	VMOVDQU      wo(SI), Y12     \
	VPSRLW       $4, Y12, Y14    \
	VPAND        Y15, Y12, Y12   \
	VPAND        Y15, Y14, Y14   \
	VPBROADCASTD ao(DI), Y9      \
	VPMADDUBSW   Y9, Y12, Y9     \
	VPADDW       Y9, Y0, Y0      \
	VPBROADCASTD ao+16(DI), Y9   \
	VPMADDUBSW   Y9, Y14, Y9     \
	VPADDW       Y9, Y0, Y0      \
	VPBROADCASTD ao+4(DI), Y9    \
	VPMADDUBSW   Y9, Y12, Y9     \
	VPADDW       Y9, Y1, Y1      \
	VPBROADCASTD ao+20(DI), Y9   \
	VPMADDUBSW   Y9, Y14, Y9     \
	VPADDW       Y9, Y1, Y1      \
	VPBROADCASTD ao+8(DI), Y9    \
	VPMADDUBSW   Y9, Y12, Y9     \
	VPADDW       Y9, Y2, Y2      \
	VPBROADCASTD ao+24(DI), Y9   \
	VPMADDUBSW   Y9, Y14, Y9     \
	VPADDW       Y9, Y2, Y2      \
	VPBROADCASTD ao+12(DI), Y9   \
	VPMADDUBSW   Y9, Y12, Y9     \
	VPADDW       Y9, Y3, Y3      \
	VPBROADCASTD ao+28(DI), Y9   \
	VPMADDUBSW   Y9, Y14, Y9     \
	VPADDW       Y9, Y3, Y3

#define Q4K_HALF4(k, h) \
	VPXOR     Y0, Y0, Y0                              \
	VPXOR     Y1, Y1, Y1                              \
	VPXOR     Y2, Y2, Y2                              \
	VPXOR     Y3, Y3, Y3                              \
	Q4K_PIECE4(160+(8*k+4*h)*32, 80+(8*k+4*h)*32)     \
	Q4K_PIECE4(160+(8*k+4*h+1)*32, 80+(8*k+4*h+1)*32) \
	Q4K_PIECE4(160+(8*k+4*h+2)*32, 80+(8*k+4*h+2)*32) \
	Q4K_PIECE4(160+(8*k+4*h+3)*32, 80+(8*k+4*h+3)*32) \
	VPMOVZXBW 32+16*k(SI), Y12                        \
	VPMADDWD  Y12, Y0, Y0                             \
	VPADDD    Y0, Y4, Y4                              \
	VPMADDWD  Y12, Y1, Y1                             \
	VPADDD    Y1, Y5, Y5                              \
	VPMADDWD  Y12, Y2, Y2                             \
	VPADDD    Y2, Y6, Y6                              \
	VPMADDWD  Y12, Y3, Y3                             \
	VPADDD    Y3, Y7, Y7

// The block column's scales d_w*d_a_t of the four tokens, on the stack
// (Y9, Y12 scratch).
#define Q4K_DD4 \
	VCVTPH2PS    (SI), Y12        \
	VBROADCASTSS 0(DI), Y9        \
	VMULPS       Y9, Y12, Y9      \
	VMOVUPS      Y9, dd0-128(SP)  \
	VBROADCASTSS 4(DI), Y9        \
	VMULPS       Y9, Y12, Y9      \
	VMOVUPS      Y9, dd1-96(SP)   \
	VBROADCASTSS 8(DI), Y9        \
	VMULPS       Y9, Y12, Y9      \
	VMOVUPS      Y9, dd2-64(SP)   \
	VBROADCASTSS 12(DI), Y9       \
	VMULPS       Y9, Y12, Y9      \
	VMOVUPS      Y9, dd3-32(SP)

// Chunk k for the four tokens: its two halves into the int32 sums Y4-Y7,
// then acc_t = fma(float(s), d_w*d_a_t, acc_t).
#define Q4K_CHUNK4(k) \
	VPXOR        Y4, Y4, Y4             \
	VPXOR        Y5, Y5, Y5             \
	VPXOR        Y6, Y6, Y6             \
	VPXOR        Y7, Y7, Y7             \
	Q4K_HALF4(k, 0)                     \
	Q4K_HALF4(k, 1)                     \
	VCVTDQ2PS    Y4, Y4                 \
	VFMADD231PS  dd0-128(SP), Y4, Y8    \
	VCVTDQ2PS    Y5, Y5                 \
	VFMADD231PS  dd1-96(SP), Y5, Y10    \
	VCVTDQ2PS    Y6, Y6                 \
	VFMADD231PS  dd2-64(SP), Y6, Y11    \
	VCVTDQ2PS    Y7, Y7                 \
	VFMADD231PS  dd3-32(SP), Y7, Y13

// The min terms of chunk k for token t: accm = fma(float(m), dm, accm)
// with the chunk's min pairs in Y9 (Y14 scratch).
#define Q4K_MINK(k, t, dm, accm) \
	VPBROADCASTD 16+16*k+4*t(DI), Y14 \
	VPMADDWD     Y14, Y9, Y14         \
	VCVTDQ2PS    Y14, Y14             \
	VFMADD231PS  Y14, dm, accm

// One block column's min terms for the four tokens: dm_t = dmin_w*d_a_t
// in Y0-Y3 (Y12 scratch), accumulators Y4-Y7.
#define Q4K_MINS4 \
	VCVTPH2PS    16(SI), Y12 \
	VBROADCASTSS 0(DI), Y0   \
	VMULPS       Y0, Y12, Y0 \
	VBROADCASTSS 4(DI), Y1   \
	VMULPS       Y1, Y12, Y1 \
	VBROADCASTSS 8(DI), Y2   \
	VMULPS       Y2, Y12, Y2 \
	VBROADCASTSS 12(DI), Y3  \
	VMULPS       Y3, Y12, Y3 \
	VPMOVZXBW    96(SI), Y9  \
	Q4K_MINK(0, 0, Y0, Y4)   \
	Q4K_MINK(0, 1, Y1, Y5)   \
	Q4K_MINK(0, 2, Y2, Y6)   \
	Q4K_MINK(0, 3, Y3, Y7)   \
	VPMOVZXBW    112(SI), Y9 \
	Q4K_MINK(1, 0, Y0, Y4)   \
	Q4K_MINK(1, 1, Y1, Y5)   \
	Q4K_MINK(1, 2, Y2, Y6)   \
	Q4K_MINK(1, 3, Y3, Y7)   \
	VPMOVZXBW    128(SI), Y9 \
	Q4K_MINK(2, 0, Y0, Y4)   \
	Q4K_MINK(2, 1, Y1, Y5)   \
	Q4K_MINK(2, 2, Y2, Y6)   \
	Q4K_MINK(2, 3, Y3, Y7)   \
	VPMOVZXBW    144(SI), Y9 \
	Q4K_MINK(3, 0, Y0, Y4)   \
	Q4K_MINK(3, 1, Y1, Y5)   \
	Q4K_MINK(3, 2, Y2, Y6)   \
	Q4K_MINK(3, 3, Y3, Y7)

// Q4K_GMPF(o) asks for five cache lines of the block column four ahead
// (4 x 1184 bytes), o bytes into it: 20 lines a column. The gemm has
// compute enough per byte to wait on DRAM: a batch of one quad (four
// sequences decoded together) reads every group from DRAM once, one
// sequential stream per thread, and the hardware prefetchers alone left
// the gemm waiting. On an AMD EPYC Zen3, TinyLlama Q4_K_M --parallel 4
// ran 1.18x faster (medians of 5 alternating runs; 2.3 and 9.3 KiB ahead
// measured 0.97x of this), pp512 and --parallel 8 unchanged. The Q5_K
// and Q3_K gemms, with more work per byte, measured 0.97-1.06x with the
// same prefetch (within noise; not kept).
#define Q4K_GMPF(o) \
	PREFETCHT0 4736+o(SI)     \
	PREFETCHT0 4736+o+64(SI)  \
	PREFETCHT0 4736+o+128(SI) \
	PREFETCHT0 4736+o+192(SI) \
	PREFETCHT0 4736+o+256(SI)

// func q4_Kx8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
//
// A whole quad only (ntok 4): the Go wrapper runs partial quads, which
// llama.cpp multiplies with its gemv, through q4_Kx8GemvAVX2.
TEXT ·q4_Kx8GemmAVX2(SB), NOSPLIT, $128-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	MOVL         $0x0F0F0F0F, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15
	VXORPS Y8, Y8, Y8
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y13, Y13, Y13
	TESTQ  CX, CX
	JZ     q4kgmdone

q4kgmloop:
	Q4K_DD4
	Q4K_GMPF(0)
	Q4K_CHUNK4(0)
	Q4K_GMPF(320)
	Q4K_CHUNK4(1)
	Q4K_GMPF(640)
	Q4K_CHUNK4(2)
	Q4K_GMPF(960)
	Q4K_CHUNK4(3)
	ADDQ $1184, SI
	ADDQ $Q8K_QUAD_MAIN, DI
	DECQ CX
	JNZ  q4kgmloop

	// The min terms: a second pass over the block columns.
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

q4kgmmins:
	Q4K_MINS4
	ADDQ $1184, SI
	ADDQ $Q8K_QUAD_MAIN, DI
	DECQ CX
	JNZ  q4kgmmins

	VSUBPS  Y4, Y8, Y8
	VSUBPS  Y5, Y10, Y9
	VSUBPS  Y6, Y11, Y10
	VSUBPS  Y7, Y13, Y11

q4kgmdone:
	PK_STORE4(q4kgmret)

// Q8_0 x Q8_0 in block sums (vecdot_q8_0_sums.go), one group of eight rows
// (q8_0GroupBytes) against the tokens of a quad (q8_0Quad).
//
// Per piece c: the eight rows' quants w (32 bytes) against the broadcast
// piece c of a token, with ggml's sign trick: maddubs(|w|, a*sign(w)) adds
// the products in pairs into int16 (at most 2*128*127), madd with ones
// widens the pairs into the row's int32 lane, and the eight pieces add up
// to each row's exact block sum. Then, as vecDotQ8_0Q8_0SumsGeneric: acc
// += float(s) * (d_w * d_a), unfused. A gemm takes |w| once per piece
// for its tokens.

// Q8PF is how far ahead (bytes) the one-group kernels ask for their
// stream: 15 block columns. The four-group gemvs ask for nothing: on an
// AMD EPYC Zen3 decode streamed as fast without (0.5-2 KiB ahead, five
// lines a column: within noise or slower).
#define Q8PF 4080

// The five cache lines a block column at off(W) may touch.
#define Q8_PF(W, off) \
	PREFETCHT0 off(W)     \
	PREFETCHT0 off+64(W)  \
	PREFETCHT0 off+128(W) \
	PREFETCHT0 off+192(W) \
	PREFETCHT0 off+256(W)

// Piece c of the group at W against token 0 of the quad at DI into the
// int32 row sums Y0 (SET: the first piece, ADD: the others); Y4-Y6 scratch.
#define Q8S_SET(Y) VPMADDWD Y13, Y, Y0
#define Q8S_ADD(Y) VPMADDWD Y13, Y, Y; VPADDD Y, Y0, Y0

#define Q8S_GV_PIECE(W, c, SUM) \
	VMOVDQU      16+32*c(W), Y4  \
	VPBROADCASTD 32+16*c(DI), Y6 \
	VPSIGNB      Y4, Y6, Y6      \
	VPABSB       Y4, Y4          \
	VPMADDUBSW   Y6, Y4, Y4      \
	SUM(Y4)

// One block column of the group at W for token 0 of the quad at DI, added
// to the float accumulator acc; Y0-Y6 scratch.
#define Q8S_GV_COL(W, acc) \
	Q8S_GV_PIECE(W, 0, Q8S_SET) \
	Q8S_GV_PIECE(W, 1, Q8S_ADD) \
	Q8S_GV_PIECE(W, 2, Q8S_ADD) \
	Q8S_GV_PIECE(W, 3, Q8S_ADD) \
	Q8S_GV_PIECE(W, 4, Q8S_ADD) \
	Q8S_GV_PIECE(W, 5, Q8S_ADD) \
	Q8S_GV_PIECE(W, 6, Q8S_ADD) \
	Q8S_GV_PIECE(W, 7, Q8S_ADD) \
	VCVTDQ2PS    Y0, Y0         \
	VCVTPH2PS    (W), Y1        \
	VBROADCASTSS (DI), Y2       \
	VMULPS       Y2, Y1, Y1     \
	VMULPS       Y1, Y0, Y0     \
	VADDPS       Y0, acc, acc

// func q8_0x8GemvAVX2(nb int, w, a *byte, out *float32)
TEXT ·q8_0x8GemvAVX2(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	PK_CONSTS
	VXORPS Y8, Y8, Y8
	TESTQ  CX, CX
	JZ     q80gvdone

q80gvloop:
	Q8_PF(SI, Q8PF)
	Q8S_GV_COL(SI, Y8)
	ADDQ $272, SI
	ADDQ $160, DI
	DECQ CX
	JNZ  q80gvloop

q80gvdone:
	VMOVUPS Y8, (DX)
	VZEROUPPER
	RET

// Four groups gstride bytes apart in step (decode's four streams per
// core); float accumulators Y8-Y11. Each piece goes through the four
// groups in turn: on an AMD EPYC Zen3 that streamed from DRAM at the
// lane-order four-row kernel's rate (0.98-1.03x, MatMul 5632x2048 from
// 400 MiB of matrices), where whole block columns in turn, one group
// after the other, ran at 0.93-0.96x.

// Piece c of the four groups against token 0's piece c (broadcast once),
// into the int32 row sums Y0-Y3.
#define Q8S_G4_SET(YI) VPMADDWD Y13, Y4, YI
#define Q8S_G4_ADD(YI) VPMADDWD Y13, Y4, Y4; VPADDD Y4, YI, YI

#define Q8S_G4_ONE(W, c, SUM, YI) \
	VMOVDQU    16+32*c(W), Y4 \
	VPSIGNB    Y4, Y6, Y5     \
	VPABSB     Y4, Y4         \
	VPMADDUBSW Y5, Y4, Y4     \
	SUM(YI)

#define Q8S_G4_PIECE(c, SUM) \
	VPBROADCASTD 32+16*c(DI), Y6 \
	Q8S_G4_ONE(SI, c, SUM, Y0)   \
	Q8S_G4_ONE(R8, c, SUM, Y1)   \
	Q8S_G4_ONE(R9, c, SUM, Y2)   \
	Q8S_G4_ONE(R10, c, SUM, Y3)

// A group's block sums YI scaled into its accumulator YF (Y12: d_a).
#define Q8S_G4_FLOAT(W, YI, YF) \
	VCVTDQ2PS YI, YI       \
	VCVTPH2PS (W), Y7      \
	VMULPS    Y12, Y7, Y7  \
	VMULPS    Y7, YI, YI   \
	VADDPS    YI, YF, YF

// func q8_0x8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
TEXT ·q8_0x8Gemv4AVX2(SB), NOSPLIT, $0-48
	GEMV4_ARGS
	PK_CONSTS
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ  CX, CX
	JZ     q80gv4done

q80gv4loop:
	Q8S_G4_PIECE(0, Q8S_G4_SET)
	Q8S_G4_PIECE(1, Q8S_G4_ADD)
	Q8S_G4_PIECE(2, Q8S_G4_ADD)
	Q8S_G4_PIECE(3, Q8S_G4_ADD)
	Q8S_G4_PIECE(4, Q8S_G4_ADD)
	Q8S_G4_PIECE(5, Q8S_G4_ADD)
	Q8S_G4_PIECE(6, Q8S_G4_ADD)
	Q8S_G4_PIECE(7, Q8S_G4_ADD)
	VBROADCASTSS (DI), Y12
	Q8S_G4_FLOAT(SI, Y0, Y8)
	Q8S_G4_FLOAT(R8, Y1, Y9)
	Q8S_G4_FLOAT(R9, Y2, Y10)
	Q8S_G4_FLOAT(R10, Y3, Y11)
	GEMV4_NEXT($272)
	ADDQ $160, DI
	DECQ CX
	JNZ  q80gv4loop

q80gv4done:
	MOVQ    out+32(FP), DX
	MOVQ    ostride+40(FP), BX
	SHLQ    $2, BX
	VMOVUPS Y8, (DX)
	ADDQ    BX, DX
	VMOVUPS Y9, (DX)
	ADDQ    BX, DX
	VMOVUPS Y10, (DX)
	ADDQ    BX, DX
	VMOVUPS Y11, (DX)
	VZEROUPPER
	RET

// The gemms: the first two, three or four tokens of the quads, every token
// in the gemv's steps; Y0-Y3 the tokens' int32 block sums, Y8-Y11 their
// float accumulators, Y4 the piece's quants, Y5 their absolute values.

// Token k's int32 products with piece c into T.
#define Q8S_GM_PROD(k, c, T) \
	VPBROADCASTD 32+16*c+4*k(DI), T \
	VPSIGNB      Y4, T, T           \
	VPMADDUBSW   T, Y5, T           \
	VPMADDWD     Y13, T, T

#define Q8S_GM_FIRST(k, YS, YF, c) \
	Q8S_GM_PROD(k, c, YS)

#define Q8S_GM_PIECE(k, YS, YF, c) \
	Q8S_GM_PROD(k, c, Y6) \
	VPADDD Y6, YS, YS

// Token k's block sum (YS) scaled into its float accumulator YF; Y12
// holds the rows' scales.
#define Q8S_GM_FLOAT(k, YS, YF, c) \
	VCVTDQ2PS    YS, YS      \
	VBROADCASTSS 4*k(DI), Y7 \
	VMULPS       Y7, Y12, Y7 \
	VMULPS       Y7, YS, YS  \
	VADDPS       YS, YF, YF

#define Q8S_LOAD(c) \
	VMOVDQU 16+32*c(SI), Y4 \
	VPABSB  Y4, Y5

// One block column of the group at SI for the tokens of EACH (Q40_EACHn),
// then on to the next; ZF as DECQ leaves it.
#define Q8S_GM_COL(EACH) \
	Q8_PF(SI, Q8PF)             \
	Q8S_LOAD(0)                 \
	EACH(Q8S_GM_FIRST, 0)       \
	Q8S_LOAD(1)                 \
	EACH(Q8S_GM_PIECE, 1)       \
	Q8S_LOAD(2)                 \
	EACH(Q8S_GM_PIECE, 2)       \
	Q8S_LOAD(3)                 \
	EACH(Q8S_GM_PIECE, 3)       \
	Q8S_LOAD(4)                 \
	EACH(Q8S_GM_PIECE, 4)       \
	Q8S_LOAD(5)                 \
	EACH(Q8S_GM_PIECE, 5)       \
	Q8S_LOAD(6)                 \
	EACH(Q8S_GM_PIECE, 6)       \
	Q8S_LOAD(7)                 \
	EACH(Q8S_GM_PIECE, 7)       \
	VCVTPH2PS (SI), Y12         \
	EACH(Q8S_GM_FLOAT, 0)       \
	ADDQ $272, SI               \
	ADDQ $160, DI               \
	DECQ CX

// func q8_0x8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
TEXT ·q8_0x8GemmAVX2(SB), NOSPLIT, $0-48
	PK_GEMM(Q8S_GM_COL, Q40_EACH4, q80gmloop, q80gmdone, q80gmret)

// func q8_0x8Gemm3AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
TEXT ·q8_0x8Gemm3AVX2(SB), NOSPLIT, $0-48
	PK_GEMM(Q8S_GM_COL, Q40_EACH3, q80gm3loop, q80gm3done, q80gm3ret)

// func q8_0x8Gemm2AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
TEXT ·q8_0x8Gemm2AVX2(SB), NOSPLIT, $0-48
	PK_GEMM(Q8S_GM_COL, Q40_EACH2, q80gm2loop, q80gm2done, q80gm2ret)

// Four groups gstride bytes apart against tokens 0 and 1 of the quads (two
// sequences decoded together, in decode's four streams): each piece of
// each group loaded and made absolute once for both tokens, every token
// in the gemv's steps. Y0-Y7 the int32 sums of group g, token k in
// Y(2g+k); the float accumulators in the frame (group g, token k at
// 64g+32k), out[k*tstride + g*ostride + r].

// Piece c of the group at W for both tokens (pieces in Y10, Y11) into
// the sums Y0s (token 0) and Y1s (token 1); SUM sets or adds.
#define Q8S_X2_SET(T, YS) VPMADDWD Y13, T, YS
#define Q8S_X2_ADD(T, YS) VPMADDWD Y13, T, T; VPADDD T, YS, YS

#define Q8S_X2_ONE(W, c, SUM, Y0s, Y1s) \
	VMOVDQU    16+32*c(W), Y8 \
	VPABSB     Y8, Y9         \
	VPSIGNB    Y8, Y10, Y12   \
	VPMADDUBSW Y12, Y9, Y12   \
	SUM(Y12, Y0s)             \
	VPSIGNB    Y8, Y11, Y12   \
	VPMADDUBSW Y12, Y9, Y12   \
	SUM(Y12, Y1s)

#define Q8S_X2_PIECE(c, SUM) \
	VPBROADCASTD 32+16*c(DI), Y10      \
	VPBROADCASTD 36+16*c(DI), Y11      \
	Q8S_X2_ONE(SI, c, SUM, Y0, Y1)     \
	Q8S_X2_ONE(R8, c, SUM, Y2, Y3)     \
	Q8S_X2_ONE(R9, c, SUM, Y4, Y5)     \
	Q8S_X2_ONE(R10, c, SUM, Y6, Y7)

// Group W's block sums (Y0s, Y1s) scaled into its accumulators at off(SP)
// and off+32(SP); Y14, Y15 the tokens' scales.
#define Q8S_X2_FLOAT(W, Y0s, Y1s, off) \
	VCVTPH2PS (W), Y8          \
	VMULPS    Y14, Y8, Y9      \
	VCVTDQ2PS Y0s, Y0s         \
	VMULPS    Y9, Y0s, Y0s     \
	VADDPS    off(SP), Y0s, Y0s \
	VMOVUPS   Y0s, off(SP)     \
	VMULPS    Y15, Y8, Y9      \
	VCVTDQ2PS Y1s, Y1s         \
	VMULPS    Y9, Y1s, Y1s     \
	VADDPS    off+32(SP), Y1s, Y1s \
	VMOVUPS   Y1s, off+32(SP)

// func q8_0x8Gemv4x2AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride, tstride int)
TEXT ·q8_0x8Gemv4x2AVX2(SB), NOSPLIT, $256-56
	GEMV4_ARGS
	PK_CONSTS
	VXORPS  Y8, Y8, Y8
	VMOVUPS Y8, 0(SP)
	VMOVUPS Y8, 32(SP)
	VMOVUPS Y8, 64(SP)
	VMOVUPS Y8, 96(SP)
	VMOVUPS Y8, 128(SP)
	VMOVUPS Y8, 160(SP)
	VMOVUPS Y8, 192(SP)
	VMOVUPS Y8, 224(SP)
	TESTQ   CX, CX
	JZ      q80x2done

q80x2loop:
	Q8S_X2_PIECE(0, Q8S_X2_SET)
	Q8S_X2_PIECE(1, Q8S_X2_ADD)
	Q8S_X2_PIECE(2, Q8S_X2_ADD)
	Q8S_X2_PIECE(3, Q8S_X2_ADD)
	Q8S_X2_PIECE(4, Q8S_X2_ADD)
	Q8S_X2_PIECE(5, Q8S_X2_ADD)
	Q8S_X2_PIECE(6, Q8S_X2_ADD)
	Q8S_X2_PIECE(7, Q8S_X2_ADD)
	VBROADCASTSS 0(DI), Y14
	VBROADCASTSS 4(DI), Y15
	Q8S_X2_FLOAT(SI, Y0, Y1, 0)
	Q8S_X2_FLOAT(R8, Y2, Y3, 64)
	Q8S_X2_FLOAT(R9, Y4, Y5, 128)
	Q8S_X2_FLOAT(R10, Y6, Y7, 192)
	GEMV4_NEXT($272)
	ADDQ $160, DI
	DECQ CX
	JNZ  q80x2loop

q80x2done:
	MOVQ    out+32(FP), DX
	MOVQ    ostride+40(FP), BX
	SHLQ    $2, BX
	MOVQ    tstride+48(FP), R11
	SHLQ    $2, R11
	VMOVUPS 0(SP), Y0
	VMOVUPS 32(SP), Y1
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, (DX)(R11*1)
	ADDQ    BX, DX
	VMOVUPS 64(SP), Y0
	VMOVUPS 96(SP), Y1
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, (DX)(R11*1)
	ADDQ    BX, DX
	VMOVUPS 128(SP), Y0
	VMOVUPS 160(SP), Y1
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, (DX)(R11*1)
	ADDQ    BX, DX
	VMOVUPS 192(SP), Y0
	VMOVUPS 224(SP), Y1
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, (DX)(R11*1)
	VZEROUPPER
	RET
