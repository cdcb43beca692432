//go:build !purego

#include "textflag.h"

// AVX2 activation quantizers, nb whole blocks each, with the arithmetic of
// ggml's x86 quantize_row_q8_0/q8_1 (see acts_q8.go): d = amax/127,
// multiplier 127/amax (0 for an all-zero block), round half to even (the
// default MXCSR mode of VCVTPS2DQ), and for Q8_1 s = fp16(d * sum(q)).

// permQ8 undoes the lane interleaving of VPACKSSDW + VPACKSSWB.
DATA permQ8<>+0(SB)/4, $0
DATA permQ8<>+4(SB)/4, $4
DATA permQ8<>+8(SB)/4, $1
DATA permQ8<>+12(SB)/4, $5
DATA permQ8<>+16(SB)/4, $2
DATA permQ8<>+20(SB)/4, $6
DATA permQ8<>+24(SB)/4, $3
DATA permQ8<>+28(SB)/4, $7
GLOBL permQ8<>(SB), RODATA|NOPTR, $32

// Y15 = abs mask, X14 = 127.0, Y13 = permQ8, X12 = 0.
#define Q8_CONSTS \
	MOVL         $0x7fffffff, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15        \
	MOVL         $0x42fe0000, AX \
	VMOVD        AX, X14         \
	VMOVDQU      permQ8<>(SB), Y13 \
	VXORPS       X12, X12, X12

// Loads 32 floats at SI into Y0-Y3, sets X5 = d = amax/127 and Y7 = the
// multiplier, and scales and converts Y0-Y3 to int32.
#define Q8_BLOCK_INTS \
	VMOVUPS      0(SI), Y0        \
	VMOVUPS      32(SI), Y1       \
	VMOVUPS      64(SI), Y2       \
	VMOVUPS      96(SI), Y3       \
	VANDPS       Y15, Y0, Y4      \
	VANDPS       Y15, Y1, Y5      \
	VMAXPS       Y5, Y4, Y4       \
	VANDPS       Y15, Y2, Y5      \
	VANDPS       Y15, Y3, Y6      \
	VMAXPS       Y6, Y5, Y5       \
	VMAXPS       Y5, Y4, Y4       \
	VEXTRACTF128 $1, Y4, X5       \
	VMAXPS       X5, X4, X4       \
	VMOVHLPS     X4, X4, X5       \
	VMAXPS       X5, X4, X4       \
	VMOVSHDUP    X4, X5           \
	VMAXSS       X5, X4, X4       \
	VDIVSS       X14, X4, X5      \
	VDIVSS       X4, X14, X7      \
	VCMPSS       $4, X12, X4, X8  \
	VANDPS       X8, X7, X7       \
	VBROADCASTSS X7, Y7           \
	VMULPS       Y7, Y0, Y0       \
	VMULPS       Y7, Y1, Y1       \
	VMULPS       Y7, Y2, Y2       \
	VMULPS       Y7, Y3, Y3       \
	VCVTPS2DQ    Y0, Y0           \
	VCVTPS2DQ    Y1, Y1           \
	VCVTPS2DQ    Y2, Y2           \
	VCVTPS2DQ    Y3, Y3

// Packs the int32 codes in Y0-Y3 into 32 bytes in Y0, element order.
#define Q8_PACK \
	VPACKSSDW Y1, Y0, Y0  \
	VPACKSSDW Y3, Y2, Y2  \
	VPACKSSWB Y2, Y0, Y0  \
	VPERMD    Y0, Y13, Y0

// Stores fp16(X) at mem (X6 scratch).
#define PUT_F16(X, mem) \
	VCVTPS2PH $0, X, X6 \
	VMOVD     X6, AX    \
	MOVW      AX, mem

// func quantizeQ8_0AVX2(nb int, x *float32, y *byte)
TEXT ·quantizeQ8_0AVX2(SB), NOSPLIT, $0-24
	MOVQ nb+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	Q8_CONSTS
	TESTQ CX, CX
	JZ    q80done

q80loop:
	Q8_BLOCK_INTS
	PUT_F16(X5, 0(DI))
	Q8_PACK
	VMOVDQU Y0, 2(DI)
	ADDQ $128, SI
	ADDQ $34, DI
	DECQ CX
	JNZ  q80loop

q80done:
	VZEROUPPER
	RET

// func quantizeQ8_1AVX2(nb int, x *float32, y *byte)
TEXT ·quantizeQ8_1AVX2(SB), NOSPLIT, $0-24
	MOVQ nb+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	Q8_CONSTS
	TESTQ CX, CX
	JZ    q81done

q81loop:
	Q8_BLOCK_INTS
	PUT_F16(X5, 0(DI))
	// s = fp16(d * sum(q)), the integer sum reduced as ggml's hsum_i32_8.
	VPADDD       Y1, Y0, Y8
	VPADDD       Y3, Y2, Y9
	VPADDD       Y9, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD       X9, X8, X8
	VPSHUFD      $0x4e, X8, X9
	VPADDD       X9, X8, X8
	VPSHUFD      $0xb1, X8, X9
	VPADDD       X9, X8, X8
	VCVTDQ2PS    X8, X8
	VMULSS       X8, X5, X8
	PUT_F16(X8, 2(DI))
	Q8_PACK
	VMOVDQU Y0, 4(DI)
	ADDQ $128, SI
	ADDQ $36, DI
	DECQ CX
	JNZ  q81loop

q81done:
	VZEROUPPER
	RET

// Q8_K (quant.QuantizeRowQ8_K, ggml's quantize_row_q8_K_ref): the element
// of largest magnitude (the first one on ties) maps to -127, codes are
// nearest(iscale*x) with iscale = -127/max, d = 1/iscale, bsums the sums of
// each 16 codes; an all-zero block is all zero bytes.

// Converts the 32 floats at off(SI) times Y4 to int32 codes in Y0-Y3, packs
// them to 32 bytes at 4+off/4(DI) and leaves the two 16-element group sums
// (8 int32 lanes each) in g0, g1.
#define Q8K_32(off, doff, g0, g1) \
	VMULPS    off(SI), Y4, Y0     \
	VMULPS    off+32(SI), Y4, Y1  \
	VMULPS    off+64(SI), Y4, Y2  \
	VMULPS    off+96(SI), Y4, Y3  \
	VCVTPS2DQ Y0, Y0              \
	VCVTPS2DQ Y1, Y1              \
	VCVTPS2DQ Y2, Y2              \
	VCVTPS2DQ Y3, Y3              \
	VPADDD    Y1, Y0, g0          \
	VPADDD    Y3, Y2, g1          \
	VPACKSSDW Y1, Y0, Y0          \
	VPACKSSDW Y3, Y2, Y2          \
	VPACKSSWB Y2, Y0, Y0          \
	VPERMD    Y0, Y12, Y0         \
	VMOVDQU   Y0, doff(DI)

// 64 elements starting at float off: codes and their four bsums.
#define Q8K_64(off, doff, boff) \
	Q8K_32(off, doff, Y8, Y9)              \
	Q8K_32(off+128, doff+32, Y10, Y11)     \
	VPHADDD      Y9, Y8, Y8                \
	VPHADDD      Y11, Y10, Y10             \
	VPHADDD      Y10, Y8, Y8               \
	VEXTRACTI128 $1, Y8, X9                \
	VPADDD       X9, X8, X8                \
	VPACKSSDW    X8, X8, X8                \
	VMOVQ        X8, boff(DI)

// func quantizeQ8_KAVX2(nb int, x *float32, y *byte)
TEXT ·quantizeQ8_KAVX2(SB), NOSPLIT, $0-24
	MOVQ nb+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVL         $0x7fffffff, AX
	VMOVD        AX, X15
	VPBROADCASTD X15, Y15
	MOVL         $0xc2fe0000, AX // -127.0
	VMOVD        AX, X14
	MOVL         $0x3f800000, AX // 1.0
	VMOVD        AX, X13
	VMOVDQU      permQ8<>(SB), Y12
	TESTQ CX, CX
	JZ    q8kdone

q8kloop:
	// amax over the 256 values
	VXORPS Y4, Y4, Y4
	XORQ   AX, AX

q8kmax:
	VANDPS (SI)(AX*1), Y15, Y5
	VMAXPS Y5, Y4, Y4
	ADDQ   $32, AX
	CMPQ   AX, $1024
	JNE    q8kmax
	VEXTRACTF128 $1, Y4, X5
	VMAXPS       X5, X4, X4
	VMOVHLPS     X4, X4, X5
	VMAXPS       X5, X4, X4
	VMOVSHDUP    X4, X5
	VMAXSS       X5, X4, X4
	VXORPS       X5, X5, X5
	VUCOMISS     X5, X4
	JEQ          q8kzero
	VBROADCASTSS X4, Y4

	// first element whose magnitude is amax
	XORQ AX, AX

q8kfind:
	VANDPS    (SI)(AX*1), Y15, Y5
	VCMPPS    $0, Y4, Y5, Y6
	VMOVMSKPS Y6, DX
	TESTL     DX, DX
	JNZ       q8kfound
	ADDQ      $32, AX
	JMP       q8kfind

q8kfound:
	BSFL   DX, DX
	LEAQ   (AX)(DX*4), AX
	VMOVSS (SI)(AX*1), X5       // max (signed)
	VDIVSS X5, X14, X6          // iscale = -127/max
	VDIVSS X6, X13, X7          // d = 1/iscale
	VMOVSS X7, 0(DI)
	VBROADCASTSS X6, Y4

	Q8K_64(0, 4, 260)
	Q8K_64(256, 68, 268)
	Q8K_64(512, 132, 276)
	Q8K_64(768, 196, 284)
	JMP q8knext

q8kzero:
	VPXOR   Y0, Y0, Y0
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y0, 32(DI)
	VMOVDQU Y0, 64(DI)
	VMOVDQU Y0, 96(DI)
	VMOVDQU Y0, 128(DI)
	VMOVDQU Y0, 160(DI)
	VMOVDQU Y0, 192(DI)
	VMOVDQU Y0, 224(DI)
	VMOVDQU Y0, 256(DI)
	VMOVQ   X0, 284(DI)

q8knext:
	ADDQ $1024, SI
	ADDQ $292, DI
	DECQ CX
	JNZ  q8kloop

q8kdone:
	VZEROUPPER
	RET

// func f32ToF16BytesAVX2(n8 int, dst *byte, src *float32)
TEXT ·f32ToF16BytesAVX2(SB), NOSPLIT, $0-24
	JMP ·f32ToF16AVX2(SB)
