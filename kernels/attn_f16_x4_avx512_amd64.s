//go:build !purego

#include "textflag.h"

// The one-row flash-attention value update (madF16RowsGeneric) for four
// query heads of one KV head on 512-bit registers: each cached value row is
// widened once for the four heads, and a head's 64 f16 accumulators sit in
// four zmm registers (the ymm kernels hold 8 lanes per register, so their
// widening and rounding conversions cost twice the operations). Every
// element takes the generic steps in row order: scaled and rounded to f16
// when its head's factor ms is not 1, then a float32 FMA with the row and
// rounded to f16 again; lanes are independent, so the width does not
// change the bits.

// MS_CHECK jumps to label when the head's factor of row DX (at MS) is not
// exactly 1 (NaN included); X30 holds 1.
#define MS_CHECK(MS, label) \
	VMOVSS   (MS)(DX*4), X29 \
	VUCOMISS X30, X29        \
	JNE      label           \
	JPS      label

// ROUND16 rounds the float32 lanes of A to f16 and back (through Y).
#define ROUND16(A, Y) \
	VCVTPS2PH $0, A, Y \
	VCVTPH2PS Y, A

// SCALE4 multiplies a head's accumulators by its factor ms (in X29, the
// value MS_CHECK loaded), each product rounded to f16 (ggml_vec_scale_f16),
// and jumps back to next.
#define SCALE4(a0, a1, a2, a3, next) \
	VBROADCASTSS X29, Z28 \
	VMULPS  Z28, a0, a0 \
	ROUND16(a0, Y20)    \
	VMULPS  Z28, a1, a1 \
	ROUND16(a1, Y21)    \
	VMULPS  Z28, a2, a2 \
	ROUND16(a2, Y22)    \
	VMULPS  Z28, a3, a3 \
	ROUND16(a3, Y23)    \
	JMP     next

// MAD4 adds the widened row Z16-Z19 times the head's weight VS to its
// accumulators, each sum rounded to f16 (ggml_vec_mad_f16).
#define MAD4(VS, a0, a1, a2, a3) \
	VFMADD231PS VS, Z16, a0 \
	ROUND16(a0, Y20)        \
	VFMADD231PS VS, Z17, a1 \
	ROUND16(a1, Y21)        \
	VFMADD231PS VS, Z18, a2 \
	ROUND16(a2, Y22)        \
	VFMADD231PS VS, Z19, a3 \
	ROUND16(a3, Y23)

// ACC_LOAD4 widens a head's 64 f16 accumulators (at the pointer in ARG)
// into a0..a3; ACC_STORE4 stores them back (exactly: they hold f16 values).
#define ACC_LOAD4(ARG, a0, a1, a2, a3) \
	MOVQ      ARG, AX     \
	VCVTPH2PS 0(AX), a0   \
	VCVTPH2PS 32(AX), a1  \
	VCVTPH2PS 64(AX), a2  \
	VCVTPH2PS 96(AX), a3

#define ACC_STORE4(ARG, a0, a1, a2, a3) \
	MOVQ      ARG, AX         \
	VCVTPS2PH $0, a0, 0(AX)   \
	VCVTPS2PH $0, a1, 32(AX)  \
	VCVTPS2PH $0, a2, 64(AX)  \
	VCVTPS2PH $0, a3, 96(AX)

// func madF16Rows4AVX512(acc0, acc1, acc2, acc3, v *uint16, stride, rows int, ms0, ms1, ms2, ms3, vs0, vs1, vs2, vs3 *float32)
// 64 accumulators per head; stride in bytes; rows >= 1.
TEXT ·madF16Rows4AVX512(SB), NOSPLIT, $0-120
	ACC_LOAD4(acc0+0(FP), Z0, Z1, Z2, Z3)
	ACC_LOAD4(acc1+8(FP), Z4, Z5, Z6, Z7)
	ACC_LOAD4(acc2+16(FP), Z8, Z9, Z10, Z11)
	ACC_LOAD4(acc3+24(FP), Z12, Z13, Z14, Z15)
	MOVQ v+32(FP), R8
	MOVQ stride+40(FP), BX
	MOVQ rows+48(FP), CX
	MOVQ ms0+56(FP), R9
	MOVQ ms1+64(FP), R10
	MOVQ ms2+72(FP), R11
	MOVQ ms3+80(FP), R12
	MOVQ vs0+88(FP), R13
	MOVQ vs1+96(FP), R14
	MOVQ vs2+104(FP), SI
	MOVQ vs3+112(FP), DI
	MOVL $0x3f800000, AX
	VMOVD AX, X30
	XORQ DX, DX

m4row:
	MS_CHECK(R9, m4scale0)

m4check1:
	MS_CHECK(R10, m4scale1)

m4check2:
	MS_CHECK(R11, m4scale2)

m4check3:
	MS_CHECK(R12, m4scale3)

m4mad:
	VCVTPH2PS    0(R8), Z16
	VCVTPH2PS    32(R8), Z17
	VCVTPH2PS    64(R8), Z18
	VCVTPH2PS    96(R8), Z19
	VBROADCASTSS (R13)(DX*4), Z24
	VBROADCASTSS (R14)(DX*4), Z25
	VBROADCASTSS (SI)(DX*4), Z26
	VBROADCASTSS (DI)(DX*4), Z27
	MAD4(Z24, Z0, Z1, Z2, Z3)
	MAD4(Z25, Z4, Z5, Z6, Z7)
	MAD4(Z26, Z8, Z9, Z10, Z11)
	MAD4(Z27, Z12, Z13, Z14, Z15)
	ADDQ         BX, R8
	INCQ         DX
	CMPQ         DX, CX
	JLT          m4row

	ACC_STORE4(acc0+0(FP), Z0, Z1, Z2, Z3)
	ACC_STORE4(acc1+8(FP), Z4, Z5, Z6, Z7)
	ACC_STORE4(acc2+16(FP), Z8, Z9, Z10, Z11)
	ACC_STORE4(acc3+24(FP), Z12, Z13, Z14, Z15)
	VZEROUPPER
	RET

m4scale0:
	SCALE4(Z0, Z1, Z2, Z3, m4check1)

m4scale1:
	SCALE4(Z4, Z5, Z6, Z7, m4check2)

m4scale2:
	SCALE4(Z8, Z9, Z10, Z11, m4check3)

m4scale3:
	SCALE4(Z12, Z13, Z14, Z15, m4mad)
