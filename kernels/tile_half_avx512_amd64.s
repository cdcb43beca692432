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
// 256 bits).
#define WIDEN8_F16(m, y, z) \
	VBROADCASTI32X4 m, y \
	VCVTPH2PS       y, z

// WIDEN8_BF16 does so for 8 bfloat16 values: the 16 bytes in each 128-bit
// lane, then a byte shuffle (control Z31) that moves words 0-3 (lanes 0
// and 2) or 4-7 (lanes 1 and 3) into the high halves of zeroed dwords.
#define WIDEN8_BF16(m, y, z) \
	VBROADCASTI32X4 m, z \
	VPSHUFB         Z31, z, z

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
	VPXORD Z0, Z0, Z0          \
	VPXORD Z1, Z1, Z1          \
	VPXORD Z2, Z2, Z2          \
	VPXORD Z3, Z3, Z3          \
	VPXORD Z4, Z4, Z4          \
	VPXORD Z5, Z5, Z5          \
	VPXORD Z6, Z6, Z6          \
	VPXORD Z7, Z7, Z7          \
	VPXORD Z8, Z8, Z8          \
	VPXORD Z9, Z9, Z9          \
	VPXORD Z10, Z10, Z10       \
	VPXORD Z11, Z11, Z11       \
	VPXORD Z12, Z12, Z12       \
	VPXORD Z13, Z13, Z13       \
	VPXORD Z14, Z14, Z14       \
	VPXORD Z15, Z15, Z15       \
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

// The byte shuffle of WIDEN8_BF16: per 128-bit lane, dword j takes the
// word j (lanes 0, 2) or 4+j (lanes 1, 3) in its high half; 0x80 zeroes.
DATA bf16Widen8<>+0(SB)/8, $0x0302808001008080
DATA bf16Widen8<>+8(SB)/8, $0x0706808005048080
DATA bf16Widen8<>+16(SB)/8, $0x0b0a808009088080
DATA bf16Widen8<>+24(SB)/8, $0x0f0e80800d0c8080
DATA bf16Widen8<>+32(SB)/8, $0x0302808001008080
DATA bf16Widen8<>+40(SB)/8, $0x0706808005048080
DATA bf16Widen8<>+48(SB)/8, $0x0b0a808009088080
DATA bf16Widen8<>+56(SB)/8, $0x0f0e80800d0c8080
GLOBL bf16Widen8<>(SB), RODATA|NOPTR, $64

// func bf16Tile8x4AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·bf16Tile8x4AVX512(SB), NOSPLIT, $0-56
	VMOVDQU32 bf16Widen8<>(SB), Z31
	TILE8x4_BODY(bf16t8loop, bf16t8done, WIDEN8_BF16)
