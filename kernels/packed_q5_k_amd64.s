//go:build !purego

#include "lanes_amd64.h"
#include "quad_amd64.h"
#include "textflag.h"

// Packed Q5_K (packQ5_KGroup) times Q8_K activations in the quad layout
// (q8_KQuad), in ggml_vec_dot_q5_K_q8_K's float order on AVX2
// (vecDotQ5_KQ8_KGeneric), bit for bit. Per row and block that order keeps
// eight int32 lanes (lane g: elements 4g..4g+3 of every 32, times their
// sub-block's scale), adds them into eight float lanes with one FMA by
// d_w*d_a, adds the min terms -(d_a*dmin_w)*sum_j m(j)*P(j) to a separate
// float, and at the end sums the lanes (HSUM's tree) plus that float.
//
// A packed half-piece holds lane g of sub-blocks 2k and 2k+1 of all eight
// rows, so lane g of a row is one int32 lane of a vector summed over the
// four chunks: per piece one load, its two halves' 5-bit quants unpacked
// for eight rows in six operations (Q5K_UNPACK), two byte products against
// the activation slots, one int16 add and one multiply-add by the scale
// pairs. Per row and block that is about half the vector work of the
// row-major kernel, which is what bound Q5_K decode on a Zen3. (With the
// nibbles and one bit plane of q4_KGroupBytes's layout the unpacking took
// nine operations a piece: the gemv ran 0.88x the time in L2, 0.95-0.98x
// from DRAM, on a Zen3 at about two vector operations a cycle.)
//
// The kernels loop over the eight lanes (R11 = 160g into the group's
// column, R12 = 32g into the quad's slots and the frame's lanes) rather
// than unroll them: unrolled, the four-group gemv's loop was about 15 KiB
// of code and ran 1.15-1.65x slower on a Zen3 (BenchmarkMatMul Q5_K
// ntok=1, CPU time), the front end starving. Like the Q4_K gemv kernels
// they issue no software prefetch on AMD CPUs; on Intel ones the
// four-group gemv's twin asks for each lane's bytes two block columns
// ahead (streamPrefetch; Xeon, --kernels avx2, tok1: 17.4-19.1 ->
// 23.1-25.9 GB/s).
//
// Frame, per group (at goff): the scale pairs as int16 (chunk k at 32k),
// d_w*d_a (128), the min sums (160), the eight lanes (192+32g); the gemm
// has one group and per token t its d_w*d_a, min sums and lanes after.

// Y15 = 0x1F bytes, Y14 = 0x07 bytes, Y7 = 0x18 bytes (Q5K_C18).
#define Q5K_CONSTS \
	MOVL         $0x1F1F1F1F, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15        \
	MOVL         $0x07070707, AX \
	VMOVD        AX, X14         \
	VPBROADCASTD X14, Y14        \
	Q5K_C18

#define Q5K_C18 \
	MOVL         $0x18181818, AX \
	VMOVD        AX, X7          \
	VPBROADCASTD X7, Y7

// Q5K_UNPACK unpacks piece k at P (q5_KGroupBytes), its planes in Y9: v_A
// into Y11 (the 5-bit byte's low bits), v_B into Y10 (its top three bits,
// then bits 2k and 2k+1 of the planes moved to bits 3 and 4 by SHIFT n: a
// word shift by at most 3 keeps them in their own byte). Y12 scratch.
#define Q5K_UNPACK(P, SHIFT, n) \
	VMOVDQU P, Y10        \
	VPAND   Y15, Y10, Y11 \
	VPSRLW  $5, Y10, Y10  \
	VPAND   Y14, Y10, Y10 \
	SHIFT   $n, Y9, Y12   \
	VPAND   Y7, Y12, Y12  \
	VPOR    Y12, Y10, Y10

// Q5K_HEAD stores the scale pairs and d_w*d_a of the block column of the
// group at W for token 0 of the quad block at DI, and adds its min terms
// (FNMADD, as ggml), in the frame block at goff (Y8-Y10, Y13 scratch).
#define Q5K_HEAD(W, goff) \
	VPMOVZXBW 32(W), Y8 \
	VMOVDQU   Y8, goff+0(SP) \
	VPMOVZXBW 48(W), Y8 \
	VMOVDQU   Y8, goff+32(SP) \
	VPMOVZXBW 64(W), Y8 \
	VMOVDQU   Y8, goff+64(SP) \
	VPMOVZXBW 80(W), Y8 \
	VMOVDQU   Y8, goff+96(SP) \
	VBROADCASTSS 0(DI), Y13 \
	VCVTPH2PS    (W), Y8 \
	VMULPS       Y13, Y8, Y8 \
	VMOVUPS      Y8, goff+128(SP) \
	VPMOVZXBW    96(W), Y9 \
	VPBROADCASTD 16(DI), Y10 \
	VPMADDWD     Y10, Y9, Y8 \
	VPMOVZXBW    112(W), Y9 \
	VPBROADCASTD 32(DI), Y10 \
	VPMADDWD     Y10, Y9, Y9 \
	VPADDD       Y9, Y8, Y8 \
	VPMOVZXBW    128(W), Y9 \
	VPBROADCASTD 48(DI), Y10 \
	VPMADDWD     Y10, Y9, Y9 \
	VPADDD       Y9, Y8, Y8 \
	VPMOVZXBW    144(W), Y9 \
	VPBROADCASTD 64(DI), Y10 \
	VPMADDWD     Y10, Y9, Y9 \
	VPADDD       Y9, Y8, Y8 \
	VCVTDQ2PS    Y8, Y8 \
	VCVTPH2PS    16(W), Y9 \
	VMULPS       Y13, Y9, Y9 \
	VMOVUPS      goff+160(SP), Y10 \
	VFNMADD231PS Y8, Y9, Y10 \
	VMOVUPS      Y10, goff+160(SP)

// Q5K_LANE adds lane g (R11 = 160g, R12 = 32g) of the block column of the
// group at W for token 0 into the frame block at goff: the int32 lane
// summed over the four chunks, then lane = fma(d_w*d_a, float, lane).
// Y0, Y8-Y13 scratch.
#define Q5K_LANE(W, goff) \
	VMOVDQU 160(W)(R11*1), Y9 \
	Q5K_UNPACK(192(W)(R11*1), VPSLLW, 3) \
	VPBROADCASTD 80(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y11, Y11 \
	VPBROADCASTD 96(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y10, Y10 \
	VPADDW       Y10, Y11, Y11 \
	VPMADDWD     goff+0(SP), Y11, Y8 \
	Q5K_UNPACK(224(W)(R11*1), VPSLLW, 1) \
	VPBROADCASTD 336(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y11, Y11 \
	VPBROADCASTD 352(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y10, Y10 \
	VPADDW       Y10, Y11, Y11 \
	VPMADDWD     goff+32(SP), Y11, Y11 \
	VPADDD       Y11, Y8, Y8 \
	Q5K_UNPACK(256(W)(R11*1), VPSRLW, 1) \
	VPBROADCASTD 592(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y11, Y11 \
	VPBROADCASTD 608(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y10, Y10 \
	VPADDW       Y10, Y11, Y11 \
	VPMADDWD     goff+64(SP), Y11, Y11 \
	VPADDD       Y11, Y8, Y8 \
	Q5K_UNPACK(288(W)(R11*1), VPSRLW, 3) \
	VPBROADCASTD 848(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y11, Y11 \
	VPBROADCASTD 864(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y10, Y10 \
	VPADDW       Y10, Y11, Y11 \
	VPMADDWD     goff+96(SP), Y11, Y11 \
	VPADDD       Y11, Y8, Y8 \
	VCVTDQ2PS    Y8, Y8 \
	VMOVUPS      goff+192(SP)(R12*1), Y0 \
	VFMADD231PS  goff+128(SP), Y8, Y0 \
	VMOVUPS      Y0, goff+192(SP)(R12*1)

// Q5K_OUT stores the eight sums of the lanes at lanes(SP), each row's HSUM,
// ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)), plus its min sums at
// mins(SP), at (DX), then moves DX on by BX bytes.
#define Q5K_OUT(lanes, mins) \
	VMOVUPS lanes(SP), Y0        \
	VMOVUPS lanes+32(SP), Y1     \
	VMOVUPS lanes+64(SP), Y2     \
	VMOVUPS lanes+96(SP), Y3     \
	VADDPS  lanes+128(SP), Y0, Y0 \
	VADDPS  lanes+160(SP), Y1, Y1 \
	VADDPS  lanes+192(SP), Y2, Y2 \
	VADDPS  lanes+224(SP), Y3, Y3 \
	VADDPS  Y2, Y0, Y0           \
	VADDPS  Y3, Y1, Y1           \
	VADDPS  Y1, Y0, Y0           \
	VADDPS  mins(SP), Y0, Y0     \
	VMOVUPS Y0, (DX)             \
	ADDQ    BX, DX

// Q5K_MINS4 adds token t's min terms to its float at 256+32t(SP): the
// group's mins (Y4-Y7, chunk k in Y(4+k)) times the token's bsum pairs,
// times d_a*dmin_w (dmin_w in Y12), subtracted as ggml does (Y9, Y10, Y13
// scratch).
#define Q5K_MINS4(t, Yt, ao, sc) \
	VPBROADCASTD 16+4*t(DI), Y10 \
	VPMADDWD     Y10, Y4, Y9 \
	VPBROADCASTD 32+4*t(DI), Y10 \
	VPMADDWD     Y10, Y5, Y10 \
	VPADDD       Y10, Y9, Y9 \
	VPBROADCASTD 48+4*t(DI), Y10 \
	VPMADDWD     Y10, Y6, Y10 \
	VPADDD       Y10, Y9, Y9 \
	VPBROADCASTD 64+4*t(DI), Y10 \
	VPMADDWD     Y10, Y7, Y10 \
	VPADDD       Y10, Y9, Y9 \
	VCVTDQ2PS    Y9, Y9 \
	VBROADCASTSS 4*t(DI), Y13 \
	VMULPS       Y13, Y12, Y13 \
	VMOVUPS      256+32*t(SP), Y10 \
	VFNMADD231PS Y9, Y13, Y10 \
	VMOVUPS      Y10, 256+32*t(SP)

// Q5K_HEADN_A stores the scale pairs of the block column of the group at
// SI, and its d_w in Y8 and dmin_w in Y12; Q5K_D then stores token t's
// d_w*d_a (128+32t), Q5K_HEADN_B loads the group's mins (Y4-Y7) and
// Q5K_MINS4 adds token t's min terms (256+32t) (Y4-Y13 scratch).
#define Q5K_HEADN_A \
	VPMOVZXBW 32(SI), Y8 \
	VMOVDQU   Y8, 0(SP) \
	VPMOVZXBW 48(SI), Y8 \
	VMOVDQU   Y8, 32(SP) \
	VPMOVZXBW 64(SI), Y8 \
	VMOVDQU   Y8, 64(SP) \
	VPMOVZXBW 80(SI), Y8 \
	VMOVDQU   Y8, 96(SP) \
	VCVTPH2PS    (SI), Y8 \
	VCVTPH2PS    16(SI), Y12

#define Q5K_D(t, Yt, ao, sc) \
	VBROADCASTSS 4*t(DI), Y13 \
	VMULPS       Y13, Y8, Y9 \
	VMOVUPS      Y9, 128+32*t(SP)

#define Q5K_HEADN_B \
	VPMOVZXBW    96(SI), Y4 \
	VPMOVZXBW    112(SI), Y5 \
	VPMOVZXBW    128(SI), Y6 \
	VPMOVZXBW    144(SI), Y7

// Q5K_EACHn applies M (t, its int32 lanes Yt, then ao, sc; the per-token
// macros use what they need) to the first n tokens.
#define Q5K_EACH2(M, ao, sc) \
	M(0, Y0, ao, sc) \
	M(1, Y1, ao, sc)

#define Q5K_EACH3(M, ao, sc) \
	Q5K_EACH2(M, ao, sc) \
	M(2, Y2, ao, sc)

#define Q5K_EACH4(M, ao, sc) \
	Q5K_EACH3(M, ao, sc) \
	M(3, Y3, ao, sc)

// The block column's head for the tokens of EACH (Q5K_EACHn).
#define Q5K_HEADN(EACH) \
	Q5K_HEADN_A \
	EACH(Q5K_D, 0, 0) \
	Q5K_HEADN_B \
	EACH(Q5K_MINS4, 0, 0) \
	Q5K_C18

// The gemm's lanes (Q5K_LANEN): lane g (R11 = 160g, R12 = 32g) of the
// block column of the group at SI for the tokens of EACH (the first two,
// three or four) of the quad block at DI, each piece unpacked once for
// them (Q5K_PIECE0..3: low nibbles plus high bit into Y11, high nibbles
// plus high bit into Y10; Y9 the high-bit planes), into token t's lanes
// at 384+256t(SP). Yt (Y0-Y3) are the tokens' int32 lanes; Y4-Y13
// scratch.
#define Q5K_PIECE0 \
	VMOVDQU 160(SI)(R11*1), Y9 \
	Q5K_UNPACK(192(SI)(R11*1), VPSLLW, 3)

#define Q5K_PIECE1 \
	Q5K_UNPACK(224(SI)(R11*1), VPSLLW, 1)

#define Q5K_PIECE2 \
	Q5K_UNPACK(256(SI)(R11*1), VPSRLW, 1)

#define Q5K_PIECE3 \
	Q5K_UNPACK(288(SI)(R11*1), VPSRLW, 3)

// Token t's products with piece 0 (its activation slots at ao), its lanes
// started in Yt.
#define Q5K_TOK0(t, Yt, ao, sc) \
	VPBROADCASTD 80+4*t(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y11, Y5 \
	VPBROADCASTD 96+4*t(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y10, Y6 \
	VPADDW       Y6, Y5, Y5 \
	VPMADDWD     0(SP), Y5, Yt

// Token t's products with piece k (1..3: slots at ao, scale pairs at sc)
// added to Yt.
#define Q5K_TOK(t, Yt, ao, sc) \
	VPBROADCASTD ao+4*t(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y11, Y5 \
	VPBROADCASTD ao+16+4*t(DI)(R12*1), Y13 \
	VPMADDUBSW   Y13, Y10, Y6 \
	VPADDW       Y6, Y5, Y5 \
	VPMADDWD     sc(SP), Y5, Y5 \
	VPADDD       Y5, Yt, Yt

// Token t's lanes Yt times its d_w*d_a into its float lanes.
#define Q5K_FLOAT(t, Yt, ao, sc) \
	VCVTDQ2PS    Yt, Yt \
	VMOVUPS      384+256*t(SP)(R12*1), Y4 \
	VFMADD231PS  128+32*t(SP), Yt, Y4 \
	VMOVUPS      Y4, 384+256*t(SP)(R12*1)

#define Q5K_LANEN(EACH) \
	Q5K_PIECE0 \
	EACH(Q5K_TOK0, 0, 0) \
	Q5K_PIECE1 \
	EACH(Q5K_TOK, 336, 32) \
	Q5K_PIECE2 \
	EACH(Q5K_TOK, 592, 64) \
	Q5K_PIECE3 \
	EACH(Q5K_TOK, 848, 96) \
	EACH(Q5K_FLOAT, 0, 0)

// One Q5_K group against token 0: out[0..7] (frame block at 0).

// Q5K_CLEAR stores Y0 (zero) into the min floats and the eight lanes of
// the frame block at goff.
#define Q5K_CLEAR(goff) \
	VMOVUPS Y0, goff+160(SP) \
	LANES8_CLEAR(goff+192)

// Q5K_GEMV4 is the body of q5_Kx8Gemv4AVX2 and its prefetching twin (PF
// at each lane: Q5K_PF4 or Q5K_NOPF). (Here, before the first TEXT: go
// vet reads argument names against the preceding function.)
#define Q5K_GEMV4(PF, loop, lane, done) \
	GEMV4_ARGS \
	Q5K_CONSTS \
	VXORPS Y0, Y0, Y0 \
	Q5K_CLEAR(0) \
	Q5K_CLEAR(448) \
	Q5K_CLEAR(896) \
	Q5K_CLEAR(1344) \
	TESTQ CX, CX \
	JZ    done \
loop: \
	Q5K_HEAD(SI, 0) \
	Q5K_HEAD(R8, 448) \
	Q5K_HEAD(R9, 896) \
	Q5K_HEAD(R10, 1344) \
	XORQ R11, R11 \
	XORQ R12, R12 \
lane: \
	PF \
	Q5K_LANE(SI, 0) \
	Q5K_LANE(R8, 448) \
	Q5K_LANE(R9, 896) \
	Q5K_LANE(R10, 1344) \
	ADDQ $160, R11 \
	ADDQ $32, R12 \
	CMPQ R12, $256 \
	JLT  lane \
	GEMV4_NEXT($1440) \
	ADDQ $Q8K_QUAD_MAIN, DI \
	DECQ CX \
	JNZ  loop \
done: \
	MOVQ out+32(FP), DX \
	MOVQ ostride+40(FP), BX \
	SHLQ $2, BX \
	Q5K_OUT(192, 160) \
	Q5K_OUT(640, 608) \
	Q5K_OUT(1088, 1056) \
	Q5K_OUT(1536, 1504) \
	VZEROUPPER \
	RET

// func q5_Kx8GemvAVX2(nb int, w, a *byte, out *float32)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q5_Kx8GemvAVX2(SB), 0, $448-32
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q5K_CONSTS
	VXORPS Y0, Y0, Y0
	Q5K_CLEAR(0)
	TESTQ CX, CX
	JZ    q5kgvdone

q5kgvloop:
	Q5K_HEAD(SI, 0)
	XORQ R11, R11
	XORQ R12, R12

q5kgvlane:
	Q5K_LANE(SI, 0)
	ADDQ $160, R11
	ADDQ $32, R12
	CMPQ R12, $256
	JLT  q5kgvlane
	ADDQ $1440, SI
	ADDQ $Q8K_QUAD_MAIN, DI
	DECQ CX
	JNZ  q5kgvloop

q5kgvdone:
	MOVQ out+24(FP), DX
	Q5K_OUT(192, 160)
	VZEROUPPER
	RET

// Four groups gstride bytes apart (four DRAM streams per core). The groups
// take turns by lane, 160 bytes of each stream at a time (after each
// group's 160 header bytes per block column): a pure read of four streams
// in turns of 18 cache lines (about a Q4_K or Q5_K block column) ran at
// 19-22 GB/s on a Zen3 where turns of 1-9 lines ran at 26-30. Group g's
// frame block is at 448g.

// func q5_Kx8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q5_Kx8Gemv4AVX2(SB), 0, $1792-48
	Q5K_GEMV4(Q5K_NOPF, q5kgv4loop, q5kgv4lane, q5kgv4done)

// func q5_Kx8Gemv4PfAVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// q5_Kx8Gemv4AVX2 prefetching its streams (streamPrefetch).
TEXT ·q5_Kx8Gemv4PfAVX2(SB), 0, $1792-48
	Q5K_GEMV4(Q5K_PF4, q5kgv4ploop, q5kgv4plane, q5kgv4pdone)

// One group of eight rows against the first ntok (1..4) tokens of the
// quad blocks: out[t*ostride+r], every token in the gemv's steps (same
// bits). The two- and three-token variants unpack each piece for only
// those tokens (the four-token one costs a whole quad whatever ntok).

// Clears the tokens' min floats (256+32t) and lanes (384+256t).
#define Q5K_GM_ZERO \
	VXORPS Y0, Y0, Y0 \
	VMOVUPS Y0, 256(SP) \
	VMOVUPS Y0, 288(SP) \
	VMOVUPS Y0, 320(SP) \
	VMOVUPS Y0, 352(SP) \
	VMOVUPS Y0, 384(SP) \
	VMOVUPS Y0, 416(SP) \
	VMOVUPS Y0, 448(SP) \
	VMOVUPS Y0, 480(SP) \
	VMOVUPS Y0, 512(SP) \
	VMOVUPS Y0, 544(SP) \
	VMOVUPS Y0, 576(SP) \
	Q5K_CLEAR(448) \
	VMOVUPS Y0, 896(SP) \
	VMOVUPS Y0, 928(SP) \
	VMOVUPS Y0, 960(SP) \
	VMOVUPS Y0, 992(SP) \
	VMOVUPS Y0, 1024(SP) \
	Q5K_CLEAR(896) \
	VMOVUPS Y0, 1344(SP) \
	VMOVUPS Y0, 1376(SP)

// The block columns (R11, R12: the lanes), HEAD and LANE for the tokens.
#define Q5K_GM_LOOP(loop, lane, done, HEAD, LANE) \
	TESTQ CX, CX \
	JZ    done \
loop: \
	HEAD \
	XORQ R11, R11 \
	XORQ R12, R12 \
lane: \
	LANE \
	ADDQ $160, R11 \
	ADDQ $32, R12 \
	CMPQ R12, $256 \
	JLT  lane \
	ADDQ $1440, SI \
	ADDQ $Q8K_QUAD_MAIN, DI \
	DECQ CX \
	JNZ  loop

// func q5_Kx8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q5_Kx8GemmAVX2(SB), 0, $1408-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q5K_CONSTS
	Q5K_GM_ZERO
	Q5K_GM_LOOP(q5kgmloop, q5kgmlane, q5kgmdone, Q5K_HEADN(Q5K_EACH4), Q5K_LANEN(Q5K_EACH4))

q5kgmdone:
	MOVQ out+24(FP), DX
	MOVQ ostride+32(FP), BX
	SHLQ $2, BX
	MOVQ ntok+40(FP), AX
	Q5K_OUT(384, 256)
	CMPQ AX, $1
	JLE  q5kgmend
	Q5K_OUT(640, 288)
	CMPQ AX, $2
	JLE  q5kgmend
	Q5K_OUT(896, 320)
	CMPQ AX, $3
	JLE  q5kgmend
	Q5K_OUT(1152, 352)

q5kgmend:
	VZEROUPPER
	RET

// func q5_Kx8Gemm3AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
// Tokens 0-2 (ntok 3).
TEXT ·q5_Kx8Gemm3AVX2(SB), 0, $1408-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q5K_CONSTS
	Q5K_GM_ZERO
	Q5K_GM_LOOP(q5kgm3loop, q5kgm3lane, q5kgm3done, Q5K_HEADN(Q5K_EACH3), Q5K_LANEN(Q5K_EACH3))

q5kgm3done:
	MOVQ out+24(FP), DX
	MOVQ ostride+32(FP), BX
	SHLQ $2, BX
	Q5K_OUT(384, 256)
	Q5K_OUT(640, 288)
	Q5K_OUT(896, 320)
	VZEROUPPER
	RET

// func q5_Kx8Gemm2AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
// Tokens 0-1 (ntok 2).
TEXT ·q5_Kx8Gemm2AVX2(SB), 0, $1408-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q5K_CONSTS
	Q5K_GM_ZERO
	Q5K_GM_LOOP(q5kgm2loop, q5kgm2lane, q5kgm2done, Q5K_HEADN(Q5K_EACH2), Q5K_LANEN(Q5K_EACH2))

q5kgm2done:
	MOVQ out+24(FP), DX
	MOVQ ostride+32(FP), BX
	SHLQ $2, BX
	Q5K_OUT(384, 256)
	Q5K_OUT(640, 288)
	VZEROUPPER
	RET
