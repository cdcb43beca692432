//go:build !purego

#include "textflag.h"
#include "pairs_amd64.h"

// The Q5_0 prefill tile of the avx512vnni set: 4 rows x 4 tokens, as
// q8_0Tile4x4VNNI (vnni_amd64.s) for Q8_0, against the Q8_0 quad layout
// (q8_0QuadTok). Each row's block is decoded once into the unsigned bytes
// x+16 = nibble | 16*high bit (the high bits spread by VPTESTMB into a mask
// that adds 16), so VPDPBUSD multiplies them by the tokens' signed quants;
// each token's lanes start at -16 times its quant sums per lane (a
// VPDPBUSD of 16s, shared by the four rows). Lane l then holds exactly the
// integer sum of ggml's mul_sum_i8_pairs lane l, and the float steps are
// the generic kernel's: acc = fma(float(lanes), d_w*d_a, acc), then the
// 8-lane horizontal sum.

DATA q5tShufBits<>+0(SB)/8, $0x0000000000000000
DATA q5tShufBits<>+8(SB)/8, $0x0101010101010101
DATA q5tShufBits<>+16(SB)/8, $0x0202020202020202
DATA q5tShufBits<>+24(SB)/8, $0x0303030303030303
GLOBL q5tShufBits<>(SB), RODATA|NOPTR, $32

DATA q5tBitSel<>+0(SB)/8, $0x8040201008040201
DATA q5tBitSel<>+8(SB)/8, $0x8040201008040201
DATA q5tBitSel<>+16(SB)/8, $0x8040201008040201
DATA q5tBitSel<>+24(SB)/8, $0x8040201008040201
GLOBL q5tBitSel<>(SB), RODATA|NOPTR, $32

DATA q5tNib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q5tNib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q5tNib<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q5tNib<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL q5tNib<>(SB), RODATA|NOPTR, $32

// Each row's decode (written out in the loop, rows into Y0-Y3): the
// block as unsigned x+16, Y12 scratch, K1: the low nibbles of the 16 quant
// bytes are elements 0-15, the high nibbles 16-31; bit i of the 32-bit qh
// adds 16 (Y14) to element i.

// Row P's scales d_w*d_a for the four tokens (X13 = the tokens' d) to the
// stack at off.
#define Q5T_SCALE(P, off) \
	VPBROADCASTW 0(P), X12     \
	VCVTPH2PS    X12, X12      \
	VMULPS       X13, X12, X12 \
	VMOVUPS      X12, off(SP)

// func q5_0Tile4x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·q5_0Tile4x4VNNI(SB), NOSPLIT, $64-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	MOVQ a+24(FP), DI
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
	VXORPS Y28, Y28, Y28
	VXORPS Y29, Y29, Y29
	VXORPS Y30, Y30, Y30
	VXORPS Y31, Y31, Y31
	MOVL         $0x10101010, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14
	VPXOR        Y15, Y15, Y15
	TESTQ        CX, CX
	JZ           q5t44done

q5t44loop:
	VMOVUPS (DI), X13
	Q5T_SCALE(SI, sc-64(SP))
	Q5T_SCALE(R8, sc-48(SP))
	Q5T_SCALE(R9, sc-32(SP))
	Q5T_SCALE(R10, sc-16(SP))
	VMOVDQU  32(DI), Y8
	VPXOR    Y4, Y4, Y4
	VPDPBUSD Y8, Y14, Y4
	VPSUBD   Y4, Y15, Y4
	VMOVDQU  64(DI), Y9
	VPXOR    Y5, Y5, Y5
	VPDPBUSD Y9, Y14, Y5
	VPSUBD   Y5, Y15, Y5
	VMOVDQU  96(DI), Y10
	VPXOR    Y6, Y6, Y6
	VPDPBUSD Y10, Y14, Y6
	VPSUBD   Y6, Y15, Y6
	VMOVDQU  128(DI), Y11
	VPXOR    Y7, Y7, Y7
	VPDPBUSD Y11, Y14, Y7
	VPSUBD   Y7, Y15, Y7
	VPBROADCASTD 2(SI), Y12
	VPSHUFB      q5tShufBits<>(SB), Y12, Y12
	VPTESTMB     q5tBitSel<>(SB), Y12, K1
	VMOVDQU      6(SI), X12
	VPSRLW       $4, X12, X0
	VINSERTI128  $1, X0, Y12, Y0
	VPAND        q5tNib<>(SB), Y0, Y0
	VPADDB       Y14, Y0, K1, Y0
	VPBROADCASTD 2(R8), Y12
	VPSHUFB      q5tShufBits<>(SB), Y12, Y12
	VPTESTMB     q5tBitSel<>(SB), Y12, K1
	VMOVDQU      6(R8), X12
	VPSRLW       $4, X12, X1
	VINSERTI128  $1, X1, Y12, Y1
	VPAND        q5tNib<>(SB), Y1, Y1
	VPADDB       Y14, Y1, K1, Y1
	VPBROADCASTD 2(R9), Y12
	VPSHUFB      q5tShufBits<>(SB), Y12, Y12
	VPTESTMB     q5tBitSel<>(SB), Y12, K1
	VMOVDQU      6(R9), X12
	VPSRLW       $4, X12, X2
	VINSERTI128  $1, X2, Y12, Y2
	VPAND        q5tNib<>(SB), Y2, Y2
	VPADDB       Y14, Y2, K1, Y2
	VPBROADCASTD 2(R10), Y12
	VPSHUFB      q5tShufBits<>(SB), Y12, Y12
	VPTESTMB     q5tBitSel<>(SB), Y12, K1
	VMOVDQU      6(R10), X12
	VPSRLW       $4, X12, X3
	VINSERTI128  $1, X3, Y12, Y3
	VPAND        q5tNib<>(SB), Y3, Y3
	VPADDB       Y14, Y3, K1, Y3
	VMOVDQA   Y4, Y12
	VPDPBUSD  Y8, Y0, Y12
	VCVTDQ2PS Y12, Y12
	VFMADD231PS.BCST sc-64(SP), Y12, Y16
	VMOVDQA   Y5, Y13
	VPDPBUSD  Y9, Y0, Y13
	VCVTDQ2PS Y13, Y13
	VFMADD231PS.BCST sc-60(SP), Y13, Y17
	VMOVDQA   Y6, Y12
	VPDPBUSD  Y10, Y0, Y12
	VCVTDQ2PS Y12, Y12
	VFMADD231PS.BCST sc-56(SP), Y12, Y18
	VMOVDQA   Y7, Y13
	VPDPBUSD  Y11, Y0, Y13
	VCVTDQ2PS Y13, Y13
	VFMADD231PS.BCST sc-52(SP), Y13, Y19
	VMOVDQA   Y4, Y12
	VPDPBUSD  Y8, Y1, Y12
	VCVTDQ2PS Y12, Y12
	VFMADD231PS.BCST sc-48(SP), Y12, Y20
	VMOVDQA   Y5, Y13
	VPDPBUSD  Y9, Y1, Y13
	VCVTDQ2PS Y13, Y13
	VFMADD231PS.BCST sc-44(SP), Y13, Y21
	VMOVDQA   Y6, Y12
	VPDPBUSD  Y10, Y1, Y12
	VCVTDQ2PS Y12, Y12
	VFMADD231PS.BCST sc-40(SP), Y12, Y22
	VMOVDQA   Y7, Y13
	VPDPBUSD  Y11, Y1, Y13
	VCVTDQ2PS Y13, Y13
	VFMADD231PS.BCST sc-36(SP), Y13, Y23
	VMOVDQA   Y4, Y12
	VPDPBUSD  Y8, Y2, Y12
	VCVTDQ2PS Y12, Y12
	VFMADD231PS.BCST sc-32(SP), Y12, Y24
	VMOVDQA   Y5, Y13
	VPDPBUSD  Y9, Y2, Y13
	VCVTDQ2PS Y13, Y13
	VFMADD231PS.BCST sc-28(SP), Y13, Y25
	VMOVDQA   Y6, Y12
	VPDPBUSD  Y10, Y2, Y12
	VCVTDQ2PS Y12, Y12
	VFMADD231PS.BCST sc-24(SP), Y12, Y26
	VMOVDQA   Y7, Y13
	VPDPBUSD  Y11, Y2, Y13
	VCVTDQ2PS Y13, Y13
	VFMADD231PS.BCST sc-20(SP), Y13, Y27
	VMOVDQA   Y4, Y12
	VPDPBUSD  Y8, Y3, Y12
	VCVTDQ2PS Y12, Y12
	VFMADD231PS.BCST sc-16(SP), Y12, Y28
	VMOVDQA   Y5, Y13
	VPDPBUSD  Y9, Y3, Y13
	VCVTDQ2PS Y13, Y13
	VFMADD231PS.BCST sc-12(SP), Y13, Y29
	VMOVDQA   Y6, Y12
	VPDPBUSD  Y10, Y3, Y12
	VCVTDQ2PS Y12, Y12
	VFMADD231PS.BCST sc-8(SP), Y12, Y30
	VMOVDQA   Y7, Y13
	VPDPBUSD  Y11, Y3, Y13
	VCVTDQ2PS Y13, Y13
	VFMADD231PS.BCST sc-4(SP), Y13, Y31
	ADDQ $22, SI
	ADDQ $22, R8
	ADDQ $22, R9
	ADDQ $22, R10
	ADDQ $288, DI
	DECQ CX
	JNZ  q5t44loop

q5t44done:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	VMOVAPS      Y16, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 0(DX)
	VMOVAPS      Y20, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 4(DX)
	VMOVAPS      Y24, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 8(DX)
	VMOVAPS      Y28, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 12(DX)
	ADDQ BX, DX
	VMOVAPS      Y17, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 0(DX)
	VMOVAPS      Y21, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 4(DX)
	VMOVAPS      Y25, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 8(DX)
	VMOVAPS      Y29, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 12(DX)
	ADDQ BX, DX
	VMOVAPS      Y18, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 0(DX)
	VMOVAPS      Y22, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 4(DX)
	VMOVAPS      Y26, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 8(DX)
	VMOVAPS      Y30, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 12(DX)
	ADDQ BX, DX
	VMOVAPS      Y19, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 0(DX)
	VMOVAPS      Y23, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 4(DX)
	VMOVAPS      Y27, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 8(DX)
	VMOVAPS      Y31, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, 12(DX)
	VZEROUPPER
	RET

// The Q5_0 tile of 8 rows x 4 tokens, in q5_0Tile4x4VNNI's lanes and order
// (tile_q5_0_vnni_amd64.s) with two tokens per ZMM register, as
// q8_0Tile8x4VNNI (tile_q8_0_zmm_vnni_amd64.s): each row's block is decoded once into the unsigned bytes
// x+16 (Y0, Z5 scratch, K1 its high bits) and copied to both halves; the
// tokens' signed quants (Z8: 0|1, Z9: 2|3) start from -16 times their sums
// per lane (Z6, Z7, shared by the rows). Z14 holds 0x10 bytes.

// Q5Z_ROW adds the row block with its scale at md, high bits at mh and
// nibbles at mq into a0 (tokens 0|1) and a1 (2|3).
#define Q5Z_ROW(md, mh, mq, a0, a1) \
	VPBROADCASTD mh, Y5                      \
	VPSHUFB      q5tShufBits<>(SB), Y5, Y5   \
	VPTESTMB     q5tBitSel<>(SB), Y5, K1     \
	VMOVDQU      mq, X5                      \
	VPSRLW       $4, X5, X0                  \
	VINSERTI128  $1, X0, Y5, Y0              \
	VPAND        q5tNib<>(SB), Y0, Y0        \
	VPADDB       Y14, Y0, K1, Y0             \
	VINSERTI64X4 $1, Y0, Z0, Z0              \
	VPBROADCASTW md, Y2                      \
	VCVTPH2PS    Y2, Z2                      \
	VMULPS       Z10, Z2, Z3                 \
	VMULPS       Z11, Z2, Z2                 \
	VMOVDQA64    Z6, Z4                      \
	VPDPBUSD     Z8, Z0, Z4                  \
	VCVTDQ2PS    Z4, Z4                      \
	VFMADD231PS  Z3, Z4, a0                  \
	VMOVDQA64    Z7, Z1                      \
	VPDPBUSD     Z9, Z0, Z1                  \
	VCVTDQ2PS    Z1, Z1                      \
	VFMADD231PS  Z2, Z1, a1

// func q5_0Tile8x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)
TEXT ·q5_0Tile8x4VNNI(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ wstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*2), R12
	ADDQ BX, R12
	LEAQ (R12)(BX*2), R13
	ADDQ BX, R13
	ZERO_Z16_31
	VMOVDQU64 ·vnniPairIdx+0(SB), Z12
	VMOVDQU64 ·vnniPairIdx+64(SB), Z13
	MOVL         $0x10101010, AX
	VPBROADCASTD AX, Z14
	VPXORD       Z15, Z15, Z15
	TESTQ CX, CX
	JZ    q5z84done

q5z84loop:
	VPERMPS   0(DI), Z12, Z10
	VPERMPS   0(DI), Z13, Z11
	VMOVDQU64 32(DI), Z8
	VMOVDQU64 96(DI), Z9
	VPXORD    Z6, Z6, Z6
	VPDPBUSD  Z8, Z14, Z6
	VPSUBD    Z6, Z15, Z6
	VPXORD    Z7, Z7, Z7
	VPDPBUSD  Z9, Z14, Z7
	VPSUBD    Z7, Z15, Z7
	Q5Z_ROW(0(SI), 2(SI), 6(SI), Z16, Z17)
	Q5Z_ROW(0(SI)(BX*1), 2(SI)(BX*1), 6(SI)(BX*1), Z18, Z19)
	Q5Z_ROW(0(SI)(BX*2), 2(SI)(BX*2), 6(SI)(BX*2), Z20, Z21)
	Q5Z_ROW(0(R12), 2(R12), 6(R12), Z22, Z23)
	Q5Z_ROW(0(SI)(BX*4), 2(SI)(BX*4), 6(SI)(BX*4), Z24, Z25)
	Q5Z_ROW(0(R12)(BX*2), 2(R12)(BX*2), 6(R12)(BX*2), Z26, Z27)
	Q5Z_ROW(0(R13), 2(R13), 6(R13), Z28, Z29)
	Q5Z_ROW(0(R12)(BX*4), 2(R12)(BX*4), 6(R12)(BX*4), Z30, Z31)
	ADDQ $22, SI
	ADDQ $22, R12
	ADDQ $22, R13
	ADDQ $288, DI
	DECQ CX
	JNZ  q5z84loop

q5z84done:
	STORE8x4_Z16_31
	VZEROUPPER
	RET
