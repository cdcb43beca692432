//go:build !purego

#include "textflag.h"
#include "pairs_amd64.h"

// The 8 x 4 half-precision tiles over rows in the pair layout
// (tile_pairs.go): per group of 8 elements, one load widens the weights of
// a pair of rows into a register [row 2p | row 2p+1] (Z20-Z23), each
// token comes broadcast into both halves (Z16-Z19), and pair p's products
// with token t go to Z(4p+t), the same 8-lane sums as the row tiles
// (tile_half_avx512_amd64.s).
//
// Arguments as there: n8 groups of 8 (n16 pairs of groups for BF16), w the
// packed tile (pairs 2*wstride bytes apart), a the four tokens widened to
// float32, astride bytes apart; out[t*ostride+r].
// Pairs at SI, R12, R13, R10; tokens at DI, R8, R9, R11; AX the offset
// into both (a group is 32 bytes of a pair and of a token), CX its end.

// The pair layout's rearrangement, 32 bytes of rows 2p and 2p+1 (two
// groups of 8) into 64 bytes per turn: the two rows in one register, then
// one permutation (qwords for F16, words for BF16; indices in Z2).

// PAIR_PACK_LOOP(loop, done, PERM): n32 turns from r0 and r1 to dst.
#define PAIR_PACK_LOOP(loop, done, PERM) \
	MOVQ  n32+0(FP), CX            \
	MOVQ  dst+8(FP), DI            \
	MOVQ  r0+16(FP), SI            \
	MOVQ  r1+24(FP), DX            \
	TESTQ CX, CX                   \
	JZ    done                     \
loop:                                  \
	VMOVDQU      (SI), Y0          \
	VINSERTI64X4 $1, (DX), Z0, Z0  \
	PERM         Z0, Z2, Z1        \
	VMOVDQU64    Z1, (DI)          \
	ADDQ         $32, SI           \
	ADDQ         $32, DX           \
	ADDQ         $64, DI           \
	DECQ         CX                \
	JNZ          loop              \
done:                                  \
	VZEROUPPER                     \
	RET

#define PAIRS_SETUP \
	MOVQ w+8(FP), SI          \
	MOVQ wstride+16(FP), BX   \
	SHLQ $1, BX               \
	LEAQ (SI)(BX*1), R12      \
	LEAQ (SI)(BX*2), R13      \
	LEAQ (R12)(BX*2), R10     \
	MOVQ a+24(FP), DI         \
	MOVQ astride+32(FP), DX   \
	LEAQ (DI)(DX*1), R8       \
	LEAQ (DI)(DX*2), R9       \
	LEAQ (R8)(DX*2), R11      \
	ZERO_Z0_15                \
	XORQ AX, AX

// TOKENS4 broadcasts the four tokens' 8 floats at offset off into Z16-Z19.
#define TOKENS4(off) \
	VBROADCASTF32X8 off(DI)(AX*1), Z16  \
	VBROADCASTF32X8 off(R8)(AX*1), Z17  \
	VBROADCASTF32X8 off(R9)(AX*1), Z18  \
	VBROADCASTF32X8 off(R11)(AX*1), Z19

// PAIR4 multiplies the pair in z with the four tokens into Z(a)..Z(d).
#define PAIR4(z, a, b, c, d) \
	VFMADD231PS Z16, z, a \
	VFMADD231PS Z17, z, b \
	VFMADD231PS Z18, z, c \
	VFMADD231PS Z19, z, d

// PAIRS_STORE stores Z(4p+t) (rows 2p | 2p+1 of token t) to out.
#define PAIRS_STORE \
	MOVQ out+40(FP), DI                                    \
	MOVQ ostride+48(FP), R11                               \
	SHLQ $2, R11                                           \
	LEAQ (DI)(R11*1), R8                                   \
	LEAQ (DI)(R11*2), R9                                   \
	LEAQ (R8)(R11*2), R10                                  \
	STORE_PAIR(Z0, Y0, X0, 0(DI), 4(DI), Y26, X26, X27)    \
	STORE_PAIR(Z1, Y1, X1, 0(R8), 4(R8), Y26, X26, X27)    \
	STORE_PAIR(Z2, Y2, X2, 0(R9), 4(R9), Y26, X26, X27)    \
	STORE_PAIR(Z3, Y3, X3, 0(R10), 4(R10), Y26, X26, X27)  \
	STORE_PAIR(Z4, Y4, X4, 8(DI), 12(DI), Y26, X26, X27)   \
	STORE_PAIR(Z5, Y5, X5, 8(R8), 12(R8), Y26, X26, X27)   \
	STORE_PAIR(Z6, Y6, X6, 8(R9), 12(R9), Y26, X26, X27)   \
	STORE_PAIR(Z7, Y7, X7, 8(R10), 12(R10), Y26, X26, X27) \
	STORE_PAIR(Z8, Y8, X8, 16(DI), 20(DI), Y26, X26, X27)  \
	STORE_PAIR(Z9, Y9, X9, 16(R8), 20(R8), Y26, X26, X27)  \
	STORE_PAIR(Z10, Y10, X10, 16(R9), 20(R9), Y26, X26, X27)   \
	STORE_PAIR(Z11, Y11, X11, 16(R10), 20(R10), Y26, X26, X27) \
	STORE_PAIR(Z12, Y12, X12, 24(DI), 28(DI), Y26, X26, X27)   \
	STORE_PAIR(Z13, Y13, X13, 24(R8), 28(R8), Y26, X26, X27)   \
	STORE_PAIR(Z14, Y14, X14, 24(R9), 28(R9), Y26, X26, X27)   \
	STORE_PAIR(Z15, Y15, X15, 24(R10), 28(R10), Y26, X26, X27) \
	VZEROUPPER                                             \
	RET

// func f16PairTile8x4AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·f16PairTile8x4AVX512(SB), NOSPLIT, $0-56
	MOVQ n8+0(FP), CX
	SHLQ $5, CX
	PAIRS_SETUP
	TESTQ CX, CX
	JZ    f16pdone

f16ploop:
	TOKENS4(0)
	VCVTPH2PS (SI)(AX*1), Z20
	VCVTPH2PS (R12)(AX*1), Z21
	PAIR4(Z20, Z0, Z1, Z2, Z3)
	VCVTPH2PS (R13)(AX*1), Z22
	PAIR4(Z21, Z4, Z5, Z6, Z7)
	VCVTPH2PS (R10)(AX*1), Z23
	PAIR4(Z22, Z8, Z9, Z10, Z11)
	PAIR4(Z23, Z12, Z13, Z14, Z15)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  f16ploop

f16pdone:
	PAIRS_STORE

// func bf16PairTile8x4AVX512(n16 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·bf16PairTile8x4AVX512(SB), NOSPLIT, $0-56
	MOVL         $0xFFFF0000, AX
	VPBROADCASTD AX, Z30
	MOVQ         n16+0(FP), CX
	SHLQ         $6, CX
	PAIRS_SETUP
	TESTQ        CX, CX
	JZ           bf16pdone

bf16ploop:
	// Group 2d: the upper words.
	TOKENS4(0)
	VPANDD (SI)(AX*1), Z30, Z20
	VPANDD (R12)(AX*1), Z30, Z21
	PAIR4(Z20, Z0, Z1, Z2, Z3)
	VPANDD (R13)(AX*1), Z30, Z22
	PAIR4(Z21, Z4, Z5, Z6, Z7)
	VPANDD (R10)(AX*1), Z30, Z23
	PAIR4(Z22, Z8, Z9, Z10, Z11)
	PAIR4(Z23, Z12, Z13, Z14, Z15)
	// Group 2d+1: the lower words.
	TOKENS4(32)
	VPSLLD $16, (SI)(AX*1), Z20
	VPSLLD $16, (R12)(AX*1), Z21
	PAIR4(Z20, Z0, Z1, Z2, Z3)
	VPSLLD $16, (R13)(AX*1), Z22
	PAIR4(Z21, Z4, Z5, Z6, Z7)
	VPSLLD $16, (R10)(AX*1), Z23
	PAIR4(Z22, Z8, Z9, Z10, Z11)
	PAIR4(Z23, Z12, Z13, Z14, Z15)
	ADDQ $64, AX
	CMPQ AX, CX
	JLT  bf16ploop

bf16pdone:
	PAIRS_STORE

// Qwords of [r0 g0, r0 g1, r1 g0, r1 g1] into [r0 g0, r1 g0, r0 g1, r1 g1].
DATA f16PairIdx<>+0(SB)/8, $0
DATA f16PairIdx<>+8(SB)/8, $1
DATA f16PairIdx<>+16(SB)/8, $4
DATA f16PairIdx<>+24(SB)/8, $5
DATA f16PairIdx<>+32(SB)/8, $2
DATA f16PairIdx<>+40(SB)/8, $3
DATA f16PairIdx<>+48(SB)/8, $6
DATA f16PairIdx<>+56(SB)/8, $7
GLOBL f16PairIdx<>(SB), RODATA|NOPTR, $64

// func packF16PairAVX512(n32 int, dst, r0, r1 *byte)
TEXT ·packF16PairAVX512(SB), NOSPLIT, $0-32
	VMOVDQU64 f16PairIdx<>(SB), Z2
	PAIR_PACK_LOOP(f16pploop, f16ppdone, VPERMQ)

// Words of [r0 w0..15 | r1 w0..15] into dwords (lower word, upper word):
// (r0 w8+l, r0 wl) for l < 8, then (r1 w8+l, r1 wl).
DATA bf16PairIdx<>+0(SB)/8, $0x0001000900000008
DATA bf16PairIdx<>+8(SB)/8, $0x0003000b0002000a
DATA bf16PairIdx<>+16(SB)/8, $0x0005000d0004000c
DATA bf16PairIdx<>+24(SB)/8, $0x0007000f0006000e
DATA bf16PairIdx<>+32(SB)/8, $0x0011001900100018
DATA bf16PairIdx<>+40(SB)/8, $0x0013001b0012001a
DATA bf16PairIdx<>+48(SB)/8, $0x0015001d0014001c
DATA bf16PairIdx<>+56(SB)/8, $0x0017001f0016001e
GLOBL bf16PairIdx<>(SB), RODATA|NOPTR, $64

// func packBF16PairAVX512(n32 int, dst, r0, r1 *byte)
TEXT ·packBF16PairAVX512(SB), NOSPLIT, $0-32
	VMOVDQU64 bf16PairIdx<>(SB), Z2
	PAIR_PACK_LOOP(bf16pploop, bf16ppdone, VPERMW)

// The 4 x 8 F16 tile over the pair layout: two pairs of rows (w, w +
// 2*wstride) and eight tokens (two quads, a and the 7 after it astride
// bytes apart). Where the widening costs two micro-ops on the FMA ports
// (Intel), one widening per 8 products instead of 4 leaves more of them
// to the FMAs. Pair p's products with token t go to Z(8p+t).
// Pairs at SI, R12; tokens at DI, R8, R9, R11, R10, R13, BX, DX.

// TOKENS8 broadcasts the eight tokens' 8 floats into Z22-Z29.
#define TOKENS8 \
	VBROADCASTF32X8 (DI)(AX*1), Z22  \
	VBROADCASTF32X8 (R8)(AX*1), Z23  \
	VBROADCASTF32X8 (R9)(AX*1), Z24  \
	VBROADCASTF32X8 (R11)(AX*1), Z25 \
	VBROADCASTF32X8 (R10)(AX*1), Z26 \
	VBROADCASTF32X8 (R13)(AX*1), Z27 \
	VBROADCASTF32X8 (BX)(AX*1), Z28  \
	VBROADCASTF32X8 (DX)(AX*1), Z29

// PAIR8 multiplies the pair in z with the eight tokens into Z(a)..Z(a+7).
#define PAIR8(z, a0, a1, a2, a3, a4, a5, a6, a7) \
	VFMADD231PS Z22, z, a0 \
	VFMADD231PS Z23, z, a1 \
	VFMADD231PS Z24, z, a2 \
	VFMADD231PS Z25, z, a3 \
	VFMADD231PS Z26, z, a4 \
	VFMADD231PS Z27, z, a5 \
	VFMADD231PS Z28, z, a6 \
	VFMADD231PS Z29, z, a7

// func f16PairTile4x8AVX512(n8 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
TEXT ·f16PairTile4x8AVX512(SB), NOSPLIT, $0-56
	MOVQ   n8+0(FP), CX
	SHLQ   $5, CX
	MOVQ   w+8(FP), SI
	MOVQ   wstride+16(FP), BX
	LEAQ   (SI)(BX*2), R12
	MOVQ   a+24(FP), DI
	MOVQ   astride+32(FP), DX
	LEAQ   (DI)(DX*1), R8
	LEAQ   (DI)(DX*2), R9
	LEAQ   (R8)(DX*2), R11
	LEAQ   (DI)(DX*4), R10
	LEAQ   (R8)(DX*4), R13
	LEAQ   (R9)(DX*4), BX
	LEAQ   (R11)(DX*4), DX
	ZERO_Z0_15
	XORQ   AX, AX
	TESTQ  CX, CX
	JZ     f16p8done

f16p8loop:
	VCVTPH2PS (SI)(AX*1), Z20
	VCVTPH2PS (R12)(AX*1), Z21
	TOKENS8
	PAIR8(Z20, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	PAIR8(Z21, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  f16p8loop

f16p8done:
	MOVQ out+40(FP), DI
	MOVQ ostride+48(FP), R11
	SHLQ $2, R11
	LEAQ (DI)(R11*1), R8
	LEAQ (DI)(R11*2), R9
	LEAQ (R8)(R11*2), R10
	LEAQ (DI)(R11*4), AX
	LEAQ (R8)(R11*4), BX
	LEAQ (R9)(R11*4), CX
	LEAQ (R10)(R11*4), DX
	STORE_PAIR(Z0, Y0, X0, 0(DI), 4(DI), Y26, X26, X27)
	STORE_PAIR(Z1, Y1, X1, 0(R8), 4(R8), Y26, X26, X27)
	STORE_PAIR(Z2, Y2, X2, 0(R9), 4(R9), Y26, X26, X27)
	STORE_PAIR(Z3, Y3, X3, 0(R10), 4(R10), Y26, X26, X27)
	STORE_PAIR(Z4, Y4, X4, 0(AX), 4(AX), Y26, X26, X27)
	STORE_PAIR(Z5, Y5, X5, 0(BX), 4(BX), Y26, X26, X27)
	STORE_PAIR(Z6, Y6, X6, 0(CX), 4(CX), Y26, X26, X27)
	STORE_PAIR(Z7, Y7, X7, 0(DX), 4(DX), Y26, X26, X27)
	STORE_PAIR(Z8, Y8, X8, 8(DI), 12(DI), Y26, X26, X27)
	STORE_PAIR(Z9, Y9, X9, 8(R8), 12(R8), Y26, X26, X27)
	STORE_PAIR(Z10, Y10, X10, 8(R9), 12(R9), Y26, X26, X27)
	STORE_PAIR(Z11, Y11, X11, 8(R10), 12(R10), Y26, X26, X27)
	STORE_PAIR(Z12, Y12, X12, 8(AX), 12(AX), Y26, X26, X27)
	STORE_PAIR(Z13, Y13, X13, 8(BX), 12(BX), Y26, X26, X27)
	STORE_PAIR(Z14, Y14, X14, 8(CX), 12(CX), Y26, X26, X27)
	STORE_PAIR(Z15, Y15, X15, 8(DX), 12(DX), Y26, X26, X27)
	VZEROUPPER
	RET

// The BF16 tiles on VDPBF16PS over the same layout (tile_bf16dot.go): one
// instruction adds to each float32 lane the products of a dword's upper
// words (element l) and then of its lower words (element l+8), the
// 8-lane order of the FMA tiles above in half the instructions. The
// tokens come as bf16DotQuad (BF16, interleaved the same way): a group of
// 16 elements is 32 bytes of a token and 64 of a pair, so AX runs over
// the tokens and pairs are read at twice it. Go's assembler does not know
// the instruction: it is spelled in bytes (the comment gives its operands
// in Go's order: token, weights, accumulator).

// func bf16DotTile8x4AVX512(n16 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
// Pair p's products with token t go to Z(4p+t), as PAIRS_STORE stores.
TEXT ·bf16DotTile8x4AVX512(SB), NOSPLIT, $0-56
	MOVQ  n16+0(FP), CX
	SHLQ  $5, CX
	PAIRS_SETUP
	TESTQ CX, CX
	JZ    bf16dotdone

bf16dotloop:
	VBROADCASTF32X8 (DI)(AX*1), Z16
	VBROADCASTF32X8 (R8)(AX*1), Z17
	VBROADCASTF32X8 (R9)(AX*1), Z18
	VBROADCASTF32X8 (R11)(AX*1), Z19
	VMOVDQU32       (SI)(AX*2), Z20
	VMOVDQU32       (R12)(AX*2), Z21
	VMOVDQU32       (R13)(AX*2), Z22
	VMOVDQU32       (R10)(AX*2), Z23
	BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x40; BYTE $0x52; BYTE $0xc0 // VDPBF16PS Z16, Z20, Z0
	BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x40; BYTE $0x52; BYTE $0xc9 // VDPBF16PS Z17, Z20, Z1
	BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x40; BYTE $0x52; BYTE $0xd2 // VDPBF16PS Z18, Z20, Z2
	BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x40; BYTE $0x52; BYTE $0xdb // VDPBF16PS Z19, Z20, Z3
	BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x40; BYTE $0x52; BYTE $0xe0 // VDPBF16PS Z16, Z21, Z4
	BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x40; BYTE $0x52; BYTE $0xe9 // VDPBF16PS Z17, Z21, Z5
	BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x40; BYTE $0x52; BYTE $0xf2 // VDPBF16PS Z18, Z21, Z6
	BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x40; BYTE $0x52; BYTE $0xfb // VDPBF16PS Z19, Z21, Z7
	BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x40; BYTE $0x52; BYTE $0xc0 // VDPBF16PS Z16, Z22, Z8
	BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x40; BYTE $0x52; BYTE $0xc9 // VDPBF16PS Z17, Z22, Z9
	BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x40; BYTE $0x52; BYTE $0xd2 // VDPBF16PS Z18, Z22, Z10
	BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x40; BYTE $0x52; BYTE $0xdb // VDPBF16PS Z19, Z22, Z11
	BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x40; BYTE $0x52; BYTE $0xe0 // VDPBF16PS Z16, Z23, Z12
	BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x40; BYTE $0x52; BYTE $0xe9 // VDPBF16PS Z17, Z23, Z13
	BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x40; BYTE $0x52; BYTE $0xf2 // VDPBF16PS Z18, Z23, Z14
	BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x40; BYTE $0x52; BYTE $0xfb // VDPBF16PS Z19, Z23, Z15
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  bf16dotloop

bf16dotdone:
	PAIRS_STORE

// func bf16DotTile4x4AVX512(n16 int, w *byte, wstride int, a *byte, astride int, out *float32, ostride int)
// The 256-bit tile of the avx512vnni set: two pairs of rows (SI, R12),
// each row in its own register; row r's products with token t go to
// Y(4t+r).
TEXT ·bf16DotTile4x4AVX512(SB), NOSPLIT, $0-56
	MOVQ  n16+0(FP), CX
	SHLQ  $5, CX
	PAIRS_SETUP
	TESTQ CX, CX
	JZ    bf16dot4done

bf16dot4loop:
	VMOVDQU32 (DI)(AX*1), Y16
	VMOVDQU32 (R8)(AX*1), Y17
	VMOVDQU32 (R9)(AX*1), Y18
	VMOVDQU32 (R11)(AX*1), Y19
	VMOVDQU32 (SI)(AX*2), Y20
	VMOVDQU32 32(SI)(AX*2), Y21
	VMOVDQU32 (R12)(AX*2), Y22
	VMOVDQU32 32(R12)(AX*2), Y23
	BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x20; BYTE $0x52; BYTE $0xc0 // VDPBF16PS Y16, Y20, Y0
	BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x20; BYTE $0x52; BYTE $0xc8 // VDPBF16PS Y16, Y21, Y1
	BYTE $0x62; BYTE $0xb2; BYTE $0x4e; BYTE $0x20; BYTE $0x52; BYTE $0xd0 // VDPBF16PS Y16, Y22, Y2
	BYTE $0x62; BYTE $0xb2; BYTE $0x46; BYTE $0x20; BYTE $0x52; BYTE $0xd8 // VDPBF16PS Y16, Y23, Y3
	BYTE $0x62; BYTE $0xb2; BYTE $0x5e; BYTE $0x20; BYTE $0x52; BYTE $0xe1 // VDPBF16PS Y17, Y20, Y4
	BYTE $0x62; BYTE $0xb2; BYTE $0x56; BYTE $0x20; BYTE $0x52; BYTE $0xe9 // VDPBF16PS Y17, Y21, Y5
	BYTE $0x62; BYTE $0xb2; BYTE $0x4e; BYTE $0x20; BYTE $0x52; BYTE $0xf1 // VDPBF16PS Y17, Y22, Y6
	BYTE $0x62; BYTE $0xb2; BYTE $0x46; BYTE $0x20; BYTE $0x52; BYTE $0xf9 // VDPBF16PS Y17, Y23, Y7
	BYTE $0x62; BYTE $0x32; BYTE $0x5e; BYTE $0x20; BYTE $0x52; BYTE $0xc2 // VDPBF16PS Y18, Y20, Y8
	BYTE $0x62; BYTE $0x32; BYTE $0x56; BYTE $0x20; BYTE $0x52; BYTE $0xca // VDPBF16PS Y18, Y21, Y9
	BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x20; BYTE $0x52; BYTE $0xd2 // VDPBF16PS Y18, Y22, Y10
	BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x20; BYTE $0x52; BYTE $0xda // VDPBF16PS Y18, Y23, Y11
	BYTE $0x62; BYTE $0x32; BYTE $0x5e; BYTE $0x20; BYTE $0x52; BYTE $0xe3 // VDPBF16PS Y19, Y20, Y12
	BYTE $0x62; BYTE $0x32; BYTE $0x56; BYTE $0x20; BYTE $0x52; BYTE $0xeb // VDPBF16PS Y19, Y21, Y13
	BYTE $0x62; BYTE $0x32; BYTE $0x4e; BYTE $0x20; BYTE $0x52; BYTE $0xf3 // VDPBF16PS Y19, Y22, Y14
	BYTE $0x62; BYTE $0x32; BYTE $0x46; BYTE $0x20; BYTE $0x52; BYTE $0xfb // VDPBF16PS Y19, Y23, Y15
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  bf16dot4loop

bf16dot4done:
	MOVQ out+40(FP), DI
	MOVQ ostride+48(FP), R11
	SHLQ $2, R11
	TOKEN_ROWS4(Y0, Y1, Y2, Y3, X0, X1, X2, X3, DI, X26)
	ADDQ R11, DI
	TOKEN_ROWS4(Y4, Y5, Y6, Y7, X4, X5, X6, X7, DI, X26)
	ADDQ R11, DI
	TOKEN_ROWS4(Y8, Y9, Y10, Y11, X8, X9, X10, X11, DI, X26)
	ADDQ R11, DI
	TOKEN_ROWS4(Y12, Y13, Y14, Y15, X12, X13, X14, X15, DI, X26)
	VZEROUPPER
	RET

// func interleaveBF16AVX512(n16 int, dst, src *byte)
// interleaveBF16 on n16 pieces of 16 elements: one word permutation each
// (the first half of bf16PairIdx).
TEXT ·interleaveBF16AVX512(SB), NOSPLIT, $0-24
	MOVQ      n16+0(FP), CX
	MOVQ      dst+8(FP), DI
	MOVQ      src+16(FP), SI
	VMOVDQU32 bf16PairIdx<>(SB), Y2
	TESTQ     CX, CX
	JZ        ilvdone

ilvloop:
	VPERMW    (SI), Y2, Y1
	VMOVDQU32 Y1, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       ilvloop

ilvdone:
	VZEROUPPER
	RET

// func bf16MinExpAVX512(n32 int, src *byte) uint16
// bf16MinExp over n32 pieces of 32 values: the exponent fields of the
// nonzero values (VPTESTMW's mask) into a running minimum, then its least
// word (VPHMINPOSUW).
TEXT ·bf16MinExpAVX512(SB), NOSPLIT, $0-18
	MOVQ         n32+0(FP), CX
	MOVQ         src+8(FP), SI
	MOVL         $0x7fff7fff, AX
	VPBROADCASTD AX, Z2
	MOVL         $0x00ff00ff, AX
	VPBROADCASTD AX, Z1
	TESTQ        CX, CX
	JZ           minexpdone

minexploop:
	VPANDD    (SI), Z2, Z0
	VPTESTMW  Z0, Z0, K1
	VPSRLW    $7, Z0, Z0
	VPMINUW   Z0, Z1, K1, Z1
	ADDQ      $64, SI
	DECQ      CX
	JNZ       minexploop

minexpdone:
	VEXTRACTI64X4 $1, Z1, Y0
	VPMINUW       Y0, Y1, Y1
	VEXTRACTI128  $1, Y1, X0
	VPMINUW       X0, X1, X1
	VPHMINPOSUW   X1, X1
	VMOVD         X1, AX
	MOVW          AX, ret+16(FP)
	VZEROUPPER
	RET
