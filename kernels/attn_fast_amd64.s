//go:build !purego

#include "attn_amd64.h"
#include "textflag.h"

// AVX2+FMA+F16C versions of the long-context attention kernels
// (attn_fast.go). They compute the generic code's bits
// (attn_fast_generic.go): the same 8-lane FMA chains, the same reduction
// trees, the same exponential.

// expFast constants, eight copies each (32-byte memory operands), then the
// lane indexes 0..7 for the tail masks.
DATA ·attnFastK+0(SB)/4, $0xc2ac0000 // lo
DATA ·attnFastK+4(SB)/4, $0xc2ac0000
DATA ·attnFastK+8(SB)/4, $0xc2ac0000
DATA ·attnFastK+12(SB)/4, $0xc2ac0000
DATA ·attnFastK+16(SB)/4, $0xc2ac0000
DATA ·attnFastK+20(SB)/4, $0xc2ac0000
DATA ·attnFastK+24(SB)/4, $0xc2ac0000
DATA ·attnFastK+28(SB)/4, $0xc2ac0000
DATA ·attnFastK+32(SB)/4, $0x42b00000 // hi
DATA ·attnFastK+36(SB)/4, $0x42b00000
DATA ·attnFastK+40(SB)/4, $0x42b00000
DATA ·attnFastK+44(SB)/4, $0x42b00000
DATA ·attnFastK+48(SB)/4, $0x42b00000
DATA ·attnFastK+52(SB)/4, $0x42b00000
DATA ·attnFastK+56(SB)/4, $0x42b00000
DATA ·attnFastK+60(SB)/4, $0x42b00000
DATA ·attnFastK+64(SB)/4, $0x3fb8aa3b // log2e
DATA ·attnFastK+68(SB)/4, $0x3fb8aa3b
DATA ·attnFastK+72(SB)/4, $0x3fb8aa3b
DATA ·attnFastK+76(SB)/4, $0x3fb8aa3b
DATA ·attnFastK+80(SB)/4, $0x3fb8aa3b
DATA ·attnFastK+84(SB)/4, $0x3fb8aa3b
DATA ·attnFastK+88(SB)/4, $0x3fb8aa3b
DATA ·attnFastK+92(SB)/4, $0x3fb8aa3b
DATA ·attnFastK+96(SB)/4, $0xbf318000 // negC1
DATA ·attnFastK+100(SB)/4, $0xbf318000
DATA ·attnFastK+104(SB)/4, $0xbf318000
DATA ·attnFastK+108(SB)/4, $0xbf318000
DATA ·attnFastK+112(SB)/4, $0xbf318000
DATA ·attnFastK+116(SB)/4, $0xbf318000
DATA ·attnFastK+120(SB)/4, $0xbf318000
DATA ·attnFastK+124(SB)/4, $0xbf318000
DATA ·attnFastK+128(SB)/4, $0x395e8083 // negC2
DATA ·attnFastK+132(SB)/4, $0x395e8083
DATA ·attnFastK+136(SB)/4, $0x395e8083
DATA ·attnFastK+140(SB)/4, $0x395e8083
DATA ·attnFastK+144(SB)/4, $0x395e8083
DATA ·attnFastK+148(SB)/4, $0x395e8083
DATA ·attnFastK+152(SB)/4, $0x395e8083
DATA ·attnFastK+156(SB)/4, $0x395e8083
DATA ·attnFastK+160(SB)/4, $0x39506967 // p0
DATA ·attnFastK+164(SB)/4, $0x39506967
DATA ·attnFastK+168(SB)/4, $0x39506967
DATA ·attnFastK+172(SB)/4, $0x39506967
DATA ·attnFastK+176(SB)/4, $0x39506967
DATA ·attnFastK+180(SB)/4, $0x39506967
DATA ·attnFastK+184(SB)/4, $0x39506967
DATA ·attnFastK+188(SB)/4, $0x39506967
DATA ·attnFastK+192(SB)/4, $0x3ab743ce // p1
DATA ·attnFastK+196(SB)/4, $0x3ab743ce
DATA ·attnFastK+200(SB)/4, $0x3ab743ce
DATA ·attnFastK+204(SB)/4, $0x3ab743ce
DATA ·attnFastK+208(SB)/4, $0x3ab743ce
DATA ·attnFastK+212(SB)/4, $0x3ab743ce
DATA ·attnFastK+216(SB)/4, $0x3ab743ce
DATA ·attnFastK+220(SB)/4, $0x3ab743ce
DATA ·attnFastK+224(SB)/4, $0x3c088908 // p2
DATA ·attnFastK+228(SB)/4, $0x3c088908
DATA ·attnFastK+232(SB)/4, $0x3c088908
DATA ·attnFastK+236(SB)/4, $0x3c088908
DATA ·attnFastK+240(SB)/4, $0x3c088908
DATA ·attnFastK+244(SB)/4, $0x3c088908
DATA ·attnFastK+248(SB)/4, $0x3c088908
DATA ·attnFastK+252(SB)/4, $0x3c088908
DATA ·attnFastK+256(SB)/4, $0x3d2aa9c1 // p3
DATA ·attnFastK+260(SB)/4, $0x3d2aa9c1
DATA ·attnFastK+264(SB)/4, $0x3d2aa9c1
DATA ·attnFastK+268(SB)/4, $0x3d2aa9c1
DATA ·attnFastK+272(SB)/4, $0x3d2aa9c1
DATA ·attnFastK+276(SB)/4, $0x3d2aa9c1
DATA ·attnFastK+280(SB)/4, $0x3d2aa9c1
DATA ·attnFastK+284(SB)/4, $0x3d2aa9c1
DATA ·attnFastK+288(SB)/4, $0x3e2aaaaa // p4
DATA ·attnFastK+292(SB)/4, $0x3e2aaaaa
DATA ·attnFastK+296(SB)/4, $0x3e2aaaaa
DATA ·attnFastK+300(SB)/4, $0x3e2aaaaa
DATA ·attnFastK+304(SB)/4, $0x3e2aaaaa
DATA ·attnFastK+308(SB)/4, $0x3e2aaaaa
DATA ·attnFastK+312(SB)/4, $0x3e2aaaaa
DATA ·attnFastK+316(SB)/4, $0x3e2aaaaa
DATA ·attnFastK+320(SB)/4, $0x3f000000 // p5
DATA ·attnFastK+324(SB)/4, $0x3f000000
DATA ·attnFastK+328(SB)/4, $0x3f000000
DATA ·attnFastK+332(SB)/4, $0x3f000000
DATA ·attnFastK+336(SB)/4, $0x3f000000
DATA ·attnFastK+340(SB)/4, $0x3f000000
DATA ·attnFastK+344(SB)/4, $0x3f000000
DATA ·attnFastK+348(SB)/4, $0x3f000000
DATA ·attnFastK+352(SB)/4, $0x3f800000 // one
DATA ·attnFastK+356(SB)/4, $0x3f800000
DATA ·attnFastK+360(SB)/4, $0x3f800000
DATA ·attnFastK+364(SB)/4, $0x3f800000
DATA ·attnFastK+368(SB)/4, $0x3f800000
DATA ·attnFastK+372(SB)/4, $0x3f800000
DATA ·attnFastK+376(SB)/4, $0x3f800000
DATA ·attnFastK+380(SB)/4, $0x3f800000
DATA ·attnFastK+384(SB)/4, $0xff800000 // neginf
DATA ·attnFastK+388(SB)/4, $0xff800000
DATA ·attnFastK+392(SB)/4, $0xff800000
DATA ·attnFastK+396(SB)/4, $0xff800000
DATA ·attnFastK+400(SB)/4, $0xff800000
DATA ·attnFastK+404(SB)/4, $0xff800000
DATA ·attnFastK+408(SB)/4, $0xff800000
DATA ·attnFastK+412(SB)/4, $0xff800000
DATA ·attnFastK+416(SB)/4, $0 // lane index
DATA ·attnFastK+420(SB)/4, $1
DATA ·attnFastK+424(SB)/4, $2
DATA ·attnFastK+428(SB)/4, $3
DATA ·attnFastK+432(SB)/4, $4
DATA ·attnFastK+436(SB)/4, $5
DATA ·attnFastK+440(SB)/4, $6
DATA ·attnFastK+444(SB)/4, $7
GLOBL ·attnFastK(SB), RODATA|NOPTR, $448

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

// func attnPrefetchRows(src *uint16, stride, rows, lines int)
// PREFETCHT1 of lines 64-byte lines from each row's start (rounded down to
// its line); stride in bytes. Into the L2, not the L1 (as ATTN_PF_PASS):
// split decode calling the kernels KV head by KV head, each after its
// share of the rows' prefetch, read Llama-3-8B's cache at 10-12 GB/s with
// PREFETCHT0, 16-22 with PREFETCHT1 (AMD Zen4, BenchmarkAttendSplitLayers;
// TinyLlama's and batched decode at depth 1024 no slower).
TEXT ·attnPrefetchRows(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	ANDQ $-64, SI
	MOVQ stride+8(FP), R8
	MOVQ rows+16(FP), DX

pfrow:
	MOVQ SI, AX
	MOVQ lines+24(FP), CX

pfline:
	PREFETCHT1 (AX)
	ADDQ       $64, AX
	DECQ       CX
	JNZ        pfline
	ADDQ       R8, SI
	DECQ       DX
	JNZ        pfrow
	RET

// KTILE_ROW sets dst to the start of row r of the K tile at base
// (kTileIndex): (r/8)*8 rows + (r%4)*2 rows + ((r%8)/4)*32 bytes, rowBytes
// the bytes of one row; tmp is clobbered.
#define KTILE_ROW(r, rowBytes, base, dst, tmp) \
	MOVQ  r, dst        \
	SHRQ  $3, dst       \
	IMULQ rowBytes, dst \
	SHLQ  $3, dst       \
	MOVQ  r, tmp        \
	ANDQ  $3, tmp       \
	IMULQ rowBytes, tmp \
	SHLQ  $1, tmp       \
	ADDQ  tmp, dst      \
	MOVQ  r, tmp        \
	ANDQ  $4, tmp       \
	SHLQ  $3, tmp       \
	ADDQ  tmp, dst      \
	ADDQ  base, dst

// func attnWidenKAVX2(k *float32, dim8, row int, src *uint16, srcStride, rows, n8 int)
// Widens 8*n8 halves of each row into its slots of the K tile
// (kTileIndex); srcStride in bytes.
TEXT ·attnWidenKAVX2(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), DI
	MOVQ dim8+8(FP), R8
	SHLQ $5, R8               // bytes of one row
	MOVQ row+16(FP), R9
	MOVQ src+24(FP), SI
	MOVQ srcStride+32(FP), R10
	MOVQ rows+40(FP), DX

wkrow:
	KTILE_ROW(R9, R8, DI, AX, BX)
	MOVQ  SI, BX
	MOVQ  n8+48(FP), CX

wkchunk:
	VCVTPH2PS (BX), Y0
	VMOVUPS   Y0, (AX)
	ADDQ      $16, BX
	ADDQ      $64, AX
	DECQ      CX
	JNZ       wkchunk

	ADDQ R10, SI
	INCQ R9
	DECQ DX
	JNZ  wkrow
	VZEROUPPER
	RET

// func attnWidenKHeadsAVX2(k *float32, dim8, row int, src *uint16, srcStride, rows, n8, heads, kHead, srcHead int)
// attnWidenKAVX2 for heads heads: row by row, each row's heads in order,
// head h's 8*n8 halves (src + h*srcHead) into the K tile k + h*kHead.
// Strides in bytes.
TEXT ·attnWidenKHeadsAVX2(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), DI
	MOVQ dim8+8(FP), R8
	SHLQ $5, R8               // bytes of one row
	MOVQ row+16(FP), R9
	MOVQ src+24(FP), SI
	MOVQ srcStride+32(FP), R10
	MOVQ rows+40(FP), DX
	MOVQ kHead+64(FP), R11
	MOVQ srcHead+72(FP), R12

whrow:
	KTILE_ROW(R9, R8, DI, AX, BX)
	MOVQ  SI, BX
	MOVQ  heads+56(FP), R13

whhead:
	MOVQ AX, R14
	MOVQ BX, R15
	MOVQ n8+48(FP), CX

whchunk:
	VCVTPH2PS (R15), Y0
	VMOVUPS   Y0, (R14)
	ADDQ      $16, R15
	ADDQ      $64, R14
	DECQ      CX
	JNZ       whchunk

	ADDQ R11, AX
	ADDQ R12, BX
	DECQ R13
	JNZ  whhead

	ADDQ R10, SI
	INCQ R9
	DECQ DX
	JNZ  whrow
	VZEROUPPER
	RET

// func attnScoresAVX2(s *float32, sStride int, q, k *float32, heads, groups, dim8 int)
// For each head, groups of eight key rows of the K tile: eight
// accumulators (one per row), one query load and eight FMAs per 8
// elements, then a transpose reduction into the eight scores. sStride in
// bytes.
TEXT ·attnScoresAVX2(SB), NOSPLIT, $0-56
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
	MOVQ DX, BX               // this group's first pair
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
	MOVQ   BX, AX
	MOVQ   SI, R13
	MOVQ   dim8+48(FP), CX

scdot:
	VMOVUPS     (R13), Y8
	VFMADD231PS (AX), Y8, Y0
	VFMADD231PS (AX)(R11*1), Y8, Y1
	VFMADD231PS (AX)(R11*2), Y8, Y2
	VFMADD231PS (AX)(R12*1), Y8, Y3
	VFMADD231PS 32(AX), Y8, Y4
	VFMADD231PS 32(AX)(R11*1), Y8, Y5
	VFMADD231PS 32(AX)(R11*2), Y8, Y6
	VFMADD231PS 32(AX)(R12*1), Y8, Y7
	ADDQ        $64, AX
	ADDQ        $32, R13
	DECQ        CX
	JNZ         scdot

	ATTN_REDUCE8
	VMOVUPS    Y10, (R14)

	ADDQ $32, R14
	LEAQ (BX)(R11*4), BX
	DECQ R9
	JNZ  scgroup

	ADDQ R8, DI
	ADDQ R15, SI
	DECQ R10
	JNZ  schead
	VZEROUPPER
	RET

// func attnSoftmaxAVX2(s *float32, sStride int, heads, rows int, scale float32, m, l, alpha *float32)
// sStride in bytes.
TEXT ·attnSoftmaxAVX2(SB), NOSPLIT, $0-64
	MOVQ s+0(FP), DI
	MOVQ heads+16(FP), R10
	MOVQ m+40(FP), R11
	MOVQ l+48(FP), R12
	MOVQ alpha+56(FP), R13
	MOVQ rows+24(FP), DX
	MOVQ DX, R9
	SHRQ $3, R9               // full groups
	ANDQ $7, DX               // rows in the last, partial group
	VMOVD        DX, X15
	VPBROADCASTD X15, Y15
	VPCMPGTD     KLANES, Y15, Y15 // tail mask: lane < rows%8
	VBROADCASTSS scale+32(FP), Y14

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
	VMULSS       X14, X3, X3
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
	VMULPS  Y14, Y0, Y0
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
	VMULPS  Y14, Y0, Y0
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
// Heads four at a time: strips of 3, 2 or 1 vectors of the four
// accumulators held in registers (Y(V*h+j): head h, vector j) while every
// row's values, loaded once, take each head's weight; then the heads left
// one at a time in strips of 8, 4, 2 or 1 vectors. Each element's chain
// of FMAs is the same in both. pStride in bytes; rows are 32*dim8 bytes
// apart; rows > 0.
TEXT ·attnAccumVAVX2(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), DI
	MOVQ dim8+8(FP), R11
	SHLQ $5, R11              // row bytes (and the heads' accumulators' stride)
	MOVQ p+16(FP), SI
	MOVQ pStride+24(FP), R8
	MOVQ heads+40(FP), R10
	MOVQ alpha+56(FP), R13
	LEAQ (R8)(R8*2), R15      // three heads' weights
	LEAQ (R11)(R11*2), R14    // three heads' accumulators

av4group:
	CMPQ R10, $4
	JB   avrest
	MOVQ v+32(FP), R12        // the strip's values
	MOVQ dim8+8(FP), R9       // vectors left
	MOVQ DI, AX               // the strip's accumulators of the first head

av4s3:
	CMPQ R9, $3
	JB   av4n3
	VBROADCASTSS 0(R13), Y15
	VMULPS 0(AX), Y15, Y0
	VMULPS 32(AX), Y15, Y1
	VMULPS 64(AX), Y15, Y2
	VBROADCASTSS 4(R13), Y15
	VMULPS 0(AX)(R11*1), Y15, Y3
	VMULPS 32(AX)(R11*1), Y15, Y4
	VMULPS 64(AX)(R11*1), Y15, Y5
	VBROADCASTSS 8(R13), Y15
	VMULPS 0(AX)(R11*2), Y15, Y6
	VMULPS 32(AX)(R11*2), Y15, Y7
	VMULPS 64(AX)(R11*2), Y15, Y8
	VBROADCASTSS 12(R13), Y15
	VMULPS 0(AX)(R14*1), Y15, Y9
	VMULPS 32(AX)(R14*1), Y15, Y10
	VMULPS 64(AX)(R14*1), Y15, Y11
	MOVQ rows+48(FP), CX
	MOVQ R12, BX
	MOVQ SI, DX
av4s3row:
	VMOVUPS 0(BX), Y12
	VMOVUPS 32(BX), Y13
	VMOVUPS 64(BX), Y14
	VBROADCASTSS (DX), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VBROADCASTSS (DX)(R8*1), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VBROADCASTSS (DX)(R8*2), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VBROADCASTSS (DX)(R15*1), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ R11, BX
	ADDQ $4, DX
	DECQ CX
	JNZ  av4s3row
	VMOVUPS Y0, 0(AX)
	VMOVUPS Y1, 32(AX)
	VMOVUPS Y2, 64(AX)
	VMOVUPS Y3, 0(AX)(R11*1)
	VMOVUPS Y4, 32(AX)(R11*1)
	VMOVUPS Y5, 64(AX)(R11*1)
	VMOVUPS Y6, 0(AX)(R11*2)
	VMOVUPS Y7, 32(AX)(R11*2)
	VMOVUPS Y8, 64(AX)(R11*2)
	VMOVUPS Y9, 0(AX)(R14*1)
	VMOVUPS Y10, 32(AX)(R14*1)
	VMOVUPS Y11, 64(AX)(R14*1)
	ADDQ $(32*3), AX
	ADDQ $(32*3), R12
	SUBQ $3, R9
	JMP  av4s3

av4n3:
av4s2:
	CMPQ R9, $2
	JB   av4n2
	VBROADCASTSS 0(R13), Y15
	VMULPS 0(AX), Y15, Y0
	VMULPS 32(AX), Y15, Y1
	VBROADCASTSS 4(R13), Y15
	VMULPS 0(AX)(R11*1), Y15, Y2
	VMULPS 32(AX)(R11*1), Y15, Y3
	VBROADCASTSS 8(R13), Y15
	VMULPS 0(AX)(R11*2), Y15, Y4
	VMULPS 32(AX)(R11*2), Y15, Y5
	VBROADCASTSS 12(R13), Y15
	VMULPS 0(AX)(R14*1), Y15, Y6
	VMULPS 32(AX)(R14*1), Y15, Y7
	MOVQ rows+48(FP), CX
	MOVQ R12, BX
	MOVQ SI, DX
av4s2row:
	VMOVUPS 0(BX), Y12
	VMOVUPS 32(BX), Y13
	VBROADCASTSS (DX), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VBROADCASTSS (DX)(R8*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (DX)(R8*2), Y15
	VFMADD231PS Y12, Y15, Y4
	VFMADD231PS Y13, Y15, Y5
	VBROADCASTSS (DX)(R15*1), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	ADDQ R11, BX
	ADDQ $4, DX
	DECQ CX
	JNZ  av4s2row
	VMOVUPS Y0, 0(AX)
	VMOVUPS Y1, 32(AX)
	VMOVUPS Y2, 0(AX)(R11*1)
	VMOVUPS Y3, 32(AX)(R11*1)
	VMOVUPS Y4, 0(AX)(R11*2)
	VMOVUPS Y5, 32(AX)(R11*2)
	VMOVUPS Y6, 0(AX)(R14*1)
	VMOVUPS Y7, 32(AX)(R14*1)
	ADDQ $(32*2), AX
	ADDQ $(32*2), R12
	SUBQ $2, R9
	JMP  av4s2

av4n2:
av4s1:
	CMPQ R9, $1
	JB   av4n1
	VBROADCASTSS 0(R13), Y15
	VMULPS 0(AX), Y15, Y0
	VBROADCASTSS 4(R13), Y15
	VMULPS 0(AX)(R11*1), Y15, Y1
	VBROADCASTSS 8(R13), Y15
	VMULPS 0(AX)(R11*2), Y15, Y2
	VBROADCASTSS 12(R13), Y15
	VMULPS 0(AX)(R14*1), Y15, Y3
	MOVQ rows+48(FP), CX
	MOVQ R12, BX
	MOVQ SI, DX
av4s1row:
	VMOVUPS 0(BX), Y12
	VBROADCASTSS (DX), Y15
	VFMADD231PS Y12, Y15, Y0
	VBROADCASTSS (DX)(R8*1), Y15
	VFMADD231PS Y12, Y15, Y1
	VBROADCASTSS (DX)(R8*2), Y15
	VFMADD231PS Y12, Y15, Y2
	VBROADCASTSS (DX)(R15*1), Y15
	VFMADD231PS Y12, Y15, Y3
	ADDQ R11, BX
	ADDQ $4, DX
	DECQ CX
	JNZ  av4s1row
	VMOVUPS Y0, 0(AX)
	VMOVUPS Y1, 0(AX)(R11*1)
	VMOVUPS Y2, 0(AX)(R11*2)
	VMOVUPS Y3, 0(AX)(R14*1)
	ADDQ $(32*1), AX
	ADDQ $(32*1), R12
	SUBQ $1, R9
	JMP  av4s1

av4n1:
	LEAQ (DI)(R11*4), DI
	LEAQ (SI)(R8*4), SI
	ADDQ $16, R13
	SUBQ $4, R10
	JMP  av4group

avrest:
	TESTQ R10, R10
	JZ    avdone

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

avdone:
	VZEROUPPER
	RET
