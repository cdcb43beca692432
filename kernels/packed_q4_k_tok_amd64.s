//go:build !purego

#include "q4k_amd64.h"
#include "quad_amd64.h"
#include "textflag.h"

// One-token kernels in Q4_K's four-token order (vecDotQ4_KQ8_KQuadGeneric)
// on the avx512vnni set's layouts (packQ4_KGroupTok, q8_KQuadTok), in AVX2
// instructions: that set's packed Q4_K kernels sum a lone token in the
// one-token order, and these let its batch-invariant passes (MatMul under
// a uniform order) skip padding a lone token to a quad.
//
// Per group, block column and chunk k: the low nibbles of the eight pieces
// of the chunk (sub-block 2k of each row) against the token's quants
// 64k..64k+31, the high nibbles (sub-block 2k+1) against 64k+32..64k+63,
// each summed in int16 (at most 8 x 2 x 15 x 128 per lane), widened per
// row, times the rows' 6-bit scales: s_k = sc(2k)*lo + sc(2k+1)*hi, the
// exact integer of q4KPairs. Then Q4K_QSTEP.

// Y15 = 0x0F bytes, Y13 = int16 ones.
#define TQ_CONSTS \
	MOVL         $0x0F0F0F0F, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15        \
	VPCMPEQW     Y13, Y13, Y13   \
	VPSRLW       $15, Y13, Y13

// Piece g of chunk k (R11 = 256k) of the group at W against the token's
// quants at R13 (64k into them): low nibbles into Y0, high into Y1 (int16).
#define TQ_PIECE(W, g) \
	VMOVDQU      160+32*g(W)(R11*1), Y4 \
	VPSRLW       $4, Y4, Y5             \
	VPAND        Y15, Y4, Y4            \
	VPAND        Y15, Y5, Y5            \
	VPBROADCASTD 4*g(R13), Y2           \
	VPMADDUBSW   Y2, Y4, Y4             \
	VPADDW       Y4, Y0, Y0             \
	VPBROADCASTD 32+4*g(R13), Y3        \
	VPMADDUBSW   Y3, Y5, Y5             \
	VPADDW       Y5, Y1, Y1

// s_k of chunk k (R11 = 256k, R12 = 16k, R13 the token's quants + 64k) of
// the group at W into Y8 (Y0-Y6 scratch).
#define TQ_CHUNK(W) \
	VPXOR     Y0, Y0, Y0          \
	VPXOR     Y1, Y1, Y1          \
	TQ_PIECE(W, 0)                \
	TQ_PIECE(W, 1)                \
	TQ_PIECE(W, 2)                \
	TQ_PIECE(W, 3)                \
	TQ_PIECE(W, 4)                \
	TQ_PIECE(W, 5)                \
	TQ_PIECE(W, 6)                \
	TQ_PIECE(W, 7)                \
	VPMADDWD  Y13, Y0, Y0         \
	VPMADDWD  Y13, Y1, Y1         \
	VPMOVZXBD 32(W)(R12*1), Y6    \
	VPMULLD   Y6, Y0, Y0          \
	VPMOVZXBD 40(W)(R12*1), Y6    \
	VPMULLD   Y6, Y1, Y1          \
	VPADDD    Y1, Y0, Y8

// func q4_Kx8TokGemvQAVX2(nb int, w, a *byte, tok int, out *float32)
// Token tok of the quad at a: its d at 4tok, its sum pairs at 16+16k+4tok
// (DI = a+4tok reads them at token 0's offsets), its quants at
// 80+256tok (R13, from DI + 252tok).
TEXT ·q4_Kx8TokGemvQAVX2(SB), NOSPLIT, $0-40
	MOVQ  nb+0(FP), CX
	MOVQ  w+8(FP), SI
	MOVQ  a+16(FP), DI
	MOVQ  tok+24(FP), BX
	LEAQ  (DI)(BX*4), DI
	IMULQ $252, BX
	ADDQ  $80, BX             // the quants from DI
	MOVQ  out+32(FP), DX
	TQ_CONSTS
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ  CX, CX
	JZ     tqgvdone

tqgvloop:
	VBROADCASTSS (DI), Y7
	VCVTPH2PS    (SI), Y12
	VMULPS       Y7, Y12, Y12 // d_w*d_a
	VCVTPH2PS    16(SI), Y14
	VMULPS       Y7, Y14, Y14 // dmin_w*d_a
	XORQ         R11, R11
	XORQ         R12, R12
	LEAQ         (DI)(BX*1), R13

tqgvchunk:
	TQ_CHUNK(SI)
	Q4K_QSTEP(SI, Y8, Y12, Y14, Y10, Y11)
	ADDQ $256, R11
	ADDQ $16, R12
	ADDQ $64, R13
	CMPQ R12, $64
	JLT  tqgvchunk
	ADDQ $1184, SI
	ADDQ $Q8K_QUADTOK_BYTES, DI
	DECQ CX
	JNZ  tqgvloop

tqgvdone:
	VSUBPS  Y11, Y10, Y10
	VMOVUPS Y10, (DX)
	VZEROUPPER
	RET

// Chunk k of the group at W, its acc and accm at off and off+32 in the
// frame, its scales 256 bytes further (Y9, Y12 scratch).
#define TQ_GROUP4(W, off) \
	TQ_CHUNK(W)                                        \
	VMOVUPS off(SP), Y9                                \
	VMOVUPS off+32(SP), Y12                            \
	Q4K_QSTEP(W, Y8, off+256(SP), off+288(SP), Y9, Y12) \
	VMOVUPS Y9, off(SP)                                \
	VMOVUPS Y12, off+32(SP)

// func q4_Kx8TokGemv4QAVX2(nb int, w *byte, gstride int, a *byte, tok int, out *float32, ostride int)
// q4_Kx8TokGemvQAVX2 on four groups gstride bytes apart (four DRAM streams
// per core), group g's outputs at out + g*ostride floats; the groups take
// turns by chunk (256 bytes of each stream).
TEXT ·q4_Kx8TokGemv4QAVX2(SB), NOSPLIT, $512-56
	MOVQ  nb+0(FP), CX
	MOVQ  w+8(FP), SI
	MOVQ  gstride+16(FP), AX
	MOVQ  a+24(FP), DI
	MOVQ  tok+32(FP), BX
	LEAQ  (DI)(BX*4), DI
	IMULQ $252, BX
	ADDQ  $80, BX
	LEAQ  (SI)(AX*1), R8
	LEAQ  (R8)(AX*1), R9
	LEAQ  (R9)(AX*1), R10
	TQ_CONSTS
	Q4K_ZERO4(Y9)
	TESTQ   CX, CX
	JZ      tqg4done

tqg4col:
	VBROADCASTSS (DI), Y7
	Q4K_DDM(SI, 256)
	Q4K_DDM(R8, 320)
	Q4K_DDM(R9, 384)
	Q4K_DDM(R10, 448)
	XORQ R11, R11
	XORQ R12, R12
	LEAQ (DI)(BX*1), R13

tqg4chunk:
	TQ_GROUP4(SI, 0)
	TQ_GROUP4(R8, 64)
	TQ_GROUP4(R9, 128)
	TQ_GROUP4(R10, 192)
	ADDQ $256, R11
	ADDQ $16, R12
	ADDQ $64, R13
	CMPQ R12, $64
	JLT  tqg4chunk
	Q4K_NEXT4(Q8K_QUADTOK_BYTES)
	DECQ CX
	JNZ  tqg4col

tqg4done:
	MOVQ    out+40(FP), DX
	MOVQ    ostride+48(FP), AX
	SHLQ    $2, AX
	Q4K_STORE4(AX)
	VZEROUPPER
	RET
