//go:build !purego

#include "textflag.h"
#include "q5_0_amd64.h"

// PF is how far ahead (bytes) the single-row kernels prefetch the weight
// stream (see KPF in kquants_amd64.s).
#define PF 2048

// AVX2+FMA+F16C row dot products of the legacy 32-element block types with
// Q8_0/Q8_1 activations. Each function handles nb whole blocks; the Go
// wrappers in vecdot_amd64.go check the slice lengths.
//
// The float arithmetic follows ggml's AVX2 kernels (and llamafile's
// tinyBLAS) exactly: per block, one fused multiply-add of the block scale
// d_w*d_a with the eight int32 lane sums (lane l = elements 4l..4l+3) into a
// single accumulator, blocks in order, then ggml's horizontal sum. Loops are
// unrolled by two blocks but keep that order.
//
// Signed x signed byte products use ggml's sign trick: maddubs(|x|, y*sign(x))
// multiplies unsigned |x| by signed y and adds adjacent pairs into int16;
// madd with ones widens to int32. This requires x, y != -128, which ggml's
// quantizers guarantee (they produce [-127, 127]).

// shufBits maps byte i of a broadcast uint32 to byte i/8 (ggml's
// bytes_from_bits_32 shuffle).
DATA shufBits<>+0(SB)/8, $0x0000000000000000
DATA shufBits<>+8(SB)/8, $0x0101010101010101
DATA shufBits<>+16(SB)/8, $0x0202020202020202
DATA shufBits<>+24(SB)/8, $0x0303030303030303
GLOBL shufBits<>(SB), RODATA|NOPTR, $32

// Four-row decode kernels: rows at SI, R8, R9, R10 (stride BX) against one
// activation row at DI; out[0..3]. Each block prefetches the same place
// eight rows further on (two calls ahead): decode streams weights from DRAM,
// and the hardware prefetchers alone leave the core waiting. The activation block is loaded once per
// block and the four scale products d_w*d_a are formed in one vector,
// spilled to the frame and re-broadcast per row.

// Horizontal sum of the 8 floats of Y (X is its low half) into X[0]; T is a
// scratch X register.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T \
	VADDPS       T, X, X  \
	VMOVHLPS     X, X, T  \
	VADDPS       T, X, X  \
	VMOVSHDUP    X, T     \
	VADDSS       T, X, X

// Constants: Y15 = 0x0F bytes, Y13 = int16 ones.
#define NIBBLE_CONSTS \
	MOVL         $0x0F0F0F0F, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15        \
	VPCMPEQW     Y13, Y13, Y13   \
	VPSRLW       $15, Y13, Y13

// Y2 = fp16(w+wo) * fp16(a+ao) in all lanes.
#define SCALE(wo, ao) \
	VPBROADCASTW wo(SI), X2 \
	VPBROADCASTW ao(DI), X3 \
	VCVTPH2PS    X2, Y2     \
	VCVTPH2PS    X3, Y3     \
	VMULPS       Y2, Y3, Y2

// Y4 = the 32 nibbles of the 16 bytes at mem: low nibbles in the low lane
// (elements 0-15), high nibbles in the high lane (elements 16-31).
#define NIBBLES(mem) \
	VMOVDQU     mem, X4        \
	VPSRLW      $4, X4, X5     \
	VINSERTI128 $1, X5, Y4, Y4 \
	VPAND       Y15, Y4, Y4

// acc += Y2 * float(sum of signed Y4 x signed mem, per 4 bytes).
#define SIGNED_DOT(mem, acc) \
	VMOVDQU    mem, Y5        \
	VPSIGNB    Y4, Y4, Y6     \
	VPSIGNB    Y4, Y5, Y5     \
	VPMADDUBSW Y5, Y6, Y6     \
	VPMADDWD   Y13, Y6, Y6    \
	VCVTDQ2PS  Y6, Y6         \
	VFMADD231PS Y6, Y2, acc

// acc += Y2 * float(sum of unsigned Y4 x signed mem, per 4 bytes).
#define UNSIGNED_DOT(mem, acc) \
	VPMADDUBSW mem, Y4, Y6 \
	VPMADDWD   Y13, Y6, Y6 \
	VCVTDQ2PS  Y6, Y6      \
	VFMADD231PS Y6, Y2, acc

// Q4_0 block at wo(SI) times Q8_0 block at ao(DI); Y14 = 0x08 bytes.
#define Q4_0_BLOCK(wo, ao, acc) \
	SCALE(wo, ao)              \
	NIBBLES(wo+2(SI))          \
	VPSUBB Y14, Y4, Y4         \
	SIGNED_DOT(ao+2(DI), acc)

#define Q8_0_BLOCK(wo, ao, acc) \
	SCALE(wo, ao)             \
	VMOVDQU wo+2(SI), Y4      \
	SIGNED_DOT(ao+2(DI), acc)

// X12 += fp16(w+wo) * fp16(a+ao): the min times the activation sum of the
// _1 types (all lanes equal; lane 0 is used).
#define MIN_TERM(wo, ao) \
	VPBROADCASTW wo(SI), X7 \
	VPBROADCASTW ao(DI), X8 \
	VCVTPH2PS    X7, X7     \
	VCVTPH2PS    X8, X8     \
	VFMADD231PS  X7, X8, X12

#define Q4_1_BLOCK(wo, ao, acc) \
	SCALE(wo, ao)              \
	MIN_TERM(wo+2, ao+2)       \
	NIBBLES(wo+4(SI))          \
	UNSIGNED_DOT(ao+4(DI), acc)

// Y7 = 0xFF in byte i where bit i of the uint32 at mem is set (ggml's
// bytes_from_bits_32). Needs Y11 = ~(1 << (i%8)) bytes, Y10 = all ones.
#define BITS_TO_BYTES(mem) \
	VPBROADCASTD mem, Y7          \
	VPSHUFB      shufBits<>(SB), Y7, Y7 \
	VPOR         Y11, Y7, Y7      \
	VPCMPEQB     Y10, Y7, Y7

#define Q5_CONSTS \
	MOVQ         $0x7fbfdfeff7fbfdfe, AX \
	VMOVQ        AX, X11                 \
	VPBROADCASTQ X11, Y11                \
	VPCMPEQB     Y10, Y10, Y10

// Q5_0: x = nibble | 0xF0 where the high bit is clear, i.e. nibble + 16*bit
// - 16 as a signed byte. Y9 = 0xF0 bytes.
#define Q5_0_BLOCK(wo, ao, acc) \
	SCALE(wo, ao)              \
	BITS_TO_BYTES(wo+2(SI))    \
	VPANDN Y9, Y7, Y7          \
	NIBBLES(wo+6(SI))          \
	VPOR   Y7, Y4, Y4          \
	SIGNED_DOT(ao+2(DI), acc)

// Q5_1: x = nibble | 0x10 where the high bit is set (unsigned). Y9 = 0x10.
#define Q5_1_BLOCK(wo, ao, acc) \
	SCALE(wo, ao)              \
	MIN_TERM(wo+2, ao+2)       \
	BITS_TO_BYTES(wo+4(SI))    \
	VPAND  Y9, Y7, Y7          \
	NIBBLES(wo+8(SI))          \
	VPOR   Y7, Y4, Y4          \
	UNSIGNED_DOT(ao+4(DI), acc)

// acc += Y2 * fp16(ao(P)) * float(sum of Y6 (|x|) x sign-adjusted 32 bytes
// at ao+2(P)), Y4 = signed x.
#define SIGNED_TOK(P, ao, acc) \
	VMOVDQU      ao+2(P), Y5  \
	VPSIGNB      Y4, Y5, Y5   \
	VPMADDUBSW   Y5, Y6, Y5   \
	VPMADDWD     Y13, Y5, Y5  \
	VCVTDQ2PS    Y5, Y5       \
	VPBROADCASTW ao(P), X7    \
	VCVTPH2PS    X7, Y7       \
	VMULPS       Y2, Y7, Y7   \
	VFMADD231PS  Y5, Y7, acc

#define SIGNED_TOK4(ao) \
	VPSIGNB Y4, Y4, Y6          \
	SIGNED_TOK(DI, ao, Y0)      \
	SIGNED_TOK(R8, ao, Y1)      \
	SIGNED_TOK(R9, ao, Y8)      \
	SIGNED_TOK(R10, ao, Y9)

// Sets R8-R10 to the rows after DI and clears the accumulators.
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

// X2 = the f16 scales at off(SI), off(R8), off(R9), off(R10) times the f16
// activation scale at aoff(DI), stored to d-16(SP). X2 is zeroed first:
// VPINSRW merges into its register, so without the zeroing idiom each
// block's inserts and conversion waited on the block before's (the
// four-row Q8_0 and Q4_0 kernels in L1, alternating test binaries on an
// Intel Xeon: 1.5% and 3% faster with it).
#define R4_SCALES(off, aoff) \
	VPXOR        X2, X2, X2           \
	VPINSRW      $0, off(SI), X2, X2  \
	VPINSRW      $1, off(R8), X2, X2  \
	VPINSRW      $2, off(R9), X2, X2  \
	VPINSRW      $3, off(R10), X2, X2 \
	VCVTPH2PS    X2, X2               \
	VPBROADCASTW aoff(DI), X3         \
	VCVTPH2PS    X3, X3               \
	VMULPS       X3, X2, X2           \
	VMOVUPS      X2, d-16(SP)

// Q4_0 row P: unsigned nibbles times the activation block Y5, minus the
// lane sums 8*y (Y6): exactly ggml's lanes of (x-8)*y.
#define Q4_0_R4ROW(P, k, acc) \
	VMOVDQU      2(P), X4          \
	VPSRLW       $4, X4, X7        \
	VINSERTI128  $1, X7, Y4, Y4    \
	VPAND        Y15, Y4, Y4       \
	VPMADDUBSW   Y5, Y4, Y4        \
	VPMADDWD     Y13, Y4, Y4       \
	VPSUBD       Y6, Y4, Y4        \
	VCVTDQ2PS    Y4, Y4            \
	VBROADCASTSS d-16+k(SP), Y7    \
	VFMADD231PS  Y4, Y7, acc

// Q8_0 row P: sign trick against the activation block Y5.
#define Q8_0_R4ROW(P, k, acc) \
	VMOVDQU      2(P), Y4          \
	VPSIGNB      Y4, Y4, Y6        \
	VPSIGNB      Y4, Y5, Y7        \
	VPMADDUBSW   Y7, Y6, Y6        \
	VPMADDWD     Y13, Y6, Y6       \
	VCVTDQ2PS    Y6, Y6            \
	VBROADCASTSS d-16+k(SP), Y7    \
	VFMADD231PS  Y6, Y7, acc

#define R4PF 1024

#define R4_PROLOGUE \
	MOVQ nb+0(FP), CX          \
	MOVQ w+8(FP), SI           \
	MOVQ wstride+16(FP), BX    \
	MOVQ a+24(FP), DI          \
	LEAQ (SI)(BX*1), R8        \
	LEAQ (R8)(BX*1), R9        \
	LEAQ (R9)(BX*1), R10       \
	VXORPS Y0, Y0, Y0          \
	VXORPS Y1, Y1, Y1          \
	VXORPS Y8, Y8, Y8          \
	VXORPS Y9, Y9, Y9          \
	VXORPS X2, X2, X2

#define R4_EPILOGUE \
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

#define R4_ADVANCE(wb, ab) \
	ADDQ $wb, SI  \
	ADDQ $wb, R8  \
	ADDQ $wb, R9  \
	ADDQ $wb, R10 \
	ADDQ $ab, DI

// Y6 = lanes of (x-8)*y for the Q4_0 block at wo(SI) and the Q8_0 block at
// ao(DI); Y14 = 0x08 bytes.
#define Q4_0_LANES(wo, ao) \
	NIBBLES(wo+2(SI))          \
	VPSUBB     Y14, Y4, Y4     \
	VMOVDQU    ao+2(DI), Y5    \
	VPSIGNB    Y4, Y4, Y6      \
	VPSIGNB    Y4, Y5, Y5      \
	VPMADDUBSW Y5, Y6, Y6      \
	VPMADDWD   Y13, Y6, Y6

// X = the sum of the eight int32 lanes of Y (T scratch).
#define HSUM_I32(Y, X, T) \
	VEXTRACTI128 $1, Y, T   \
	VPADDD       T, X, X    \
	VPSHUFD      $0x4e, X, T \
	VPADDD       T, X, X    \
	VPSHUFD      $0xb1, X, T \
	VPADDD       T, X, X

// X4 = [hsum a, hsum b, hsum c, hsum d] of four int32 lane vectors; a is
// Y4 and is clobbered with b, c, d (Y-registers given), T scratch.
#define HSUM4_I32(b, c, d, T) \
	VPHADDD      b, Y4, Y4   \
	VPHADDD      d, c, c     \
	VPHADDD      c, Y4, Y4   \
	VEXTRACTI128 $1, Y4, T   \
	VPADDD       T, X4, X4

// Q4_0 row P of the four-row kernel: int32 lanes of (x-8)*y into dst, as
// unsigned nibbles times y (Y5) minus the lane sums 8*y (Y6).
#define Q4_0_R4LANES(P, dst, Xdst) \
	VMOVDQU      2(P), Xdst        \
	VPSRLW       $4, Xdst, X7      \
	VINSERTI128  $1, X7, dst, dst  \
	VPAND        Y15, dst, dst     \
	VPMADDUBSW   Y5, dst, dst      \
	VPMADDWD     Y13, dst, dst     \
	VPSUBD       Y6, dst, dst

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

// Token P of the four-token Q4_0 kernel: lanes of signed x (Y4, |x| in Y6)
// times the activation block into dst.
#define Q4_0_X4LANES(P, dst) \
	VMOVDQU    2(P), Y5        \
	VPSIGNB    Y4, Y5, Y5      \
	VPMADDUBSW Y5, Y6, dst     \
	VPMADDWD   Y13, dst, dst

// Q5_0 row P of the four-row kernel: decodes x (as Q5_0_BLOCK) with X3,
// Y7 scratch, then the sign trick against the activation block Y5; Y14 =
// 0xF0 bytes, Y11/Y10 the BITS_TO_BYTES constants.
#define Q5_0_R4ROW(P, k, acc) \
	Q5_0_DECODE(P, Y7, Y4, X4, X3, shufBits<>(SB), Y11, Y10, Y14, Y15) \
	VPSIGNB      Y4, Y4, Y6             \
	VPSIGNB      Y4, Y5, Y7             \
	VPMADDUBSW   Y7, Y6, Y6             \
	VPMADDWD     Y13, Y6, Y6            \
	VCVTDQ2PS    Y6, Y6                 \
	VBROADCASTSS d-16+k(SP), Y7         \
	VFMADD231PS  Y6, Y7, acc

// acc += fp16(ao(P)) * Y2 * float(lanes of unsigned Y4 x the activation
// block at ao+4(P)) (the _1 types, 4-token kernels).
#define UNSIGNED_TOK(P, ao, acc) \
	VPMADDUBSW   ao+4(P), Y4, Y5 \
	VPMADDWD     Y13, Y5, Y5     \
	VCVTDQ2PS    Y5, Y5          \
	VPBROADCASTW ao(P), X7       \
	VCVTPH2PS    X7, Y7          \
	VMULPS       Y2, Y7, Y7      \
	VFMADD231PS  Y5, Y7, acc

// The _1 types' min terms for four tokens, lanes = tokens: X14 +=
// fp16(x.m) * [s of each token's block] (fused, as the generic kernel).
#define MIN_TERM4(wo) \
	VPXOR        X12, X12, X12        \
	VPINSRW      $0, 2(DI), X12, X12  \
	VPINSRW      $1, 2(R8), X12, X12  \
	VPINSRW      $2, 2(R9), X12, X12  \
	VPINSRW      $3, 2(R10), X12, X12 \
	VCVTPH2PS    X12, X12             \
	VPBROADCASTW wo(SI), X3           \
	VCVTPH2PS    X3, X3               \
	VFMADD231PS  X12, X3, X14

// Finishes the 4-token _1 kernels: out[t] = hsum(acc_t) + X14[t].
#define X4_EPILOGUE_MIN \
	HSUM(Y0, X0, X2)         \
	HSUM(Y1, X1, X2)         \
	HSUM(Y8, X8, X2)         \
	HSUM(Y9, X9, X2)         \
	VADDSS    X14, X0, X0    \
	VMOVSHDUP X14, X3        \
	VADDSS    X3, X1, X1     \
	VMOVHLPS  X14, X14, X3   \
	VADDSS    X3, X8, X8     \
	VPSHUFD   $0xff, X14, X3 \
	VADDSS    X3, X9, X9     \
	MOVQ out+32(FP), DX      \
	MOVQ ostride+40(FP), R11 \
	SHLQ $2, R11             \
	VMOVSS X0, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X1, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X8, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X9, (DX)          \
	VZEROUPPER               \
	RET

// Q8_0_ROW sets X0 to the dot product of the CX Q8_0 blocks at SI and DI
// (ggml's order: the blocks' scaled lane sums into one accumulator, in
// pairs, the odd block last, then HSUM), advancing SI and DI; PF (a
// software prefetch, or Q80_NOPF) runs before each pair. Clobbers DX and
// Y1-Y6; needs NIBBLE_CONSTS' Y13.
#define Q8_0_ROW(PF, loop, tail, done) \
	VXORPS Y0, Y0, Y0    \
	MOVQ   CX, DX        \
	SHRQ   $1, DX        \
	JZ     tail          \
loop:                    \
	PF                   \
	Q8_0_BLOCK(0, 0, Y0)   \
	Q8_0_BLOCK(34, 34, Y0) \
	ADDQ   $68, SI       \
	ADDQ   $68, DI       \
	DECQ   DX            \
	JNZ    loop          \
tail:                    \
	TESTQ  $1, CX        \
	JZ     done          \
	Q8_0_BLOCK(0, 0, Y0) \
done:                    \
	HSUM(Y0, X0, X1)

#define Q80_PF PREFETCHT0 PF(SI)
#define Q80_NOPF

// func vecDotQ8_0Q8_0AVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ8_0Q8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	NIBBLE_CONSTS
	Q8_0_ROW(Q80_PF, q80loop, q80tail, q80done)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func vecDotQ8_0RowsAVX2(nb int, k *byte, stride int, q *byte, out *float32, rows int)
// vecDotQ8_0Q8_0AVX2 on rows rows stride bytes apart (a q8_0 cache's
// rows, VecDotQ8_0Rows), out[r] each; no software prefetch (rows are short).
TEXT ·vecDotQ8_0RowsAVX2(SB), NOSPLIT, $0-48
	MOVQ k+8(FP), R8
	MOVQ out+32(FP), R9
	MOVQ rows+40(FP), R10
	NIBBLE_CONSTS

q80rrow:
	MOVQ nb+0(FP), CX
	MOVQ R8, SI
	MOVQ q+24(FP), DI
	Q8_0_ROW(Q80_NOPF, q80rloop, q80rtail, q80rdone)
	VMOVSS X0, (R9)
	ADDQ   $4, R9
	ADDQ   stride+16(FP), R8
	DECQ   R10
	JNZ    q80rrow
	VZEROUPPER
	RET

// Q8_0_BLOCK2 adds the Q8_0 block at SI times the blocks at DI and R11
// to Y0 and Y1 (Q8_0_BLOCK's steps for each, the row's quants and their
// absolute values loaded once). Y2-Y7 scratch.
#define Q8_0_BLOCK2 \
	VPBROADCASTW (SI), X2    \
	VCVTPH2PS    X2, Y2      \
	VPBROADCASTW (DI), X3    \
	VCVTPH2PS    X3, Y3      \
	VPBROADCASTW (R11), X7   \
	VCVTPH2PS    X7, Y7      \
	VMULPS       Y2, Y7, Y7  \
	VMULPS       Y2, Y3, Y2  \
	VMOVDQU      2(SI), Y4   \
	VPSIGNB      Y4, Y4, Y6  \
	VMOVDQU      2(DI), Y5   \
	VPSIGNB      Y4, Y5, Y5  \
	VPMADDUBSW   Y5, Y6, Y5  \
	VPMADDWD     Y13, Y5, Y5 \
	VCVTDQ2PS    Y5, Y5      \
	VFMADD231PS  Y5, Y2, Y0  \
	VMOVDQU      2(R11), Y5  \
	VPSIGNB      Y4, Y5, Y5  \
	VPMADDUBSW   Y5, Y6, Y5  \
	VPMADDWD     Y13, Y5, Y5 \
	VCVTDQ2PS    Y5, Y5      \
	VFMADD231PS  Y5, Y7, Y1

// func vecDotQ8_0Rows2AVX2(nb int, k *byte, stride int, q1, q2 *byte, out1, out2 *float32, rows int)
// vecDotQ8_0RowsAVX2 for two queries at once (the same bits for each).
TEXT ·vecDotQ8_0Rows2AVX2(SB), NOSPLIT, $0-64
	MOVQ k+8(FP), R8
	MOVQ out1+40(FP), R9
	MOVQ out2+48(FP), R12
	MOVQ rows+56(FP), R10
	NIBBLE_CONSTS

q82row:
	MOVQ   nb+0(FP), CX
	MOVQ   R8, SI
	MOVQ   q1+24(FP), DI
	MOVQ   q2+32(FP), R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

q82block:
	Q8_0_BLOCK2
	ADDQ $34, SI
	ADDQ $34, DI
	ADDQ $34, R11
	DECQ CX
	JNZ  q82block
	HSUM(Y0, X0, X2)
	HSUM(Y1, X1, X2)
	VMOVSS X0, (R9)
	VMOVSS X1, (R12)
	ADDQ   $4, R9
	ADDQ   $4, R12
	ADDQ   stride+16(FP), R8
	DECQ   R10
	JNZ    q82row
	VZEROUPPER
	RET

// func vecDotQ4_1Q8_1AVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ4_1Q8_1AVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y12, Y12, Y12
	NIBBLE_CONSTS
	MOVQ CX, DX
	SHRQ $1, DX
	JZ   q41tail

q41loop:
	PREFETCHT0 PF(SI)
	Q4_1_BLOCK(0, 0, Y0)
	Q4_1_BLOCK(20, 36, Y0)
	ADDQ $40, SI
	ADDQ $72, DI
	DECQ DX
	JNZ  q41loop

q41tail:
	TESTQ $1, CX
	JZ    q41done
	Q4_1_BLOCK(0, 0, Y0)

q41done:
	HSUM(Y0, X0, X1)
	VADDSS X12, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func vecDotQ5_0Q8_0AVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ5_0Q8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	NIBBLE_CONSTS
	Q5_CONSTS
	MOVL         $0xF0F0F0F0, AX
	VMOVD        AX, X9
	VPBROADCASTD X9, Y9
	MOVQ CX, DX
	SHRQ $1, DX
	JZ   q50tail

q50loop:
	PREFETCHT0 PF(SI)
	Q5_0_BLOCK(0, 0, Y0)
	Q5_0_BLOCK(22, 34, Y0)
	ADDQ $44, SI
	ADDQ $68, DI
	DECQ DX
	JNZ  q50loop

q50tail:
	TESTQ $1, CX
	JZ    q50done
	Q5_0_BLOCK(0, 0, Y0)

q50done:
	HSUM(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func vecDotQ5_1Q8_1AVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ5_1Q8_1AVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y12, Y12, Y12
	NIBBLE_CONSTS
	Q5_CONSTS
	MOVL         $0x10101010, AX
	VMOVD        AX, X9
	VPBROADCASTD X9, Y9
	MOVQ CX, DX
	SHRQ $1, DX
	JZ   q51tail

q51loop:
	PREFETCHT0 PF(SI)
	Q5_1_BLOCK(0, 0, Y0)
	Q5_1_BLOCK(24, 36, Y0)
	ADDQ $48, SI
	ADDQ $72, DI
	DECQ DX
	JNZ  q51loop

q51tail:
	TESTQ $1, CX
	JZ    q51done
	Q5_1_BLOCK(0, 0, Y0)

q51done:
	HSUM(Y0, X0, X1)
	VADDSS X12, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// Multi-token kernels: one weight row against four activation rows at DI,
// DI+BX, DI+2BX, DI+3BX (BX = the activation row stride); the decoded
// weight block is reused four times. Results go to out[0..3].

// func vecDotQ8_0Q8_0x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·vecDotQ8_0Q8_0x4AVX2(SB), NOSPLIT, $0-48
	X4_PROLOGUE
	NIBBLE_CONSTS
	TESTQ CX, CX
	JZ    q80x4done

q80x4loop:
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, Y2
	VMOVDQU      2(SI), Y4
	SIGNED_TOK4(0)
	ADDQ $34, SI
	ADVANCE4(34)
	DECQ CX
	JNZ  q80x4loop

q80x4done:
	X4_EPILOGUE

// func vecDotQ8_0Q8_0r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·vecDotQ8_0Q8_0r4AVX2(SB), NOSPLIT, $16-48
	R4_PROLOGUE
	NIBBLE_CONSTS
	TESTQ CX, CX
	JZ    q80r4done

q80r4loop:
	PREFETCHT0 R4PF(SI)
	PREFETCHT0 R4PF(R8)
	PREFETCHT0 R4PF(R9)
	PREFETCHT0 R4PF(R10)
	VMOVDQU 2(DI), Y5
	R4_SCALES(0, 0)
	Q8_0_R4ROW(SI, 0, Y0)
	Q8_0_R4ROW(R8, 4, Y1)
	Q8_0_R4ROW(R9, 8, Y8)
	Q8_0_R4ROW(R10, 12, Y9)
	R4_ADVANCE(34, 34)
	DECQ CX
	JNZ  q80r4loop

q80r4done:
	R4_EPILOGUE

// Q8_0 row P of the four-row two-token kernel: the row's block decoded
// once (Y4, |w| in Y6) against token 0's block Y5 into acc0 and token 1's
// Y15 into acc1, each pair in Q8_0_R4ROW's steps; the scale products
// d-16+k(SP) (token 0) and e-32+k(SP) (token 1).
#define Q8_0_R4X2ROW(P, k, acc0, acc1) \
	VMOVDQU      2(P), Y4          \
	VPSIGNB      Y4, Y4, Y6        \
	VPSIGNB      Y4, Y5, Y7        \
	VPMADDUBSW   Y7, Y6, Y7        \
	VPMADDWD     Y13, Y7, Y7       \
	VCVTDQ2PS    Y7, Y7            \
	VBROADCASTSS d-16+k(SP), Y3    \
	VFMADD231PS  Y7, Y3, acc0      \
	VPSIGNB      Y4, Y15, Y7       \
	VPMADDUBSW   Y7, Y6, Y7        \
	VPMADDWD     Y13, Y7, Y7       \
	VCVTDQ2PS    Y7, Y7            \
	VBROADCASTSS e-32+k(SP), Y3    \
	VFMADD231PS  Y7, Y3, acc1

// func vecDotQ8_0Q8_0r4x2AVX2(nb int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)
//
// vecDotQ8_0Q8_0r4AVX2 for two tokens (a, a+astride) at once: each weight
// block is loaded and its sign split once for both, the pair (row k,
// token t) summed in the single-row kernel's order into out[k*rstride +
// t*tstride]. Token 0 accumulates in Y0, Y1, Y8, Y9, token 1 in Y10, Y11,
// Y12, Y14.
TEXT ·vecDotQ8_0Q8_0r4x2AVX2(SB), NOSPLIT, $32-64
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	MOVQ astride+32(FP), DX
	ADDQ DI, DX
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	VPCMPEQW Y13, Y13, Y13
	VPSRLW   $15, Y13, Y13
	VXORPS   Y0, Y0, Y0
	VXORPS   Y1, Y1, Y1
	VXORPS   Y8, Y8, Y8
	VXORPS   Y9, Y9, Y9
	VXORPS   Y10, Y10, Y10
	VXORPS   Y11, Y11, Y11
	VXORPS   Y12, Y12, Y12
	VXORPS   Y14, Y14, Y14
	VXORPS   X2, X2, X2
	TESTQ    CX, CX
	JZ       q80r4x2done

q80r4x2loop:
	PREFETCHT0   R4PF(SI)
	PREFETCHT0   R4PF(R8)
	PREFETCHT0   R4PF(R9)
	PREFETCHT0   R4PF(R10)
	VMOVDQU      2(DI), Y5
	VMOVDQU      2(DX), Y15
	VPXOR        X2, X2, X2
	VPINSRW      $0, 0(SI), X2, X2
	VPINSRW      $1, 0(R8), X2, X2
	VPINSRW      $2, 0(R9), X2, X2
	VPINSRW      $3, 0(R10), X2, X2
	VCVTPH2PS    X2, X2
	VPBROADCASTW 0(DI), X3
	VCVTPH2PS    X3, X3
	VMULPS       X3, X2, X3
	VMOVUPS      X3, d-16(SP)
	VPBROADCASTW 0(DX), X3
	VCVTPH2PS    X3, X3
	VMULPS       X3, X2, X3
	VMOVUPS      X3, e-32(SP)
	Q8_0_R4X2ROW(SI, 0, Y0, Y10)
	Q8_0_R4X2ROW(R8, 4, Y1, Y11)
	Q8_0_R4X2ROW(R9, 8, Y8, Y12)
	Q8_0_R4X2ROW(R10, 12, Y9, Y14)
	R4_ADVANCE(34, 34)
	ADDQ         $34, DX
	DECQ         CX
	JNZ          q80r4x2loop

q80r4x2done:
	MOVQ   out+40(FP), DX
	MOVQ   rstride+48(FP), R11
	SHLQ   $2, R11
	MOVQ   tstride+56(FP), R12
	SHLQ   $2, R12
	HSUM(Y0, X0, X2)
	HSUM(Y1, X1, X2)
	HSUM(Y8, X8, X2)
	HSUM(Y9, X9, X2)
	HSUM(Y10, X10, X2)
	HSUM(Y11, X11, X2)
	HSUM(Y12, X12, X2)
	HSUM(Y14, X14, X2)
	VMOVSS X0, (DX)
	VMOVSS X10, (DX)(R12*1)
	ADDQ   R11, DX
	VMOVSS X1, (DX)
	VMOVSS X11, (DX)(R12*1)
	ADDQ   R11, DX
	VMOVSS X8, (DX)
	VMOVSS X12, (DX)(R12*1)
	ADDQ   R11, DX
	VMOVSS X9, (DX)
	VMOVSS X14, (DX)(R12*1)
	VZEROUPPER
	RET

// Q4_0 follows the generic kernel's float order instead (vecdot_generic.go):
// per block the exact integer sum s, then sum = fma(float(s), d_w*d_a,
// sum), as llama.cpp's repacked Q4_0 gemv and gemm (ggml-cpu repack.cpp). The multi-row/token kernels reduce four blocks' lane sums with
// VPHADDD and do the float steps for four outputs in one vector.

// func vecDotQ4_0Q8_0AVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ4_0Q8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS X0, X0, X0
	NIBBLE_CONSTS
	MOVL         $0x08080808, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	TESTQ CX, CX
	JZ    q40done

q40loop:
	PREFETCHT0 PF(SI)
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, X2
	VPBROADCASTW 0(DI), X3
	VCVTPH2PS    X3, X3
	VMULSS       X3, X2, X2
	Q4_0_LANES(0, 0)
	HSUM_I32(Y6, X6, X7)
	VCVTDQ2PS    X6, X6
	VFMADD231SS  X2, X6, X0
	ADDQ $18, SI
	ADDQ $34, DI
	DECQ CX
	JNZ  q40loop

q40done:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func vecDotQ4_0Q8_0r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·vecDotQ4_0Q8_0r4AVX2(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	VXORPS X0, X0, X0
	VXORPS X2, X2, X2
	NIBBLE_CONSTS
	MOVL         $0x01010101, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	TESTQ CX, CX
	JZ    q40r4done

q40r4loop:
	PREFETCHT0 R4PF(SI)
	PREFETCHT0 R4PF(R8)
	PREFETCHT0 R4PF(R9)
	PREFETCHT0 R4PF(R10)
	VMOVDQU    2(DI), Y5
	VPMADDUBSW Y5, Y14, Y6
	VPMADDWD   Y13, Y6, Y6
	VPSLLD     $3, Y6, Y6
	VPINSRW      $0, 0(SI), X2, X2
	VPINSRW      $1, 0(R8), X2, X2
	VPINSRW      $2, 0(R9), X2, X2
	VPINSRW      $3, 0(R10), X2, X2
	VCVTPH2PS    X2, X2
	VPBROADCASTW 0(DI), X3
	VCVTPH2PS    X3, X3
	VMULPS       X3, X2, X3
	Q4_0_R4LANES(SI, Y4, X4)
	Q4_0_R4LANES(R8, Y8, X8)
	Q4_0_R4LANES(R9, Y9, X9)
	Q4_0_R4LANES(R10, Y10, X10)
	HSUM4_I32(Y8, Y9, Y10, X8)
	VCVTDQ2PS   X4, X4
	VFMADD231PS X3, X4, X0
	R4_ADVANCE(18, 34)
	DECQ CX
	JNZ  q40r4loop

q40r4done:
	MOVQ       out+32(FP), DX
	MOVQ       ostride+40(FP), R11
	SHLQ       $2, R11
	VMOVSS     X0, (DX)
	ADDQ       R11, DX
	VEXTRACTPS $1, X0, (DX)
	ADDQ       R11, DX
	VEXTRACTPS $2, X0, (DX)
	ADDQ       R11, DX
	VEXTRACTPS $3, X0, (DX)
	VZEROUPPER
	RET

// func vecDotQ4_0Q8_0x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·vecDotQ4_0Q8_0x4AVX2(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ stride+24(FP), BX
	LEAQ (DI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	VXORPS X0, X0, X0
	VXORPS X2, X2, X2
	NIBBLE_CONSTS
	MOVL         $0x08080808, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	TESTQ CX, CX
	JZ    q40x4done

q40x4loop:
	VPINSRW      $0, 0(DI), X2, X2
	VPINSRW      $1, 0(R8), X2, X2
	VPINSRW      $2, 0(R9), X2, X2
	VPINSRW      $3, 0(R10), X2, X2
	VCVTPH2PS    X2, X2
	VPBROADCASTW 0(SI), X3
	VCVTPH2PS    X3, X3
	VMULPS       X2, X3, X3
	NIBBLES(2(SI))
	VPSUBB  Y14, Y4, Y4
	VPSIGNB Y4, Y4, Y6
	Q4_0_X4LANES(DI, Y8)
	Q4_0_X4LANES(R8, Y9)
	Q4_0_X4LANES(R9, Y10)
	Q4_0_X4LANES(R10, Y11)
	VMOVDQA Y8, Y4
	HSUM4_I32(Y9, Y10, Y11, X8)
	VCVTDQ2PS   X4, X4
	VFMADD231PS X3, X4, X0
	ADDQ $18, SI
	ADVANCE4(34)
	DECQ CX
	JNZ  q40x4loop

q40x4done:
	STORE_LANES4

// func vecDotQ5_0Q8_0x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·vecDotQ5_0Q8_0x4AVX2(SB), NOSPLIT, $0-48
	X4_PROLOGUE
	NIBBLE_CONSTS
	Q5_CONSTS
	MOVL         $0xF0F0F0F0, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	TESTQ CX, CX
	JZ    q50x4done

q50x4loop:
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, Y2
	BITS_TO_BYTES(2(SI))
	VPANDN Y14, Y7, Y7
	NIBBLES(6(SI))
	VPOR   Y7, Y4, Y4
	SIGNED_TOK4(0)
	ADDQ $22, SI
	ADVANCE4(34)
	DECQ CX
	JNZ  q50x4loop

q50x4done:
	X4_EPILOGUE

// func vecDotQ5_0Q8_0r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·vecDotQ5_0Q8_0r4AVX2(SB), NOSPLIT, $16-48
	R4_PROLOGUE
	NIBBLE_CONSTS
	Q5_CONSTS
	MOVL         $0xF0F0F0F0, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	TESTQ CX, CX
	JZ    q50r4done

q50r4loop:
	PREFETCHT0 R4PF(SI)
	PREFETCHT0 R4PF(R8)
	PREFETCHT0 R4PF(R9)
	PREFETCHT0 R4PF(R10)
	VMOVDQU 2(DI), Y5
	R4_SCALES(0, 0)
	Q5_0_R4ROW(SI, 0, Y0)
	Q5_0_R4ROW(R8, 4, Y1)
	Q5_0_R4ROW(R9, 8, Y8)
	Q5_0_R4ROW(R10, 12, Y9)
	R4_ADVANCE(22, 34)
	DECQ CX
	JNZ  q50r4loop

q50r4done:
	R4_EPILOGUE

// X14 += [m of the four rows' blocks at off] * fp16(a+aoff): the min
// terms of the _1 types' four-row kernels, lane k = row k (MIN_TERM's
// fused step per row); X7, X3 scratch.
#define R4_MIN_TERM(off, aoff) \
	VPINSRW      $0, off(SI), X7, X7  \
	VPINSRW      $1, off(R8), X7, X7  \
	VPINSRW      $2, off(R9), X7, X7  \
	VPINSRW      $3, off(R10), X7, X7 \
	VCVTPH2PS    X7, X7               \
	VPBROADCASTW aoff(DI), X3         \
	VCVTPH2PS    X3, X3               \
	VFMADD231PS  X7, X3, X14

// acc += d-16+k(SP) * float(lanes of the unsigned Y4 x the activation
// block at 4(DI)): UNSIGNED_DOT with row k's scale product.
#define R4_UNSIGNED_DOT(k, acc) \
	VPMADDUBSW   4(DI), Y4, Y6  \
	VPMADDWD     Y13, Y6, Y6    \
	VCVTDQ2PS    Y6, Y6         \
	VBROADCASTSS d-16+k(SP), Y7 \
	VFMADD231PS  Y6, Y7, acc

#define Q4_1_R4ROW(P, k, acc) \
	NIBBLES(4(P))           \
	R4_UNSIGNED_DOT(k, acc)

// Q5_1 row P (Q5_1_BLOCK's decoding); Y12 = 0x10 bytes.
#define Q5_1_R4ROW(P, k, acc) \
	BITS_TO_BYTES(4(P))     \
	VPAND Y12, Y7, Y7       \
	NIBBLES(8(P))           \
	VPOR  Y7, Y4, Y4        \
	R4_UNSIGNED_DOT(k, acc)

// R4_UNSIGNED_DOT_VNNI is R4_UNSIGNED_DOT with one VPDPBUSD for the lanes
// (the same integers).
#define R4_UNSIGNED_DOT_VNNI(k, acc) \
	VPXOR        Y6, Y6, Y6     \
	VPDPBUSD     4(DI), Y4, Y6  \
	VCVTDQ2PS    Y6, Y6         \
	VBROADCASTSS d-16+k(SP), Y7 \
	VFMADD231PS  Y6, Y7, acc

// Q5_1_R4ROW_VNNI adds the high bits as 16 to the nibbles of the bytes
// whose bit of qh is set (a mask register and a masked add, where
// BITS_TO_BYTES takes four operations and the merge two more); Y12 =
// 0x10 bytes.
#define Q5_1_R4ROW_VNNI(P, k, acc) \
	KMOVD  4(P), K1              \
	NIBBLES(8(P))                \
	VPADDB Y12, Y4, K1, Y4       \
	R4_UNSIGNED_DOT_VNNI(k, acc)

// The loop of the _1 types' four-row kernels: ROW (Q4_1_R4ROW or
// Q5_1_R4ROW) on rows of wb-byte blocks, the min terms in X14.
#define R4_MIN_LOOP(ROW, wb, loop, done) \
	VXORPS X14, X14, X14   \
	TESTQ  CX, CX          \
	JZ     done            \
loop:                      \
	PREFETCHT0 R4PF(SI)    \
	PREFETCHT0 R4PF(R8)    \
	PREFETCHT0 R4PF(R9)    \
	PREFETCHT0 R4PF(R10)   \
	R4_SCALES(0, 0)        \
	R4_MIN_TERM(2, 2)      \
	ROW(SI, 0, Y0)         \
	ROW(R8, 4, Y1)         \
	ROW(R9, 8, Y8)         \
	ROW(R10, 12, Y9)       \
	R4_ADVANCE(wb, 36)     \
	DECQ CX                \
	JNZ  loop              \
done:                      \
	X4_EPILOGUE_MIN

// func vecDotQ4_1Q8_1r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
//
// Four rows against one activation row, each in vecDotQ4_1Q8_1AVX2's
// steps (same bits): the lanes as the other r4 kernels, the min terms
// of the four rows in the lanes of X14, added after the horizontal sums.
TEXT ·vecDotQ4_1Q8_1r4AVX2(SB), NOSPLIT, $16-48
	R4_PROLOGUE
	NIBBLE_CONSTS
	R4_MIN_LOOP(Q4_1_R4ROW, 20, q41r4loop, q41r4done)

// func vecDotQ5_1Q8_1r4AVX2(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
//
// vecDotQ4_1Q8_1r4AVX2 for Q5_1 (vecDotQ5_1Q8_1AVX2's steps).
TEXT ·vecDotQ5_1Q8_1r4AVX2(SB), NOSPLIT, $16-48
	R4_PROLOGUE
	NIBBLE_CONSTS
	Q5_CONSTS
	MOVL         $0x10101010, AX
	VMOVD        AX, X12
	VPBROADCASTD X12, Y12
	R4_MIN_LOOP(Q5_1_R4ROW, 24, q51r4loop, q51r4done)

// func vecDotQ5_1Q8_1r4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
//
// vecDotQ5_1Q8_1r4AVX2 with VPDPBUSD and the high bits through a mask
// register (the avx512vnni set), same bits. (Q4_1's twin with VPDPBUSD
// alone measured no faster.)
TEXT ·vecDotQ5_1Q8_1r4VNNI(SB), NOSPLIT, $16-48
	R4_PROLOGUE
	NIBBLE_CONSTS
	MOVL         $0x10101010, AX
	VMOVD        AX, X12
	VPBROADCASTD X12, Y12
	R4_MIN_LOOP(Q5_1_R4ROW_VNNI, 24, q51r4vloop, q51r4vdone)

// func vecDotQ4_1Q8_1x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·vecDotQ4_1Q8_1x4AVX2(SB), NOSPLIT, $0-48
	X4_PROLOGUE
	NIBBLE_CONSTS
	VXORPS X14, X14, X14
	VXORPS X12, X12, X12
	TESTQ CX, CX
	JZ    q41x4done

q41x4loop:
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, Y2
	MIN_TERM4(2)
	NIBBLES(4(SI))
	UNSIGNED_TOK(DI, 0, Y0)
	UNSIGNED_TOK(R8, 0, Y1)
	UNSIGNED_TOK(R9, 0, Y8)
	UNSIGNED_TOK(R10, 0, Y9)
	ADDQ $20, SI
	ADVANCE4(36)
	DECQ CX
	JNZ  q41x4loop

q41x4done:
	X4_EPILOGUE_MIN

// func vecDotQ5_1Q8_1x4AVX2(nb int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·vecDotQ5_1Q8_1x4AVX2(SB), NOSPLIT, $0-48
	X4_PROLOGUE
	NIBBLE_CONSTS
	Q5_CONSTS
	MOVL         $0x10101010, AX
	VMOVD        AX, X6
	VPBROADCASTD X6, Y6
	VXORPS X14, X14, X14
	VXORPS X12, X12, X12
	TESTQ CX, CX
	JZ    q51x4done

q51x4loop:
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, Y2
	MIN_TERM4(2)
	BITS_TO_BYTES(4(SI))
	VPAND  Y6, Y7, Y7
	NIBBLES(8(SI))
	VPOR   Y7, Y4, Y4
	UNSIGNED_TOK(DI, 0, Y0)
	UNSIGNED_TOK(R8, 0, Y1)
	UNSIGNED_TOK(R9, 0, Y8)
	UNSIGNED_TOK(R10, 0, Y9)
	ADDQ $24, SI
	ADVANCE4(36)
	DECQ CX
	JNZ  q51x4loop

q51x4done:
	X4_EPILOGUE_MIN

// Q8_0 in block sums (vecDotQ8_0Q8_0SumsGeneric), one row: the rows the
// AVX2 set multiplies outside its packed groups (tail rows, matrices not
// packed yet). Per block the exact sum s (the sign trick, then a
// horizontal int32 sum), then sum += float(s) * (d_w*d_a), unfused.

// func vecDotQ8_0Q8_0SumsAVX2(nb int, w, a *byte) float32
TEXT ·vecDotQ8_0Q8_0SumsAVX2(SB), NOSPLIT, $0-28
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS X0, X0, X0
	NIBBLE_CONSTS
	TESTQ CX, CX
	JZ    q80sdone

q80sloop:
	PREFETCHT0   PF(SI)
	VPBROADCASTW 0(SI), X2
	VCVTPH2PS    X2, X2
	VPBROADCASTW 0(DI), X3
	VCVTPH2PS    X3, X3
	VMULSS       X3, X2, X2
	VMOVDQU      2(SI), Y4
	VMOVDQU      2(DI), Y5
	VPSIGNB      Y4, Y4, Y6
	VPSIGNB      Y4, Y5, Y5
	VPMADDUBSW   Y5, Y6, Y6
	VPMADDWD     Y13, Y6, Y6
	HSUM_I32(Y6, X6, X7)
	VCVTDQ2PS    X6, X6
	VMULSS       X2, X6, X6
	VADDSS       X6, X0, X0
	ADDQ $34, SI
	ADDQ $34, DI
	DECQ CX
	JNZ  q80sloop

q80sdone:
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
