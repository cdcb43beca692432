//go:build !purego

#include "textflag.h"

// AVX2+FMA+F16C versions of the long-context attention kernels
// (attn_fast.go). They compute the generic code's bits
// (attn_fast_generic.go): the same 8-lane FMA chains, the same reduction
// trees, the same exponential.

// expFast constants, eight copies each (32-byte memory operands), then the
// lane indexes 0..7 for the tail masks.
DATA fastK<>+0(SB)/4, $0xc2ac0000 // lo
DATA fastK<>+4(SB)/4, $0xc2ac0000
DATA fastK<>+8(SB)/4, $0xc2ac0000
DATA fastK<>+12(SB)/4, $0xc2ac0000
DATA fastK<>+16(SB)/4, $0xc2ac0000
DATA fastK<>+20(SB)/4, $0xc2ac0000
DATA fastK<>+24(SB)/4, $0xc2ac0000
DATA fastK<>+28(SB)/4, $0xc2ac0000
DATA fastK<>+32(SB)/4, $0x42b00000 // hi
DATA fastK<>+36(SB)/4, $0x42b00000
DATA fastK<>+40(SB)/4, $0x42b00000
DATA fastK<>+44(SB)/4, $0x42b00000
DATA fastK<>+48(SB)/4, $0x42b00000
DATA fastK<>+52(SB)/4, $0x42b00000
DATA fastK<>+56(SB)/4, $0x42b00000
DATA fastK<>+60(SB)/4, $0x42b00000
DATA fastK<>+64(SB)/4, $0x3fb8aa3b // log2e
DATA fastK<>+68(SB)/4, $0x3fb8aa3b
DATA fastK<>+72(SB)/4, $0x3fb8aa3b
DATA fastK<>+76(SB)/4, $0x3fb8aa3b
DATA fastK<>+80(SB)/4, $0x3fb8aa3b
DATA fastK<>+84(SB)/4, $0x3fb8aa3b
DATA fastK<>+88(SB)/4, $0x3fb8aa3b
DATA fastK<>+92(SB)/4, $0x3fb8aa3b
DATA fastK<>+96(SB)/4, $0xbf318000 // negC1
DATA fastK<>+100(SB)/4, $0xbf318000
DATA fastK<>+104(SB)/4, $0xbf318000
DATA fastK<>+108(SB)/4, $0xbf318000
DATA fastK<>+112(SB)/4, $0xbf318000
DATA fastK<>+116(SB)/4, $0xbf318000
DATA fastK<>+120(SB)/4, $0xbf318000
DATA fastK<>+124(SB)/4, $0xbf318000
DATA fastK<>+128(SB)/4, $0x395e8083 // negC2
DATA fastK<>+132(SB)/4, $0x395e8083
DATA fastK<>+136(SB)/4, $0x395e8083
DATA fastK<>+140(SB)/4, $0x395e8083
DATA fastK<>+144(SB)/4, $0x395e8083
DATA fastK<>+148(SB)/4, $0x395e8083
DATA fastK<>+152(SB)/4, $0x395e8083
DATA fastK<>+156(SB)/4, $0x395e8083
DATA fastK<>+160(SB)/4, $0x39506967 // p0
DATA fastK<>+164(SB)/4, $0x39506967
DATA fastK<>+168(SB)/4, $0x39506967
DATA fastK<>+172(SB)/4, $0x39506967
DATA fastK<>+176(SB)/4, $0x39506967
DATA fastK<>+180(SB)/4, $0x39506967
DATA fastK<>+184(SB)/4, $0x39506967
DATA fastK<>+188(SB)/4, $0x39506967
DATA fastK<>+192(SB)/4, $0x3ab743ce // p1
DATA fastK<>+196(SB)/4, $0x3ab743ce
DATA fastK<>+200(SB)/4, $0x3ab743ce
DATA fastK<>+204(SB)/4, $0x3ab743ce
DATA fastK<>+208(SB)/4, $0x3ab743ce
DATA fastK<>+212(SB)/4, $0x3ab743ce
DATA fastK<>+216(SB)/4, $0x3ab743ce
DATA fastK<>+220(SB)/4, $0x3ab743ce
DATA fastK<>+224(SB)/4, $0x3c088908 // p2
DATA fastK<>+228(SB)/4, $0x3c088908
DATA fastK<>+232(SB)/4, $0x3c088908
DATA fastK<>+236(SB)/4, $0x3c088908
DATA fastK<>+240(SB)/4, $0x3c088908
DATA fastK<>+244(SB)/4, $0x3c088908
DATA fastK<>+248(SB)/4, $0x3c088908
DATA fastK<>+252(SB)/4, $0x3c088908
DATA fastK<>+256(SB)/4, $0x3d2aa9c1 // p3
DATA fastK<>+260(SB)/4, $0x3d2aa9c1
DATA fastK<>+264(SB)/4, $0x3d2aa9c1
DATA fastK<>+268(SB)/4, $0x3d2aa9c1
DATA fastK<>+272(SB)/4, $0x3d2aa9c1
DATA fastK<>+276(SB)/4, $0x3d2aa9c1
DATA fastK<>+280(SB)/4, $0x3d2aa9c1
DATA fastK<>+284(SB)/4, $0x3d2aa9c1
DATA fastK<>+288(SB)/4, $0x3e2aaaaa // p4
DATA fastK<>+292(SB)/4, $0x3e2aaaaa
DATA fastK<>+296(SB)/4, $0x3e2aaaaa
DATA fastK<>+300(SB)/4, $0x3e2aaaaa
DATA fastK<>+304(SB)/4, $0x3e2aaaaa
DATA fastK<>+308(SB)/4, $0x3e2aaaaa
DATA fastK<>+312(SB)/4, $0x3e2aaaaa
DATA fastK<>+316(SB)/4, $0x3e2aaaaa
DATA fastK<>+320(SB)/4, $0x3f000000 // p5
DATA fastK<>+324(SB)/4, $0x3f000000
DATA fastK<>+328(SB)/4, $0x3f000000
DATA fastK<>+332(SB)/4, $0x3f000000
DATA fastK<>+336(SB)/4, $0x3f000000
DATA fastK<>+340(SB)/4, $0x3f000000
DATA fastK<>+344(SB)/4, $0x3f000000
DATA fastK<>+348(SB)/4, $0x3f000000
DATA fastK<>+352(SB)/4, $0x3f800000 // one
DATA fastK<>+356(SB)/4, $0x3f800000
DATA fastK<>+360(SB)/4, $0x3f800000
DATA fastK<>+364(SB)/4, $0x3f800000
DATA fastK<>+368(SB)/4, $0x3f800000
DATA fastK<>+372(SB)/4, $0x3f800000
DATA fastK<>+376(SB)/4, $0x3f800000
DATA fastK<>+380(SB)/4, $0x3f800000
DATA fastK<>+384(SB)/4, $0xff800000 // neginf
DATA fastK<>+388(SB)/4, $0xff800000
DATA fastK<>+392(SB)/4, $0xff800000
DATA fastK<>+396(SB)/4, $0xff800000
DATA fastK<>+400(SB)/4, $0xff800000
DATA fastK<>+404(SB)/4, $0xff800000
DATA fastK<>+408(SB)/4, $0xff800000
DATA fastK<>+412(SB)/4, $0xff800000
DATA fastK<>+416(SB)/4, $0 // lane index
DATA fastK<>+420(SB)/4, $1
DATA fastK<>+424(SB)/4, $2
DATA fastK<>+428(SB)/4, $3
DATA fastK<>+432(SB)/4, $4
DATA fastK<>+436(SB)/4, $5
DATA fastK<>+440(SB)/4, $6
DATA fastK<>+444(SB)/4, $7
GLOBL fastK<>(SB), RODATA|NOPTR, $448

#define KLO fastK<>+0(SB)
#define KHI fastK<>+32(SB)
#define KLOG2E fastK<>+64(SB)
#define KNEGC1 fastK<>+96(SB)
#define KNEGC2 fastK<>+128(SB)
#define KP0 fastK<>+160(SB)
#define KP1 fastK<>+192(SB)
#define KP2 fastK<>+224(SB)
#define KP3 fastK<>+256(SB)
#define KP4 fastK<>+288(SB)
#define KP5 fastK<>+320(SB)
#define KONE fastK<>+352(SB)
#define KNEGINF fastK<>+384(SB)
#define KLANES fastK<>+416(SB)

// EXPFAST sets X = expFast(X) lane by lane; T1..T3 are clobbered.
#define EXPFAST(X, T1, T2, T3) \
	VMAXPS      KLO, X, X      \
	VMINPS      KHI, X, X      \
	VMULPS      KLOG2E, X, T1  \
	VROUNDPS    $0, T1, T1     \
	VFMADD231PS KNEGC1, T1, X  \
	VFMADD231PS KNEGC2, T1, X  \
	VMOVUPS     KP0, T2        \
	VFMADD213PS KP1, X, T2     \
	VFMADD213PS KP2, X, T2     \
	VFMADD213PS KP3, X, T2     \
	VFMADD213PS KP4, X, T2     \
	VFMADD213PS KP5, X, T2     \
	VMULPS      X, X, T3       \
	VFMADD213PS X, T3, T2      \
	VADDPS      KONE, T2, T2   \
	VCVTPS2DQ   T1, T1         \
	VPSLLD      $23, T1, T1    \
	VPADDD      T1, T2, X

// func f16RowsToF32AVX2(dst *float32, dstStride int, src *uint16, srcStride, rows, n8 int)
// Widens 8*n8 halves per row; strides in bytes.
TEXT ·f16RowsToF32AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R9
	MOVQ rows+32(FP), DX
	MOVQ n8+40(FP), R10

cvtrow:
	MOVQ DI, AX
	MOVQ SI, BX
	MOVQ R10, CX
	CMPQ CX, $4
	JB   cvt1

cvt4:
	VCVTPH2PS 0(BX), Y0
	VCVTPH2PS 16(BX), Y1
	VCVTPH2PS 32(BX), Y2
	VCVTPH2PS 48(BX), Y3
	VMOVUPS   Y0, 0(AX)
	VMOVUPS   Y1, 32(AX)
	VMOVUPS   Y2, 64(AX)
	VMOVUPS   Y3, 96(AX)
	ADDQ      $64, BX
	ADDQ      $128, AX
	SUBQ      $4, CX
	CMPQ      CX, $4
	JAE       cvt4

cvt1:
	TESTQ     CX, CX
	JZ        cvtnext
	VCVTPH2PS 0(BX), Y0
	VMOVUPS   Y0, 0(AX)
	ADDQ      $16, BX
	ADDQ      $32, AX
	DECQ      CX
	JMP       cvt1

cvtnext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ DX
	JNZ  cvtrow
	VZEROUPPER
	RET

// func attnScoresAVX2(s *float32, sStride int, q, k *float32, heads, groups, dim8 int)
// For each head, groups of eight key rows: eight accumulators (one per
// row), one query load and eight FMAs per 8 elements, then a transpose
// reduction into the eight scores. sStride in bytes; rows are 32*dim8
// bytes apart.
TEXT ·attnScoresAVX2(SB), NOSPLIT, $0-56
	MOVQ s+0(FP), DI
	MOVQ sStride+8(FP), R8
	MOVQ q+16(FP), SI
	MOVQ k+24(FP), DX
	MOVQ heads+32(FP), R10
	MOVQ dim8+48(FP), R11
	SHLQ $5, R11              // row bytes
	LEAQ (R11)(R11*2), R12    // 3 rows

schead:
	MOVQ DX, BX               // this group's first key row
	MOVQ DI, R14              // its scores
	MOVQ groups+40(FP), R9

scgroup:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   BX, AX             // rows 0-4 from AX
	LEAQ   (BX)(R11*4), R15   // rows 5-7 from R15
	MOVQ   SI, R13
	SUBQ   BX, R13            // the query at AX+R13
	MOVQ   dim8+48(FP), CX

scdot:
	VMOVUPS     (AX)(R13*1), Y8
	VFMADD231PS (AX), Y8, Y0
	VFMADD231PS (AX)(R11*1), Y8, Y1
	VFMADD231PS (AX)(R11*2), Y8, Y2
	VFMADD231PS (AX)(R12*1), Y8, Y3
	VFMADD231PS (AX)(R11*4), Y8, Y4
	VFMADD231PS (R15)(R11*1), Y8, Y5
	VFMADD231PS (R15)(R11*2), Y8, Y6
	VFMADD231PS (R15)(R12*1), Y8, Y7
	ADDQ        $32, AX
	ADDQ        $32, R15
	DECQ        CX
	JNZ         scdot

	// Rows 0-3: lanes two apart, then neighbours, per 128-bit half.
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VADDPS    Y9, Y8, Y8
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VADDPS    Y11, Y10, Y10
	VUNPCKLPD Y10, Y8, Y9
	VUNPCKHPD Y10, Y8, Y11
	VADDPS    Y11, Y9, Y9
	// Rows 4-7.
	VUNPCKLPS Y5, Y4, Y8
	VUNPCKHPS Y5, Y4, Y10
	VADDPS    Y10, Y8, Y8
	VUNPCKLPS Y7, Y6, Y10
	VUNPCKHPS Y7, Y6, Y11
	VADDPS    Y11, Y10, Y10
	VUNPCKLPD Y10, Y8, Y12
	VUNPCKHPD Y10, Y8, Y11
	VADDPS    Y11, Y12, Y12
	// The two halves.
	VPERM2F128 $0x20, Y12, Y9, Y10
	VPERM2F128 $0x31, Y12, Y9, Y11
	VADDPS     Y11, Y10, Y10
	VMOVUPS    Y10, (R14)

	ADDQ $32, R14
	LEAQ (BX)(R11*8), BX
	DECQ R9
	JNZ  scgroup

	ADDQ R8, DI
	ADDQ R11, SI
	DECQ R10
	JNZ  schead
	VZEROUPPER
	RET

// func attnSoftmaxAVX2(s *float32, sStride int, heads, rows int, m, l, alpha *float32)
// sStride in bytes.
TEXT ·attnSoftmaxAVX2(SB), NOSPLIT, $0-56
	MOVQ s+0(FP), DI
	MOVQ heads+16(FP), R10
	MOVQ m+32(FP), R11
	MOVQ l+40(FP), R12
	MOVQ alpha+48(FP), R13
	MOVQ rows+24(FP), DX
	MOVQ DX, R9
	SHRQ $3, R9               // full groups
	ANDQ $7, DX               // rows in the last, partial group
	VMOVD        DX, X15
	VPBROADCASTD X15, Y15
	VPCMPGTD     KLANES, Y15, Y15 // tail mask: lane < rows%8

smhead:
	// The tile's maximum.
	VMOVUPS KNEGINF, Y0
	MOVQ    DI, AX
	MOVQ    R9, CX
	TESTQ   CX, CX
	JZ      smmaxtail

smmax:
	VMAXPS (AX), Y0, Y0
	ADDQ   $32, AX
	DECQ   CX
	JNZ    smmax

smmaxtail:
	TESTQ     DX, DX
	JZ        smmaxdone
	VMOVUPS   KNEGINF, Y1
	VBLENDVPS Y15, (AX), Y1, Y1
	VMAXPS    Y1, Y0, Y0

smmaxdone:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VMAXPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VMAXSS       X1, X0, X0
	VMOVSS       (R11), X1
	VMAXSS       X0, X1, X2   // new maximum M = max(m, tile max)
	VMOVSS       X2, (R11)
	VSUBSS       X2, X1, X3
	VBROADCASTSS X3, Y3
	EXPFAST(Y3, Y4, Y5, Y6)   // alpha = e^(m-M)
	VMOVSS       X3, (R13)
	VBROADCASTSS X2, Y2

	// The weights and their sum.
	VXORPS Y7, Y7, Y7
	MOVQ   DI, AX
	MOVQ   R9, CX
	TESTQ  CX, CX
	JZ     smexptail

smexp:
	VMOVUPS (AX), Y0
	VSUBPS  Y2, Y0, Y0
	EXPFAST(Y0, Y4, Y5, Y6)
	VMOVUPS Y0, (AX)
	VADDPS  Y0, Y7, Y7
	ADDQ    $32, AX
	DECQ    CX
	JNZ     smexp

smexptail:
	TESTQ   DX, DX
	JZ      smsum
	VMOVUPS (AX), Y0
	VSUBPS  Y2, Y0, Y0
	EXPFAST(Y0, Y4, Y5, Y6)
	VANDPS  Y15, Y0, Y0
	VMOVUPS Y0, (AX)
	VADDPS  Y0, Y7, Y7

smsum:
	VEXTRACTF128 $1, Y7, X0
	VADDPS       X0, X7, X7
	VMOVHLPS     X7, X7, X0
	VADDPS       X0, X7, X7
	VMOVSHDUP    X7, X0
	VADDSS       X0, X7, X7
	VMOVSS       (R12), X1
	VFMADD231SS  X3, X1, X7   // l = l*alpha + sum
	VMOVSS       X7, (R12)

	ADDQ sStride+8(FP), DI
	ADDQ $4, R11
	ADDQ $4, R12
	ADDQ $4, R13
	DECQ R10
	JNZ  smhead
	VZEROUPPER
	RET

// func attnAccumVAVX2(acc *float32, dim8 int, p *float32, pStride int, v *float32, heads, rows int, alpha *float32)
// Per head: strips of 8, 4, 2 or 1 vectors of the accumulator held in
// registers while every row adds its weight times its values. pStride in
// bytes; rows are 32*dim8 bytes apart.
TEXT ·attnAccumVAVX2(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), DI
	MOVQ dim8+8(FP), R11
	SHLQ $5, R11              // row bytes
	MOVQ p+16(FP), SI
	MOVQ pStride+24(FP), R8
	MOVQ heads+40(FP), R10
	MOVQ alpha+56(FP), R13

avhead:
	VBROADCASTSS (R13), Y15
	MOVQ         v+32(FP), R12 // the strip's values
	MOVQ         dim8+8(FP), R9 // vectors left in this head
avstrip8:
	CMPQ R9, $8
	JB   avnext8
	VMULPS (32*0)(DI), Y15, Y0
	VMULPS (32*1)(DI), Y15, Y1
	VMULPS (32*2)(DI), Y15, Y2
	VMULPS (32*3)(DI), Y15, Y3
	VMULPS (32*4)(DI), Y15, Y4
	VMULPS (32*5)(DI), Y15, Y5
	VMULPS (32*6)(DI), Y15, Y6
	VMULPS (32*7)(DI), Y15, Y7
	MOVQ rows+48(FP), CX
	TESTQ CX, CX
	JZ   avstore8
	MOVQ R12, BX
	MOVQ SI, DX

avrow8:
	VBROADCASTSS (DX), Y8
	VFMADD231PS (32*0)(BX), Y8, Y0
	VFMADD231PS (32*1)(BX), Y8, Y1
	VFMADD231PS (32*2)(BX), Y8, Y2
	VFMADD231PS (32*3)(BX), Y8, Y3
	VFMADD231PS (32*4)(BX), Y8, Y4
	VFMADD231PS (32*5)(BX), Y8, Y5
	VFMADD231PS (32*6)(BX), Y8, Y6
	VFMADD231PS (32*7)(BX), Y8, Y7
	ADDQ R11, BX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow8

avstore8:
	VMOVUPS Y0, (32*0)(DI)
	VMOVUPS Y1, (32*1)(DI)
	VMOVUPS Y2, (32*2)(DI)
	VMOVUPS Y3, (32*3)(DI)
	VMOVUPS Y4, (32*4)(DI)
	VMOVUPS Y5, (32*5)(DI)
	VMOVUPS Y6, (32*6)(DI)
	VMOVUPS Y7, (32*7)(DI)
	ADDQ $(32*8), DI
	ADDQ $(32*8), R12
	SUBQ $8, R9
	JMP  avstrip8

avnext8:
avstrip4:
	CMPQ R9, $4
	JB   avnext4
	VMULPS (32*0)(DI), Y15, Y0
	VMULPS (32*1)(DI), Y15, Y1
	VMULPS (32*2)(DI), Y15, Y2
	VMULPS (32*3)(DI), Y15, Y3
	MOVQ rows+48(FP), CX
	TESTQ CX, CX
	JZ   avstore4
	MOVQ R12, BX
	MOVQ SI, DX

avrow4:
	VBROADCASTSS (DX), Y8
	VFMADD231PS (32*0)(BX), Y8, Y0
	VFMADD231PS (32*1)(BX), Y8, Y1
	VFMADD231PS (32*2)(BX), Y8, Y2
	VFMADD231PS (32*3)(BX), Y8, Y3
	ADDQ R11, BX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow4

avstore4:
	VMOVUPS Y0, (32*0)(DI)
	VMOVUPS Y1, (32*1)(DI)
	VMOVUPS Y2, (32*2)(DI)
	VMOVUPS Y3, (32*3)(DI)
	ADDQ $(32*4), DI
	ADDQ $(32*4), R12
	SUBQ $4, R9
	JMP  avstrip4

avnext4:
avstrip2:
	CMPQ R9, $2
	JB   avnext2
	VMULPS (32*0)(DI), Y15, Y0
	VMULPS (32*1)(DI), Y15, Y1
	MOVQ rows+48(FP), CX
	TESTQ CX, CX
	JZ   avstore2
	MOVQ R12, BX
	MOVQ SI, DX

avrow2:
	VBROADCASTSS (DX), Y8
	VFMADD231PS (32*0)(BX), Y8, Y0
	VFMADD231PS (32*1)(BX), Y8, Y1
	ADDQ R11, BX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow2

avstore2:
	VMOVUPS Y0, (32*0)(DI)
	VMOVUPS Y1, (32*1)(DI)
	ADDQ $(32*2), DI
	ADDQ $(32*2), R12
	SUBQ $2, R9
	JMP  avstrip2

avnext2:
avstrip1:
	CMPQ R9, $1
	JB   avnext1
	VMULPS (32*0)(DI), Y15, Y0
	MOVQ rows+48(FP), CX
	TESTQ CX, CX
	JZ   avstore1
	MOVQ R12, BX
	MOVQ SI, DX

avrow1:
	VBROADCASTSS (DX), Y8
	VFMADD231PS (32*0)(BX), Y8, Y0
	ADDQ R11, BX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow1

avstore1:
	VMOVUPS Y0, (32*0)(DI)
	ADDQ $(32*1), DI
	ADDQ $(32*1), R12
	SUBQ $1, R9
	JMP  avstrip1

avnext1:
	ADDQ R8, SI
	ADDQ $4, R13
	DECQ R10
	JNZ  avhead
	VZEROUPPER
	RET
