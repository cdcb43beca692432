//go:build !purego

#include "textflag.h"

// func transpose8x8AVX2(dst, src *float32, rows, cols int)
// rows and cols multiples of 8: each 8 x 8 block of src (rows r0.., columns
// c0..) goes through the unpack/shuffle/lane-swap transpose to dst's rows
// c0.., columns r0...
TEXT ·transpose8x8AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ rows+16(FP), R8
	MOVQ cols+24(FP), R9
	SHLQ $2, R8 // dst row stride in bytes
	SHLQ $2, R9 // src row stride in bytes
	XORQ AX, AX // r0 in bytes of a dst row (4*r0)

rowblock:
	CMPQ AX, R8
	JGE  done
	// R10: src + r0*stride (the block row), R11: dst + 4*r0
	MOVQ AX, R10
	IMULQ R9, R10
	SHRQ $2, R10
	ADDQ SI, R10
	LEAQ (DI)(AX*1), R11
	XORQ BX, BX // 4*c0

colblock:
	CMPQ BX, R9
	JGE  nextrow
	LEAQ (R10)(BX*1), R12        // src row r0, column c0
	LEAQ (R12)(R9*4), R13        // row r0+4
	VMOVUPS (R12), Y0
	VMOVUPS (R12)(R9*1), Y1
	VMOVUPS (R12)(R9*2), Y2
	LEAQ (R12)(R9*2), R14
	VMOVUPS (R14)(R9*1), Y3
	VMOVUPS (R13), Y4
	VMOVUPS (R13)(R9*1), Y5
	VMOVUPS (R13)(R9*2), Y6
	LEAQ (R13)(R9*2), R14
	VMOVUPS (R14)(R9*1), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	// dst row c0+i = R11 + (c0+i)*rows*4
	MOVQ BX, R12
	SHRQ $2, R12
	IMULQ R8, R12
	ADDQ R11, R12                // dst row c0
	LEAQ (R12)(R8*4), R13        // dst row c0+4
	VMOVUPS Y8, (R12)
	VMOVUPS Y9, (R12)(R8*1)
	VMOVUPS Y10, (R12)(R8*2)
	LEAQ (R12)(R8*2), R14
	VMOVUPS Y11, (R14)(R8*1)
	VMOVUPS Y12, (R13)
	VMOVUPS Y13, (R13)(R8*1)
	VMOVUPS Y14, (R13)(R8*2)
	LEAQ (R13)(R8*2), R14
	VMOVUPS Y15, (R14)(R8*1)
	ADDQ $32, BX
	JMP  colblock

nextrow:
	ADDQ $32, AX
	JMP  rowblock

done:
	VZEROUPPER
	RET
