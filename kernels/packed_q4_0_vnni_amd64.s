//go:build !purego

#include "lanes_amd64.h"
#include "textflag.h"
#include "vnni_amd64.h"

// Q4_0 x Q8_0 packed kernels of the avx512vnni set (packQ4_0Group weights,
// q8_0QuadTok activations).

// One block column of the Q4_0 group at W for token 0 of the quad at DI,
// added to the float accumulator acc (q4_0x8GemvVNNI's steps); Y0-Y5
// scratch. The integer sum starts at -8*sum(a) (the quad's slot at 16).
#define V40_GV_COL(W, acc) \
	VPBROADCASTD  16(DI), Y0   \
	VPXOR         Y1, Y1, Y1   \
	V_NIBBLES(16(W))           \
	VPDPBUSD.BCST 32(DI), Y4, Y0 \
	VPDPBUSD.BCST 48(DI), Y5, Y0 \
	V_NIBBLES(48(W))           \
	VPDPBUSD.BCST 36(DI), Y4, Y1 \
	VPDPBUSD.BCST 52(DI), Y5, Y1 \
	V_NIBBLES(80(W))           \
	VPDPBUSD.BCST 40(DI), Y4, Y0 \
	VPDPBUSD.BCST 56(DI), Y5, Y0 \
	V_NIBBLES(112(W))          \
	VPDPBUSD.BCST 44(DI), Y4, Y1 \
	VPDPBUSD.BCST 60(DI), Y5, Y1 \
	VPADDD        Y1, Y0, Y0   \
	VCVTDQ2PS     Y0, Y0       \
	VCVTPH2PS     (W), Y1      \
	VBROADCASTSS  (DI), Y2     \
	VMULPS        Y2, Y1, Y1   \
	VFMADD231PS   Y1, Y0, acc

// Q4_0 x Q8_0 packed (q4_0GroupBytes weights, q8_0QuadTok activations):
// unsigned nibbles times broadcast 4-byte pieces of each token, then minus
// 8 * sum(a) and the generic kernel's float steps, as q4_0x8GemvAVX2.

// func q4_0x8GemvVNNI(nb int, w, a *byte, out *float32)
TEXT ·q4_0x8GemvVNNI(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	V_CONSTS
	VXORPS Y7, Y7, Y7
	TESTQ  CX, CX
	JZ     vq40gvdone

vq40gvloop:
	PREFETCHT0 2304(SI)
	PREFETCHT0 2368(SI)
	PREFETCHT0 2432(SI)
	V40_GV_COL(SI, Y7)
	ADDQ $144, SI
	ADDQ $288, DI
	DECQ CX
	JNZ  vq40gvloop

vq40gvdone:
	VMOVUPS Y7, (DX)
	VZEROUPPER
	RET

// Four groups gstride bytes apart against the same token, block column by
// block column, each with the gemv's steps, outputs ostride floats apart.
// Decode is bandwidth-bound, and four sequential DRAM streams per core,
// far apart, are read markedly faster than one (BenchmarkMatMulStream:
// 1.4-1.9x on the reference VM), since each stream gets its own hardware
// prefetch.

// V40_GEMV4 is the body of q4_0x8Gemv4VNNI and its prefetching twin (PF
// V40_PF16 or V40_NOPF at each block column, own labels; argument loads
// from the header's macros, which go vet does not check against the
// preceding function).
#define V40_GEMV4(PF, loop, done) \
	GEMV4_ARGS                   \
	V_CONSTS                     \
	VXORPS Y7, Y7, Y7            \
	VXORPS Y6, Y6, Y6            \
	VXORPS Y10, Y10, Y10         \
	VXORPS Y11, Y11, Y11         \
	TESTQ  CX, CX                \
	JZ     done                  \
loop:                            \
	PF                           \
	V40_GV_COL(SI, Y7)           \
	V40_GV_COL(R8, Y6)           \
	V40_GV_COL(R9, Y10)          \
	V40_GV_COL(R10, Y11)         \
	GEMV4_NEXT($144)             \
	ADDQ $288, DI                \
	DECQ CX                      \
	JNZ  loop                    \
done:                            \
	GEMV4_OUT                    \
	V_OUT4(Y7, Y6, Y10, Y11)     \
	VZEROUPPER                   \
	RET

#define V40_PF16 \
	V_PF4(SI)  \
	V_PF4(R8)  \
	V_PF4(R9)  \
	V_PF4(R10)

#define V40_NOPF

// func q4_0x8Gemv4VNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
TEXT ·q4_0x8Gemv4VNNI(SB), NOSPLIT, $0-48
	V40_GEMV4(V40_NOPF, vq40gv4loop, vq40gv4done)

// func q4_0x8Gemv4VNNIPF(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// q4_0x8Gemv4VNNI with software prefetch.
TEXT ·q4_0x8Gemv4VNNIPF(SB), NOSPLIT, $0-48
	V40_GEMV4(V40_PF16, vq40gv4ploop, vq40gv4pdone)

// Piece c of a Q4_0 block column at wo(W) (low nibbles: elements 4c..4c+3,
// high: 16+4c..) against the four tokens' pieces c and 4+c (ao(DI), token
// t 32t further, high pieces 16 further): low sums in Y0-Y3, high in Y12,
// Y13, Y14, Y6.
#define V40_GM_PIECE(W, wo, ao) \
	V_NIBBLES(wo(W))                 \
	VPDPBUSD.BCST ao(DI), Y4, Y0     \
	VPDPBUSD.BCST ao+16(DI), Y5, Y12 \
	VPDPBUSD.BCST ao+32(DI), Y4, Y1  \
	VPDPBUSD.BCST ao+48(DI), Y5, Y13 \
	VPDPBUSD.BCST ao+64(DI), Y4, Y2  \
	VPDPBUSD.BCST ao+80(DI), Y5, Y14 \
	VPDPBUSD.BCST ao+96(DI), Y4, Y3  \
	VPDPBUSD.BCST ao+112(DI), Y5, Y6

// One block column of the Q4_0 group at W for the four tokens of the quad at
// DI (q4_0x8GemmVNNI's steps), added to the float accumulators a0..a3;
// Y0-Y7, Y12-Y14 scratch. Each integer sum starts at -8*sum(a).
#define V40_GM_COL(W, a0, a1, a2, a3) \
	VPBROADCASTD 16(DI), Y0 \
	VPXOR      Y12, Y12, Y12 \
	VPBROADCASTD 20(DI), Y1 \
	VPXOR      Y13, Y13, Y13 \
	VPBROADCASTD 24(DI), Y2 \
	VPXOR      Y14, Y14, Y14 \
	VPBROADCASTD 28(DI), Y3 \
	VPXOR      Y6, Y6, Y6 \
	V40_GM_PIECE(W, 16, 32) \
	V40_GM_PIECE(W, 48, 36) \
	V40_GM_PIECE(W, 80, 40) \
	V40_GM_PIECE(W, 112, 44) \
	VPADDD       Y12, Y0, Y0 \
	VPADDD       Y13, Y1, Y1 \
	VPADDD       Y14, Y2, Y2 \
	VPADDD       Y6, Y3, Y3 \
	VCVTPH2PS    (W), Y12 \
	VCVTDQ2PS    Y0, Y0 \
	VBROADCASTSS 0(DI), Y7 \
	VMULPS       Y7, Y12, Y7 \
	VFMADD231PS  Y7, Y0, a0 \
	VCVTDQ2PS    Y1, Y1 \
	VBROADCASTSS 4(DI), Y7 \
	VMULPS       Y7, Y12, Y7 \
	VFMADD231PS  Y7, Y1, a1 \
	VCVTDQ2PS    Y2, Y2 \
	VBROADCASTSS 8(DI), Y7 \
	VMULPS       Y7, Y12, Y7 \
	VFMADD231PS  Y7, Y2, a2 \
	VCVTDQ2PS    Y3, Y3 \
	VBROADCASTSS 12(DI), Y7 \
	VMULPS       Y7, Y12, Y7 \
	VFMADD231PS  Y7, Y3, a3

// func q4_0x8GemmVNNI(nb int, w, a *byte, out *float32, ostride, ntok int)
// Two int32 accumulators per token (low-nibble pieces in Y0-Y3, high in
// Y12, Y13, Y14, Y6) halve the VPDPBUSD dependency chains; they are added
// before the float steps.
TEXT ·q4_0x8GemmVNNI(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	V_CONSTS
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ  CX, CX
	JZ     vq40gmdone

vq40gmloop:
	PREFETCHT0 2304(SI)
	PREFETCHT0 2368(SI)
	PREFETCHT0 2432(SI)
	V40_GM_COL(SI, Y8, Y9, Y10, Y11)
	ADDQ         $144, SI
	ADDQ         $288, DI
	DECQ         CX
	JNZ          vq40gmloop

vq40gmdone:
	V_STORE4(vq40gmret)

// Stores the four tokens' accumulators of one group to (DX), (DX)+BX, ...
#define V40_GM4_OUT(a0, a1, a2, a3) \
	VMOVUPS a0, (DX)       \
	LEAQ    (DX)(BX*1), R12 \
	VMOVUPS a1, (R12)      \
	ADDQ    BX, R12        \
	VMOVUPS a2, (R12)      \
	ADDQ    BX, R12        \
	VMOVUPS a3, (R12)      \
	ADDQ    R13, DX

// func q4_0x8Gemm4VNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride, gout int)
//
// Four groups gstride bytes apart against the four tokens of the quads in
// step (four DRAM streams per core, as q4_0x8Gemv4VNNI: a pass of four
// tokens, such as four sequences decoded together, still streams every
// weight once), each with q4_0x8GemmVNNI's steps. Group g's token t goes
// to out[g*gout + t*ostride + r]. Float accumulators Y8-Y11, Y16-Y19,
// Y20-Y23, Y24-Y27.
TEXT ·q4_0x8Gemm4VNNI(SB), NOSPLIT, $0-56
	GEMV4_ARGS
	V_CONSTS
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y16, Y16, Y16
	VXORPS Y17, Y17, Y17
	VXORPS Y18, Y18, Y18
	VXORPS Y19, Y19, Y19
	VXORPS Y20, Y20, Y20
	VXORPS Y21, Y21, Y21
	VXORPS Y22, Y22, Y22
	VXORPS Y23, Y23, Y23
	VXORPS Y24, Y24, Y24
	VXORPS Y25, Y25, Y25
	VXORPS Y26, Y26, Y26
	VXORPS Y27, Y27, Y27
	TESTQ  CX, CX
	JZ     vq40gm4done

vq40gm4loop:
	V_PF4(SI)
	V_PF4(R8)
	V_PF4(R9)
	V_PF4(R10)
	V40_GM_COL(SI, Y8, Y9, Y10, Y11)
	V40_GM_COL(R8, Y16, Y17, Y18, Y19)
	V40_GM_COL(R9, Y20, Y21, Y22, Y23)
	V40_GM_COL(R10, Y24, Y25, Y26, Y27)
	GEMV4_NEXT($144)
	ADDQ $288, DI
	DECQ CX
	JNZ  vq40gm4loop

vq40gm4done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	MOVQ gout+48(FP), R13
	SHLQ $2, R13
	V40_GM4_OUT(Y8, Y9, Y10, Y11)
	V40_GM4_OUT(Y16, Y17, Y18, Y19)
	V40_GM4_OUT(Y20, Y21, Y22, Y23)
	V40_GM4_OUT(Y24, Y25, Y26, Y27)
	VZEROUPPER
	RET

// Piece c of two adjacent groups' block columns (wo(SI), wo(R8)) in one
// ZMM register, group g's rows in the lower half (Z4 low nibbles, Z5
// high), against the four tokens' pieces c and 4+c as in V40_GM_PIECE:
// low sums in Z0-Z3, high in Z20-Z23.
#define V40_GM2_PIECE(wo, ao) \
	VZ_NIBBLES2(wo(SI), wo(R8))      \
	VPDPBUSD.BCST ao(DI), Z4, Z0     \
	VPDPBUSD.BCST ao+16(DI), Z5, Z20 \
	VPDPBUSD.BCST ao+32(DI), Z4, Z1  \
	VPDPBUSD.BCST ao+48(DI), Z5, Z21 \
	VPDPBUSD.BCST ao+64(DI), Z4, Z2  \
	VPDPBUSD.BCST ao+80(DI), Z5, Z22 \
	VPDPBUSD.BCST ao+96(DI), Z4, Z3  \
	VPDPBUSD.BCST ao+112(DI), Z5, Z23

// Token t's float step of V40_GM_COL on 16 rows: acc += float(lo+hi) *
// (the rows' d (Z12) times the token's d).
#define V40_GM2_TOK(lo, hi, t, acc) \
	VPADDD       hi, lo, lo   \
	VCVTDQ2PS    lo, lo       \
	VBROADCASTSS 4*t(DI), Z7  \
	VMULPS       Z7, Z12, Z7  \
	VFMADD231PS  Z7, lo, acc

// func q4_0x8Gemm2VNNI(nb int, w *byte, gbytes int, a *byte, out *float32, ostride int)
//
// q4_0x8GemmVNNI on two adjacent groups (the second gbytes after the
// first) for a whole quad, on 512-bit vectors: each VPDPBUSD takes both
// groups' rows (16 lanes) against a token's broadcast piece, the same
// integer sums and float steps per row as q4_0x8GemmVNNI. Token t's 16
// outputs (group g's rows, then group g+1's) go to out[t*ostride:].
// Float accumulators Z16-Z19.
TEXT ·q4_0x8Gemm2VNNI(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ gbytes+16(FP), R8
	ADDQ SI, R8
	MOVQ a+24(FP), DI
	VZ_CONSTS
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	TESTQ  CX, CX
	JZ     vq40gm2done

vq40gm2loop:
	VPBROADCASTD 16(DI), Z0
	VPXORD       Z20, Z20, Z20
	VPBROADCASTD 20(DI), Z1
	VPXORD       Z21, Z21, Z21
	VPBROADCASTD 24(DI), Z2
	VPXORD       Z22, Z22, Z22
	VPBROADCASTD 28(DI), Z3
	VPXORD       Z23, Z23, Z23
	V40_GM2_PIECE(16, 32)
	V40_GM2_PIECE(48, 36)
	V40_GM2_PIECE(80, 40)
	V40_GM2_PIECE(112, 44)
	VCVTPH2PS     (SI), Y12
	VCVTPH2PS     (R8), Y13
	VINSERTF64X4  $1, Y13, Z12, Z12
	V40_GM2_TOK(Z0, Z20, 0, Z16)
	V40_GM2_TOK(Z1, Z21, 1, Z17)
	V40_GM2_TOK(Z2, Z22, 2, Z18)
	V40_GM2_TOK(Z3, Z23, 3, Z19)
	ADDQ $144, SI
	ADDQ $144, R8
	ADDQ $288, DI
	DECQ CX
	JNZ  vq40gm2loop

vq40gm2done:
	MOVQ    out+32(FP), DX
	MOVQ    ostride+40(FP), BX
	SHLQ    $2, BX
	VMOVUPS Z16, (DX)
	ADDQ    BX, DX
	VMOVUPS Z17, (DX)
	ADDQ    BX, DX
	VMOVUPS Z18, (DX)
	ADDQ    BX, DX
	VMOVUPS Z19, (DX)
	VZEROUPPER
	RET
