//go:build !purego

#include "textflag.h"
#include "pairs_amd64.h"

// The 8 x 4 half-precision tiles on 512-bit vectors, in the 8-lane order of
// the other half-precision kernels (vecdot_half_amd64.s): each output's
// accumulator stays 8 lanes wide, and a ZMM register holds two of them,
// one token in each half. Where the FMA units are 512 bits wide (Zen5,
// Xeon) that doubles the multiply-adds per instruction over the 256-bit
// 4 x 4 tile and keeps the same bits.
//
// 8 rows (w, w+wstride, ...) x 4 tokens into out[t*ostride+r]; the tokens
// come widened to float32 (halfQuadF16/BF16, astride bytes apart). Per
// group of 8 elements: token pairs (0|1) and (2|3) in Z16 and Z17 (one
// half each), each row's 8 weights widened into both halves of a register
// (Z18-Z25), and row r's products with the pairs into Z(2r) and Z(2r+1).
// Rows sit at SI, SI+BX, SI+2BX, R12 = SI+3BX, SI+4BX, R12+2BX,
// R13 = SI+6BX and R12+4BX.

// WIDEN8_F16 widens the 8 halves at m into both halves of z (y: its lower
// 256 bits). Widening 256 bits and copying them up beats VCVTPH2PS of a
// broadcast into all 512 on a Zen5 (the 8 x 4 tile 0.20 -> 0.145 ns
// per 16-lane FMA, the FMA units' peak 0.119).
#define WIDEN8_F16(m, y, z) \
	VCVTPH2PS    m, y       \
	VINSERTF64X4 $1, y, z, z

// WIDEN8_BF16 does so for 8 bfloat16 values (Z26 scratch): one word
// permutation (indices Z31) puts word j in the upper half of dword j of
// each half, the zeroing mask K1 (odd words) clears the lower halves; on a
// Zen5 0.147 ns per 16-lane FMA against 0.20-0.23 for a broadcast and a
// byte shuffle or a zero-extension, shift and copy.
#define WIDEN8_BF16(m, y, z) \
	VMOVDQU32    m, X26     \
	VPERMW.Z     Z26, Z31, K1, z

#define ROWS8x4(WIDEN) \
	VMOVUPS       (DI), Y16               \
	VINSERTF64X4  $1, (DI)(DX*1), Z16, Z16 \
	VMOVUPS       (DI)(DX*2), Y17         \
	VINSERTF64X4  $1, (R9), Z17, Z17      \
	WIDEN((SI), Y18, Z18)                 \
	WIDEN((SI)(BX*1), Y19, Z19)           \
	WIDEN((SI)(BX*2), Y20, Z20)           \
	WIDEN((R12), Y21, Z21)                \
	VFMADD231PS   Z16, Z18, Z0            \
	VFMADD231PS   Z17, Z18, Z1            \
	VFMADD231PS   Z16, Z19, Z2            \
	VFMADD231PS   Z17, Z19, Z3            \
	WIDEN((SI)(BX*4), Y22, Z22)           \
	WIDEN((R12)(BX*2), Y23, Z23)          \
	VFMADD231PS   Z16, Z20, Z4            \
	VFMADD231PS   Z17, Z20, Z5            \
	VFMADD231PS   Z16, Z21, Z6            \
	VFMADD231PS   Z17, Z21, Z7            \
	WIDEN((R13), Y24, Z24)                \
	WIDEN((R12)(BX*4), Y25, Z25)          \
	VFMADD231PS   Z16, Z22, Z8            \
	VFMADD231PS   Z17, Z22, Z9            \
	VFMADD231PS   Z16, Z23, Z10           \
	VFMADD231PS   Z17, Z23, Z11           \
	VFMADD231PS   Z16, Z24, Z12           \
	VFMADD231PS   Z17, Z24, Z13           \
	VFMADD231PS   Z16, Z25, Z14           \
	VFMADD231PS   Z17, Z25, Z15           \
	ADDQ          $16, SI                 \
	ADDQ          $16, R12                \
	ADDQ          $16, R13                \
	ADDQ          $32, DI                 \
	ADDQ          $32, R9

#define TILE8x4_BODY(loop, done, WIDEN) \
	MOVQ n8+0(FP), CX          \
	MOVQ w+8(FP), SI           \
	MOVQ wstride+16(FP), BX    \
	MOVQ a+24(FP), DI          \
	MOVQ astride+32(FP), DX    \
	LEAQ (SI)(BX*2), R12       \
	ADDQ BX, R12               \
	LEAQ (R12)(BX*2), R13      \
	ADDQ BX, R13               \
	LEAQ (DI)(DX*2), R9        \
	ADDQ DX, R9                \
	ZERO_Z0_15                 \
	TESTQ CX, CX               \
	JZ    done                 \
loop:                              \
	ROWS8x4(WIDEN)             \
	DECQ CX                    \
	JNZ  loop                  \
done:                              \
	MOVQ out+40(FP), DI        \
	MOVQ ostride+48(FP), R11   \
	SHLQ $2, R11               \
	LEAQ (DI)(R11*1), R8       \
	LEAQ (DI)(R11*2), R9       \
	LEAQ (R8)(R11*2), R10      \
	STORE_PAIR(Z0, Y0, X0, 0(DI), 0(R8), Y26, X26, X27)     \
	STORE_PAIR(Z1, Y1, X1, 0(R9), 0(R10), Y26, X26, X27)    \
	STORE_PAIR(Z2, Y2, X2, 4(DI), 4(R8), Y26, X26, X27)     \
	STORE_PAIR(Z3, Y3, X3, 4(R9), 4(R10), Y26, X26, X27)    \
	STORE_PAIR(Z4, Y4, X4, 8(DI), 8(R8), Y26, X26, X27)     \
	STORE_PAIR(Z5, Y5, X5, 8(R9), 8(R10), Y26, X26, X27)    \
	STORE_PAIR(Z6, Y6, X6, 12(DI), 12(R8), Y26, X26, X27)   \
	STORE_PAIR(Z7, Y7, X7, 12(R9), 12(R10), Y26, X26, X27)  \
	STORE_PAIR(Z8, Y8, X8, 16(DI), 16(R8), Y26, X26, X27)   \
	STORE_PAIR(Z9, Y9, X9, 16(R9), 16(R10), Y26, X26, X27)  \
	STORE_PAIR(Z10, Y10, X10, 20(DI), 20(R8), Y26, X26, X27) \
	STORE_PAIR(Z11, Y11, X11, 20(R9), 20(R10), Y26, X26, X27) \
	STORE_PAIR(Z12, Y12, X12, 24(DI), 24(R8), Y26, X26, X27) \
	STORE_PAIR(Z13, Y13, X13, 24(R9), 24(R10), Y26, X26, X27) \
	STORE_PAIR(Z14, Y14, X14, 28(DI), 28(R8), Y26, X26, X27) \
	STORE_PAIR(Z15, Y15, X15, 28(R9), 28(R10), Y26, X26, X27) \
	VZEROUPPER                 \
	RET

// func f16Tile8x4AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·f16Tile8x4AVX512(SB), NOSPLIT, $0-56
	TILE8x4_BODY(f16t8loop, f16t8done, WIDEN8_F16)

// The word permutation of WIDEN8_BF16: dword j of each half takes word j
// in its upper half (the lower, masked by K1's zeroing, stays 0).
DATA bf16Perm<>+0(SB)/8, $0x0001000000000000
DATA bf16Perm<>+8(SB)/8, $0x0003000000020000
DATA bf16Perm<>+16(SB)/8, $0x0005000000040000
DATA bf16Perm<>+24(SB)/8, $0x0007000000060000
DATA bf16Perm<>+32(SB)/8, $0x0001000000000000
DATA bf16Perm<>+40(SB)/8, $0x0003000000020000
DATA bf16Perm<>+48(SB)/8, $0x0005000000040000
DATA bf16Perm<>+56(SB)/8, $0x0007000000060000
GLOBL bf16Perm<>(SB), RODATA|NOPTR, $64

// func bf16Tile8x4AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·bf16Tile8x4AVX512(SB), NOSPLIT, $0-56
	VMOVDQU32 bf16Perm<>(SB), Z31
	MOVL      $0xAAAAAAAA, AX
	KMOVD     AX, K1
	TILE8x4_BODY(bf16t8loop, bf16t8done, WIDEN8_BF16)
