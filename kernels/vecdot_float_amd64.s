//go:build !purego

#include "lanes_amd64.h"
#include "textflag.h"

#define F16_WIDEN(m, y) VCVTPH2PS m, y

// R4F32_BODY is the body of the four-row kernels below: PASS(j, off, PF,
// loop, RA, RB) runs pass j over a chunk (F16R4_PASS; RA and RB are rows
// 2j and 2j+1), OUT(r) sums row r's four accumulators to out.
#define R4F32_BODY(PASS, OUT, PF, chunk, passa, passb) \
	MOVQ n32+0(FP), R12 \
	MOVQ w+8(FP), SI \
	MOVQ wstride+16(FP), BX \
	MOVQ a+24(FP), DI \
	LEAQ (SI)(BX*1), R8 \
	LEAQ (R8)(BX*1), R9 \
	LEAQ (R9)(BX*1), R10 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	LANES8_STORE(0) \
	LANES8_STORE(256) \
	XORQ AX, AX \
	XORQ R13, R13 \
chunk: \
	MOVQ    $16, BX \
	CMPQ    R12, BX \
	CMOVQLT R12, BX \
	SUBQ    BX, R12 \
	PASS(0, 0, PF, passa, SI, R8) \
	PASS(1, 256, F16R4_NOPF, passb, R9, R10) \
	MOVQ    R11, AX \
	MOVQ    R14, R13 \
	TESTQ   R12, R12 \
	JNZ     chunk \
	MOVQ out+32(FP), DX \
	MOVQ ostride+40(FP), BX \
	SHLQ $2, BX \
	OUT(0) \
	OUT(1) \
	OUT(2) \
	OUT(3) \
	VZEROUPPER \
	RET

// AVX2+FMA(+F16C) float dot products in llamafile tinyBLAS's order (rows a
// multiple of 8 long; see vecdot_float.go): per group of 8 elements one
// fused multiply-add into a single 8-lane accumulator per output, then
// ggml's horizontal sum. n8 is the number of groups.

#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T \
	VADDPS       T, X, X  \
	VMOVHLPS     X, X, T  \
	VADDPS       T, X, X  \
	VMOVSHDUP    X, T     \
	VADDSS       T, X, X

#define STORE4 \
	MOVQ out+32(FP), DX  \
	MOVQ ostride+40(FP), R11 \
	SHLQ $2, R11         \
	HSUM(Y0, X0, X4)     \
	HSUM(Y1, X1, X4)     \
	HSUM(Y2, X2, X4)     \
	HSUM(Y3, X3, X4)     \
	VMOVSS X0, (DX)      \
	ADDQ   R11, DX       \
	VMOVSS X1, (DX)      \
	ADDQ   R11, DX       \
	VMOVSS X2, (DX)      \
	ADDQ   R11, DX       \
	VMOVSS X3, (DX)      \
	VZEROUPPER           \
	RET

#define STORE4S \
	MOVQ out+32(FP), DX      \
	MOVQ ostride+40(FP), R11 \
	SHLQ $2, R11             \
	HSUM(Y0, X0, X4)         \
	HSUM(Y1, X1, X4)         \
	HSUM(Y2, X2, X4)         \
	HSUM(Y3, X3, X4)         \
	VMOVSS X0, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X1, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X2, (DX)          \
	ADDQ   R11, DX           \
	VMOVSS X3, (DX)          \
	VZEROUPPER               \
	RET

#define CLEAR4 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3

// func dotF16F16AVX2(n8 int, w, a *byte) float32
TEXT ·dotF16F16AVX2(SB), NOSPLIT, $0-28
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JZ     f16done

f16loop:
	VCVTPH2PS   (SI), Y1
	VCVTPH2PS   (DI), Y2
	VFMADD231PS Y2, Y1, Y0
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  f16loop

f16done:
	HSUM(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotF16F16r4AVX2(n8 int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·dotF16F16r4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	CLEAR4
	TESTQ CX, CX
	JZ    f16r4done

f16r4loop:
	VCVTPH2PS   (DI), Y5
	VCVTPH2PS   (SI), Y6
	VFMADD231PS Y5, Y6, Y0
	VCVTPH2PS   (R8), Y7
	VFMADD231PS Y5, Y7, Y1
	VCVTPH2PS   (R9), Y6
	VFMADD231PS Y5, Y6, Y2
	VCVTPH2PS   (R10), Y7
	VFMADD231PS Y5, Y7, Y3
	ADDQ $16, SI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	ADDQ $16, DI
	DECQ CX
	JNZ  f16r4loop

f16r4done:
	STORE4

// func dotF16F16x4AVX2(n8 int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·dotF16F16x4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ stride+24(FP), BX
	LEAQ (DI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	CLEAR4
	TESTQ CX, CX
	JZ    f16x4done

f16x4loop:
	VCVTPH2PS   (SI), Y5
	VCVTPH2PS   (DI), Y6
	VFMADD231PS Y6, Y5, Y0
	VCVTPH2PS   (R8), Y7
	VFMADD231PS Y7, Y5, Y1
	VCVTPH2PS   (R9), Y6
	VFMADD231PS Y6, Y5, Y2
	VCVTPH2PS   (R10), Y7
	VFMADD231PS Y7, Y5, Y3
	ADDQ $16, SI
	ADDQ $16, DI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	DECQ CX
	JNZ  f16x4loop

f16x4done:
	STORE4S

// func dotF32F32AVX2(n8 int, w, a *byte) float32
TEXT ·dotF32F32AVX2(SB), NOSPLIT, $0-28
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JZ     f32done

f32loop:
	VMOVUPS     (SI), Y1
	VFMADD231PS (DI), Y1, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  f32loop

f32done:
	HSUM(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotF32F32r4AVX2(n8 int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·dotF32F32r4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	CLEAR4
	TESTQ CX, CX
	JZ    f32r4done

f32r4loop:
	VMOVUPS     (DI), Y5
	VFMADD231PS (SI), Y5, Y0
	VFMADD231PS (R8), Y5, Y1
	VFMADD231PS (R9), Y5, Y2
	VFMADD231PS (R10), Y5, Y3
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, DI
	DECQ CX
	JNZ  f32r4loop

f32r4done:
	STORE4

// func dotF32F32x4AVX2(n8 int, w, a *byte, stride int, out *float32, ostride int)
TEXT ·dotF32F32x4AVX2(SB), NOSPLIT, $0-48
	MOVQ n8+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ stride+24(FP), BX
	LEAQ (DI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	CLEAR4
	TESTQ CX, CX
	JZ    f32x4done

f32x4loop:
	VMOVUPS     (SI), Y5
	VFMADD231PS (DI), Y5, Y0
	VFMADD231PS (R8), Y5, Y1
	VFMADD231PS (R9), Y5, Y2
	VFMADD231PS (R10), Y5, Y3
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  f32x4loop

f32x4done:
	STORE4S

// func dotF16VecAVX2(n32 int, w, a *byte) float32
// ggml_vec_dot_f16's 4x8 lanes over n32 groups of 32 halves, reduced: the
// attention kernel's loop (attn_amd64.s), same arguments.
TEXT ·dotF16VecAVX2(SB), NOSPLIT, $0-28
	JMP ·dotF16F16x32AVX2(SB)

// func dotF32VecAVX2(n32 int, w, a *byte) float32
// ggml_vec_dot_f32's 4x8 FMA lanes over n32 groups of 32 floats, reduced
// as GGML_F32x8_REDUCE (reduce4x8).
TEXT ·dotF32VecAVX2(SB), NOSPLIT, $0-28
	MOVQ n32+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ  CX, CX
	JZ     f32vdone

f32vloop:
	VMOVUPS     0(SI), Y4
	VFMADD231PS 0(DI), Y4, Y0
	VMOVUPS     32(SI), Y5
	VFMADD231PS 32(DI), Y5, Y1
	VMOVUPS     64(SI), Y6
	VFMADD231PS 64(DI), Y6, Y2
	VMOVUPS     96(SI), Y7
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  f32vloop

f32vdone:
	VADDPS       Y2, Y0, Y0
	VADDPS       Y3, Y1, Y1
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// ggml's reduce4x8 of one row's accumulators a0-a3 into the low lane of
// Xa0 (Xa1 scratch), as at the end of dotF16F16x32AVX2.
#define REDUCE4X8(a0, a1, a2, a3, Xa0, Xa1) \
	VADDPS       a2, a0, a0   \
	VADDPS       a3, a1, a1   \
	VADDPS       a1, a0, a0   \
	VEXTRACTF128 $1, a0, Xa1  \
	VADDPS       Xa1, Xa0, Xa0 \
	VMOVSHDUP    Xa0, Xa1     \
	VADDPS       Xa1, Xa0, Xa0 \
	VMOVHLPS     Xa0, Xa0, Xa1 \
	VADDSS       Xa1, Xa0, Xa0

// F16R4_STEP widens 8 halves at wo of each row (R11 the group's offset)
// and adds their products with the token's floats at to(DI)(R14) into
// accumulator a of the pass (rows 0-3 in Y(a), Y(a+2), Y(a+4), Y(a+6)).
// The token's 8 floats are loaded once (Y12) for the four rows: with a
// memory operand per multiply-add the step took eight loads, half of them
// 256-bit, and ran at the loads' rate (Zen4: 6.7 products a cycle in L1,
// BenchmarkVecDotRows rows4decode).
#define F16R4_STEP(WIDEN, wo, to, a0, a1, a2, a3) \
	WIDEN(wo(SI)(R11*1), Y8)             \
	WIDEN(wo(R8)(R11*1), Y9)             \
	WIDEN(wo(R9)(R11*1), Y10)            \
	WIDEN(wo(R10)(R11*1), Y11)           \
	VMOVUPS     to(DI)(R14*1), Y12       \
	VFMADD231PS Y12, Y8, a0              \
	VFMADD231PS Y12, Y9, a1              \
	VFMADD231PS Y12, Y10, a2             \
	VFMADD231PS Y12, Y11, a3

// F16R4_PF asks for each row's cache line 1 KiB ahead of the group at
// R11 (the first pass, which reads each line first; the prefetching
// twins, streamPrefetch); F16R4_NOPF does nothing.
#define F16R4_PF \
	PREFETCHT0 1024(SI)(R11*1)  \
	PREFETCHT0 1024(R8)(R11*1)  \
	PREFETCHT0 1024(R9)(R11*1)  \
	PREFETCHT0 1024(R10)(R11*1)

#define F16R4_NOPF

// F16R4_PASS runs one pass over the chunk (BX groups from the weight and
// token offsets AX, R13): accumulators 2j and 2j+1 of each row, elements
// 16j..16j+15 of every group of 32, parked at off between chunks. It
// leaves R11, R14 at the chunk's end.
#define F16R4_PASS(WIDEN, j, off, PF, loop) \
	R4_PASS_OPEN(off)                                 \
loop:                                                 \
	PF                                                \
	F16R4_STEP(WIDEN, 32*j, 64*j, Y0, Y2, Y4, Y6)     \
	F16R4_STEP(WIDEN, 32*j+16, 64*j+32, Y1, Y3, Y5, Y7) \
	R4_PASS_CLOSE(off, 128, loop)

// R4_PASS_OPEN and R4_PASS_CLOSE open and close a pass over a chunk: the
// pass's eight accumulators from the frame at off, the weight and token
// offsets (R11, R14) from the chunk's start (AX, R13), its BX groups in
// CX; then each group's offsets on (64 weight bytes, tstep token bytes)
// and, after the last, the accumulators back to the frame.
#define R4_PASS_OPEN(off) \
	LANES8_LOAD(off) \
	MOVQ AX, R11     \
	MOVQ R13, R14    \
	MOVQ BX, CX

#define R4_PASS_CLOSE(off, tstep, loop) \
	ADDQ $64, R11     \
	ADDQ $tstep, R14  \
	DECQ CX           \
	JNZ  loop         \
	LANES8_STORE(off)

// F16R4_OUT stores row r's sum of its four accumulators (two in each
// pass's frame block), reduced by REDUCE, at (DX), then moves DX on by BX
// bytes.
#define F16R4_OUT(REDUCE, r) \
	VMOVUPS 64*r(SP), Y0              \
	VMOVUPS 64*r+32(SP), Y1           \
	VMOVUPS 256+64*r(SP), Y2          \
	VMOVUPS 256+64*r+32(SP), Y3       \
	REDUCE(Y0, Y1, Y2, Y3, X0, X1)    \
	VMOVSS  X0, (DX)                  \
	ADDQ    BX, DX

// F16R4_PASSF and F16R4_OUTF are the F16 kernel's pass and output
// (R4F32_BODY's PASS and OUT).
#define F16R4_PASSF(j, off, PF, loop, RA, RB) F16R4_PASS(F16_WIDEN, j, off, PF, loop)
#define F16R4_OUTF(r) F16R4_OUT(REDUCE4X8, r)

// F16R4_PAIRPASS splits a chunk by rows instead: pass p takes rows 2p
// and 2p+1 (RA, RB) whole, their four accumulators each (Y0-Y3, Y4-Y7;
// parked at 128*r for row r), the token's 32 floats of a group in Y8-Y11.
// Both passes then stream two rows at the multiply-adds' pace, where
// F16R4_PASS's first pass read all four rows' lines for half the work
// and its second none (the memory idle): on a Zen4, TinyLlama F16 tg64
// --kernels avx2 alternating builds 14.7-15.1 -> 16.2 tok/s at a slow
// minute of the memory (BW % 90-91 -> 96-98), 17.4 -> 20.6-21.9 at a
// faster one; rows4decode in L1 0.90x the time. (The prefetching twin,
// Intel's, keeps F16R4_PASS: not measured there.)
#define F16R4_PAIRROW(R, a0, a1, a2, a3) \
	VCVTPH2PS   0(R)(R11*1), Y12  \
	VFMADD231PS Y8, Y12, a0       \
	VCVTPH2PS   16(R)(R11*1), Y13 \
	VFMADD231PS Y9, Y13, a1       \
	VCVTPH2PS   32(R)(R11*1), Y12 \
	VFMADD231PS Y10, Y12, a2      \
	VCVTPH2PS   48(R)(R11*1), Y13 \
	VFMADD231PS Y11, Y13, a3

#define F16R4_PAIRPASS(p, off, PF, loop, RA, RB) \
	R4_PASS_OPEN(off)                     \
loop:                                     \
	PF                                    \
	VMOVUPS 0(DI)(R14*1), Y8              \
	VMOVUPS 32(DI)(R14*1), Y9             \
	VMOVUPS 64(DI)(R14*1), Y10            \
	VMOVUPS 96(DI)(R14*1), Y11            \
	F16R4_PAIRROW(RA, Y0, Y1, Y2, Y3)    \
	F16R4_PAIRROW(RB, Y4, Y5, Y6, Y7)    \
	R4_PASS_CLOSE(off, 128, loop)

// F16R4_PAIROUT is F16R4_OUT for F16R4_PAIRPASS's frame: row r's four
// accumulators at 128*r.
#define F16R4_PAIROUT(r) \
	VMOVUPS 128*r(SP), Y0        \
	VMOVUPS 128*r+32(SP), Y1     \
	VMOVUPS 128*r+64(SP), Y2     \
	VMOVUPS 128*r+96(SP), Y3     \
	REDUCE4X8(Y0, Y1, Y2, Y3, X0, X1) \
	VMOVSS  X0, (DX)             \
	ADDQ    BX, DX

// func f16VecR4F32AVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
// Four F16 rows (w + k*wstride) in dotF16F16x32AVX2's order against one
// token already widened to float32 (the token's row in its quad,
// halfQuadF16Decode), n32 >= 1 groups of 32. That order keeps four
// accumulators per row, sixteen for four rows: more than the registers, so
// the rows' groups go in chunks of up to 16 (1 KiB of each row), each
// chunk in two passes (F16R4_PAIRPASS: rows 0-1, then 2-3), the eight
// accumulators of a pass parked in the frame between chunks; the rows,
// which decode places a quarter of its range apart, stay four DRAM
// streams in turn. (Whole rows 0-1, then 2-3, without chunks, had run
// 1.04-1.11x the time of chunks split by accumulators in a streaming test
// with decode's row spacing.)
TEXT ·f16VecR4F32AVX2(SB), 0, $512-48
	R4F32_BODY(F16R4_PAIRPASS, F16R4_PAIROUT, F16R4_NOPF, f16r4chunk, f16r4a, f16r4b)

// func f16VecR4F32PfAVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
// f16VecR4F32AVX2 prefetching its rows (streamPrefetch), its chunks split
// by accumulators (F16R4_PASS) as measured on an Intel Xeon.
TEXT ·f16VecR4F32PfAVX2(SB), 0, $512-48
	R4F32_BODY(F16R4_PASSF, F16R4_OUTF, F16R4_PF, f16r4pchunk, f16r4pa, f16r4pb)

// BF16_REDUCE is ggml_vec_dot_bf16's sum of a row's four accumulators
// (a0+a2)+(a1+a3), then tinyBLAS's hsum (dotBF16VecAVX2).
#define BF16_REDUCE(a0, a1, a2, a3, Xa0, Xa1) \
	VADDPS       a2, a0, a0    \
	VADDPS       a3, a1, a1    \
	VADDPS       a1, a0, a0    \
	VEXTRACTF128 $1, a0, Xa1   \
	VADDPS       Xa1, Xa0, Xa0 \
	VMOVHLPS     Xa0, Xa0, Xa1 \
	VADDPS       Xa1, Xa0, Xa0 \
	VMOVSHDUP    Xa0, Xa1      \
	VADDSS       Xa1, Xa0, Xa0

// BF16R4U_PAIRPASS is F16R4_PAIRPASS for BF16 rows and a BF16 token.
// The token's and each row's 32 bytes are widened by VPUNPCKLWD (elements
// 0-3, 8-11) and VPUNPCKHWD (4-7, 12-15) against zeros (Y15), one
// operation per 8 values where VPMOVZXWD and VPSLLD took two; the lanes
// of ggml's accumulators 2j and 2j+1 lie permuted in two registers as in
// bf16VecR4AVX512 (vecdot_half_amd64.s), put back by BF16R4U_REDUCE. Row
// RA's accumulators in Y0-Y3 (lanes 0-3 of accumulators 0-1, lanes 4-7
// of 0-1, the same of 2-3), RB's in Y4-Y7, the token's group in Y8-Y11,
// zeros in Y15, Y12-Y14 scratch.
#define BF16R4U_PAIRROW(R, a0, b0, a1, b1) \
	VMOVDQU     0(R)(R11*1), Y12  \
	VPUNPCKLWD  Y12, Y15, Y13     \
	VPUNPCKHWD  Y12, Y15, Y14     \
	VFMADD231PS Y8, Y13, a0       \
	VFMADD231PS Y9, Y14, b0       \
	VMOVDQU     32(R)(R11*1), Y12 \
	VPUNPCKLWD  Y12, Y15, Y13     \
	VPUNPCKHWD  Y12, Y15, Y14     \
	VFMADD231PS Y10, Y13, a1      \
	VFMADD231PS Y11, Y14, b1

#define BF16R4U_PAIRPASS(p, off, PF, loop, RA, RB) \
	R4_PASS_OPEN(off)                 \
loop:                                 \
	PF                                \
	VMOVDQU    0(DI)(R14*1), Y12      \
	VPUNPCKLWD Y12, Y15, Y8           \
	VPUNPCKHWD Y12, Y15, Y9           \
	VMOVDQU    32(DI)(R14*1), Y12     \
	VPUNPCKLWD Y12, Y15, Y10          \
	VPUNPCKHWD Y12, Y15, Y11          \
	BF16R4U_PAIRROW(RA, Y0, Y1, Y2, Y3) \
	BF16R4U_PAIRROW(RB, Y4, Y5, Y6, Y7) \
	R4_PASS_CLOSE(off, 64, loop)

// BF16R4U_PAIROUT stores row r's sum: its four registers at 128*r of
// BF16R4U_PAIRPASS's frame.
#define BF16R4U_PAIROUT(r) \
	VMOVUPS    128*r(SP), Y4            \
	VMOVUPS    128*r+32(SP), Y5         \
	VMOVUPS    128*r+64(SP), Y6         \
	VMOVUPS    128*r+96(SP), Y7         \
	BF16R4U_REDUCE

// BF16R4U_REDUCE: Y4, Y5 (accumulators 0-1 permuted) and Y6, Y7 (2-3)
// back to ggml's accumulators, reduced, stored at (DX); DX moves on.
#define BF16R4U_REDUCE \
	VPERM2F128 $0x20, Y5, Y4, Y0        \
	VPERM2F128 $0x31, Y5, Y4, Y1        \
	VPERM2F128 $0x20, Y7, Y6, Y2        \
	VPERM2F128 $0x31, Y7, Y6, Y3        \
	BF16_REDUCE(Y0, Y1, Y2, Y3, X0, X1) \
	VMOVSS     X0, (DX)                 \
	ADDQ       BX, DX

// func bf16VecR4AVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
// Four BF16 rows in dotBF16VecAVX2's order against one BF16 token: the
// decode kernel (R4F32_BODY's chunks and passes, the token 64 bytes a
// group).
TEXT ·bf16VecR4AVX2(SB), 0, $512-48
	VPXOR Y15, Y15, Y15
	R4F32_BODY(BF16R4U_PAIRPASS, BF16R4U_PAIROUT, F16R4_NOPF, bf16r4chunk, bf16r4a, bf16r4b)

// func bf16VecR4PfAVX2(n32 int, w *byte, wstride int, a *byte, out *float32, ostride int)
// bf16VecR4AVX2 prefetching its rows (streamPrefetch; not measured).
TEXT ·bf16VecR4PfAVX2(SB), 0, $512-48
	VPXOR Y15, Y15, Y15
	R4F32_BODY(BF16R4U_PAIRPASS, BF16R4U_PAIROUT, F16R4_PF, bf16r4pchunk, bf16r4pa, bf16r4pb)
