//go:build !purego

#include "textflag.h"

// Half-precision (F16, BF16) weight kernels in llamafile tinyBLAS's order
// (see vecdot_float.go): per output one 8-lane accumulator, one fused
// multiply-add per group of 8 elements, then ggml's horizontal sum. Both
// operands are widened to float32 exactly (F16 by VCVTPH2PS, BF16 by a
// zero-extension shifted into the high half), so every kernel here gives
// the generic kernel's bits. n8 is the number of groups of 8.

#define HSUMS(Y, X, T) \
	VEXTRACTF128 $1, Y, T \
	VADDPS       T, X, X  \
	VMOVHLPS     X, X, T  \
	VADDPS       T, X, X  \
	VMOVSHDUP    X, T     \
	VADDSS       T, X, X

// HSUMS with a temporary among X16-X31 (AVX-512VL encodings).
#define HSUMZ(Y, X, T) \
	VEXTRACTF32X4 $1, Y, T \
	VADDPS        T, X, X  \
	VMOVHLPS      X, X, T  \
	VADDPS        T, X, X  \
	VMOVSHDUP     X, T     \
	VADDSS        T, X, X

#define WIDEN_F16(m, y) VCVTPH2PS m, y
#define WIDEN_BF16(m, y) VPMOVZXWD m, y; VPSLLD $16, y, y
#define LOAD_F32(m, y) VMOVUPS m, y

// ZERO_Y0_15 clears the sixteen accumulators Y0-Y15.
#define ZERO_Y0_15 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11 \
	VXORPS Y12, Y12, Y12 \
	VXORPS Y13, Y13, Y13 \
	VXORPS Y14, Y14, Y14 \
	VXORPS Y15, Y15, Y15

// The four-row decode kernels (f16VecR4AVX512, bf16VecR4AVX512 and their
// prefetching twins): HALFR4_START loads the arguments (rows at SI, R8,
// R9, R10, wstride apart; the token at DI; CX groups of 32) and clears the
// accumulators Y0-Y15 (row r in Y4r..Y4r+3), or jumps to done when there
// are no groups; HALFR4_LOOP runs the groups (GROUP: one group of 8 of
// each row), PF first in each step; HALFR4_OUT loads out (DX) and its
// stride in bytes (R11). (Here, before the first TEXT: go vet reads the
// argument names of lines after one against that function.)
#define HALFR4_START(done) \
	MOVQ n32+0(FP), CX        \
	MOVQ w+8(FP), SI          \
	MOVQ wstride+16(FP), BX   \
	MOVQ a+24(FP), DI         \
	LEAQ (SI)(BX*1), R8       \
	LEAQ (R8)(BX*1), R9       \
	LEAQ (R9)(BX*1), R10      \
	ZERO_Y0_15                \
	TESTQ CX, CX              \
	JZ    done

// HALFR4_NEXT moves the four rows and the token on by a step of 32
// halves, back to loop while steps are left in CX.
#define HALFR4_NEXT(loop) \
	ADDQ $64, SI  \
	ADDQ $64, R8  \
	ADDQ $64, R9  \
	ADDQ $64, R10 \
	ADDQ $64, DI  \
	DECQ CX       \
	JNZ  loop

#define HALFR4_LOOP(GROUP, PF, loop) \
loop:                               \
	PF                              \
	GROUP(0, Y0, Y4, Y8, Y12)       \
	GROUP(16, Y1, Y5, Y9, Y13)      \
	GROUP(32, Y2, Y6, Y10, Y14)     \
	GROUP(48, Y3, Y7, Y11, Y15)     \
	HALFR4_NEXT(loop)

#define HALFR4_OUT \
	MOVQ out+32(FP), DX      \
	MOVQ ostride+40(FP), R11 \
	SHLQ $2, R11

// HALFR4_PF prefetches the four rows 1 KiB ahead (streamPrefetch);
// HALFR4_NOPF does not.
#define HALFR4_PF \
	PREFETCHT0 1024(SI)  \
	PREFETCHT0 1024(R8)  \
	PREFETCHT0 1024(R9)  \
	PREFETCHT0 1024(R10)

#define HALFR4_NOPF

// HALFR4_KERNEL is a whole four-row kernel: GROUP one group of 8 of each
// row, STORE4 the rows' reductions to out, PF the prefetch, loop and done
// its labels.
#define HALFR4_KERNEL(GROUP, STORE4, PF, loop, done) \
	HALFR4_START(done)            \
	HALFR4_LOOP(GROUP, PF, loop)  \
done:                             \
	HALFR4_OUT                    \
	STORE4                        \
	VZEROUPPER                    \
	RET

// The AVX2 3 x 4 tiles: 3 rows (w, w+wstride, w+2*wstride) x 4 tokens
// (a, a+astride, ...) into out[t*ostride+r]. Each step widens the three
// weight groups once for the four tokens and each token group once for
// the three rows: twelve FMAs per three weight widenings and four token
// loads (TOKEN: a plain load of tokens already widened to float32, or a
// widening of half-precision tokens). FMAs with memory operands measured
// slower, bound by loads. Accumulators Y0-Y11 (token t, row r in
// Y(3t+r)), widened weights Y12-Y14, the token group Y15 (all sixteen
// registers).
//
// The loop runs four steps per turn, their offsets immediates, then the
// last n8%4 groups one at a time (every accumulator still takes its groups
// in order). One step per turn, with its two index increments, a counter
// and a branch for twelve FMAs, ran at 0.75-0.95 of the core's FMA peak in
// L1 on an AMD EPYC Zen3; four steps per turn at 0.82-0.985 (the same
// data, alternating in one process). In F16 prefill matmuls of 512 tokens
// (alternating call by call) that took 0.92-0.96x the time at Llama-2-7B's
// shapes (4096 columns, whose tiles stream from L2) and 0.97-1.02x at
// TinyLlama's.
//
// F16 reads its tokens as F16 (seven VCVTPH2PS per twelve FMAs), BF16 from
// their float32 quad (halfQuadBF16; a BF16 widening is two instructions).
// With 512 tokens on that Zen3, F16 tokens took 0.91-0.97x the time
// of float32 ones (BenchmarkMatMulPrefill shapes, the two alternating call
// by call): half the bytes to bring from L2 for each tile; BF16 tokens
// took 1.23-1.41x.
#define HALF_STEP(wo, to, WIDEN, TOKEN) \
	WIDEN(wo(SI)(AX*1), Y12)       \
	WIDEN(wo(R11)(AX*1), Y13)      \
	WIDEN(wo(R12)(AX*1), Y14)      \
	TOKEN(to(DI)(R13*1), Y15)      \
	VFMADD231PS Y15, Y12, Y0       \
	VFMADD231PS Y15, Y13, Y1       \
	VFMADD231PS Y15, Y14, Y2       \
	TOKEN(to(R8)(R13*1), Y15)      \
	VFMADD231PS Y15, Y12, Y3       \
	VFMADD231PS Y15, Y13, Y4       \
	VFMADD231PS Y15, Y14, Y5       \
	TOKEN(to(R9)(R13*1), Y15)      \
	VFMADD231PS Y15, Y12, Y6       \
	VFMADD231PS Y15, Y13, Y7       \
	VFMADD231PS Y15, Y14, Y8       \
	TOKEN(to(R10)(R13*1), Y15)     \
	VFMADD231PS Y15, Y12, Y9       \
	VFMADD231PS Y15, Y13, Y10      \
	VFMADD231PS Y15, Y14, Y11

// The tiles of batches of a few quads (vecDot3x4Few) ask for the next
// tile's rows (3*wstride on, R14, DX, R15) one cache line per turn: those
// batches read each weight row from DRAM once, and the tile waited on it.
#define HALF_PF_SETUP \
	LEAQ (R12)(BX*1), R14 \
	LEAQ (R14)(BX*1), DX  \
	LEAQ (DX)(BX*1), R15

#define HALF_PF \
	PREFETCHT0 (R14)(AX*1) \
	PREFETCHT0 (DX)(AX*1)  \
	PREFETCHT0 (R15)(AX*1)

#define HALF_NONE

// The tiles' steps: HALF_STEP with each variant's widenings.
#define F16_STEP(wo, to) HALF_STEP(wo, to, WIDEN_F16, WIDEN_F16)
#define BF16F32_STEP(wo, to) HALF_STEP(wo, to, WIDEN_BF16, LOAD_F32)
#define F32_STEP(wo, to) HALF_STEP(wo, to, LOAD_F32, LOAD_F32)

// BF16ILV_STEP is one step of 16 elements over BF16 rows interleaved as
// the pair layout interleaves them (tile_bf16ilv.go; each dword of 32
// bytes holds group 2d's element in its upper word, group 2d+1's in its
// lower): group 2d masked out of the upper words (BF16ILV_HI), then
// group 2d+1 shifted up (BF16ILV_LO), each against the tokens' floats of
// its group. One operation per 8 weights instead of WIDEN_BF16's two, and
// the mask takes any vector pipe; each pair's accumulator still takes the
// groups in order.
#define BF16ILV_HI(m, y) VMOVDQU m, y; VPAND bf16IlvHi<>(SB), y, y
#define BF16ILV_LO(m, y) VMOVDQU m, y; VPSLLD $16, y, y
#define BF16ILV_STEP(wo, to) \
	HALF_STEP(wo, to, BF16ILV_HI, LOAD_F32) \
	HALF_STEP(wo, to+32, BF16ILV_LO, LOAD_F32)
#define BF16ILV_STEPS SHRQ $1, CX

DATA bf16IlvHi<>+0(SB)/8, $0xffff0000ffff0000
DATA bf16IlvHi<>+8(SB)/8, $0xffff0000ffff0000
DATA bf16IlvHi<>+16(SB)/8, $0xffff0000ffff0000
DATA bf16IlvHi<>+24(SB)/8, $0xffff0000ffff0000
GLOBL bf16IlvHi<>(SB), RODATA|NOPTR, $32

// HALF_TILE4X4_F32 is the body of f16Tile4x4F32AVX512, bf16Tile4x4F32AVX512
// (WIDEN the weights' widening) and the F16 twin that prefetches the next
// tile's rows (PFSETUP, PF at each step: HALF4_PF_SETUP, HALF4_PF).
#define HALF_TILE4X4_F32(loop, done, WIDEN, PFSETUP, PF) \
	MOVQ n8+0(FP), CX \
	MOVQ w+8(FP), SI \
	MOVQ wstride+16(FP), BX \
	MOVQ a+24(FP), DI \
	MOVQ astride+32(FP), DX \
	LEAQ (DI)(DX*1), R8 \
	LEAQ (R8)(DX*1), R9 \
	LEAQ (R9)(DX*1), R10 \
	PFSETUP \
	ZERO_Y0_15                \
	TESTQ CX, CX \
	JZ    done \
	XORQ  AX, AX \
	XORQ  R13, R13 \
loop: \
	PF \
	VMOVUPS (DI)(R13*1), Y16 \
	VMOVUPS (R8)(R13*1), Y17 \
	VMOVUPS (R9)(R13*1), Y18 \
	VMOVUPS (R10)(R13*1), Y19 \
	MOVQ SI, R12 \
	WIDEN((R12)(AX*1), Y20) \
	VFMADD231PS Y16, Y20, Y0 \
	VFMADD231PS Y17, Y20, Y4 \
	VFMADD231PS Y18, Y20, Y8 \
	VFMADD231PS Y19, Y20, Y12 \
	ADDQ BX, R12 \
	WIDEN((R12)(AX*1), Y20) \
	VFMADD231PS Y16, Y20, Y1 \
	VFMADD231PS Y17, Y20, Y5 \
	VFMADD231PS Y18, Y20, Y9 \
	VFMADD231PS Y19, Y20, Y13 \
	ADDQ BX, R12 \
	WIDEN((R12)(AX*1), Y20) \
	VFMADD231PS Y16, Y20, Y2 \
	VFMADD231PS Y17, Y20, Y6 \
	VFMADD231PS Y18, Y20, Y10 \
	VFMADD231PS Y19, Y20, Y14 \
	ADDQ BX, R12 \
	WIDEN((R12)(AX*1), Y20) \
	VFMADD231PS Y16, Y20, Y3 \
	VFMADD231PS Y17, Y20, Y7 \
	VFMADD231PS Y18, Y20, Y11 \
	VFMADD231PS Y19, Y20, Y15 \
	ADDQ $16, AX \
	ADDQ $32, R13 \
	DECQ CX \
	JNZ  loop \
done: \
	MOVQ out+40(FP), DX \
	MOVQ ostride+48(FP), R11 \
	SHLQ $2, R11 \
	HSUMZ(Y0, X0, X21) \
	VMOVSS X0, 0(DX) \
	HSUMZ(Y1, X1, X21) \
	VMOVSS X1, 4(DX) \
	HSUMZ(Y2, X2, X21) \
	VMOVSS X2, 8(DX) \
	HSUMZ(Y3, X3, X21) \
	VMOVSS X3, 12(DX) \
	ADDQ R11, DX \
	HSUMZ(Y4, X4, X21) \
	VMOVSS X4, 0(DX) \
	HSUMZ(Y5, X5, X21) \
	VMOVSS X5, 4(DX) \
	HSUMZ(Y6, X6, X21) \
	VMOVSS X6, 8(DX) \
	HSUMZ(Y7, X7, X21) \
	VMOVSS X7, 12(DX) \
	ADDQ R11, DX \
	HSUMZ(Y8, X8, X21) \
	VMOVSS X8, 0(DX) \
	HSUMZ(Y9, X9, X21) \
	VMOVSS X9, 4(DX) \
	HSUMZ(Y10, X10, X21) \
	VMOVSS X10, 8(DX) \
	HSUMZ(Y11, X11, X21) \
	VMOVSS X11, 12(DX) \
	ADDQ R11, DX \
	HSUMZ(Y12, X12, X21) \
	VMOVSS X12, 0(DX) \
	HSUMZ(Y13, X13, X21) \
	VMOVSS X13, 4(DX) \
	HSUMZ(Y14, X14, X21) \
	VMOVSS X14, 8(DX) \
	HSUMZ(Y15, X15, X21) \
	VMOVSS X15, 12(DX) \
	VZEROUPPER \
	RET

// HALF4_PF_SETUP points R14, R15, R11 and DX (free in the loop) at the
// four rows after the tile's; HALF4_PF asks for their step at the tile's
// offset AX, so that they arrive while this tile runs (a batch of a few
// tokens reads every row from DRAM once).
#define HALF4_PF_SETUP \
	LEAQ (SI)(BX*4), R14  \
	LEAQ (R14)(BX*1), R15 \
	LEAQ (R15)(BX*1), R11 \
	LEAQ (R11)(BX*1), DX

#define HALF4_PF \
	PREFETCHT0 (R14)(AX*1) \
	PREFETCHT0 (R15)(AX*1) \
	PREFETCHT0 (R11)(AX*1) \
	PREFETCHT0 (DX)(AX*1)

// STEP(wo, to) is one step (F16_STEP, ...), WSTEP and TSTEP its weight
// and token bytes; STEPS turns n8 into the count of steps (HALF_NONE: a
// step per group of 8); PFSETUP and PF HALF_PF_SETUP and HALF_PF, or
// HALF_NONE.
#define HALF_TILE3X4(loop4, loop1, tail, done, STEP, WSTEP, TSTEP, STEPS, PFSETUP, PF) \
	MOVQ n8+0(FP), CX             \
	STEPS                         \
	MOVQ w+8(FP), SI              \
	MOVQ wstride+16(FP), BX       \
	MOVQ a+24(FP), DI             \
	MOVQ astride+32(FP), DX       \
	LEAQ (DI)(DX*1), R8           \
	LEAQ (R8)(DX*1), R9           \
	LEAQ (R9)(DX*1), R10          \
	LEAQ (SI)(BX*1), R11          \
	LEAQ (R11)(BX*1), R12         \
	PFSETUP                       \
	VXORPS Y0, Y0, Y0             \
	VXORPS Y1, Y1, Y1             \
	VXORPS Y2, Y2, Y2             \
	VXORPS Y3, Y3, Y3             \
	VXORPS Y4, Y4, Y4             \
	VXORPS Y5, Y5, Y5             \
	VXORPS Y6, Y6, Y6             \
	VXORPS Y7, Y7, Y7             \
	VXORPS Y8, Y8, Y8             \
	VXORPS Y9, Y9, Y9             \
	VXORPS Y10, Y10, Y10          \
	VXORPS Y11, Y11, Y11          \
	XORQ  AX, AX                  \
	XORQ  R13, R13                \
	MOVQ  CX, BX                  \
	SHRQ  $2, BX                  \
	JZ    loop1                   \
loop4:                            \
	PF                            \
	STEP(0, 0)                    \
	STEP(WSTEP, TSTEP)            \
	STEP(2*WSTEP, 2*TSTEP)        \
	STEP(3*WSTEP, 3*TSTEP)        \
	ADDQ $(4*WSTEP), AX           \
	ADDQ $(4*TSTEP), R13          \
	DECQ BX                       \
	JNZ  loop4                    \
loop1:                            \
	ANDQ $3, CX                   \
	JZ   done                     \
tail:                             \
	STEP(0, 0)                    \
	ADDQ $WSTEP, AX               \
	ADDQ $TSTEP, R13              \
	DECQ CX                       \
	JNZ  tail                     \
done:                      \
	MOVQ out+40(FP), DX           \
	MOVQ ostride+48(FP), R11      \
	SHLQ $2, R11                  \
	HSUMS(Y0, X0, X15)            \
	VMOVSS X0, 0(DX)              \
	HSUMS(Y1, X1, X15)            \
	VMOVSS X1, 4(DX)              \
	HSUMS(Y2, X2, X15)            \
	VMOVSS X2, 8(DX)              \
	ADDQ R11, DX                  \
	HSUMS(Y3, X3, X15)            \
	VMOVSS X3, 0(DX)              \
	HSUMS(Y4, X4, X15)            \
	VMOVSS X4, 4(DX)              \
	HSUMS(Y5, X5, X15)            \
	VMOVSS X5, 8(DX)              \
	ADDQ R11, DX                  \
	HSUMS(Y6, X6, X15)            \
	VMOVSS X6, 0(DX)              \
	HSUMS(Y7, X7, X15)            \
	VMOVSS X7, 4(DX)              \
	HSUMS(Y8, X8, X15)            \
	VMOVSS X8, 8(DX)              \
	ADDQ R11, DX                  \
	HSUMS(Y9, X9, X15)            \
	VMOVSS X9, 0(DX)              \
	HSUMS(Y10, X10, X15)          \
	VMOVSS X10, 4(DX)             \
	HSUMS(Y11, X11, X15)          \
	VMOVSS X11, 8(DX)             \
	VZEROUPPER                    \
	RET

// The four-row kernels for two tokens (a, a+astride) at once: each weight
// group widened once for both, row k token t into Y(k+4t), every pair in
// the single-row kernel's steps (same bits); out[k*rstride+t*tstride].
// Batches of two or three sequences decoded together (matmulJob.few).
// A row's two sums (tokens 0 and 1) to (DX) and (DX)(R11).
#define HALF_R4X2_OUT(Ya, Xa, Yb, Xb) \
	HSUMS(Ya, Xa, X12)     \
	HSUMS(Yb, Xb, X12)     \
	VMOVSS Xa, (DX)        \
	VMOVSS Xb, (DX)(R11*1)

#define HALF_R4X2(loop, done, WIDEN) \
	MOVQ n8+0(FP), CX           \
	MOVQ w+8(FP), SI            \
	MOVQ wstride+16(FP), BX     \
	MOVQ a+24(FP), DI           \
	MOVQ astride+32(FP), R11    \
	ADDQ DI, R11                \
	LEAQ (SI)(BX*1), R8         \
	LEAQ (R8)(BX*1), R9         \
	LEAQ (R9)(BX*1), R10        \
	VXORPS Y0, Y0, Y0           \
	VXORPS Y1, Y1, Y1           \
	VXORPS Y2, Y2, Y2           \
	VXORPS Y3, Y3, Y3           \
	VXORPS Y4, Y4, Y4           \
	VXORPS Y5, Y5, Y5           \
	VXORPS Y6, Y6, Y6           \
	VXORPS Y7, Y7, Y7           \
	XORQ  AX, AX                \
	TESTQ CX, CX                \
	JZ    done                  \
loop:                           \
	PREFETCHT0 512(SI)(AX*1)    \
	PREFETCHT0 512(R8)(AX*1)    \
	PREFETCHT0 512(R9)(AX*1)    \
	PREFETCHT0 512(R10)(AX*1)   \
	WIDEN((DI)(AX*1), Y8)       \
	WIDEN((R11)(AX*1), Y9)      \
	WIDEN((SI)(AX*1), Y10)      \
	VFMADD231PS Y8, Y10, Y0     \
	VFMADD231PS Y9, Y10, Y4     \
	WIDEN((R8)(AX*1), Y11)      \
	VFMADD231PS Y8, Y11, Y1     \
	VFMADD231PS Y9, Y11, Y5     \
	WIDEN((R9)(AX*1), Y10)      \
	VFMADD231PS Y8, Y10, Y2     \
	VFMADD231PS Y9, Y10, Y6     \
	WIDEN((R10)(AX*1), Y11)     \
	VFMADD231PS Y8, Y11, Y3     \
	VFMADD231PS Y9, Y11, Y7     \
	ADDQ $16, AX                \
	DECQ CX                     \
	JNZ  loop                   \
done:                           \
	MOVQ out+40(FP), DX         \
	MOVQ rstride+48(FP), BX     \
	SHLQ $2, BX                 \
	MOVQ tstride+56(FP), R11    \
	SHLQ $2, R11                \
	HALF_R4X2_OUT(Y0, X0, Y4, X4) \
	ADDQ   BX, DX               \
	HALF_R4X2_OUT(Y1, X1, Y5, X5) \
	ADDQ   BX, DX               \
	HALF_R4X2_OUT(Y2, X2, Y6, X6) \
	ADDQ   BX, DX               \
	HALF_R4X2_OUT(Y3, X3, Y7, X7) \
	VZEROUPPER                  \
	RET

// func dotBF16BF16AVX2(n8 int, w, a *byte) float32
TEXT ·dotBF16BF16AVX2(SB), NOSPLIT, $0-28
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JZ     dotBF16BF16AVX2_done

dotBF16BF16AVX2_loop:
	WIDEN_BF16((SI), Y1)
	WIDEN_BF16((DI), Y2)
	VFMADD231PS Y2, Y1, Y0
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  dotBF16BF16AVX2_loop

dotBF16BF16AVX2_done:
	HSUMS(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotBF16BF16r4AVX2(n8 int, w *byte, wstride int, a *byte, out *float32, ostride int)
// Four rows w, w+wstride, ... against one activation row (decode).
TEXT ·dotBF16BF16r4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ CX, CX
	JZ    dotBF16BF16r4AVX2_done

dotBF16BF16r4AVX2_loop:
	PREFETCHT0 512(SI)
	PREFETCHT0 512(R8)
	PREFETCHT0 512(R9)
	PREFETCHT0 512(R10)
	WIDEN_BF16((DI), Y5)
	WIDEN_BF16((SI), Y6)
	VFMADD231PS Y5, Y6, Y0
	WIDEN_BF16((R8), Y7)
	VFMADD231PS Y5, Y7, Y1
	WIDEN_BF16((R9), Y6)
	VFMADD231PS Y5, Y6, Y2
	WIDEN_BF16((R10), Y7)
	VFMADD231PS Y5, Y7, Y3
	ADDQ $16, SI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	ADDQ $16, DI
	DECQ CX
	JNZ  dotBF16BF16r4AVX2_loop

dotBF16BF16r4AVX2_done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), R11
	SHLQ $2, R11
	HSUMS(Y0, X0, X4)
	HSUMS(Y1, X1, X4)
	HSUMS(Y2, X2, X4)
	HSUMS(Y3, X3, X4)
	VMOVSS X0, (DX)
	ADDQ   R11, DX
	VMOVSS X1, (DX)
	ADDQ   R11, DX
	VMOVSS X2, (DX)
	ADDQ   R11, DX
	VMOVSS X3, (DX)
	VZEROUPPER
	RET

// func dotBF16BF16r4x2AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)
TEXT ·dotBF16BF16r4x2AVX2(SB), NOSPLIT, $0-64
	HALF_R4X2(bf16r4x2loop, bf16r4x2done, WIDEN_BF16)

// func dotF16F16r4x2AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, rstride, tstride int)
TEXT ·dotF16F16r4x2AVX2(SB), NOSPLIT, $0-64
	HALF_R4X2(f16r4x2loop, f16r4x2done, WIDEN_F16)

// func dotBF16BF16x4AVX2(n8 int, w, a *byte, stride int, out *float32, ostride int)
// One row against four activation rows a, a+stride, ... (prefill tails).
TEXT ·dotBF16BF16x4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ stride+24(FP), BX
	LEAQ (DI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ CX, CX
	JZ    dotBF16BF16x4AVX2_done

dotBF16BF16x4AVX2_loop:
	WIDEN_BF16((SI), Y5)
	WIDEN_BF16((DI), Y6)
	VFMADD231PS Y6, Y5, Y0
	WIDEN_BF16((R8), Y7)
	VFMADD231PS Y7, Y5, Y1
	WIDEN_BF16((R9), Y6)
	VFMADD231PS Y6, Y5, Y2
	WIDEN_BF16((R10), Y7)
	VFMADD231PS Y7, Y5, Y3
	ADDQ $16, SI
	ADDQ $16, DI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	DECQ CX
	JNZ  dotBF16BF16x4AVX2_loop

dotBF16BF16x4AVX2_done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), R11
	SHLQ $2, R11
	HSUMS(Y0, X0, X4)
	HSUMS(Y1, X1, X4)
	HSUMS(Y2, X2, X4)
	HSUMS(Y3, X3, X4)
	VMOVSS X0, (DX)
	ADDQ   R11, DX
	VMOVSS X1, (DX)
	ADDQ   R11, DX
	VMOVSS X2, (DX)
	ADDQ   R11, DX
	VMOVSS X3, (DX)
	VZEROUPPER
	RET

// func f16Tile4x4F32AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
// 4 rows (w, w+wstride, ...) x 4 tokens into out[t*ostride+r], the
// tokens' rows already widened to float32 (halfQuadF16/BF16, astride bytes
// apart), so only the weights widen in the loop: each widened weight group
// serves four tokens, each token group four rows. The sixteen
// accumulators live in Y0-Y15 and the operands in Y16-Y20 (AVX-512VL
// registers).
TEXT ·f16Tile4x4F32AVX512(SB), NOSPLIT, $0-56
	HALF_TILE4X4_F32(f16Tile4x4F32AVX512_loop, f16Tile4x4F32AVX512_done, WIDEN_F16, HALF_NONE, HALF_NONE)

// func f16Tile4x4F32AVX512PF(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
// f16Tile4x4F32AVX512 prefetching the next tile's rows (vecDot4x4Few).
TEXT ·f16Tile4x4F32AVX512PF(SB), NOSPLIT, $0-56
	HALF_TILE4X4_F32(f16Tile4x4F32AVX512p_loop, f16Tile4x4F32AVX512p_done, WIDEN_F16, HALF4_PF_SETUP, HALF4_PF)

// func bf16Tile4x4F32AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
// 4 rows (w, w+wstride, ...) x 4 tokens into out[t*ostride+r], the
// tokens' rows already widened to float32 (halfQuadF16/BF16, astride bytes
// apart), so only the weights widen in the loop: each widened weight group
// serves four tokens, each token group four rows. The sixteen
// accumulators live in Y0-Y15 and the operands in Y16-Y20 (AVX-512VL
// registers).
TEXT ·bf16Tile4x4F32AVX512(SB), NOSPLIT, $0-56
	HALF_TILE4X4_F32(bf16Tile4x4F32AVX512_loop, bf16Tile4x4F32AVX512_done, WIDEN_BF16, HALF_NONE, HALF_NONE)

// F16R4_GROUP is one group of 8 of f16VecR4AVX512: the token's 8 values
// widened once (Y16), each row's (Y17) into its accumulator.
#define F16R4_GROUP(off, a0, a1, a2, a3) \
	VCVTPH2PS   off(DI), Y16 \
	VCVTPH2PS   off(SI), Y17 \
	VFMADD231PS Y16, Y17, a0 \
	VCVTPH2PS   off(R8), Y17 \
	VFMADD231PS Y16, Y17, a1 \
	VCVTPH2PS   off(R9), Y17 \
	VFMADD231PS Y16, Y17, a2 \
	VCVTPH2PS   off(R10), Y17 \
	VFMADD231PS Y16, Y17, a3

// F16R4_STORE reduces one row's accumulators as reduce4x8 does and stores
// the sum at (DX).
#define F16R4_STORE(a0, a1, a2, a3, X0r, X1r) \
	VADDPS       a2, a0, a0   \
	VADDPS       a3, a1, a1   \
	VADDPS       a1, a0, a0   \
	VEXTRACTF128 $1, a0, X1r  \
	VADDPS       X1r, X0r, X0r \
	VMOVSHDUP    X0r, X1r     \
	VADDPS       X1r, X0r, X0r \
	VMOVHLPS     X0r, X0r, X1r \
	VADDSS       X1r, X0r, X0r \
	VMOVSS       X0r, (DX)

#define F16R4_STORE4 \
	F16R4_STORE(Y0, Y1, Y2, Y3, X0, X1)     \
	ADDQ R11, DX                            \
	F16R4_STORE(Y4, Y5, Y6, Y7, X4, X5)     \
	ADDQ R11, DX                            \
	F16R4_STORE(Y8, Y9, Y10, Y11, X8, X9)   \
	ADDQ R11, DX                            \
	F16R4_STORE(Y12, Y13, Y14, Y15, X12, X13)

// func f16VecR4AVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
// Four rows (w, w+wstride, ...) against one activation row in
// ggml_vec_dot_f16's order (dotF16F16x32AVX2 per row: 4x8 lanes over groups
// of 32, reduced as reduce4x8): the decode kernel, four DRAM streams (no
// software prefetch: ~18% less CPU without on a Zen4, BenchmarkMatMulStream
// F16/tok1; the twin below prefetches, streamPrefetch). Operands in
// Y16-Y17 (AVX-512VL registers).
TEXT ·f16VecR4AVX512(SB), NOSPLIT, $0-48
	HALFR4_KERNEL(F16R4_GROUP, F16R4_STORE4, HALFR4_NOPF, f16r4loop, f16r4done)

// func f16VecR4PfAVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·f16VecR4PfAVX512(SB), NOSPLIT, $0-48
	HALFR4_KERNEL(F16R4_GROUP, F16R4_STORE4, HALFR4_PF, f16r4ploop, f16r4pdone)

// func f16Tile3x4AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·f16Tile3x4AVX2(SB), NOSPLIT, $0-56
	HALF_TILE3X4(f16t34loop4, f16t34loop1, f16t34tail, f16t34done, F16_STEP, 16, 16, HALF_NONE, HALF_NONE, HALF_NONE)

// func f16Tile3x4PfAVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·f16Tile3x4PfAVX2(SB), NOSPLIT, $0-56
	HALF_TILE3X4(f16t34ploop4, f16t34ploop1, f16t34ptail, f16t34pdone, F16_STEP, 16, 16, HALF_NONE, HALF_PF_SETUP, HALF_PF)

// func bf16Tile3x4F32AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·bf16Tile3x4F32AVX2(SB), NOSPLIT, $0-56
	HALF_TILE3X4(bf16t34loop4, bf16t34loop1, bf16t34tail, bf16t34done, BF16F32_STEP, 16, 32, HALF_NONE, HALF_NONE, HALF_NONE)

// func bf16Tile3x4F32PfAVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·bf16Tile3x4F32PfAVX2(SB), NOSPLIT, $0-56
	HALF_TILE3X4(bf16t34ploop4, bf16t34ploop1, bf16t34ptail, bf16t34pdone, BF16F32_STEP, 16, 32, HALF_NONE, HALF_PF_SETUP, HALF_PF)

// func f32Tile3x4AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
// The 3 x 4 tile on float32 rows and tokens: half-precision rows widened
// once per row unit (tileRewrite), the same bits as the tiles above.
TEXT ·f32Tile3x4AVX2(SB), NOSPLIT, $0-56
	HALF_TILE3X4(f32t34loop4, f32t34loop1, f32t34tail, f32t34done, F32_STEP, 32, 32, HALF_NONE, HALF_NONE, HALF_NONE)

// func bf16IlvTile3x4AVX2(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
// The 3 x 4 tile on BF16 rows interleaved (BF16ILV_STEP; n8 even) and the
// tokens' float32 quad, the same bits as bf16Tile3x4F32AVX2.
TEXT ·bf16IlvTile3x4AVX2(SB), NOSPLIT, $0-56
	HALF_TILE3X4(bf16i34loop4, bf16i34loop1, bf16i34tail, bf16i34done, BF16ILV_STEP, 32, 64, BF16ILV_STEPS, HALF_NONE, HALF_NONE)

// func interleaveBF16AVX2(n16 int, dst, src *byte)
// Writes n16 groups of 16 BF16 values (32 bytes each) interleaved as
// interleaveBF16 does: dword l of a group = element l << 16 | element 8+l.
TEXT ·interleaveBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ n16+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	TESTQ CX, CX
	JZ    ilvdone

ilvloop:
	VMOVDQU    0(SI), X0
	VMOVDQU    16(SI), X1
	VPUNPCKLWD X0, X1, X2
	VPUNPCKHWD X0, X1, X3
	VMOVDQU    X2, 0(DI)
	VMOVDQU    X3, 16(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  ilvloop

ilvdone:
	RET

// func f16ToF32BytesAVX2(n8 int, dst, src *byte)
TEXT ·f16ToF32BytesAVX2(SB), NOSPLIT, $0-24
	JMP ·f16ToF32AVX2(SB)

// func bf16ToF32BytesAVX2(n8 int, dst, src *byte)
// Widens 8*n8 BF16 values (widenRowBF16).
TEXT ·bf16ToF32BytesAVX2(SB), NOSPLIT, $0-24
	MOVQ n8+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	TESTQ CX, CX
	JZ    bf16wdone

bf16wloop:
	WIDEN_BF16(0(SI), Y0)
	VMOVUPS Y0, 0(DI)
	ADDQ $16, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  bf16wloop

bf16wdone:
	VZEROUPPER
	RET

// Constants of f32ToBF16AVX2, eight copies each.
DATA bf16K<>+0(SB)/8, $0x0000000100000001   // the rounding bit
DATA bf16K<>+8(SB)/8, $0x0000000100000001
DATA bf16K<>+16(SB)/8, $0x0000000100000001
DATA bf16K<>+24(SB)/8, $0x0000000100000001
DATA bf16K<>+32(SB)/8, $0x00007fff00007fff // half an ulp minus one
DATA bf16K<>+40(SB)/8, $0x00007fff00007fff
DATA bf16K<>+48(SB)/8, $0x00007fff00007fff
DATA bf16K<>+56(SB)/8, $0x00007fff00007fff
DATA bf16K<>+64(SB)/8, $0x7fffffff7fffffff // |x| mask
DATA bf16K<>+72(SB)/8, $0x7fffffff7fffffff
DATA bf16K<>+80(SB)/8, $0x7fffffff7fffffff
DATA bf16K<>+88(SB)/8, $0x7fffffff7fffffff
DATA bf16K<>+96(SB)/8, $0x7f8000007f800000 // +Inf
DATA bf16K<>+104(SB)/8, $0x7f8000007f800000
DATA bf16K<>+112(SB)/8, $0x7f8000007f800000
DATA bf16K<>+120(SB)/8, $0x7f8000007f800000
DATA bf16K<>+128(SB)/8, $0x0000004000000040 // the quiet bit of a NaN, shifted
DATA bf16K<>+136(SB)/8, $0x0000004000000040
DATA bf16K<>+144(SB)/8, $0x0000004000000040
DATA bf16K<>+152(SB)/8, $0x0000004000000040
GLOBL bf16K<>(SB), RODATA|NOPTR, $160

// func f32ToBF16AVX2(n8 int, dst *byte, src *float32)
// Rounds 8*n8 floats to BF16 as ggml_compute_fp32_to_bf16 (quant.FP32ToBF16):
// to nearest even, NaNs kept quiet with their sign and top payload bits.
TEXT ·f32ToBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ n8+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	TESTQ CX, CX
	JZ    f2bdone
	VMOVDQU bf16K<>+0(SB), Y8
	VMOVDQU bf16K<>+32(SB), Y9
	VMOVDQU bf16K<>+64(SB), Y10
	VMOVDQU bf16K<>+96(SB), Y11
	VMOVDQU bf16K<>+128(SB), Y12

f2bloop:
	VMOVDQU      0(SI), Y0
	VPSRLD       $16, Y0, Y1
	VPAND        Y8, Y1, Y2
	VPADDD       Y9, Y2, Y2
	VPADDD       Y0, Y2, Y2
	VPSRLD       $16, Y2, Y2
	VPAND        Y10, Y0, Y3
	VPCMPGTD     Y11, Y3, Y3
	VPOR         Y12, Y1, Y4
	VPBLENDVB    Y3, Y4, Y2, Y2
	VEXTRACTI128 $1, Y2, X5
	VPACKUSDW    X5, X2, X2
	VMOVDQU      X2, 0(DI)
	ADDQ         $32, SI
	ADDQ         $16, DI
	DECQ         CX
	JNZ          f2bloop

f2bdone:
	VZEROUPPER
	RET

// func dotBF16VecAVX2(n32 int, w, a *byte) float32
// ggml_vec_dot_bf16's loop in llama.cpp's AVX2 build: four 8-lane FMA
// accumulators over n32 groups of 32, summed (a0+a2)+(a1+a3), then the
// hsum of tinyBLAS (HSUMS).
TEXT ·dotBF16VecAVX2(SB), NOSPLIT, $0-28
	MOVQ n32+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ  CX, CX
	JZ     bf16vdone

bf16vloop:
	WIDEN_BF16(0(SI), Y4)
	WIDEN_BF16(0(DI), Y5)
	VFMADD231PS Y5, Y4, Y0
	WIDEN_BF16(16(SI), Y6)
	WIDEN_BF16(16(DI), Y7)
	VFMADD231PS Y7, Y6, Y1
	WIDEN_BF16(32(SI), Y4)
	WIDEN_BF16(32(DI), Y5)
	VFMADD231PS Y5, Y4, Y2
	WIDEN_BF16(48(SI), Y6)
	WIDEN_BF16(48(DI), Y7)
	VFMADD231PS Y7, Y6, Y3
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  bf16vloop

bf16vdone:
	VADDPS Y2, Y0, Y0
	VADDPS Y3, Y1, Y1
	VADDPS Y1, Y0, Y0
	HSUMS(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// BF16R4U_HALF is 16 elements (bytes off..off+31 of the group of 32) of
// bf16VecR4AVX512: the token's and each row's 32 bytes widened by
// unpacking their words against zeros (Y31), VPUNPCKLWD giving elements
// 0-3 and 8-11, VPUNPCKHWD 4-7 and 12-15: one operation per 8 values
// where VPMOVZXWD and VPSLLD took two (with them the kernel ran 5.9
// products a cycle in L1 on a Zen4, BenchmarkVecDotRows rows4decode). The lanes of ggml's accumulators
// 2j and 2j+1 (elements 8j..8j+15) lie permuted in a row's two
// registers: aR = [acc 2j lanes 0-3 | acc 2j+1 lanes 0-3], bR = the same
// of lanes 4-7, each lane taking the same products in the same order
// (BF16R4U_UNPERM puts them back). Token in Y16/Y17, row scratch Y18-Y20.
#define BF16R4U_ROW(off, R, aR, bR) \
	VMOVDQU64   off(R), Y18    \
	VPUNPCKLWD  Y18, Y31, Y19  \
	VPUNPCKHWD  Y18, Y31, Y20  \
	VFMADD231PS Y16, Y19, aR   \
	VFMADD231PS Y17, Y20, bR

#define BF16R4U_HALF(off, a0, b0, a1, b1, a2, b2, a3, b3) \
	VMOVDQU64  off(DI), Y18     \
	VPUNPCKLWD Y18, Y31, Y16    \
	VPUNPCKHWD Y18, Y31, Y17    \
	BF16R4U_ROW(off, SI, a0, b0) \
	BF16R4U_ROW(off, R8, a1, b1) \
	BF16R4U_ROW(off, R9, a2, b2) \
	BF16R4U_ROW(off, R10, a3, b3)

// BF16R4U_UNPERM turns a row's permuted pairs (a, b: accumulators 0-1,
// c, d: 2-3) back into ggml's accumulators 0-3 in a, b, c, d.
#define BF16R4U_UNPERM(a, b, c, d) \
	VSHUFF32X4 $0, b, a, Y16 \
	VSHUFF32X4 $3, b, a, b   \
	VMOVAPS    Y16, a        \
	VSHUFF32X4 $0, d, c, Y16 \
	VSHUFF32X4 $3, d, c, d   \
	VMOVAPS    Y16, c

// BF16R4U_KERNEL is bf16VecR4AVX512 (PF: HALFR4_PF or HALFR4_NOPF).
#define BF16R4U_KERNEL(PF, loop, done) \
	HALFR4_START(done)                                      \
	VPXORD Y31, Y31, Y31                                    \
loop:                                                       \
	PF                                                      \
	BF16R4U_HALF(0, Y0, Y1, Y4, Y5, Y8, Y9, Y12, Y13)       \
	BF16R4U_HALF(32, Y2, Y3, Y6, Y7, Y10, Y11, Y14, Y15)    \
	HALFR4_NEXT(loop)                                       \
	BF16R4U_UNPERM(Y0, Y1, Y2, Y3)                          \
	BF16R4U_UNPERM(Y4, Y5, Y6, Y7)                          \
	BF16R4U_UNPERM(Y8, Y9, Y10, Y11)                        \
	BF16R4U_UNPERM(Y12, Y13, Y14, Y15)                      \
done:                                                       \
	HALFR4_OUT                                              \
	BF16R4_STORE4                                           \
	VZEROUPPER                                              \
	RET

// BF16R4_STORE reduces one row's accumulators as dotBF16VecAVX2 does and
// stores the sum at (DX).
#define BF16R4_STORE(a0, a1, a2, a3, X0r, X1r) \
	VADDPS a2, a0, a0 \
	VADDPS a3, a1, a1 \
	VADDPS a1, a0, a0 \
	HSUMS(a0, X0r, X1r) \
	VMOVSS X0r, (DX)

#define BF16R4_STORE4 \
	BF16R4_STORE(Y0, Y1, Y2, Y3, X0, X1)     \
	ADDQ R11, DX                             \
	BF16R4_STORE(Y4, Y5, Y6, Y7, X4, X5)     \
	ADDQ R11, DX                             \
	BF16R4_STORE(Y8, Y9, Y10, Y11, X8, X9)   \
	ADDQ R11, DX                             \
	BF16R4_STORE(Y12, Y13, Y14, Y15, X12, X13)

// func bf16VecR4AVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
// Four rows (w, w+wstride, ...) of dotBF16VecAVX2 against one token: the
// decode kernel (four DRAM streams; the twin below prefetches,
// streamPrefetch). Operands in Y16-Y20, zeros in Y31 (AVX-512VL
// registers).
TEXT ·bf16VecR4AVX512(SB), NOSPLIT, $0-48
	BF16R4U_KERNEL(HALFR4_NOPF, bf16r4loop, bf16r4done)

// func bf16VecR4PfAVX512(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·bf16VecR4PfAVX512(SB), NOSPLIT, $0-48
	BF16R4U_KERNEL(HALFR4_PF, bf16r4ploop, bf16r4pdone)
