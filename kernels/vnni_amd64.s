//go:build !purego

#include "textflag.h"

// AVX512-VNNI (VL, 256-bit) versions of the hottest prefill and decode
// kernels: VPDPBUSD multiplies unsigned by signed bytes and adds groups of
// four products into int32 lanes, one instruction where AVX2 needs
// VPMADDUBSW, VPADDW and VPMADDWD. Integer sums are exact, so every kernel
// gives the same bits as its AVX2 and generic twins.

// Y15 = 0x0F bytes.
#define V_CONSTS \
	MOVL         $0x0F0F0F0F, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15

// Y4 = low nibbles, Y5 = high nibbles of the 32 bytes at mem.
#define V_NIBBLES(mem) \
	VMOVDQU mem, Y4     \
	VPSRLW  $4, Y4, Y5  \
	VPAND   Y15, Y4, Y4 \
	VPAND   Y15, Y5, Y5

// Stores Y8..Y11 (tokens 0..3) to out, out+ostride, ... (ostride in
// floats), the first ntok of them.
#define V_STORE4(name) \
	MOVQ    ostride+32(FP), BX \
	SHLQ    $2, BX             \
	MOVQ    ntok+40(FP), AX    \
	VMOVUPS Y8, (DX)           \
	CMPQ    AX, $2             \
	JLT     name               \
	ADDQ    BX, DX             \
	VMOVUPS Y9, (DX)           \
	CMPQ    AX, $3             \
	JLT     name               \
	ADDQ    BX, DX             \
	VMOVUPS Y10, (DX)          \
	CMPQ    AX, $4             \
	JLT     name               \
	ADDQ    BX, DX             \
	VMOVUPS Y11, (DX)          \
name:                          \
	VZEROUPPER                 \
	RET

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
	VPXOR      Y0, Y0, Y0
	VPXOR      Y1, Y1, Y1
	V_NIBBLES(16(SI))
	VPDPBUSD.BCST 32(DI), Y4, Y0
	VPDPBUSD.BCST 48(DI), Y5, Y0
	V_NIBBLES(48(SI))
	VPDPBUSD.BCST 36(DI), Y4, Y1
	VPDPBUSD.BCST 52(DI), Y5, Y1
	V_NIBBLES(80(SI))
	VPDPBUSD.BCST 40(DI), Y4, Y0
	VPDPBUSD.BCST 56(DI), Y5, Y0
	V_NIBBLES(112(SI))
	VPDPBUSD.BCST 44(DI), Y4, Y1
	VPDPBUSD.BCST 60(DI), Y5, Y1
	VPADDD       Y1, Y0, Y0
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
	JNZ          vq40gvloop

vq40gvdone:
	VMOVUPS Y7, (DX)
	VZEROUPPER
	RET

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
	VPXOR      Y0, Y0, Y0
	VPXOR      Y12, Y12, Y12
	VPXOR      Y1, Y1, Y1
	VPXOR      Y13, Y13, Y13
	VPXOR      Y2, Y2, Y2
	VPXOR      Y14, Y14, Y14
	VPXOR      Y3, Y3, Y3
	VPXOR      Y6, Y6, Y6
	V_NIBBLES(16(SI))
	VPDPBUSD.BCST 32(DI), Y4, Y0
	VPDPBUSD.BCST 48(DI), Y5, Y12
	VPDPBUSD.BCST 64(DI), Y4, Y1
	VPDPBUSD.BCST 80(DI), Y5, Y13
	VPDPBUSD.BCST 96(DI), Y4, Y2
	VPDPBUSD.BCST 112(DI), Y5, Y14
	VPDPBUSD.BCST 128(DI), Y4, Y3
	VPDPBUSD.BCST 144(DI), Y5, Y6
	V_NIBBLES(48(SI))
	VPDPBUSD.BCST 36(DI), Y4, Y0
	VPDPBUSD.BCST 52(DI), Y5, Y12
	VPDPBUSD.BCST 68(DI), Y4, Y1
	VPDPBUSD.BCST 84(DI), Y5, Y13
	VPDPBUSD.BCST 100(DI), Y4, Y2
	VPDPBUSD.BCST 116(DI), Y5, Y14
	VPDPBUSD.BCST 132(DI), Y4, Y3
	VPDPBUSD.BCST 148(DI), Y5, Y6
	V_NIBBLES(80(SI))
	VPDPBUSD.BCST 40(DI), Y4, Y0
	VPDPBUSD.BCST 56(DI), Y5, Y12
	VPDPBUSD.BCST 72(DI), Y4, Y1
	VPDPBUSD.BCST 88(DI), Y5, Y13
	VPDPBUSD.BCST 104(DI), Y4, Y2
	VPDPBUSD.BCST 120(DI), Y5, Y14
	VPDPBUSD.BCST 136(DI), Y4, Y3
	VPDPBUSD.BCST 152(DI), Y5, Y6
	V_NIBBLES(112(SI))
	VPDPBUSD.BCST 44(DI), Y4, Y0
	VPDPBUSD.BCST 60(DI), Y5, Y12
	VPDPBUSD.BCST 76(DI), Y4, Y1
	VPDPBUSD.BCST 92(DI), Y5, Y13
	VPDPBUSD.BCST 108(DI), Y4, Y2
	VPDPBUSD.BCST 124(DI), Y5, Y14
	VPDPBUSD.BCST 140(DI), Y4, Y3
	VPDPBUSD.BCST 156(DI), Y5, Y6
	VPADDD       Y12, Y0, Y0
	VPADDD       Y13, Y1, Y1
	VPADDD       Y14, Y2, Y2
	VPADDD       Y6, Y3, Y3
	VCVTPH2PS    (SI), Y12
	VPBROADCASTD 16(DI), Y6
	VPSLLD       $3, Y6, Y6
	VPSUBD       Y6, Y0, Y0
	VCVTDQ2PS    Y0, Y0
	VBROADCASTSS 0(DI), Y7
	VMULPS       Y7, Y12, Y7
	VMULPS       Y7, Y0, Y0
	VADDPS       Y0, Y8, Y8
	VPBROADCASTD 20(DI), Y6
	VPSLLD       $3, Y6, Y6
	VPSUBD       Y6, Y1, Y1
	VCVTDQ2PS    Y1, Y1
	VBROADCASTSS 4(DI), Y7
	VMULPS       Y7, Y12, Y7
	VMULPS       Y7, Y1, Y1
	VADDPS       Y1, Y9, Y9
	VPBROADCASTD 24(DI), Y6
	VPSLLD       $3, Y6, Y6
	VPSUBD       Y6, Y2, Y2
	VCVTDQ2PS    Y2, Y2
	VBROADCASTSS 8(DI), Y7
	VMULPS       Y7, Y12, Y7
	VMULPS       Y7, Y2, Y2
	VADDPS       Y2, Y10, Y10
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
	JNZ          vq40gmloop

vq40gmdone:
	V_STORE4(vq40gmret)

// Q8_0 x Q8_0, two rows x four tokens (as q8_0Tile2x4AVX2) with the tokens
// from their q8_0QuadTok quad at DI: per pair the eight int32 lanes come
// from one VPDPBUSD of |w| and the token's quants signed by w.

// func q8_0Tile2x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·q8_0Tile2x4VNNI(SB), NOSPLIT, $32-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), R8
	ADDQ SI, R8
	MOVQ a+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ CX, CX
	JZ    vq80t24done

vq80t24loop:
	VMOVUPS      (DI), X14
	VPBROADCASTW 0(SI), X15
	VCVTPH2PS    X15, X15
	VMULPS       X14, X15, X15
	VMOVUPS      X15, sc-32(SP)
	VPBROADCASTW 0(R8), X15
	VCVTPH2PS    X15, X15
	VMULPS       X14, X15, X15
	VMOVUPS      X15, sc-16(SP)
	VMOVDQU      2(SI), Y8
	VPABSB       Y8, Y8
	VMOVDQU      2(R8), Y9
	VPABSB       Y9, Y9
	VMOVDQU      32(DI), Y10
	VMOVDQU      64(DI), Y11
	VMOVDQU      96(DI), Y12
	VMOVDQU      128(DI), Y13
	VPSIGNB      2(SI), Y10, Y14
	VPXOR        Y15, Y15, Y15
	VPDPBUSD     Y14, Y8, Y15
	VCVTDQ2PS    Y15, Y15
	VBROADCASTSS sc-32(SP), Y14
	VFMADD231PS  Y15, Y14, Y0
	VPSIGNB      2(SI), Y11, Y14
	VPXOR        Y15, Y15, Y15
	VPDPBUSD     Y14, Y8, Y15
	VCVTDQ2PS    Y15, Y15
	VBROADCASTSS sc-28(SP), Y14
	VFMADD231PS  Y15, Y14, Y1
	VPSIGNB      2(SI), Y12, Y14
	VPXOR        Y15, Y15, Y15
	VPDPBUSD     Y14, Y8, Y15
	VCVTDQ2PS    Y15, Y15
	VBROADCASTSS sc-24(SP), Y14
	VFMADD231PS  Y15, Y14, Y2
	VPSIGNB      2(SI), Y13, Y14
	VPXOR        Y15, Y15, Y15
	VPDPBUSD     Y14, Y8, Y15
	VCVTDQ2PS    Y15, Y15
	VBROADCASTSS sc-20(SP), Y14
	VFMADD231PS  Y15, Y14, Y3
	VPSIGNB      2(R8), Y10, Y14
	VPXOR        Y15, Y15, Y15
	VPDPBUSD     Y14, Y9, Y15
	VCVTDQ2PS    Y15, Y15
	VBROADCASTSS sc-16(SP), Y14
	VFMADD231PS  Y15, Y14, Y4
	VPSIGNB      2(R8), Y11, Y14
	VPXOR        Y15, Y15, Y15
	VPDPBUSD     Y14, Y9, Y15
	VCVTDQ2PS    Y15, Y15
	VBROADCASTSS sc-12(SP), Y14
	VFMADD231PS  Y15, Y14, Y5
	VPSIGNB      2(R8), Y12, Y14
	VPXOR        Y15, Y15, Y15
	VPDPBUSD     Y14, Y9, Y15
	VCVTDQ2PS    Y15, Y15
	VBROADCASTSS sc-8(SP), Y14
	VFMADD231PS  Y15, Y14, Y6
	VPSIGNB      2(R8), Y13, Y14
	VPXOR        Y15, Y15, Y15
	VPDPBUSD     Y14, Y9, Y15
	VCVTDQ2PS    Y15, Y15
	VBROADCASTSS sc-4(SP), Y14
	VFMADD231PS  Y15, Y14, Y7
	ADDQ $34, SI
	ADDQ $34, R8
	ADDQ $160, DI
	DECQ CX
	JNZ  vq80t24loop

vq80t24done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	VEXTRACTF128 $1, Y0, X14
	VADDPS       X14, X0, X0
	VMOVHLPS     X0, X0, X14
	VADDPS       X14, X0, X0
	VMOVSHDUP    X0, X14
	VADDSS       X14, X0, X0
	VMOVSS       X0, 0(DX)
	VEXTRACTF128 $1, Y4, X14
	VADDPS       X14, X4, X4
	VMOVHLPS     X4, X4, X14
	VADDPS       X14, X4, X4
	VMOVSHDUP    X4, X14
	VADDSS       X14, X4, X4
	VMOVSS       X4, 4(DX)
	ADDQ BX, DX
	VEXTRACTF128 $1, Y1, X14
	VADDPS       X14, X1, X1
	VMOVHLPS     X1, X1, X14
	VADDPS       X14, X1, X1
	VMOVSHDUP    X1, X14
	VADDSS       X14, X1, X1
	VMOVSS       X1, 0(DX)
	VEXTRACTF128 $1, Y5, X14
	VADDPS       X14, X5, X5
	VMOVHLPS     X5, X5, X14
	VADDPS       X14, X5, X5
	VMOVSHDUP    X5, X14
	VADDSS       X14, X5, X5
	VMOVSS       X5, 4(DX)
	ADDQ BX, DX
	VEXTRACTF128 $1, Y2, X14
	VADDPS       X14, X2, X2
	VMOVHLPS     X2, X2, X14
	VADDPS       X14, X2, X2
	VMOVSHDUP    X2, X14
	VADDSS       X14, X2, X2
	VMOVSS       X2, 0(DX)
	VEXTRACTF128 $1, Y6, X14
	VADDPS       X14, X6, X6
	VMOVHLPS     X6, X6, X14
	VADDPS       X14, X6, X6
	VMOVSHDUP    X6, X14
	VADDSS       X14, X6, X6
	VMOVSS       X6, 4(DX)
	ADDQ BX, DX
	VEXTRACTF128 $1, Y3, X14
	VADDPS       X14, X3, X3
	VMOVHLPS     X3, X3, X14
	VADDPS       X14, X3, X3
	VMOVSHDUP    X3, X14
	VADDSS       X14, X3, X3
	VMOVSS       X3, 0(DX)
	VEXTRACTF128 $1, Y7, X14
	VADDPS       X14, X7, X7
	VMOVHLPS     X7, X7, X14
	VADDPS       X14, X7, X7
	VMOVSHDUP    X7, X14
	VADDSS       X14, X7, X7
	VMOVSS       X7, 4(DX)
	ADDQ BX, DX
	VZEROUPPER
	RET
