//go:build !purego

#include "lanes_amd64.h"
#include "textflag.h"

// Packed Q5_0 (packQ5_0Group) times Q8_0 activations in the quad layout
// (q8_0Quad), in ggml_vec_dot_q5_0_q8_0's float order on AVX2
// (vecDotQ5_0Q8_0Generic), bit for bit: per row and block, eight int32
// lanes (lane l: elements 4l..4l+3), each converted and added with one FMA
// by d_w*d_a, the lanes summed at the end in HSUM's tree. A piece of the
// packed group holds one lane of all eight rows, so the eight lanes are
// eight vector accumulators and the final sum is vector adds.
//
// The quants stay unsigned, u = nibble + 16*high bit = q + 16: lane l of
// row r is madd(maddubs(u, a)) - 16*(the token's four activations of piece
// l), the integer ggml's sign trick gives. Per block column the row-major
// kernel spends about 20 vector operations per row (bytes_from_bits, sign,
// abs ...); this one about 10 (the 5-bit layout of q5_0GroupBytes unpacks
// two pieces in six where nibbles and a bit plane took nine: in L2 0.95x
// the time on a Zen3, from DRAM the same).

// Q50PF is how far ahead the one-stream kernels prefetch (as PKPF).
#define Q50PF 2304

// 0x18 bytes (+0) and 0x10 bytes (+32).
DATA q50k<>+0(SB)/8, $0x1818181818181818
DATA q50k<>+8(SB)/8, $0x1818181818181818
DATA q50k<>+16(SB)/8, $0x1818181818181818
DATA q50k<>+24(SB)/8, $0x1818181818181818
DATA q50k<>+32(SB)/8, $0x1010101010101010
DATA q50k<>+40(SB)/8, $0x1010101010101010
DATA q50k<>+48(SB)/8, $0x1010101010101010
DATA q50k<>+56(SB)/8, $0x1010101010101010
GLOBL q50k<>(SB), RODATA|NOPTR, $64

// Y15 = 0x1F bytes, Y14 = 0x07 bytes, Y13 = int16 ones.
#define Q50_CONSTS \
	MOVL         $0x1F1F1F1F, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15        \
	MOVL         $0x07070707, AX \
	VMOVD        AX, X14         \
	VPBROADCASTD X14, Y14        \
	VPCMPEQW     Y13, Y13, Y13   \
	VPSRLW       $15, Y13, Y13

// Q50_YSUMS stores at 0(SP) 16 times the sum of each four-activation piece
// of the quad block column at DI: int32 at 16l+4t for piece l of token t,
// the quants' own layout. Y8, Y9 scratch.
#define Q50_YSUMS \
	VMOVDQU    q50k<>+32(SB), Y9 \
	VPMADDUBSW 32(DI), Y9, Y8  \
	VPMADDWD   Y13, Y8, Y8      \
	VMOVDQU    Y8, 0(SP)        \
	VPMADDUBSW 64(DI), Y9, Y8  \
	VPMADDWD   Y13, Y8, Y8      \
	VMOVDQU    Y8, 32(SP)       \
	VPMADDUBSW 96(DI), Y9, Y8  \
	VPMADDWD   Y13, Y8, Y8      \
	VMOVDQU    Y8, 64(SP)       \
	VPMADDUBSW 128(DI), Y9, Y8 \
	VPMADDWD   Y13, Y8, Y8      \
	VMOVDQU    Y8, 96(SP)

// Q50_UNPACK sets Y9 to v_A and Y8 to v_B of piece c at off(W)
// (q5_0GroupBytes), the planes in Y10: v_A is the byte's low five bits,
// v_B its top three bits and bits 2c, 2c+1 of the planes moved to bits 3
// and 4 by SHIFT n (a word shift by at most 3 keeps them in their own
// byte). Y11 scratch.
#define Q50_UNPACK(off, W, SHIFT, n) \
	VMOVDQU off(W), Y8           \
	VPAND   Y15, Y8, Y9          \
	VPSRLW  $5, Y8, Y8           \
	VPAND   Y14, Y8, Y8          \
	SHIFT   $n, Y10, Y11         \
	VPAND   q50k<>+0(SB), Y11, Y11 \
	VPOR    Y11, Y8, Y8

// Q50_LANE1 adds one lane of token 0 to acc: the quants in Yu (destroyed),
// the activation piece at ao(DI), its sum at so(SP), d_w*d_a in Y12; Y11
// scratch.
#define Q50_LANE1(Yu, ao, so, acc) \
	VPBROADCASTD ao(DI), Y11 \
	VPMADDUBSW   Y11, Yu, Yu \
	VPMADDWD     Y13, Yu, Yu \
	VPBROADCASTD so(SP), Y11 \
	VPSUBD       Y11, Yu, Yu \
	VCVTDQ2PS    Yu, Yu      \
	VFMADD231PS  Yu, Y12, acc

// Q50_COL1 adds the block column of the group at W to the lane
// accumulators Y0-Y7 for token 0 of the quad block at DI (piece sums at
// 0(SP), Q50_YSUMS).
#define Q50_COL1(W) \
	VMOVDQU      16(W), Y10 \
	VCVTPH2PS    (W), Y12   \
	VBROADCASTSS (DI), Y11  \
	VMULPS       Y11, Y12, Y12 \
	Q50_UNPACK(48, W, VPSLLW, 3) \
	Q50_LANE1(Y9, 32, 0, Y0) \
	Q50_LANE1(Y8, 96, 64, Y4) \
	Q50_UNPACK(80, W, VPSLLW, 1) \
	Q50_LANE1(Y9, 48, 16, Y1) \
	Q50_LANE1(Y8, 112, 80, Y5) \
	Q50_UNPACK(112, W, VPSRLW, 1) \
	Q50_LANE1(Y9, 64, 32, Y2) \
	Q50_LANE1(Y8, 128, 96, Y6) \
	Q50_UNPACK(144, W, VPSRLW, 3) \
	Q50_LANE1(Y9, 80, 48, Y3) \
	Q50_LANE1(Y8, 144, 112, Y7)

// func q5_0x8GemvAVX2(nb int, w, a *byte, out *float32)
TEXT ·q5_0x8GemvAVX2(SB), NOSPLIT, $128-32
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	Q50_CONSTS
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	TESTQ CX, CX
	JZ    q50gvdone

q50gvloop:
	PREFETCHT0 Q50PF(SI)
	PREFETCHT0 Q50PF+64(SI)
	PREFETCHT0 Q50PF+128(SI)
	Q50_YSUMS
	Q50_COL1(SI)
	ADDQ $176, SI
	ADDQ $160, DI
	DECQ CX
	JNZ  q50gvloop

q50gvdone:
	LANES8_REDUCE(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VMOVUPS Y0, (DX)
	VZEROUPPER
	RET

// One group's turn of a block column in the four-group gemv: its lanes
// from the frame at off, the column added, back to the frame.
#define Q50_TURN(W, off) \
	PREFETCHT0 1024(W)  \
	PREFETCHT0 1088(W)  \
	PREFETCHT0 1152(W)  \
	LANES8_LOAD(off)      \
	Q50_COL1(W)         \
	LANES8_STORE(off)

#define Q50_OUT(off) \
	LANES8_LOAD(off)      \
	LANES8_REDUCE(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)          \
	VMOVUPS Y0, (DX)    \
	ADDQ    BX, DX

// Four groups gstride bytes apart (four DRAM streams per core), taking
// turns by block column as q4_Kx8Gemv4AVX2 does; group g's lanes live at
// 128+256g(SP) between turns, the piece sums (shared) at 0(SP).

// func q5_0x8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q5_0x8Gemv4AVX2(SB), 0, $1152-48
	GEMV4_ARGS
	Q50_CONSTS
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	LANES8_STORE(128)
	LANES8_STORE(384)
	LANES8_STORE(640)
	LANES8_STORE(896)
	TESTQ CX, CX
	JZ    q50gv4done

q50gv4loop:
	Q50_YSUMS
	Q50_TURN(SI, 128)
	Q50_TURN(R8, 384)
	Q50_TURN(R9, 640)
	Q50_TURN(R10, 896)
	GEMV4_NEXT($176)
	ADDQ $160, DI
	DECQ CX
	JNZ  q50gv4loop

q50gv4done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	Q50_OUT(128)
	Q50_OUT(384)
	Q50_OUT(640)
	Q50_OUT(896)
	VZEROUPPER
	RET

// Q50_LANE4 adds one lane of token t to its accumulator in the frame at
// acc, with ggml's sign trick (no piece sums): |q| in Yabs, q in Y12 (both
// kept), the activation piece at ao(DI), the token's d_w*d_a in Yd; Y0,
// Y11 scratch.
#define Q50_LANE4(Yabs, ao, Yd, acc) \
	VPBROADCASTD ao(DI), Y11     \
	VPSIGNB      Y12, Y11, Y11   \
	VPMADDUBSW   Y11, Yabs, Y0   \
	VPMADDWD     Y13, Y0, Y0     \
	VCVTDQ2PS    Y0, Y0          \
	VFMADD213PS  acc(SP), Yd, Y0 \
	VMOVUPS      Y0, acc(SP)

// Q50_COL(EACH) adds the block column of the group at SI to the lane
// accumulators of the tokens of EACH (Q50_EACHn: the first two, three or
// four; token t lane l at 128+256t+32l(SP)): each piece's quants are
// unpacked once for those tokens, as signed q and |q|;
// Y4-Y7 = the tokens' d_w*d_a (Q50_DW, Q50_D; its last three arguments
// unused). (The piece sums of the gemv would cost a load per lane and
// token here, where loads, not vector operations, bound.)
#define Q50_DW \
	VMOVDQU      16(SI), Y10   \
	VCVTPH2PS    (SI), Y12

#define Q50_D(t, Yd, Yabs, ao, acc) \
	VBROADCASTSS 4*t(DI), Y11  \
	VMULPS       Y11, Y12, Yd

// Token t's lane of the piece unpacked in Yabs (slots at ao, lanes at acc
// for token 0).
#define Q50_T(t, Yd, Yabs, ao, acc) \
	Q50_LANE4(Yabs, ao+4*t, Yd, acc+256*t)

// Q50_EACHn applies M (t, its d_w*d_a Yd, then Yabs, ao, acc) to the
// first n tokens.
#define Q50_EACH2(M, Yabs, ao, acc) \
	M(0, Y4, Yabs, ao, acc) \
	M(1, Y5, Yabs, ao, acc)

#define Q50_EACH3(M, Yabs, ao, acc) \
	Q50_EACH2(M, Yabs, ao, acc) \
	M(2, Y6, Yabs, ao, acc)

#define Q50_EACH4(M, Yabs, ao, acc) \
	Q50_EACH3(M, Yabs, ao, acc) \
	M(3, Y7, Yabs, ao, acc)

// Q50_SIGNED turns the unsigned quants in Yu into signed q (Y12) and |q|
// (Yu).
#define Q50_SIGNED(Yu) \
	VPSUBB q50k<>+32(SB), Yu, Y12 \
	VPABSB Y12, Yu

#define Q50_COL(EACH) \
	Q50_DW \
	EACH(Q50_D, Y0, 0, 0) \
	Q50_UNPACK(48, SI, VPSLLW, 3) \
	Q50_SIGNED(Y9) \
	EACH(Q50_T, Y9, 32, 128) \
	Q50_SIGNED(Y8) \
	EACH(Q50_T, Y8, 96, 256) \
	Q50_UNPACK(80, SI, VPSLLW, 1) \
	Q50_SIGNED(Y9) \
	EACH(Q50_T, Y9, 48, 160) \
	Q50_SIGNED(Y8) \
	EACH(Q50_T, Y8, 112, 288) \
	Q50_UNPACK(112, SI, VPSRLW, 1) \
	Q50_SIGNED(Y9) \
	EACH(Q50_T, Y9, 64, 192) \
	Q50_SIGNED(Y8) \
	EACH(Q50_T, Y8, 128, 320) \
	Q50_UNPACK(144, SI, VPSRLW, 3) \
	Q50_SIGNED(Y9) \
	EACH(Q50_T, Y9, 80, 224) \
	Q50_SIGNED(Y8) \
	EACH(Q50_T, Y8, 144, 352)

// Q50_OUT4 stores token t's eight sums (lanes at off(SP)) at (DX) unless t
// >= ntok (AX), then moves DX on by BX bytes.
#define Q50_OUT4(off, t, name) \
	CMPQ    AX, $t       \
	JLE     name         \
	LANES8_LOAD(off)       \
	LANES8_REDUCE(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)           \
	VMOVUPS Y0, (DX)     \
	ADDQ    BX, DX

// One group of eight rows against the first ntok (1..4) tokens of the
// quad blocks: out[t*ostride+r]. Every token takes the gemv's steps (same
// bits); the accumulators live in the frame. The two- and three-token
// variants unpack each piece for only those tokens (the four-token one
// costs a whole quad whatever ntok).

// The frame's accumulators cleared, then the block columns (COL: the
// tokens' Q50_COLn).
#define Q50_GM_LOOP(loop, done, COL) \
	Q50_CONSTS \
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7) \
	LANES8_STORE(128) \
	LANES8_STORE(384) \
	LANES8_STORE(640) \
	LANES8_STORE(896) \
	TESTQ CX, CX \
	JZ    done \
loop: \
	PREFETCHT0 Q50PF(SI) \
	PREFETCHT0 Q50PF+64(SI) \
	PREFETCHT0 Q50PF+128(SI) \
	COL \
	ADDQ $176, SI \
	ADDQ $160, DI \
	DECQ CX \
	JNZ  loop

// func q5_0x8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
// Not NOSPLIT (the frame, as above).
TEXT ·q5_0x8GemmAVX2(SB), 0, $1152-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q50_GM_LOOP(q50gmloop, q50gmdone, Q50_COL(Q50_EACH4))

q50gmdone:
	MOVQ out+24(FP), DX
	MOVQ ostride+32(FP), BX
	SHLQ $2, BX
	MOVQ ntok+40(FP), AX
	Q50_OUT4(128, 0, q50gmend)
	Q50_OUT4(384, 1, q50gmend)
	Q50_OUT4(640, 2, q50gmend)
	Q50_OUT4(896, 3, q50gmend)

q50gmend:
	VZEROUPPER
	RET

// func q5_0x8Gemm3AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
// Tokens 0-2 (ntok 3).
TEXT ·q5_0x8Gemm3AVX2(SB), 0, $1152-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q50_GM_LOOP(q50gm3loop, q50gm3done, Q50_COL(Q50_EACH3))

q50gm3done:
	MOVQ out+24(FP), DX
	MOVQ ostride+32(FP), BX
	SHLQ $2, BX
	MOVQ $3, AX
	Q50_OUT4(128, 0, q50gm3end)
	Q50_OUT4(384, 1, q50gm3end)
	Q50_OUT4(640, 2, q50gm3end)

q50gm3end:
	VZEROUPPER
	RET

// func q5_0x8Gemm2AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
// Tokens 0-1 (ntok 2).
TEXT ·q5_0x8Gemm2AVX2(SB), 0, $1152-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q50_GM_LOOP(q50gm2loop, q50gm2done, Q50_COL(Q50_EACH2))

q50gm2done:
	MOVQ out+24(FP), DX
	MOVQ ostride+32(FP), BX
	SHLQ $2, BX
	MOVQ $2, AX
	Q50_OUT4(128, 0, q50gm2end)
	Q50_OUT4(384, 1, q50gm2end)

q50gm2end:
	VZEROUPPER
	RET
