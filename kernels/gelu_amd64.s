//go:build !purego

#include "textflag.h"

// geluC<>: +0 -10.0, +4 10.0 (broadcast).
DATA geluC<>+0(SB)/4, $0xc1200000
DATA geluC<>+4(SB)/4, $0x41200000
GLOBL geluC<>(SB), RODATA|NOPTR, $8

// GELU8 sets Y3 to gelu of the eight inputs at (SI)(AX*4) (Y0: the
// inputs; Y1, Y2, Y4, Y5 scratch).
#define GELU8 \
	VMOVUPS    (SI)(AX*4), Y0          \
	VCVTPS2PH  $0, Y0, X1              \
	VPMOVZXWD  X1, Y1                  \
	VPCMPEQD   Y2, Y2, Y2              \
	VXORPS     Y3, Y3, Y3              \
	VGATHERDPS Y2, (R8)(Y1*4), Y3      \
	VCMPPS     $0x1d, Y15, Y0, Y4      \
	VBLENDVPS  Y4, Y0, Y3, Y3          \
	VCMPPS     $0x12, Y14, Y0, Y5      \
	VANDNPS    Y3, Y5, Y3

// func gegluAVX2(n8 int, out, x, up, tab *float32)
//
// Per eight elements: VCVTPS2PH rounds x to f16 (nearest even), the bits
// index the table (VGATHERDPS), then x <= -10 gives 0 and x >= 10 gives x
// (ordered compares: a NaN takes the table, as the generic code does).
TEXT ·gegluAVX2(SB), NOSPLIT, $0-40
	MOVQ         n8+0(FP), CX
	MOVQ         out+8(FP), DX
	MOVQ         x+16(FP), SI
	MOVQ         up+24(FP), DI
	MOVQ         tab+32(FP), R8
	VBROADCASTSS geluC<>+0(SB), Y14
	VBROADCASTSS geluC<>+4(SB), Y15
	XORQ         AX, AX
	TESTQ        DI, DI
	JZ           gelu

geglu:
	GELU8
	VMULPS    (DI)(AX*4), Y3, Y3
	VMOVUPS   Y3, (DX)(AX*4)
	ADDQ      $8, AX
	CMPQ      AX, CX
	JLT       geglu
	VZEROUPPER
	RET

gelu:
	GELU8
	VMOVUPS   Y3, (DX)(AX*4)
	ADDQ      $8, AX
	CMPQ      AX, CX
	JLT       gelu
	VZEROUPPER
	RET
