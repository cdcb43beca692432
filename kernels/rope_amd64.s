//go:build !purego

#include "textflag.h"

// RoPE on AVX2 (rope_amd64.go): ropeGeneric's two fused multiply-adds per
// pair, eight floats at a time. The even lane of a pair gets x0*c - x1*s
// with x0*c fused (VFMSUB231PS over the rounded x1*s), the odd lane x0*s +
// x1*c with x0*s fused (VFMADD231PS over the rounded x1*c).

// func ropeNormAVX2(x, cs *float32, nHeads, headStride, dims8 int)
// Adjacent pairs (x[2i], x[2i+1]); cs interleaved cos, sin per pair.
TEXT ·ropeNormAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ cs+8(FP), SI
	MOVQ nHeads+16(FP), DX
	MOVQ headStride+24(FP), R8

rnhead:
	MOVQ DI, AX
	MOVQ SI, BX
	MOVQ dims8+32(FP), CX

rnloop:
	VMOVUPS     (AX), Y0           // x0 x1 per pair
	VMOVSLDUP   (BX), Y1           // c c
	VMOVSHDUP   (BX), Y2           // s s
	VPERMILPS   $0xB1, Y0, Y3      // x1 x0
	VMULPS      Y1, Y0, Y4         // x0*c | x1*c
	VMULPS      Y2, Y3, Y5         // x1*s | x0*s
	VFMSUB231PS Y1, Y0, Y5         // even: x0*c - x1*s
	VFMADD231PS Y2, Y3, Y4         // odd: x0*s + x1*c
	VBLENDPS    $0xAA, Y4, Y5, Y5
	VMOVUPS     Y5, (AX)
	ADDQ        $32, AX
	ADDQ        $32, BX
	DECQ        CX
	JNZ         rnloop

	ADDQ R8, DI
	DECQ DX
	JNZ  rnhead
	VZEROUPPER
	RET

// func ropeNeoXAVX2(x, c, s *float32, nHeads, headStride, half8 int)
// NeoX pairs (x[i], x[i+half]); c and s the pairs' cos and sin apart.
TEXT ·ropeNeoXAVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), DI
	MOVQ nHeads+24(FP), DX
	MOVQ headStride+32(FP), R8
	MOVQ half8+40(FP), R9
	SHLQ $5, R9                    // bytes of half a rotation

rxhead:
	MOVQ DI, AX
	MOVQ c+8(FP), BX
	MOVQ s+16(FP), SI
	MOVQ half8+40(FP), CX

rxloop:
	VMOVUPS     (AX), Y0           // x0
	VMOVUPS     (AX)(R9*1), Y1     // x1
	VMOVUPS     (BX), Y2           // c
	VMOVUPS     (SI), Y3           // s
	VMULPS      Y3, Y1, Y4         // x1*s
	VMULPS      Y2, Y1, Y5         // x1*c
	VFMSUB231PS Y2, Y0, Y4         // x0*c - x1*s
	VFMADD231PS Y3, Y0, Y5         // x0*s + x1*c
	VMOVUPS     Y4, (AX)
	VMOVUPS     Y5, (AX)(R9*1)
	ADDQ        $32, AX
	ADDQ        $32, BX
	ADDQ        $32, SI
	DECQ        CX
	JNZ         rxloop

	ADDQ R8, DI
	DECQ DX
	JNZ  rxhead
	VZEROUPPER
	RET
