//go:build !purego

#include "textflag.h"

// Register-tiled prefill kernels: two weight rows against four activation
// rows per call, each of the eight dot products in its single-row
// kernel's float order. Sharing each row's block across the four tokens and
// each token's block across the two rows removes most of the loads and
// sign/abs steps of the one-row, four-token kernels.

DATA tileOnes16<>+0(SB)/8, $0x0001000100010001
DATA tileOnes16<>+8(SB)/8, $0x0001000100010001
DATA tileOnes16<>+16(SB)/8, $0x0001000100010001
DATA tileOnes16<>+24(SB)/8, $0x0001000100010001
GLOBL tileOnes16<>(SB), RODATA|NOPTR, $32

// Q8_0 x Q8_0 in tinyBLAS's order (vecDotQ8_0Q8_0Generic): per pair and
// block acc += (d_w*d_a) * float(lanes), lane l = the products of bytes
// 4l..4l+3, then tinyBLAS's horizontal sum. Rows at SI and R8 (wstride
// apart), tokens at DI, R9, R10, R11 (astride apart). Y0-Y7 accumulate
// pair (row r, token t) in Y(4r+t); Y8/Y9 hold the rows' |w|, Y10-Y13 the
// tokens' quants; the eight products d_w*d_a go through the stack. The
// tokens' scales come as float32 from their quad layout at R12.

// func q8_0Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)
TEXT ·q8_0Tile2x4AVX2(SB), NOSPLIT, $32-64
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), R8
	ADDQ SI, R8
	MOVQ a+24(FP), DI
	MOVQ astride+32(FP), BX
	LEAQ (DI)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	LEAQ (R10)(BX*1), R11
	MOVQ ad+40(FP), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ CX, CX
	JZ    q80t24done

q80t24loop:
	// Scale products: [d_w0*d_a(t)] and [d_w1*d_a(t)], t = 0..3, with the
	// tokens' d_a as float32 from the quad layout (q8_0Quad).
	VMOVUPS      (R12), X14
	VPBROADCASTW 0(SI), X15
	VCVTPH2PS    X15, X15
	VMULPS       X14, X15, X15
	VMOVUPS      X15, sc-32(SP)
	VPBROADCASTW 0(R8), X15
	VCVTPH2PS    X15, X15
	VMULPS       X14, X15, X15
	VMOVUPS      X15, sc-16(SP)
	VMOVDQU      2(SI), Y8
	VPSIGNB      Y8, Y8, Y8
	VMOVDQU      2(R8), Y9
	VPSIGNB      Y9, Y9, Y9
	VMOVDQU      2(DI), Y10
	VMOVDQU      2(R9), Y11
	VMOVDQU      2(R10), Y12
	VMOVDQU      2(R11), Y13
	VPSIGNB      2(SI), Y10, Y14
	VPMADDUBSW   Y14, Y8, Y14
	VPMADDWD     tileOnes16<>(SB), Y14, Y14
	VCVTDQ2PS    Y14, Y14
	VBROADCASTSS sc-32(SP), Y15
	VFMADD231PS  Y14, Y15, Y0
	VPSIGNB      2(SI), Y11, Y14
	VPMADDUBSW   Y14, Y8, Y14
	VPMADDWD     tileOnes16<>(SB), Y14, Y14
	VCVTDQ2PS    Y14, Y14
	VBROADCASTSS sc-28(SP), Y15
	VFMADD231PS  Y14, Y15, Y1
	VPSIGNB      2(SI), Y12, Y14
	VPMADDUBSW   Y14, Y8, Y14
	VPMADDWD     tileOnes16<>(SB), Y14, Y14
	VCVTDQ2PS    Y14, Y14
	VBROADCASTSS sc-24(SP), Y15
	VFMADD231PS  Y14, Y15, Y2
	VPSIGNB      2(SI), Y13, Y14
	VPMADDUBSW   Y14, Y8, Y14
	VPMADDWD     tileOnes16<>(SB), Y14, Y14
	VCVTDQ2PS    Y14, Y14
	VBROADCASTSS sc-20(SP), Y15
	VFMADD231PS  Y14, Y15, Y3
	VPSIGNB      2(R8), Y10, Y14
	VPMADDUBSW   Y14, Y9, Y14
	VPMADDWD     tileOnes16<>(SB), Y14, Y14
	VCVTDQ2PS    Y14, Y14
	VBROADCASTSS sc-16(SP), Y15
	VFMADD231PS  Y14, Y15, Y4
	VPSIGNB      2(R8), Y11, Y14
	VPMADDUBSW   Y14, Y9, Y14
	VPMADDWD     tileOnes16<>(SB), Y14, Y14
	VCVTDQ2PS    Y14, Y14
	VBROADCASTSS sc-12(SP), Y15
	VFMADD231PS  Y14, Y15, Y5
	VPSIGNB      2(R8), Y12, Y14
	VPMADDUBSW   Y14, Y9, Y14
	VPMADDWD     tileOnes16<>(SB), Y14, Y14
	VCVTDQ2PS    Y14, Y14
	VBROADCASTSS sc-8(SP), Y15
	VFMADD231PS  Y14, Y15, Y6
	VPSIGNB      2(R8), Y13, Y14
	VPMADDUBSW   Y14, Y9, Y14
	VPMADDWD     tileOnes16<>(SB), Y14, Y14
	VCVTDQ2PS    Y14, Y14
	VBROADCASTSS sc-4(SP), Y15
	VFMADD231PS  Y14, Y15, Y7
	ADDQ $34, SI
	ADDQ $34, R8
	ADDQ $34, DI
	ADDQ $34, R9
	ADDQ $34, R10
	ADDQ $34, R11
	ADDQ $160, R12
	DECQ CX
	JNZ  q80t24loop

q80t24done:
	MOVQ out+48(FP), DX
	MOVQ ostride+56(FP), BX
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
