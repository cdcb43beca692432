//go:build !purego

#include "lanes_amd64.h"
#include "quad_amd64.h"
#include "textflag.h"

// Packed Q3_K (packQ3_KGroup) times Q8_K activations in the quad layout
// (q8_KQuad), in ggml_vec_dot_q3_K_q8_K's float order on AVX2
// (vecDotQ3_KQ8_KGeneric), bit for bit: per row and block eight int32
// lanes, each converted and added into a float lane with one FMA by
// d_w*d_a, the lanes summed at the end in HSUM's tree.
//
// Lane g of a row is one int32 lane of a vector: per chunk k, the low and
// high 3-bit pieces of lane g (eight rows, unsigned q+4) times the
// broadcast activation slots, the int16 pairs added, 4 times the slots'
// activation sums taken off (q8_KQuadSums), one multiply-add by the
// sub-blocks' scale pairs. Like the Q5_K kernels they loop over the eight
// lanes (R11 = 96g into the group's planes, R12 = 32g into the quad's
// slots and the frame's lanes, R13 = 16g into the quad's sums at AX, R14 =
// 128*(g/4) into the frame's scale pairs) rather than unroll them, and
// issue no software prefetch on AMD CPUs (PREFETCHT0 1-2 KiB ahead in
// each stream of the four-group gemv ran it 1.08-1.15x slower from DRAM
// on a Zen3); on Intel ones the four-group gemv's twin asks for each
// lane's planes two block columns ahead (streamPrefetch; Xeon, --kernels
// avx2, tok1: 14.8-17.0 -> 20.1-23.4 GB/s).
//
// Frame, per group (at goff): the scale pairs as int16 (vector 4h+k at
// 32(4h+k)), d_w*d_a (256), the eight lanes (288+32g); the gemm has one
// group and per token t its d_w*d_a at 256+32t and lanes at 384+256t.

// Y15 = 0x07 bytes, Y14 = 0x03 bytes, Y13 = 0x04 bytes.
#define Q3K_CONSTS \
	MOVL         $0x07070707, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15        \
	MOVL         $0x03030303, AX \
	VMOVD        AX, X14         \
	VPBROADCASTD X14, Y14        \
	MOVL         $0x04040404, AX \
	VMOVD        AX, X13         \
	VPBROADCASTD X13, Y13

// Q3K_SCALES stores the eight scale-pair vectors of the block column of
// the group at W, sign-extended to int16, in the frame block at goff.
#define Q3K_SCALES(W, goff) \
	VPMOVSXBW 16(W), Y8 \
	VMOVDQU   Y8, goff+0(SP) \
	VPMOVSXBW 32(W), Y8 \
	VMOVDQU   Y8, goff+32(SP) \
	VPMOVSXBW 48(W), Y8 \
	VMOVDQU   Y8, goff+64(SP) \
	VPMOVSXBW 64(W), Y8 \
	VMOVDQU   Y8, goff+96(SP) \
	VPMOVSXBW 80(W), Y8 \
	VMOVDQU   Y8, goff+128(SP) \
	VPMOVSXBW 96(W), Y8 \
	VMOVDQU   Y8, goff+160(SP) \
	VPMOVSXBW 112(W), Y8 \
	VMOVDQU   Y8, goff+192(SP) \
	VPMOVSXBW 128(W), Y8 \
	VMOVDQU   Y8, goff+224(SP)

// Q3K_HEAD stores the scale pairs and d_w*d_a of the block column of the
// group at W for token 0 of the quad block at DI (Y8, Y9 scratch).
#define Q3K_HEAD(W, goff) \
	Q3K_SCALES(W, goff) \
	VCVTPH2PS    (W), Y8 \
	VBROADCASTSS (DI), Y9 \
	VMULPS       Y9, Y8, Y8 \
	VMOVUPS      Y8, goff+256(SP)


// Q3K_U0..Q3K_U3 set Ylo and Yhi to the pieces u(2k), u(2k+1) of chunk k
// from the lane's planes P0-P2 (registers; Ya, Yb scratch): one mask, a
// shift and a mask, or for u2 and u5 two of those and an OR.
#define Q3K_U0(P0, lo, hi) \
	VPAND  Y15, P0, lo \
	VPSRLW $3, P0, hi  \
	VPAND  Y15, hi, hi

#define Q3K_U1(P0, P1, P2, lo, hi, a, b) \
	VPSRLW $6, P0, a  \
	VPAND  Y14, a, a  \
	VPSRLW $4, P2, b  \
	VPAND  Y13, b, b  \
	VPOR   b, a, lo   \
	VPAND  P1, Y15, hi

#define Q3K_U2(P1, P2, lo, hi, a, b) \
	VPSRLW $3, P1, lo \
	VPAND  Y15, lo, lo \
	VPSRLW $6, P1, a  \
	VPAND  Y14, a, a  \
	VPSRLW $5, P2, b  \
	VPAND  Y13, b, b  \
	VPOR   b, a, hi

#define Q3K_U3(P2, lo, hi) \
	VPAND  Y15, P2, lo \
	VPSRLW $3, P2, hi  \
	VPAND  Y15, hi, hi

// Q3K_PROD sets Yp to one token's int16 pairs of a chunk: the pieces
// against the broadcast low (slot(DI)) and high (slot+16) activation
// slots, added, 4x the slots' sums (sum(AX)) taken off (Yb scratch).
#define Q3K_PROD(lo, hi, slot, sum, p, b) \
	VPBROADCASTD slot(DI)(R12*1), b    \
	VPMADDUBSW   b, lo, p              \
	VPBROADCASTD slot+16(DI)(R12*1), b \
	VPMADDUBSW   b, hi, b              \
	VPADDW       b, p, p               \
	VPBROADCASTD sum(AX)(R13*1), b     \
	VPSUBW       b, p, p

// Q3K_MADD sets acc (Q3K_MADD0) or adds to it the pairs in Yp times the
// scale pairs at sc(SP) (R14 picks the lane's half).
#define Q3K_MADD0(sc, p, acc) \
	VPMADDWD sc(SP)(R14*1), p, acc

#define Q3K_MADD(sc, p, acc) \
	VPMADDWD sc(SP)(R14*1), p, p \
	VPADDD   p, acc, acc

// Q3K_PLANES loads the three planes of lane g (R11) of the group at W.
#define Q3K_PLANES(W, P0, P1, P2) \
	VMOVDQU 144(W)(R11*1), P0 \
	VMOVDQU 176(W)(R11*1), P1 \
	VMOVDQU 208(W)(R11*1), P2

// Q3K_LANE adds lane g of the block column of the group at W for token 0
// into the frame block at goff: per chunk k the pieces u(2k), u(2k+1)
// unpacked from the planes (Q3K_U0..Q3K_U3), their products, the int32
// lane summed over the four chunks, then lane = fma(d_w*d_a, float,
// lane). The lane's three planes are loaded once into Y8-Y10 (re-read
// from memory for each piece they ran 1.04-1.07x slower); Y0-Y5, Y7
// scratch.
#define Q3K_LANE(W, goff) \
	Q3K_PLANES(W, Y8, Y9, Y10)                  \
	Q3K_U0(Y8, Y1, Y2)                          \
	Q3K_PROD(Y1, Y2, 80, 0, Y5, Y7)             \
	Q3K_MADD0(goff+0, Y5, Y0)                   \
	Q3K_U1(Y8, Y9, Y10, Y1, Y2, Y3, Y4)         \
	Q3K_PROD(Y1, Y2, 336, 128, Y5, Y7)          \
	Q3K_MADD(goff+32, Y5, Y0)                   \
	Q3K_U2(Y9, Y10, Y1, Y2, Y3, Y4)             \
	Q3K_PROD(Y1, Y2, 592, 256, Y5, Y7)          \
	Q3K_MADD(goff+64, Y5, Y0)                   \
	Q3K_U3(Y10, Y1, Y2)                         \
	Q3K_PROD(Y1, Y2, 848, 384, Y5, Y7)          \
	Q3K_MADD(goff+96, Y5, Y0)                   \
	VCVTDQ2PS   Y0, Y0                          \
	VMOVUPS     goff+288(SP)(R12*1), Y5         \
	VFMADD231PS goff+256(SP), Y0, Y5            \
	VMOVUPS     Y5, goff+288(SP)(R12*1)

// Q3K_OUT stores the eight sums of the lanes at lanes(SP), each row's
// HSUM, ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)), at (DX), then moves DX
// on by BX bytes.
#define Q3K_OUT(lanes) \
	VMOVUPS lanes(SP), Y0         \
	VMOVUPS lanes+32(SP), Y1      \
	VMOVUPS lanes+64(SP), Y2      \
	VMOVUPS lanes+96(SP), Y3      \
	VADDPS  lanes+128(SP), Y0, Y0 \
	VADDPS  lanes+160(SP), Y1, Y1 \
	VADDPS  lanes+192(SP), Y2, Y2 \
	VADDPS  lanes+224(SP), Y3, Y3 \
	VADDPS  Y2, Y0, Y0            \
	VADDPS  Y3, Y1, Y1            \
	VADDPS  Y1, Y0, Y0            \
	VMOVUPS Y0, (DX)              \
	ADDQ    BX, DX



// The gemm's lanes (Q3K_LANEN): lane g of the block column of the group at
// SI for the tokens of EACH (the first two, three or four) of the quad
// block at DI, each piece
// unpacked once for them, into token t's lanes at 384+256t(SP). Yt (Y0-Y3)
// are the tokens' int32 lanes, Y10-Y12 the lane's planes; Y4-Y9 scratch.

// Token t's products with piece 0, its lanes started in Yt.
#define Q3K_T0(t, Yt, slot, sum, sc) \
	Q3K_PROD(Y4, Y5, 80+4*t, 4*t, Y8, Y9) \
	Q3K_MADD0(0, Y8, Yt)

// Token t's products with a later piece (slots at slot, sums at sum, scale
// pairs at sc) added to Yt.
#define Q3K_T(t, Yt, slot, sum, sc) \
	Q3K_PROD(Y4, Y5, slot+4*t, sum+4*t, Y8, Y9) \
	Q3K_MADD(sc, Y8, Yt)

// Token t's lanes Yt times its d_w*d_a into its float lanes.
#define Q3K_F(t, Yt, slot, sum, sc) \
	VCVTDQ2PS   Yt, Yt \
	VMOVUPS     384+256*t(SP)(R12*1), Y8 \
	VFMADD231PS 256+32*t(SP), Yt, Y8 \
	VMOVUPS     Y8, 384+256*t(SP)(R12*1)

// Q3K_EACHn applies M (t, its int32 lanes Yt, then slot, sum, sc; the
// macros above use what they need) to the first n tokens.
#define Q3K_EACH2(M, slot, sum, sc) \
	M(0, Y0, slot, sum, sc) \
	M(1, Y1, slot, sum, sc)

#define Q3K_EACH3(M, slot, sum, sc) \
	Q3K_EACH2(M, slot, sum, sc) \
	M(2, Y2, slot, sum, sc)

#define Q3K_EACH4(M, slot, sum, sc) \
	Q3K_EACH3(M, slot, sum, sc) \
	M(3, Y3, slot, sum, sc)

#define Q3K_LANEN(EACH) \
	Q3K_PLANES(SI, Y10, Y11, Y12) \
	Q3K_U0(Y10, Y4, Y5) \
	EACH(Q3K_T0, 0, 0, 0) \
	Q3K_U1(Y10, Y11, Y12, Y4, Y5, Y6, Y7) \
	EACH(Q3K_T, 336, 128, 32) \
	Q3K_U2(Y11, Y12, Y4, Y5, Y6, Y7) \
	EACH(Q3K_T, 592, 256, 64) \
	Q3K_U3(Y12, Y4, Y5) \
	EACH(Q3K_T, 848, 384, 96) \
	EACH(Q3K_F, 0, 0, 0)

// The block column's head: the scale pairs of the group at SI and the
// tokens' d_w*d_a at 256+32t (Q3K_D; Y8-Y10 scratch).
#define Q3K_D(t, Yt, slot, sum, sc) \
	VBROADCASTSS 4*t(DI), Y9 \
	VMULPS       Y9, Y8, Y10 \
	VMOVUPS      Y10, 256+32*t(SP)

#define Q3K_HEADN(EACH) \
	Q3K_SCALES(SI, 0) \
	VCVTPH2PS    (SI), Y8 \
	EACH(Q3K_D, 0, 0, 0)

// One Q3_K group against token 0: out[0..7] (frame block at 0).

// Four groups gstride bytes apart (four DRAM streams per core), taking
// turns by lane: 96 bytes of each stream at a time after the groups' 144
// header bytes. Group g's frame block is at 544g.

// Q3K_GEMV4 is the body of q3_Kx8Gemv4AVX2 and its prefetching twin (PF
// at each lane: Q3K_PF4 or Q3K_NOPF). (Here, before the first TEXT: go
// vet reads argument names against the preceding function.)
#define Q3K_GEMV4(PF, loop, lane, done) \
	GEMV4_ARGS \
	Q3K_CONSTS \
	MOVQ s+32(FP), AX \
	VXORPS Y0, Y0, Y0 \
	LANES8_CLEAR(288) \
	LANES8_CLEAR(832) \
	LANES8_CLEAR(1376) \
	LANES8_CLEAR(1920) \
	TESTQ CX, CX \
	JZ    done \
loop: \
	Q3K_HEAD(SI, 0) \
	Q3K_HEAD(R8, 544) \
	Q3K_HEAD(R9, 1088) \
	Q3K_HEAD(R10, 1632) \
	Q3K_LANE_START \
lane: \
	PF \
	Q3K_LANE(SI, 0) \
	Q3K_LANE(R8, 544) \
	Q3K_LANE(R9, 1088) \
	Q3K_LANE(R10, 1632) \
	Q3K_LANE_NEXT \
	CMPQ R12, $256 \
	JLT  lane \
	GEMV4_NEXT($Q3K_GROUP_BYTES) \
	ADDQ $Q8K_QUAD_MAIN, DI \
	ADDQ $Q8K_QUAD_SUMS, AX \
	DECQ CX \
	JNZ  loop \
done: \
	MOVQ out+40(FP), DX \
	MOVQ ostride+48(FP), BX \
	SHLQ $2, BX \
	Q3K_OUT(288) \
	Q3K_OUT(832) \
	Q3K_OUT(1376) \
	Q3K_OUT(1920) \
	VZEROUPPER \
	RET

// func q3_Kx8GemvAVX2(nb int, w, a, s *byte, out *float32)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q3_Kx8GemvAVX2(SB), 0, $544-40
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q3K_CONSTS
	MOVQ s+24(FP), AX
	VXORPS Y0, Y0, Y0
	LANES8_CLEAR(288)
	TESTQ CX, CX
	JZ    q3kgvdone

q3kgvloop:
	Q3K_HEAD(SI, 0)
	Q3K_LANE_START

q3kgvlane:
	Q3K_LANE(SI, 0)
	Q3K_LANE_NEXT
	CMPQ R12, $256
	JLT  q3kgvlane
	ADDQ $Q3K_GROUP_BYTES, SI
	ADDQ $Q8K_QUAD_MAIN, DI
	ADDQ $Q8K_QUAD_SUMS, AX
	DECQ CX
	JNZ  q3kgvloop

q3kgvdone:
	MOVQ out+32(FP), DX
	Q3K_OUT(288)
	VZEROUPPER
	RET

// func q3_Kx8Gemv4AVX2(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q3_Kx8Gemv4AVX2(SB), 0, $2176-56
	Q3K_GEMV4(Q3K_NOPF, q3kgv4loop, q3kgv4lane, q3kgv4done)

// func q3_Kx8Gemv4PfAVX2(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)
// q3_Kx8Gemv4AVX2 prefetching its streams (streamPrefetch).
TEXT ·q3_Kx8Gemv4PfAVX2(SB), 0, $2176-56
	Q3K_GEMV4(Q3K_PF4, q3kgv4ploop, q3kgv4plane, q3kgv4pdone)

// Clears the tokens' lanes (384+256t); Y0 zero.
#define Q3K_GM_ZERO \
	VXORPS Y0, Y0, Y0 \
	LANES8_CLEAR(384) \
	LANES8_CLEAR(640) \
	LANES8_CLEAR(896) \
	LANES8_CLEAR(1152)

// The block columns (the lane counters of Q3K_LANE_START), HEAD and LANE
// for the tokens.
#define Q3K_GM_LOOP(loop, lane, done, HEAD, LANE) \
	TESTQ CX, CX \
	JZ    done \
loop: \
	HEAD \
	Q3K_LANE_START \
lane: \
	LANE \
	Q3K_LANE_NEXT \
	CMPQ R12, $256 \
	JLT  lane \
	ADDQ $Q3K_GROUP_BYTES, SI \
	ADDQ $Q8K_QUAD_MAIN, DI \
	ADDQ $Q8K_QUAD_SUMS, AX \
	DECQ CX \
	JNZ  loop

// One group of eight rows against the first ntok (1..4) tokens of the
// quad blocks: out[t*ostride+r], every token in the gemv's steps (same
// bits). The two- and three-token variants unpack each piece for only
// those tokens (the four-token one costs a whole quad whatever ntok).

// func q3_Kx8GemmAVX2(nb int, w, a, s *byte, out *float32, ostride, ntok int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q3_Kx8GemmAVX2(SB), 0, $1408-56
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q3K_CONSTS
	MOVQ s+24(FP), AX
	Q3K_GM_ZERO
	Q3K_GM_LOOP(q3kgmloop, q3kgmlane, q3kgmdone, Q3K_HEADN(Q3K_EACH4), Q3K_LANEN(Q3K_EACH4))

q3kgmdone:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	MOVQ ntok+48(FP), AX
	Q3K_OUT(384)
	CMPQ AX, $1
	JLE  q3kgmend
	Q3K_OUT(640)
	CMPQ AX, $2
	JLE  q3kgmend
	Q3K_OUT(896)
	CMPQ AX, $3
	JLE  q3kgmend
	Q3K_OUT(1152)

q3kgmend:
	VZEROUPPER
	RET

// func q3_Kx8Gemm3AVX2(nb int, w, a, s *byte, out *float32, ostride, ntok int)
// Tokens 0-2 (ntok 3).
TEXT ·q3_Kx8Gemm3AVX2(SB), 0, $1408-56
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q3K_CONSTS
	MOVQ s+24(FP), AX
	Q3K_GM_ZERO
	Q3K_GM_LOOP(q3kgm3loop, q3kgm3lane, q3kgm3done, Q3K_HEADN(Q3K_EACH3), Q3K_LANEN(Q3K_EACH3))

q3kgm3done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	Q3K_OUT(384)
	Q3K_OUT(640)
	Q3K_OUT(896)
	VZEROUPPER
	RET

// func q3_Kx8Gemm2AVX2(nb int, w, a, s *byte, out *float32, ostride, ntok int)
// Tokens 0-1 (ntok 2).
TEXT ·q3_Kx8Gemm2AVX2(SB), 0, $1408-56
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q3K_CONSTS
	MOVQ s+24(FP), AX
	Q3K_GM_ZERO
	Q3K_GM_LOOP(q3kgm2loop, q3kgm2lane, q3kgm2done, Q3K_HEADN(Q3K_EACH2), Q3K_LANEN(Q3K_EACH2))

q3kgm2done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	Q3K_OUT(384)
	Q3K_OUT(640)
	VZEROUPPER
	RET
