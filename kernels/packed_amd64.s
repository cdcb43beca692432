//go:build !purego

#include "textflag.h"

// Packed (row-interleaved) kernels; layouts in packed.go and packed_q8.go.
// Each reproduces, per row, the float steps of the generic single-row
// kernel of its type, with eight rows in the eight lanes of a vector.

// PKPF is how far ahead (bytes) the kernels prefetch their group's stream:
// 16 Q4_0 block columns. Decode reads weights from DRAM; this distance
// measured 10-15% faster than one of 4 block columns.
#define PKPF 2304

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

// Q4_0 x Q8_0, one group of eight rows against token 0 of the quads.
//
// Per block: the unsigned nibbles u of piece c (Y4 low: elements 4c..4c+3,
// Y5 high: 16+4c..) times the broadcast activation pieces c and 4+c, summed
// in int16 (eight products of at most 2*15*127 fit), widened to int32 and
// minus 8 * sum(a): exactly the block integer sum of (u-8)*a per row. Then,
// as vecDotQ4_0Q8_0Generic: acc += float(s) * (d_w * d_a), unfused.

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
	PK_NIBBLES(16(SI))
	VPBROADCASTD 32(DI), Y2
	VPBROADCASTD 96(DI), Y3
	VPMADDUBSW   Y2, Y4, Y0
	VPMADDUBSW   Y3, Y5, Y1
	VPADDW       Y1, Y0, Y0
	PK_NIBBLES(48(SI))
	VPBROADCASTD 48(DI), Y2
	VPBROADCASTD 112(DI), Y3
	VPMADDUBSW   Y2, Y4, Y4
	VPMADDUBSW   Y3, Y5, Y5
	VPADDW       Y4, Y0, Y0
	VPADDW       Y5, Y0, Y0
	PK_NIBBLES(80(SI))
	VPBROADCASTD 64(DI), Y2
	VPBROADCASTD 128(DI), Y3
	VPMADDUBSW   Y2, Y4, Y4
	VPMADDUBSW   Y3, Y5, Y5
	VPADDW       Y4, Y0, Y0
	VPADDW       Y5, Y0, Y0
	PK_NIBBLES(112(SI))
	VPBROADCASTD 80(DI), Y2
	VPBROADCASTD 144(DI), Y3
	VPMADDUBSW   Y2, Y4, Y4
	VPMADDUBSW   Y3, Y5, Y5
	VPADDW       Y4, Y0, Y0
	VPADDW       Y5, Y0, Y0
	VPMADDWD     Y13, Y0, Y0
	VPBROADCASTD 16(DI), Y1
	VPSLLD       $3, Y1, Y1
	VPSUBD       Y1, Y0, Y0
	VCVTDQ2PS    Y0, Y0
	VCVTPH2PS    (SI), Y1
	VBROADCASTSS (DI), Y2
	VMULPS       Y2, Y1, Y1
	VMULPS       Y1, Y0, Y0
	VADDPS       Y0, Y7, Y7
	ADDQ         $144, SI
	ADDQ         $160, DI
	DECQ         CX
	JNZ          q40gvloop

q40gvdone:
	VMOVUPS Y7, (DX)
	VZEROUPPER
	RET

// Q4_0 x Q8_0, one group of eight rows against the four tokens of the
// quads: out[t*ostride+r] for t < ntok. Y0-Y3 are the tokens' int16 then int32 block sums,
// Y8-Y11 their float accumulators; the nibbles of each piece are unpacked
// once for the four tokens.

// func q4_0x8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)
TEXT ·q4_0x8GemmAVX2(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ out+24(FP), DX
	PK_CONSTS
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ  CX, CX
	JZ     q40gmdone

q40gmloop:
	PREFETCHT0 PKPF(SI)
	PREFETCHT0 PKPF+64(SI)
	PREFETCHT0 PKPF+128(SI)
	PK_NIBBLES(16(SI))
	VPBROADCASTD 32(DI), Y6
	VPMADDUBSW   Y6, Y4, Y0
	VPBROADCASTD 96(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y0, Y0
	VPBROADCASTD 36(DI), Y6
	VPMADDUBSW   Y6, Y4, Y1
	VPBROADCASTD 100(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y1, Y1
	VPBROADCASTD 40(DI), Y6
	VPMADDUBSW   Y6, Y4, Y2
	VPBROADCASTD 104(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y2, Y2
	VPBROADCASTD 44(DI), Y6
	VPMADDUBSW   Y6, Y4, Y3
	VPBROADCASTD 108(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y3, Y3
	PK_NIBBLES(48(SI))
	VPBROADCASTD 48(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y0, Y0
	VPBROADCASTD 112(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y0, Y0
	VPBROADCASTD 52(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y1, Y1
	VPBROADCASTD 116(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y1, Y1
	VPBROADCASTD 56(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y2, Y2
	VPBROADCASTD 120(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y2, Y2
	VPBROADCASTD 60(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y3, Y3
	VPBROADCASTD 124(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y3, Y3
	PK_NIBBLES(80(SI))
	VPBROADCASTD 64(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y0, Y0
	VPBROADCASTD 128(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y0, Y0
	VPBROADCASTD 68(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y1, Y1
	VPBROADCASTD 132(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y1, Y1
	VPBROADCASTD 72(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y2, Y2
	VPBROADCASTD 136(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y2, Y2
	VPBROADCASTD 76(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y3, Y3
	VPBROADCASTD 140(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y3, Y3
	PK_NIBBLES(112(SI))
	VPBROADCASTD 80(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y0, Y0
	VPBROADCASTD 144(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y0, Y0
	VPBROADCASTD 84(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y1, Y1
	VPBROADCASTD 148(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y1, Y1
	VPBROADCASTD 88(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y2, Y2
	VPBROADCASTD 152(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y2, Y2
	VPBROADCASTD 92(DI), Y6
	VPMADDUBSW   Y6, Y4, Y6
	VPADDW       Y6, Y3, Y3
	VPBROADCASTD 156(DI), Y14
	VPMADDUBSW   Y14, Y5, Y7
	VPADDW       Y7, Y3, Y3
	VCVTPH2PS    (SI), Y12
	VPMADDWD     Y13, Y0, Y0
	VPBROADCASTD 16(DI), Y6
	VPSLLD       $3, Y6, Y6
	VPSUBD       Y6, Y0, Y0
	VCVTDQ2PS    Y0, Y0
	VBROADCASTSS 0(DI), Y7
	VMULPS       Y7, Y12, Y7
	VMULPS       Y7, Y0, Y0
	VADDPS       Y0, Y8, Y8
	VPMADDWD     Y13, Y1, Y1
	VPBROADCASTD 20(DI), Y6
	VPSLLD       $3, Y6, Y6
	VPSUBD       Y6, Y1, Y1
	VCVTDQ2PS    Y1, Y1
	VBROADCASTSS 4(DI), Y7
	VMULPS       Y7, Y12, Y7
	VMULPS       Y7, Y1, Y1
	VADDPS       Y1, Y9, Y9
	VPMADDWD     Y13, Y2, Y2
	VPBROADCASTD 24(DI), Y6
	VPSLLD       $3, Y6, Y6
	VPSUBD       Y6, Y2, Y2
	VCVTDQ2PS    Y2, Y2
	VBROADCASTSS 8(DI), Y7
	VMULPS       Y7, Y12, Y7
	VMULPS       Y7, Y2, Y2
	VADDPS       Y2, Y10, Y10
	VPMADDWD     Y13, Y3, Y3
	VPBROADCASTD 28(DI), Y6
	VPSLLD       $3, Y6, Y6
	VPSUBD       Y6, Y3, Y3
	VCVTDQ2PS    Y3, Y3
	VBROADCASTSS 12(DI), Y7
	VMULPS       Y7, Y12, Y7
	VMULPS       Y7, Y3, Y3
	VADDPS       Y3, Y11, Y11
	ADDQ         $144, SI
	ADDQ         $160, DI
	DECQ         CX
	JNZ          q40gmloop

q40gmdone:
	PK_STORE4(q40gmret)
