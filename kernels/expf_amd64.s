//go:build !purego

#include "textflag.h"

// expfN: glibc expf (expf.go) on four floats at a time in double precision,
// the same operations lane by lane; the table lookup is a gather.

DATA expC<>+0(SB)/8, $0x40471547652b82fe // invln2n
DATA expC<>+8(SB)/8, $0x40471547652b82fe
DATA expC<>+16(SB)/8, $0x40471547652b82fe
DATA expC<>+24(SB)/8, $0x40471547652b82fe
DATA expC<>+32(SB)/8, $0x4338000000000000 // shift
DATA expC<>+40(SB)/8, $0x4338000000000000
DATA expC<>+48(SB)/8, $0x4338000000000000
DATA expC<>+56(SB)/8, $0x4338000000000000
DATA expC<>+64(SB)/8, $0x3ebc6af84b912394 // c0
DATA expC<>+72(SB)/8, $0x3ebc6af84b912394
DATA expC<>+80(SB)/8, $0x3ebc6af84b912394
DATA expC<>+88(SB)/8, $0x3ebc6af84b912394
DATA expC<>+96(SB)/8, $0x3f2ebfce50fac4f3 // c1
DATA expC<>+104(SB)/8, $0x3f2ebfce50fac4f3
DATA expC<>+112(SB)/8, $0x3f2ebfce50fac4f3
DATA expC<>+120(SB)/8, $0x3f2ebfce50fac4f3
DATA expC<>+128(SB)/8, $0x3f962e42ff0c52d6 // c2
DATA expC<>+136(SB)/8, $0x3f962e42ff0c52d6
DATA expC<>+144(SB)/8, $0x3f962e42ff0c52d6
DATA expC<>+152(SB)/8, $0x3f962e42ff0c52d6
DATA expC<>+160(SB)/8, $0x3ff0000000000000 // one
DATA expC<>+168(SB)/8, $0x3ff0000000000000
DATA expC<>+176(SB)/8, $0x3ff0000000000000
DATA expC<>+184(SB)/8, $0x3ff0000000000000
DATA expC<>+192(SB)/8, $0x1f // idxmask
DATA expC<>+200(SB)/8, $0x1f
DATA expC<>+208(SB)/8, $0x1f
DATA expC<>+216(SB)/8, $0x1f
GLOBL expC<>(SB), RODATA|NOPTR, $224
DATA expTab<>+0(SB)/8, $0x3ff0000000000000
DATA expTab<>+8(SB)/8, $0x3fefd9b0d3158574
DATA expTab<>+16(SB)/8, $0x3fefb5586cf9890f
DATA expTab<>+24(SB)/8, $0x3fef9301d0125b51
DATA expTab<>+32(SB)/8, $0x3fef72b83c7d517b
DATA expTab<>+40(SB)/8, $0x3fef54873168b9aa
DATA expTab<>+48(SB)/8, $0x3fef387a6e756238
DATA expTab<>+56(SB)/8, $0x3fef1e9df51fdee1
DATA expTab<>+64(SB)/8, $0x3fef06fe0a31b715
DATA expTab<>+72(SB)/8, $0x3feef1a7373aa9cb
DATA expTab<>+80(SB)/8, $0x3feedea64c123422
DATA expTab<>+88(SB)/8, $0x3feece086061892d
DATA expTab<>+96(SB)/8, $0x3feebfdad5362a27
DATA expTab<>+104(SB)/8, $0x3feeb42b569d4f82
DATA expTab<>+112(SB)/8, $0x3feeab07dd485429
DATA expTab<>+120(SB)/8, $0x3feea47eb03a5585
DATA expTab<>+128(SB)/8, $0x3feea09e667f3bcd
DATA expTab<>+136(SB)/8, $0x3fee9f75e8ec5f74
DATA expTab<>+144(SB)/8, $0x3feea11473eb0187
DATA expTab<>+152(SB)/8, $0x3feea589994cce13
DATA expTab<>+160(SB)/8, $0x3feeace5422aa0db
DATA expTab<>+168(SB)/8, $0x3feeb737b0cdc5e5
DATA expTab<>+176(SB)/8, $0x3feec49182a3f090
DATA expTab<>+184(SB)/8, $0x3feed503b23e255d
DATA expTab<>+192(SB)/8, $0x3feee89f995ad3ad
DATA expTab<>+200(SB)/8, $0x3feeff76f2fb5e47
DATA expTab<>+208(SB)/8, $0x3fef199bdd85529c
DATA expTab<>+216(SB)/8, $0x3fef3720dcef9069
DATA expTab<>+224(SB)/8, $0x3fef5818dcfba487
DATA expTab<>+232(SB)/8, $0x3fef7c97337b9b5f
DATA expTab<>+240(SB)/8, $0x3fefa4afa2a490da
DATA expTab<>+248(SB)/8, $0x3fefd0765b6e4540
GLOBL expTab<>(SB), RODATA|NOPTR, $256

// func expfNAVX2(n4 int, dst, src *float32) int
// Returns how many of the 4*n4 values it did: it stops before a group of
// four with an argument of magnitude 88 or more (or NaN), which the Go
// wrapper evaluates with the scalar code.
TEXT ·expfNAVX2(SB), NOSPLIT, $0-32
	MOVQ n4+0(FP), CX
	SHLQ $2, CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	XORQ AX, AX
	LEAQ expTab<>(SB), R8
	MOVL $0x42afffff, DX
	VMOVD DX, X13
	VPBROADCASTD X13, X13
	MOVL $0x7fffffff, DX
	VMOVD DX, X14
	VPBROADCASTD X14, X14
	VXORPD Y15, Y15, Y15

exploop:
	CMPQ         AX, CX
	JGE          expdone
	VMOVDQU      (SI)(AX*4), X1
	VPAND        X14, X1, X1
	VPCMPGTD     X13, X1, X1          // |bits| > top(88)
	VMOVMSKPS    X1, DX
	TESTL        DX, DX
	JNZ          expdone
	VCVTPS2PD    (SI)(AX*4), Y0       // x
	VMOVUPD      expC<>+32(SB), Y2
	VFMADD231PD  expC<>+0(SB), Y0, Y2 // kd = fma(InvLn2N, x, shift); ki = bits
	VSUBPD       expC<>+32(SB), Y2, Y3   // kd -= shift
	VSUBPD       Y3, Y15, Y4                         // -kd
	VFMADD231PD  expC<>+0(SB), Y0, Y4 // r = fma(InvLn2N, x, -kd)
	VPAND        expC<>+192(SB), Y2, Y5 // ki % 32
	VPCMPEQQ     Y7, Y7, Y7
	VPGATHERQQ   Y7, (R8)(Y5*8), Y6              // tab[ki % 32]
	VPSLLQ       $47, Y2, Y8
	VPADDQ       Y8, Y6, Y6                      // s = 2^(k/32)
	VMOVUPD      expC<>+96(SB), Y9
	VFMADD231PD  expC<>+64(SB), Y4, Y9 // z = fma(C0, r, C1)
	VMULPD       Y4, Y4, Y10                   // r2
	VMOVUPD      expC<>+160(SB), Y11
	VFMADD231PD  expC<>+128(SB), Y4, Y11 // y = fma(C2, r, 1)
	VFMADD231PD  Y10, Y9, Y11                  // y = fma(z, r2, y)
	VMULPD       Y6, Y11, Y11                  // y * s
	VCVTPD2PSY   Y11, X11
	VMOVUPS      X11, (DI)(AX*4)
	ADDQ         $4, AX
	JMP          exploop

expdone:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET


// expfNAVX512: expfNAVX2's operations (glibc expf in double precision, lane
// by lane) on eight floats at a time in 512-bit registers, the 32-entry
// table held in four registers and read with two-table permutes instead
// of a gather (a gather of four costs more than the rest of the loop on
// Intel cores since the Gather Data Sampling mitigation).

// func expfNAVX512(n8 int, dst, src *float32) int
// Returns how many of the 8*n8 values it did: it stops before a group of
// eight with an argument of magnitude 88 or more (or NaN), which the Go
// wrapper leaves to the AVX2 kernel and the scalar code.
TEXT ·expfNAVX512(SB), NOSPLIT, $0-32
	MOVQ n8+0(FP), CX
	SHLQ $3, CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	XORQ AX, AX
	MOVL $0x42afffff, DX
	VMOVD DX, X13
	VPBROADCASTD X13, Y13
	MOVL $0x7fffffff, DX
	VMOVD DX, X14
	VPBROADCASTD X14, Y14
	VPXORQ Z15, Z15, Z15
	VBROADCASTSD expC<>+0(SB), Z16   // invln2n
	VBROADCASTSD expC<>+32(SB), Z17  // shift
	VBROADCASTSD expC<>+64(SB), Z18  // c0
	VBROADCASTSD expC<>+96(SB), Z19  // c1
	VBROADCASTSD expC<>+128(SB), Z20 // c2
	VBROADCASTSD expC<>+160(SB), Z21 // one
	VPBROADCASTQ expC<>+192(SB), Z22 // 31
	MOVQ $16, DX
	VPBROADCASTQ DX, Z23             // the table half bit
	VMOVDQU64 expTab<>+0(SB), Z24
	VMOVDQU64 expTab<>+64(SB), Z25
	VMOVDQU64 expTab<>+128(SB), Z26
	VMOVDQU64 expTab<>+192(SB), Z27

exp8loop:
	CMPQ         AX, CX
	JGE          exp8done
	VMOVDQU      (SI)(AX*4), Y1
	VPAND        Y14, Y1, Y1
	VPCMPGTD     Y13, Y1, Y1          // |bits| > top(88)
	VMOVMSKPS    Y1, DX
	TESTL        DX, DX
	JNZ          exp8done
	VCVTPS2PD    (SI)(AX*4), Z0       // x
	VMOVAPD      Z17, Z2
	VFMADD231PD  Z16, Z0, Z2          // kd = fma(InvLn2N, x, shift); ki = bits
	VSUBPD       Z17, Z2, Z3          // kd -= shift
	VSUBPD       Z3, Z15, Z4          // -kd
	VFMADD231PD  Z16, Z0, Z4          // r = fma(InvLn2N, x, -kd)
	VPANDQ       Z22, Z2, Z5          // ki % 32
	VMOVAPD      Z24, Z6
	VPERMT2PD    Z25, Z5, Z6          // tab[ki % 16]
	VMOVAPD      Z26, Z7
	VPERMT2PD    Z27, Z5, Z7          // tab[16 + ki % 16]
	VPTESTMQ     Z23, Z5, K1
	VMOVAPD      Z7, K1, Z6           // tab[ki % 32]
	VPSLLQ       $47, Z2, Z8
	VPADDQ       Z8, Z6, Z6           // s = 2^(k/32)
	VMOVAPD      Z19, Z9
	VFMADD231PD  Z18, Z4, Z9          // z = fma(C0, r, C1)
	VMULPD       Z4, Z4, Z10          // r2
	VMOVAPD      Z21, Z11
	VFMADD231PD  Z20, Z4, Z11         // y = fma(C2, r, 1)
	VFMADD231PD  Z10, Z9, Z11         // y = fma(z, r2, y)
	VMULPD       Z6, Z11, Z11         // y * s
	VCVTPD2PS    Z11, Y11
	VMOVUPS      Y11, (DI)(AX*4)
	ADDQ         $8, AX
	JMP          exp8loop

exp8done:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
