//go:build !purego

#include "attn_avx512_amd64.h"
#include "textflag.h"

// AVX-512 versions of the long-context attention kernels (attn_fast.go),
// for the avx512vnni set (AVX512F and VL suffice). Same bits as the
// generic code: 16-lane vectors hold two of its 8-lane groups (two rows of
// the K tile, two groups of scores), reduced in the same trees. The
// constants are attnFastK in attn_fast_amd64.s, used as embedded broadcasts.

#define KLO ·attnFastK+0(SB)
#define KHI ·attnFastK+32(SB)
#define KLOG2E ·attnFastK+64(SB)
#define KNEGC1 ·attnFastK+96(SB)
#define KNEGC2 ·attnFastK+128(SB)
#define KP0 ·attnFastK+160(SB)
#define KP1 ·attnFastK+192(SB)
#define KP2 ·attnFastK+224(SB)
#define KP3 ·attnFastK+256(SB)
#define KP4 ·attnFastK+288(SB)
#define KP5 ·attnFastK+320(SB)
#define KONE ·attnFastK+352(SB)
#define KNEGINF ·attnFastK+384(SB)
#define KLANES ·attnFastK+416(SB)

// EXPFAST16 sets X = expFast(X) on 16 lanes; T1..T3 are clobbered.
#define EXPFAST16(X, T1, T2, T3) \
	VMAXPS.BCST      KLO, X, X      \
	VMINPS.BCST      KHI, X, X      \
	VMULPS.BCST      KLOG2E, X, T1  \
	VRNDSCALEPS      $0, T1, T1     \
	VFMADD231PS.BCST KNEGC1, T1, X  \
	VFMADD231PS.BCST KNEGC2, T1, X  \
	VBROADCASTSS     KP0, T2        \
	VFMADD213PS.BCST KP1, X, T2     \
	VFMADD213PS.BCST KP2, X, T2     \
	VFMADD213PS.BCST KP3, X, T2     \
	VFMADD213PS.BCST KP4, X, T2     \
	VFMADD213PS.BCST KP5, X, T2     \
	VMULPS           X, X, T3       \
	VFMADD213PS      X, T3, T2      \
	VADDPS.BCST      KONE, T2, T2   \
	VCVTPS2DQ        T1, T1         \
	VPSLLD           $23, T1, T1    \
	VPADDD           T1, T2, X

// EXPFAST8 is EXPFAST16 on 8 lanes (ymm registers).
#define EXPFAST8(X, T1, T2, T3) \
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

// func f16RowsToF32AVX512(dst *float32, dstStride int, src *uint16, srcStride, rows, n16 int)
// Widens 16*n16 halves per row; strides in bytes.
TEXT ·f16RowsToF32AVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R9
	MOVQ rows+32(FP), DX
	MOVQ n16+40(FP), R10

cvtrow:
	MOVQ DI, AX
	MOVQ SI, BX
	MOVQ R10, CX
	CMPQ CX, $2
	JB   cvt1

cvt2:
	VCVTPH2PS 0(BX), Z0
	VCVTPH2PS 32(BX), Z1
	VMOVUPS   Z0, 0(AX)
	VMOVUPS   Z1, 64(AX)
	ADDQ      $64, BX
	ADDQ      $128, AX
	SUBQ      $2, CX
	CMPQ      CX, $2
	JAE       cvt2

cvt1:
	TESTQ     CX, CX
	JZ        cvtnext
	VCVTPH2PS 0(BX), Z0
	VMOVUPS   Z0, 0(AX)

cvtnext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ DX
	JNZ  cvtrow
	VZEROUPPER
	RET

// func attnWidenKPairsAVX512(k *float32, dim8 int, src *uint16, srcStride, groups, n8 int)
// Widens whole groups of eight rows into the K tile: rows p and p+4 of a
// group, 8 halves of each, make one 16-lane conversion and one store into
// their pair's slot. k is the first group's start, src its first row's;
// srcStride in bytes.
TEXT ·attnWidenKPairsAVX512(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), DI
	MOVQ dim8+8(FP), R8
	SHLQ $6, R8               // bytes of one row pair
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R9
	MOVQ groups+32(FP), DX

wpgroup:
	MOVQ SI, AX               // row p
	LEAQ (SI)(R9*4), BX       // row p+4
	MOVQ DI, R11              // their slots
	MOVQ $4, R12

wppair:
	MOVQ AX, R13
	MOVQ BX, R14
	MOVQ R11, R15
	MOVQ n8+40(FP), CX
	CMPQ CX, $2
	JB   wpone

wptwo:
	VMOVDQU     (R13), X0
	VINSERTI128 $1, (R14), Y0, Y0
	VMOVDQU     16(R13), X1
	VINSERTI128 $1, 16(R14), Y1, Y1
	VCVTPH2PS   Y0, Z0
	VCVTPH2PS   Y1, Z1
	VMOVUPS     Z0, (R15)
	VMOVUPS     Z1, 64(R15)
	ADDQ        $32, R13
	ADDQ        $32, R14
	ADDQ        $128, R15
	SUBQ        $2, CX
	CMPQ        CX, $2
	JAE         wptwo

wpone:
	TESTQ       CX, CX
	JZ          wpnext
	VMOVDQU     (R13), X0
	VINSERTI128 $1, (R14), Y0, Y0
	VCVTPH2PS   Y0, Z0
	VMOVUPS     Z0, (R15)

wpnext:
	ADDQ R9, AX
	ADDQ R9, BX
	ADDQ R8, R11
	DECQ R12
	JNZ  wppair

	LEAQ (SI)(R9*8), SI
	LEAQ (DI)(R8*4), DI
	DECQ DX
	JNZ  wpgroup
	VZEROUPPER
	RET

// func attnScoresAVX512(s *float32, sStride int, q, k *float32, heads, groups, dim8 int)
// Per head, sixteen K tile rows (two groups, eight row-pair accumulators)
// at a time, then eight for an odd group: per 8 elements one query load
// (broadcast to both halves) and one FMA per row pair. sStride in bytes.
TEXT ·attnScoresAVX512(SB), NOSPLIT, $0-56
	MOVQ s+0(FP), DI
	MOVQ sStride+8(FP), R8
	MOVQ q+16(FP), SI
	MOVQ k+24(FP), DX
	MOVQ heads+32(FP), R10
	MOVQ dim8+48(FP), R15
	SHLQ $5, R15              // bytes of one query (one row)
	LEAQ (R15)(R15*1), R11    // bytes of one row pair
	LEAQ (R11)(R11*2), R12    // 3 pairs

schead:
	MOVQ DX, BX               // the next group's first pair
	MOVQ DI, R14              // its scores
	MOVQ groups+40(FP), R9

scgroup2:
	CMPQ   R9, $2
	JB     scgroup1
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	MOVQ   BX, AX
	LEAQ   (BX)(R11*4), CX
	MOVQ   SI, R13
	MOVQ   dim8+48(FP), DX

scdot2:
	VBROADCASTF64X4 (R13), Z8
	VFMADD231PS     (AX), Z8, Z0
	VFMADD231PS     (AX)(R11*1), Z8, Z1
	VFMADD231PS     (AX)(R11*2), Z8, Z2
	VFMADD231PS     (AX)(R12*1), Z8, Z3
	VFMADD231PS     (CX), Z8, Z4
	VFMADD231PS     (CX)(R11*1), Z8, Z5
	VFMADD231PS     (CX)(R11*2), Z8, Z6
	VFMADD231PS     (CX)(R12*1), Z8, Z7
	ADDQ            $64, AX
	ADDQ            $64, CX
	ADDQ            $32, R13
	DECQ            DX
	JNZ             scdot2

	REDUCE4(Z0, Z1, Z2, Z3, Z16, Z17, Z18, Z19, Y16, Y17)
	REDUCE4(Z4, Z5, Z6, Z7, Z20, Z21, Z22, Z23, Y20, Y21)
	VMOVUPS Y16, (R14)
	VMOVUPS Y20, 32(R14)
	ADDQ    $64, R14
	LEAQ    (BX)(R11*8), BX
	SUBQ    $2, R9
	JMP     scgroup2

scgroup1:
	TESTQ  R9, R9
	JZ     scnext
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ   BX, AX
	MOVQ   SI, R13
	MOVQ   dim8+48(FP), DX

scdot1:
	VBROADCASTF64X4 (R13), Z8
	VFMADD231PS     (AX), Z8, Z0
	VFMADD231PS     (AX)(R11*1), Z8, Z1
	VFMADD231PS     (AX)(R11*2), Z8, Z2
	VFMADD231PS     (AX)(R12*1), Z8, Z3
	ADDQ            $64, AX
	ADDQ            $32, R13
	DECQ            DX
	JNZ             scdot1

	REDUCE4(Z0, Z1, Z2, Z3, Z16, Z17, Z18, Z19, Y16, Y17)
	VMOVUPS Y16, (R14)

scnext:
	MOVQ k+24(FP), DX
	ADDQ R8, DI
	ADDQ R15, SI
	DECQ R10
	JNZ  schead
	VZEROUPPER
	RET

// func attnSoftmaxAVX512(s *float32, sStride int, heads, rows int, scale float32, m, l, alpha *float32)
// attnSoftmaxAVX2 with 16 scores at a time; the 8-lane sum adds the two
// halves of each 16 in order, as the generic code adds consecutive groups
// of 8. sStride in bytes.
TEXT ·attnSoftmaxAVX512(SB), NOSPLIT, $0-64
	MOVQ s+0(FP), DI
	MOVQ heads+16(FP), R10
	MOVQ m+40(FP), R11
	MOVQ l+48(FP), R12
	MOVQ alpha+56(FP), R13
	MOVQ rows+24(FP), DX
	MOVQ DX, R9
	SHRQ $4, R9               // groups of 16
	MOVQ DX, R8
	SHRQ $3, R8
	ANDQ $1, R8               // a group of 8 after them
	ANDQ $7, DX               // rows in the last, partial group
	VMOVD        DX, X15
	VPBROADCASTD X15, Y15
	VPCMPGTD     KLANES, Y15, Y15 // tail mask: lane < rows%8
	VBROADCASTSS scale+32(FP), Z14

smhead:
	// The tile's maximum.
	VBROADCASTSS KNEGINF, Z0
	MOVQ         DI, AX
	MOVQ         R9, CX
	TESTQ        CX, CX
	JZ           smmax8

smmax16:
	VMAXPS (AX), Z0, Z0
	ADDQ   $64, AX
	DECQ   CX
	JNZ    smmax16

smmax8:
	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPS        Y1, Y0, Y0
	TESTQ         R8, R8
	JZ            smmaxtail
	VMAXPS        (AX), Y0, Y0
	ADDQ          $32, AX

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
	VMULSS       X14, X3, X3
	VBROADCASTSS X3, Y3
	EXPFAST8(Y3, Y4, Y5, Y6)  // alpha = e^(m-M)
	VMOVSS       X3, (R13)
	VBROADCASTSS X2, Z2

	// The weights and their sum.
	VXORPS Y7, Y7, Y7
	MOVQ   DI, AX
	MOVQ   R9, CX
	TESTQ  CX, CX
	JZ     smexp8

smexp16:
	VMOVUPS       (AX), Z0
	VSUBPS        Z2, Z0, Z0
	VMULPS        Z14, Z0, Z0
	EXPFAST16(Z0, Z4, Z5, Z6)
	VMOVUPS       Z0, (AX)
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y0, Y7, Y7
	VADDPS        Y1, Y7, Y7
	ADDQ          $64, AX
	DECQ          CX
	JNZ           smexp16

smexp8:
	TESTQ   R8, R8
	JZ      smexptail
	VMOVUPS (AX), Y0
	VSUBPS  Y2, Y0, Y0
	VMULPS  Y14, Y0, Y0
	EXPFAST8(Y0, Y4, Y5, Y6)
	VMOVUPS Y0, (AX)
	VADDPS  Y0, Y7, Y7
	ADDQ    $32, AX

smexptail:
	TESTQ   DX, DX
	JZ      smsum
	VMOVUPS (AX), Y0
	VSUBPS  Y2, Y0, Y0
	VMULPS  Y14, Y0, Y0
	EXPFAST8(Y0, Y4, Y5, Y6)
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

// func attnAccumVAVX512(acc *float32, dim16 int, p *float32, pStride int, v *float32, heads, rows int, alpha *float32)
// Blocks of 4, 2 or 1 heads; per block, strips of 4, 2 or 1 vectors of 16
// of each head's accumulator held in registers (up to 16) while every row
// loads its values once and adds them times each head's weight. Rows are
// 64*dim16 bytes apart; pStride in bytes.
TEXT ·attnAccumVAVX512(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), R15       // the head block's accumulators
	MOVQ dim16+8(FP), R11
	SHLQ $6, R11              // bytes of one row (one head's accumulator)
	LEAQ (R11)(R11*2), R13    // 3 of them
	MOVQ p+16(FP), SI         // the head block's weights
	MOVQ pStride+24(FP), R8
	LEAQ (R8)(R8*2), R12
	MOVQ heads+40(FP), R10
	MOVQ alpha+56(FP), R14

avblock4:
	CMPQ R10, $4
	JB   avblockend4
	VBROADCASTSS 0(R14), Z24
	VBROADCASTSS 4(R14), Z25
	VBROADCASTSS 8(R14), Z26
	VBROADCASTSS 12(R14), Z27
	MOVQ R15, DI
	MOVQ v+32(FP), BX         // the strip's values
	MOVQ dim16+8(FP), R9      // vectors of 16 left

avstrip4x4:
	CMPQ R9, $4
	JB   avstripend4x4
	VMULPS 0(DI), Z24, Z0
	VMULPS 64(DI), Z24, Z1
	VMULPS 128(DI), Z24, Z2
	VMULPS 192(DI), Z24, Z3
	VMULPS 0(DI)(R11*1), Z25, Z4
	VMULPS 64(DI)(R11*1), Z25, Z5
	VMULPS 128(DI)(R11*1), Z25, Z6
	VMULPS 192(DI)(R11*1), Z25, Z7
	VMULPS 0(DI)(R11*2), Z26, Z8
	VMULPS 64(DI)(R11*2), Z26, Z9
	VMULPS 128(DI)(R11*2), Z26, Z10
	VMULPS 192(DI)(R11*2), Z26, Z11
	VMULPS 0(DI)(R13*1), Z27, Z12
	VMULPS 64(DI)(R13*1), Z27, Z13
	VMULPS 128(DI)(R13*1), Z27, Z14
	VMULPS 192(DI)(R13*1), Z27, Z15
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow4x4:
	VMOVUPS 0(AX), Z16
	VMOVUPS 64(AX), Z17
	VMOVUPS 128(AX), Z18
	VMOVUPS 192(AX), Z19
	VBROADCASTSS (DX), Z20
	VBROADCASTSS (DX)(R8*1), Z21
	VBROADCASTSS (DX)(R8*2), Z22
	VBROADCASTSS (DX)(R12*1), Z23
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z18, Z20, Z2
	VFMADD231PS Z19, Z20, Z3
	VFMADD231PS Z16, Z21, Z4
	VFMADD231PS Z17, Z21, Z5
	VFMADD231PS Z18, Z21, Z6
	VFMADD231PS Z19, Z21, Z7
	VFMADD231PS Z16, Z22, Z8
	VFMADD231PS Z17, Z22, Z9
	VFMADD231PS Z18, Z22, Z10
	VFMADD231PS Z19, Z22, Z11
	VFMADD231PS Z16, Z23, Z12
	VFMADD231PS Z17, Z23, Z13
	VFMADD231PS Z18, Z23, Z14
	VFMADD231PS Z19, Z23, Z15
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow4x4
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 0(DI)(R11*1)
	VMOVUPS Z5, 64(DI)(R11*1)
	VMOVUPS Z6, 128(DI)(R11*1)
	VMOVUPS Z7, 192(DI)(R11*1)
	VMOVUPS Z8, 0(DI)(R11*2)
	VMOVUPS Z9, 64(DI)(R11*2)
	VMOVUPS Z10, 128(DI)(R11*2)
	VMOVUPS Z11, 192(DI)(R11*2)
	VMOVUPS Z12, 0(DI)(R13*1)
	VMOVUPS Z13, 64(DI)(R13*1)
	VMOVUPS Z14, 128(DI)(R13*1)
	VMOVUPS Z15, 192(DI)(R13*1)
	ADDQ $256, DI
	ADDQ $256, BX
	SUBQ $4, R9
	JMP  avstrip4x4

avstripend4x4:

avstrip4x2:
	CMPQ R9, $2
	JB   avstripend4x2
	VMULPS 0(DI), Z24, Z0
	VMULPS 64(DI), Z24, Z1
	VMULPS 0(DI)(R11*1), Z25, Z2
	VMULPS 64(DI)(R11*1), Z25, Z3
	VMULPS 0(DI)(R11*2), Z26, Z4
	VMULPS 64(DI)(R11*2), Z26, Z5
	VMULPS 0(DI)(R13*1), Z27, Z6
	VMULPS 64(DI)(R13*1), Z27, Z7
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow4x2:
	VMOVUPS 0(AX), Z16
	VMOVUPS 64(AX), Z17
	VBROADCASTSS (DX), Z20
	VBROADCASTSS (DX)(R8*1), Z21
	VBROADCASTSS (DX)(R8*2), Z22
	VBROADCASTSS (DX)(R12*1), Z23
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z16, Z21, Z2
	VFMADD231PS Z17, Z21, Z3
	VFMADD231PS Z16, Z22, Z4
	VFMADD231PS Z17, Z22, Z5
	VFMADD231PS Z16, Z23, Z6
	VFMADD231PS Z17, Z23, Z7
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow4x2
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 0(DI)(R11*1)
	VMOVUPS Z3, 64(DI)(R11*1)
	VMOVUPS Z4, 0(DI)(R11*2)
	VMOVUPS Z5, 64(DI)(R11*2)
	VMOVUPS Z6, 0(DI)(R13*1)
	VMOVUPS Z7, 64(DI)(R13*1)
	ADDQ $128, DI
	ADDQ $128, BX
	SUBQ $2, R9
	JMP  avstrip4x2

avstripend4x2:

avstrip4x1:
	CMPQ R9, $1
	JB   avstripend4x1
	VMULPS 0(DI), Z24, Z0
	VMULPS 0(DI)(R11*1), Z25, Z1
	VMULPS 0(DI)(R11*2), Z26, Z2
	VMULPS 0(DI)(R13*1), Z27, Z3
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow4x1:
	VMOVUPS 0(AX), Z16
	VBROADCASTSS (DX), Z20
	VBROADCASTSS (DX)(R8*1), Z21
	VBROADCASTSS (DX)(R8*2), Z22
	VBROADCASTSS (DX)(R12*1), Z23
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z16, Z21, Z1
	VFMADD231PS Z16, Z22, Z2
	VFMADD231PS Z16, Z23, Z3
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow4x1
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 0(DI)(R11*1)
	VMOVUPS Z2, 0(DI)(R11*2)
	VMOVUPS Z3, 0(DI)(R13*1)
	ADDQ $64, DI
	ADDQ $64, BX
	SUBQ $1, R9
	JMP  avstrip4x1

avstripend4x1:
	LEAQ (R15)(R11*4), R15
	ADDQ $16, R14
	SUBQ $4, R10
	ADDQ R8, SI
	ADDQ R8, SI
	ADDQ R8, SI
	ADDQ R8, SI
	JMP  avblock4

avblockend4:
avblock2:
	CMPQ R10, $2
	JB   avblockend2
	VBROADCASTSS 0(R14), Z24
	VBROADCASTSS 4(R14), Z25
	MOVQ R15, DI
	MOVQ v+32(FP), BX         // the strip's values
	MOVQ dim16+8(FP), R9      // vectors of 16 left

avstrip2x4:
	CMPQ R9, $4
	JB   avstripend2x4
	VMULPS 0(DI), Z24, Z0
	VMULPS 64(DI), Z24, Z1
	VMULPS 128(DI), Z24, Z2
	VMULPS 192(DI), Z24, Z3
	VMULPS 0(DI)(R11*1), Z25, Z4
	VMULPS 64(DI)(R11*1), Z25, Z5
	VMULPS 128(DI)(R11*1), Z25, Z6
	VMULPS 192(DI)(R11*1), Z25, Z7
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow2x4:
	VMOVUPS 0(AX), Z16
	VMOVUPS 64(AX), Z17
	VMOVUPS 128(AX), Z18
	VMOVUPS 192(AX), Z19
	VBROADCASTSS (DX), Z20
	VBROADCASTSS (DX)(R8*1), Z21
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z18, Z20, Z2
	VFMADD231PS Z19, Z20, Z3
	VFMADD231PS Z16, Z21, Z4
	VFMADD231PS Z17, Z21, Z5
	VFMADD231PS Z18, Z21, Z6
	VFMADD231PS Z19, Z21, Z7
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow2x4
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 0(DI)(R11*1)
	VMOVUPS Z5, 64(DI)(R11*1)
	VMOVUPS Z6, 128(DI)(R11*1)
	VMOVUPS Z7, 192(DI)(R11*1)
	ADDQ $256, DI
	ADDQ $256, BX
	SUBQ $4, R9
	JMP  avstrip2x4

avstripend2x4:

avstrip2x2:
	CMPQ R9, $2
	JB   avstripend2x2
	VMULPS 0(DI), Z24, Z0
	VMULPS 64(DI), Z24, Z1
	VMULPS 0(DI)(R11*1), Z25, Z2
	VMULPS 64(DI)(R11*1), Z25, Z3
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow2x2:
	VMOVUPS 0(AX), Z16
	VMOVUPS 64(AX), Z17
	VBROADCASTSS (DX), Z20
	VBROADCASTSS (DX)(R8*1), Z21
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z16, Z21, Z2
	VFMADD231PS Z17, Z21, Z3
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow2x2
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 0(DI)(R11*1)
	VMOVUPS Z3, 64(DI)(R11*1)
	ADDQ $128, DI
	ADDQ $128, BX
	SUBQ $2, R9
	JMP  avstrip2x2

avstripend2x2:

avstrip2x1:
	CMPQ R9, $1
	JB   avstripend2x1
	VMULPS 0(DI), Z24, Z0
	VMULPS 0(DI)(R11*1), Z25, Z1
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow2x1:
	VMOVUPS 0(AX), Z16
	VBROADCASTSS (DX), Z20
	VBROADCASTSS (DX)(R8*1), Z21
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z16, Z21, Z1
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow2x1
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 0(DI)(R11*1)
	ADDQ $64, DI
	ADDQ $64, BX
	SUBQ $1, R9
	JMP  avstrip2x1

avstripend2x1:
	LEAQ (R15)(R11*2), R15
	ADDQ $8, R14
	SUBQ $2, R10
	ADDQ R8, SI
	ADDQ R8, SI
	JMP  avblock2

avblockend2:
avblock1:
	CMPQ R10, $1
	JB   avblockend1
	VBROADCASTSS 0(R14), Z24
	MOVQ R15, DI
	MOVQ v+32(FP), BX         // the strip's values
	MOVQ dim16+8(FP), R9      // vectors of 16 left

avstrip1x4:
	CMPQ R9, $4
	JB   avstripend1x4
	VMULPS 0(DI), Z24, Z0
	VMULPS 64(DI), Z24, Z1
	VMULPS 128(DI), Z24, Z2
	VMULPS 192(DI), Z24, Z3
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow1x4:
	VMOVUPS 0(AX), Z16
	VMOVUPS 64(AX), Z17
	VMOVUPS 128(AX), Z18
	VMOVUPS 192(AX), Z19
	VBROADCASTSS (DX), Z20
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z18, Z20, Z2
	VFMADD231PS Z19, Z20, Z3
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow1x4
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ $256, DI
	ADDQ $256, BX
	SUBQ $4, R9
	JMP  avstrip1x4

avstripend1x4:

avstrip1x2:
	CMPQ R9, $2
	JB   avstripend1x2
	VMULPS 0(DI), Z24, Z0
	VMULPS 64(DI), Z24, Z1
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow1x2:
	VMOVUPS 0(AX), Z16
	VMOVUPS 64(AX), Z17
	VBROADCASTSS (DX), Z20
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow1x2
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	ADDQ $128, DI
	ADDQ $128, BX
	SUBQ $2, R9
	JMP  avstrip1x2

avstripend1x2:

avstrip1x1:
	CMPQ R9, $1
	JB   avstripend1x1
	VMULPS 0(DI), Z24, Z0
	MOVQ rows+48(FP), CX
	MOVQ BX, AX
	MOVQ SI, DX

avrow1x1:
	VMOVUPS 0(AX), Z16
	VBROADCASTSS (DX), Z20
	VFMADD231PS Z16, Z20, Z0
	ADDQ R11, AX
	ADDQ $4, DX
	DECQ CX
	JNZ  avrow1x1
	VMOVUPS Z0, 0(DI)
	ADDQ $64, DI
	ADDQ $64, BX
	SUBQ $1, R9
	JMP  avstrip1x1

avstripend1x1:
	LEAQ (R15)(R11*1), R15
	ADDQ $4, R14
	SUBQ $1, R10
	ADDQ R8, SI
	JMP  avblock1

avblockend1:
	VZEROUPPER
	RET
