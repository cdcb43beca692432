//go:build !purego

#include "lanes_amd64.h"
#include "pairs_amd64.h"
#include "textflag.h"
#include "vnni_amd64.h"

// Packed Q5_0 (packQ5_0Group) times Q8_0 activations in the VNNI quad
// layout (q8_0QuadTok), in ggml_vec_dot_q5_0_q8_0's float order on AVX2
// (vecDotQ5_0Q8_0Generic) bit for bit, as the AVX2 packed kernels
// (packed_q5_0_amd64.s): per row and block eight int32 lanes (lane l:
// elements 4l..4l+3), each converted and added with one FMA by d_w*d_a,
// the lanes summed at the end in HSUM's tree. A piece of the group holds
// one lane of all eight rows, so the lanes are eight vector accumulators
// per token.
//
// The quants stay unsigned, u = nibble + 16*high bit = q + 16, and lane l
// of a row is VPDPBUSD(u, the token's piece l) started at -16 times the
// sum of that piece (computed once per block column and token, shared by
// all the rows): three vector operations per lane and token (VPDPBUSD,
// convert, FMA) where AVX2 takes five, and five per piece to unpack u
// (VPTERNLOGD merges the top bits and the plane bits).

// Q5VPF is how far ahead the one-stream kernels prefetch.
#define Q5VPF 2304

// Y15 = 0x1F bytes, Y14 = 0x07 bytes, Y13 = 0x18 bytes, Y24 = 0x10 bytes.
#define Q5V_CONSTS \
	MOVL         $0x1F1F1F1F, AX \
	VPBROADCASTD AX, Y15         \
	MOVL         $0x07070707, AX \
	VPBROADCASTD AX, Y14         \
	MOVL         $0x18181818, AX \
	VPBROADCASTD AX, Y13         \
	MOVL         $0x10101010, AX \
	VPBROADCASTD AX, Y24

// Q5V_SUMS stores at 32t(SP) -16 times the sum of each four-activation
// piece of token t of the quad block column at DI (int32 per piece);
// Y11, Y12 scratch.
#define Q5V_SUMS(t) \
	VPXOR    Y11, Y11, Y11          \
	VPDPBUSD 32+32*t(DI), Y24, Y11  \
	VPXOR    Y12, Y12, Y12          \
	VPSUBD   Y11, Y12, Y11          \
	VMOVDQU  Y11, 32*t(SP)

// Q5V_UNPACK sets Y9 to v_A and Y8 to v_B of piece c at off(W)
// (q5_0GroupBytes), the planes in Y10: v_A is the byte's low five bits,
// v_B its top three bits ORed with bits 2c, 2c+1 of the planes moved to
// bits 3 and 4 by SHIFT n (a word shift by at most 3 keeps them in their
// own byte). Y11 scratch.
#define Q5V_UNPACK(off, W, SHIFT, n) \
	VMOVDQU    off(W), Y8          \
	VPANDD     Y15, Y8, Y9         \
	VPSRLW     $5, Y8, Y8          \
	SHIFT      $n, Y10, Y11        \
	VPANDD     Y13, Y11, Y11       \
	VPTERNLOGD $0xEC, Y14, Y11, Y8

// Q5V_LANE adds one lane to the register accumulator acc: the quants in
// Yu, the token's activation piece at ao(DI), its -16*sum at so(SP),
// d_w*d_a in Yd; Y12 scratch.
#define Q5V_LANE(Yu, ao, so, Yd, acc) \
	VPBROADCASTD  so(SP), Y12     \
	VPDPBUSD.BCST ao(DI), Yu, Y12 \
	VCVTDQ2PS     Y12, Y12        \
	VFMADD231PS   Y12, Yd, acc

// Q5V_LANEM is Q5V_LANE with the accumulator in the frame at acc(SP).
#define Q5V_LANEM(Yu, ao, so, Yd, acc) \
	VPBROADCASTD  so(SP), Y12       \
	VPDPBUSD.BCST ao(DI), Yu, Y12   \
	VCVTDQ2PS     Y12, Y12          \
	VFMADD213PS   acc(SP), Yd, Y12  \
	VMOVUPS       Y12, acc(SP)

// Q5V_SCALES sets Y10 to the group's planes at W and Yd to its rows' d
// times token t's d.
#define Q5V_SCALES(W, t, Yd) \
	VMOVDQU     16(W), Y10       \
	VCVTPH2PS   (W), Yd          \
	VMULPS.BCST 4*t(DI), Yd, Yd

// Q5V_COL1 adds the block column of the group at W to the lane
// accumulators Y0-Y7 for token 0 of the quad block at DI (its piece sums
// at 0(SP), Q5V_SUMS(0)); Y25 scratch.
#define Q5V_COL1(W) \
	Q5V_SCALES(W, 0, Y25)            \
	Q5V_UNPACK(48, W, VPSLLW, 3)     \
	Q5V_LANE(Y9, 32, 0, Y25, Y0)     \
	Q5V_LANE(Y8, 48, 16, Y25, Y4)    \
	Q5V_UNPACK(80, W, VPSLLW, 1)     \
	Q5V_LANE(Y9, 36, 4, Y25, Y1)     \
	Q5V_LANE(Y8, 52, 20, Y25, Y5)    \
	Q5V_UNPACK(112, W, VPSRLW, 1)    \
	Q5V_LANE(Y9, 40, 8, Y25, Y2)     \
	Q5V_LANE(Y8, 56, 24, Y25, Y6)    \
	Q5V_UNPACK(144, W, VPSRLW, 3)    \
	Q5V_LANE(Y9, 44, 12, Y25, Y3)    \
	Q5V_LANE(Y8, 60, 28, Y25, Y7)

// func q5_0x8GemvVNNI(nb int, w, a *byte, out *float32)
TEXT ·q5_0x8GemvVNNI(SB), NOSPLIT, $32-32
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	Q5V_CONSTS
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	TESTQ CX, CX
	JZ    q5vgvdone

q5vgvloop:
	PREFETCHT0 Q5VPF(SI)
	PREFETCHT0 Q5VPF+64(SI)
	PREFETCHT0 Q5VPF+128(SI)
	Q5V_SUMS(0)
	Q5V_COL1(SI)
	ADDQ $176, SI
	ADDQ $288, DI
	DECQ CX
	JNZ  q5vgvloop

q5vgvdone:
	LANES8_REDUCE(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VMOVUPS Y0, (DX)
	VZEROUPPER
	RET

// One group's turn of a block column in the four-group gemv: its lanes
// from the frame at off, the column added, back to the frame.
#define Q5V_TURN(W, off) \
	PREFETCHT0 1024(W) \
	PREFETCHT0 1088(W) \
	PREFETCHT0 1152(W) \
	LANES8_LOAD(off)     \
	Q5V_COL1(W)        \
	LANES8_STORE(off)

#define Q5V_OUT(off) \
	LANES8_LOAD(off)                             \
	LANES8_REDUCE(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7) \
	VMOVUPS Y0, (DX)                           \
	ADDQ    BX, DX

// Four groups gstride bytes apart (four DRAM streams per core), taking
// turns by block column as q5_0x8Gemv4AVX2 does; group g's lanes live at
// 32+256g(SP) between turns, the piece sums (shared) at 0(SP).

// func q5_0x8Gemv4VNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q5_0x8Gemv4VNNI(SB), 0, $1056-48
	GEMV4_ARGS
	Q5V_CONSTS
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	LANES8_STORE(32)
	LANES8_STORE(288)
	LANES8_STORE(544)
	LANES8_STORE(800)
	TESTQ CX, CX
	JZ    q5vgv4done

q5vgv4loop:
	Q5V_SUMS(0)
	Q5V_TURN(SI, 32)
	Q5V_TURN(R8, 288)
	Q5V_TURN(R9, 544)
	Q5V_TURN(R10, 800)
	GEMV4_NEXT($176)
	ADDQ $288, DI
	DECQ CX
	JNZ  q5vgv4loop

q5vgv4done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	Q5V_OUT(32)
	Q5V_OUT(288)
	Q5V_OUT(544)
	Q5V_OUT(800)
	VZEROUPPER
	RET

// Q5V_PIECE4 adds piece c of the group at SI to the four tokens' lanes c
// (v_A) and 4+c (v_B): tokens 0 and 1 in registers (lanes c at rA0, rA1,
// 4+c at rB0, rB1), tokens 2 and 3 in the frame (lane l of token 2 at
// 128+32l(SP), of token 3 at 384+32l); off the piece's offset in the
// group, SHIFT n its plane shift. Token t's pieces are at 32+32t+4c(DI)
// (v_A) and +16 (v_B), their sums at 32t+4c(SP) and +16; the tokens'
// d_w*d_a in Y25-Y28.
#define Q5V_PIECE4(c, off, SHIFT, n, rA0, rA1, rB0, rB1) \
	Q5V_UNPACK(off, SI, SHIFT, n)                        \
	Q5V_LANE(Y9, 32+4*c, 4*c, Y25, rA0)                  \
	Q5V_LANE(Y9, 64+4*c, 32+4*c, Y26, rA1)               \
	Q5V_LANEM(Y9, 96+4*c, 64+4*c, Y27, 128+32*c)         \
	Q5V_LANEM(Y9, 128+4*c, 96+4*c, Y28, 384+32*c)        \
	Q5V_LANE(Y8, 48+4*c, 16+4*c, Y25, rB0)               \
	Q5V_LANE(Y8, 80+4*c, 48+4*c, Y26, rB1)               \
	Q5V_LANEM(Y8, 112+4*c, 80+4*c, Y27, 256+32*c)        \
	Q5V_LANEM(Y8, 144+4*c, 112+4*c, Y28, 512+32*c)

// Q5V_OUTM stores token t's eight sums (lanes at off(SP)) at (DX) unless t
// >= ntok (AX), then moves DX on by BX bytes.
#define Q5V_OUTM(off, t, name) \
	CMPQ    AX, $t                             \
	JLE     name                               \
	LANES8_LOAD(off)                             \
	LANES8_REDUCE(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7) \
	VMOVUPS Y0, (DX)                           \
	ADDQ    BX, DX

// func q5_0x8GemmVNNI(nb int, w, a *byte, out *float32, ostride, ntok int)
//
// One group of eight rows against the four tokens of the quad blocks, the
// first ntok (1..4) stored at out[t*ostride+r]: every token takes the
// gemv's steps (same bits), each piece unpacked once for the four. Lane
// accumulators: token 0 in Y0-Y7, token 1 in Y16-Y23, tokens 2 and 3 in
// the frame (32 accumulators and the unpacking's registers do not fit in
// 32 registers).
// Not NOSPLIT (the frame, as above).
TEXT ·q5_0x8GemmVNNI(SB), 0, $640-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q5V_CONSTS
	LANES8_ZERO(Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23)
	VMOVUPS Y16, 128(SP)
	VMOVUPS Y16, 160(SP)
	VMOVUPS Y16, 192(SP)
	VMOVUPS Y16, 224(SP)
	VMOVUPS Y16, 256(SP)
	VMOVUPS Y16, 288(SP)
	VMOVUPS Y16, 320(SP)
	VMOVUPS Y16, 352(SP)
	VMOVUPS Y16, 384(SP)
	VMOVUPS Y16, 416(SP)
	VMOVUPS Y16, 448(SP)
	VMOVUPS Y16, 480(SP)
	VMOVUPS Y16, 512(SP)
	VMOVUPS Y16, 544(SP)
	VMOVUPS Y16, 576(SP)
	VMOVUPS Y16, 608(SP)
	LANES8_ZERO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	TESTQ CX, CX
	JZ    q5vgmdone

q5vgmloop:
	PREFETCHT0 Q5VPF(SI)
	PREFETCHT0 Q5VPF+64(SI)
	PREFETCHT0 Q5VPF+128(SI)
	Q5V_SUMS(0)
	Q5V_SUMS(1)
	Q5V_SUMS(2)
	Q5V_SUMS(3)
	VCVTPH2PS   (SI), Y29
	VMULPS.BCST 0(DI), Y29, Y25
	VMULPS.BCST 4(DI), Y29, Y26
	VMULPS.BCST 8(DI), Y29, Y27
	VMULPS.BCST 12(DI), Y29, Y28
	VMOVDQU     16(SI), Y10
	Q5V_PIECE4(0, 48, VPSLLW, 3, Y0, Y16, Y4, Y20)
	Q5V_PIECE4(1, 80, VPSLLW, 1, Y1, Y17, Y5, Y21)
	Q5V_PIECE4(2, 112, VPSRLW, 1, Y2, Y18, Y6, Y22)
	Q5V_PIECE4(3, 144, VPSRLW, 3, Y3, Y19, Y7, Y23)
	ADDQ $176, SI
	ADDQ $288, DI
	DECQ CX
	JNZ  q5vgmloop

q5vgmdone:
	MOVQ out+24(FP), DX
	MOVQ ostride+32(FP), BX
	SHLQ $2, BX
	MOVQ ntok+40(FP), AX
	LANES8_REDUCE(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VMOVUPS Y0, (DX)
	CMPQ    AX, $1
	JLE     q5vgmend
	ADDQ    BX, DX
	LANES8_REDUCE(Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23)
	VMOVUPS Y16, (DX)
	ADDQ    BX, DX
	Q5V_OUTM(128, 2, q5vgmend)
	Q5V_OUTM(384, 3, q5vgmend)

q5vgmend:
	VZEROUPPER
	RET

// The 512-bit two-group gemm (avx512zmm): q5_0x8GemmVNNI's steps with
// both groups' rows in one register (16 lanes), so that every instruction
// of the eight-lane order serves 16 rows where the units are 512 bits
// wide, and two tokens a pass (the sixteen lane accumulators of a pass in
// registers; each piece unpacked once for the 16 rows). The registers
// alone are not the gain: the 256-bit gemm run the same way, two passes
// with its accumulators in registers instead of half of them in the
// frame, measured no faster (Intel Xeon, MatMul 5632x2048 x 64 tokens,
// avx512vnni: 8.7-10.7 ms against 8.2-9.7).

// Q5Z_CONSTS sets the 512-bit kernels' constants: Z15 = 0x1F, Z14 = 0x07,
// Z13 = 0x18 bytes (Q5Z_UNPACK), Y7 = 0x10 bytes (Q5Z_SUMS).
#define Q5Z_CONSTS \
	Q5V_CONSTS                    \
	VPBROADCASTD X15, Z15         \
	VPBROADCASTD X14, Z14         \
	VPBROADCASTD X13, Z13         \
	MOVL         $0x10101010, AX  \
	VPBROADCASTD AX, Y7

// Q5Z_LANE is Q5V_LANE on 16 rows (Z12 scratch).
#define Q5Z_LANE(Zu, ao, so, Zd, acc) \
	VPBROADCASTD  so(SP), Z12     \
	VPDPBUSD.BCST ao(DI), Zu, Z12 \
	VCVTDQ2PS     Z12, Z12        \
	VFMADD231PS   Z12, Zd, acc

// Q5Z_UNPACK is Q5V_UNPACK on piece off of two groups (A: the lower
// half, B: the upper; their planes in Zp): v_A in Z9, v_B in Z8 (Z15 =
// 0x1F, Z14 = 0x07, Z13 = 0x18 bytes; Z11 scratch).
#define Q5Z_UNPACK(off, A, B, Zp, SHIFT, n) \
	VMOVDQU      off(A), Y8        \
	VINSERTI64X4 $1, off(B), Z8, Z8 \
	VPANDD       Z15, Z8, Z9       \
	VPSRLW       $5, Z8, Z8        \
	SHIFT        $n, Zp, Z11       \
	VPANDD       Z13, Z11, Z11     \
	VPTERNLOGD   $0xEC, Z14, Z11, Z8

// Q5Z_PIECE adds piece c (at off, planes shifted by SHIFT n) to the lanes
// c and 4+c of tokens T and T+1 of the quad (accumulators a0 (lane c of
// token T), a1 (4+c of T), b0, b1 (of T+1)); the tokens' piece sums at
// 0(SP) and 32(SP), their d_w*d_a in Z4 and Z5.
#define Q5Z_PIECE(T, c, off, SHIFT, n, a0, a1, b0, b1) \
	Q5Z_UNPACK(off, SI, R8, Z10, SHIFT, n)           \
	Q5Z_LANE(Z9, 32+32*T+4*c, 4*c, Z4, a0)           \
	Q5Z_LANE(Z9, 64+32*T+4*c, 32+4*c, Z5, b0)        \
	Q5Z_LANE(Z8, 48+32*T+4*c, 16+4*c, Z4, a1)        \
	Q5Z_LANE(Z8, 80+32*T+4*c, 48+4*c, Z5, b1)

// Q5Z_SUMS stores at so(SP) -16 times the sums of the pieces of the
// token whose quants are at ao(DI).
#define Q5Z_SUMS(ao, so) \
	VPXOR    Y11, Y11, Y11         \
	VPDPBUSD ao(DI), Y7, Y11       \
	VPXOR    Y12, Y12, Y12         \
	VPSUBD   Y11, Y12, Y11         \
	VMOVDQU  Y11, so(SP)

// Q5Z_PASS runs tokens T and T+1 of the quad over every block column
// (nb in R9, the groups at R10 and R10+R11, the quad at R12) and stores
// their 16 outputs at (DX) and (DX)(BX*1).
#define Q5Z_PASS(T, loop, done) \
	MOVQ R9, CX                                          \
	MOVQ R10, SI                                         \
	LEAQ (R10)(R11*1), R8                                \
	MOVQ R12, DI                                         \
	ZERO_Z16_31                                          \
	TESTQ CX, CX                                         \
	JZ    done                                           \
loop: \
	Q5Z_SUMS(32+32*T, 0)                                 \
	Q5Z_SUMS(64+32*T, 32)                                \
	VCVTPH2PS     (SI), Y6                               \
	VCVTPH2PS     (R8), Y1                               \
	VINSERTF64X4  $1, Y1, Z6, Z6                         \
	VMULPS.BCST   4*T(DI), Z6, Z4                        \
	VMULPS.BCST   4*T+4(DI), Z6, Z5                      \
	VMOVDQU       16(SI), Y10                            \
	VINSERTI64X4  $1, 16(R8), Z10, Z10                   \
	Q5Z_PIECE(T, 0, 48, VPSLLW, 3, Z16, Z20, Z24, Z28)   \
	Q5Z_PIECE(T, 1, 80, VPSLLW, 1, Z17, Z21, Z25, Z29)   \
	Q5Z_PIECE(T, 2, 112, VPSRLW, 1, Z18, Z22, Z26, Z30)  \
	Q5Z_PIECE(T, 3, 144, VPSRLW, 3, Z19, Z23, Z27, Z31)  \
	ADDQ $176, SI                                        \
	ADDQ $176, R8                                        \
	ADDQ $288, DI                                        \
	DECQ CX                                              \
	JNZ  loop                                            \
done: \
	LANES8_REDUCE(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23) \
	LANES8_REDUCE(Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31) \
	VMOVUPS Z16, (DX)                                    \
	VMOVUPS Z24, (DX)(BX*1)                              \
	LEAQ    (DX)(BX*2), DX

// func q5_0x8Gemm2VNNI(nb int, w *byte, gbytes int, a *byte, out *float32, ostride int)
//
// q5_0x8GemmVNNI on two adjacent groups (the second gbytes after the
// first) for a whole quad: token t's 16 outputs (group g's rows, then
// group g+1's) at out[t*ostride:]. Every row and token takes the gemv's
// steps (same bits).
TEXT ·q5_0x8Gemm2VNNI(SB), NOSPLIT, $64-48
	Q5Z_CONSTS
	MOVQ nb+0(FP), R9
	MOVQ w+8(FP), R10
	MOVQ gbytes+16(FP), R11
	MOVQ a+24(FP), R12
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	Q5Z_PASS(0, q5zloop0, q5zdone0)
	Q5Z_PASS(2, q5zloop2, q5zdone2)
	VZEROUPPER
	RET

// The 512-bit four-group decode kernel (avx512zmm): q5_0x8Gemv4VNNI's
// steps with two groups per register, groups 0 and 1 (SI, R8) in one pair
// and 2 and 3 (R9, R10) in the other, the first of each pair's rows in the
// lower half. Each piece, its conversion and its multiply-add serve 16 rows
// where the 256-bit kernel serves 8, and the sixteen lane accumulators
// stay in registers (the 256-bit kernel parks each group's eight in the
// frame between turns). Still four DRAM streams. Same bits.
//
// Registers: lanes of the pairs in Z16-Z23 and Z24-Z31, their d_w*d_a in
// Z4 and Z5, their planes in Z10 and Z2; Z15 = 0x1F, Z14 = 0x07, Z13 =
// 0x18, Y7 = 0x10 bytes. The token's piece sums at 0(SP).

// Q5ZV_HEAD loads the pair (A, B)'s d_w*d_a (token 0) into Zd and its
// planes into Zp (Y6 scratch).
#define Q5ZV_HEAD(A, B, Zd, Zp) \
	VMOVDQU      (A), X6              \
	VINSERTI128  $1, (B), Y6, Y6      \
	VCVTPH2PS    Y6, Zd               \
	VMULPS.BCST  0(DI), Zd, Zd        \
	VMOVDQU      16(A), Y6            \
	VINSERTI64X4 $1, 16(B), Z6, Zp

// Q5ZV_PIECE adds piece c (at off, planes shifted by SHIFT n) of the pair
// (A, B) to its lanes c (a0) and 4+c (a1).
#define Q5ZV_PIECE(c, off, SHIFT, n, A, B, Zp, Zd, a0, a1) \
	Q5Z_UNPACK(off, A, B, Zp, SHIFT, n)  \
	Q5Z_LANE(Z9, 32+4*c, 4*c, Zd, a0)    \
	Q5Z_LANE(Z8, 48+4*c, 16+4*c, Zd, a1)

// Q5ZV_PF4 prefetches the four streams as q5_0x8Gemv4VNNI does (about six
// block columns ahead); Q5ZV_NOPF does not.
#define Q5ZV_PF(W) \
	PREFETCHT0 1024(W) \
	PREFETCHT0 1088(W) \
	PREFETCHT0 1152(W)

#define Q5ZV_PF4 \
	Q5ZV_PF(SI)  \
	Q5ZV_PF(R8)  \
	Q5ZV_PF(R9)  \
	Q5ZV_PF(R10)

#define Q5ZV_NOPF

// Q5ZV_GEMV4 is the body of q5_0x8Gemv4ZMMVNNI with PF issued per block
// column (and its own labels). Its argument loads come from the header's
// macros (see the Go asm note in the gemm2 section).
#define Q5ZV_GEMV4(PF, loop, done) \
	GEMV4_ARGS                                               \
	Q5Z_CONSTS                                               \
	ZERO_Z16_31                                              \
	TESTQ CX, CX                                             \
	JZ    done                                               \
loop:                                                        \
	PF                                                       \
	Q5Z_SUMS(32, 0)                                          \
	Q5ZV_HEAD(SI, R8, Z4, Z10)                               \
	Q5ZV_HEAD(R9, R10, Z5, Z2)                               \
	Q5ZV_PIECE(0, 48, VPSLLW, 3, SI, R8, Z10, Z4, Z16, Z20)  \
	Q5ZV_PIECE(0, 48, VPSLLW, 3, R9, R10, Z2, Z5, Z24, Z28)  \
	Q5ZV_PIECE(1, 80, VPSLLW, 1, SI, R8, Z10, Z4, Z17, Z21)  \
	Q5ZV_PIECE(1, 80, VPSLLW, 1, R9, R10, Z2, Z5, Z25, Z29)  \
	Q5ZV_PIECE(2, 112, VPSRLW, 1, SI, R8, Z10, Z4, Z18, Z22) \
	Q5ZV_PIECE(2, 112, VPSRLW, 1, R9, R10, Z2, Z5, Z26, Z30) \
	Q5ZV_PIECE(3, 144, VPSRLW, 3, SI, R8, Z10, Z4, Z19, Z23) \
	Q5ZV_PIECE(3, 144, VPSRLW, 3, R9, R10, Z2, Z5, Z27, Z31) \
	GEMV4_NEXT($176)                                         \
	ADDQ $288, DI                                            \
	DECQ CX                                                  \
	JNZ  loop                                                \
done:                                                        \
	LANES8_REDUCE(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)    \
	LANES8_REDUCE(Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)    \
	GEMV4_OUT                                                \
	VMOVAPS Z16, Z0                                          \
	PAIR_OUT                                                 \
	VMOVAPS Z24, Z0                                          \
	PAIR_OUT                                                 \
	VZEROUPPER                                               \
	RET

// func q5_0x8Gemv4ZMMVNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
TEXT ·q5_0x8Gemv4ZMMVNNI(SB), NOSPLIT, $32-48
	Q5ZV_GEMV4(Q5ZV_NOPF, q5zvloop, q5zvdone)

// func q5_0x8Gemv4ZMMVNNIPF(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// q5_0x8Gemv4ZMMVNNI with software prefetch.
TEXT ·q5_0x8Gemv4ZMMVNNIPF(SB), NOSPLIT, $32-48
	Q5ZV_GEMV4(Q5ZV_PF4, q5zvploop, q5zvpdone)
