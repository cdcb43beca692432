//go:build !purego

#include "quad_amd64.h"
#include "textflag.h"

// Packed Q3_K (packQ3_KGroup) times Q8_K activations in the quad layout
// (q8_KQuad), in ggml_vec_dot_q3_K_q8_K's float order on AVX2
// (vecDotQ3_KQ8_KGeneric), bit for bit: per row and block eight int32
// lanes, each converted and added into a float lane with one FMA by
// d_w*d_a, the lanes summed at the end in HSUM's tree.
//
// Lane g of a row is one int32 lane of a vector: per chunk k, the low and
// high 3-bit pieces of lane g (eight rows, unsigned q+4) times the
// broadcast activation slots, the int16 pairs added, 4 times the slots'
// activation sums taken off (q8_KQuadSums), one multiply-add by the
// sub-blocks' scale pairs. Like the Q5_K kernels they loop over the eight
// lanes (R11 = 96g into the group's planes, R12 = 32g into the quad's
// slots and the frame's lanes, R13 = 16g into the quad's sums at AX, R14 =
// 128*(g/4) into the frame's scale pairs) rather than unroll them, and
// issue no software prefetch (PREFETCHT0 1-2 KiB ahead in each stream of
// the four-group gemv ran it 1.08-1.15x slower from DRAM on a Zen3).
//
// Frame, per group (at goff): the scale pairs as int16 (vector 4h+k at
// 32(4h+k)), d_w*d_a (256), the eight lanes (288+32g); the gemm has one
// group and per token t its d_w*d_a at 256+32t and lanes at 384+256t.

// Y15 = 0x07 bytes, Y14 = 0x03 bytes, Y13 = 0x04 bytes.
#define Q3K_CONSTS \
	MOVL         $0x07070707, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15        \
	MOVL         $0x03030303, AX \
	VMOVD        AX, X14         \
	VPBROADCASTD X14, Y14        \
	MOVL         $0x04040404, AX \
	VMOVD        AX, X13         \
	VPBROADCASTD X13, Y13

// Q3K_SCALES stores the eight scale-pair vectors of the block column of
// the group at W, sign-extended to int16, in the frame block at goff.
#define Q3K_SCALES(W, goff) \
	VPMOVSXBW 16(W), Y8 \
	VMOVDQU   Y8, goff+0(SP) \
	VPMOVSXBW 32(W), Y8 \
	VMOVDQU   Y8, goff+32(SP) \
	VPMOVSXBW 48(W), Y8 \
	VMOVDQU   Y8, goff+64(SP) \
	VPMOVSXBW 64(W), Y8 \
	VMOVDQU   Y8, goff+96(SP) \
	VPMOVSXBW 80(W), Y8 \
	VMOVDQU   Y8, goff+128(SP) \
	VPMOVSXBW 96(W), Y8 \
	VMOVDQU   Y8, goff+160(SP) \
	VPMOVSXBW 112(W), Y8 \
	VMOVDQU   Y8, goff+192(SP) \
	VPMOVSXBW 128(W), Y8 \
	VMOVDQU   Y8, goff+224(SP)

// Q3K_HEAD stores the scale pairs and d_w*d_a of the block column of the
// group at W for token 0 of the quad block at DI (Y8, Y9 scratch).
#define Q3K_HEAD(W, goff) \
	Q3K_SCALES(W, goff) \
	VCVTPH2PS    (W), Y8 \
	VBROADCASTSS (DI), Y9 \
	VMULPS       Y9, Y8, Y8 \
	VMOVUPS      Y8, goff+256(SP)


// Q3K_LANE adds lane g of the block column of the group at W for token 0
// into the frame block at goff: per chunk k the pieces u(2k), u(2k+1)
// unpacked from the planes (one mask, or a shift and a mask, or for u2
// and u5 two of those and an OR), their products, the int32 lane summed
// over the four chunks, then lane = fma(d_w*d_a, float, lane). The
// lane's three planes are loaded once into Y8-Y10 (re-read from memory
// for each piece they ran 1.04-1.07x slower); Y0-Y5, Y7 scratch.
#define Q3K_LANE(W, goff) \
	VMOVDQU 144(W)(R11*1), Y8 \
	VMOVDQU 176(W)(R11*1), Y9 \
	VMOVDQU 208(W)(R11*1), Y10 \
	VPAND Y15, Y8, Y1 \
	VPSRLW $3, Y8, Y2 \
	VPAND Y15, Y2, Y2 \
	VPBROADCASTD 80(DI)(R12*1), Y7 \
	VPMADDUBSW Y7, Y1, Y5 \
	VPBROADCASTD 96(DI)(R12*1), Y7 \
	VPMADDUBSW Y7, Y2, Y7 \
	VPADDW Y7, Y5, Y5 \
	VPBROADCASTD 0(AX)(R13*1), Y7 \
	VPSUBW Y7, Y5, Y5 \
	VPMADDWD goff+0(SP)(R14*1), Y5, Y0 \
	VPSRLW $6, Y8, Y3 \
	VPAND Y14, Y3, Y3 \
	VPSRLW $4, Y10, Y4 \
	VPAND Y13, Y4, Y4 \
	VPOR Y4, Y3, Y1 \
	VPAND Y9, Y15, Y2 \
	VPBROADCASTD 336(DI)(R12*1), Y7 \
	VPMADDUBSW Y7, Y1, Y5 \
	VPBROADCASTD 352(DI)(R12*1), Y7 \
	VPMADDUBSW Y7, Y2, Y7 \
	VPADDW Y7, Y5, Y5 \
	VPBROADCASTD 128(AX)(R13*1), Y7 \
	VPSUBW Y7, Y5, Y5 \
	VPMADDWD goff+32(SP)(R14*1), Y5, Y5 \
	VPADDD Y5, Y0, Y0 \
	VPSRLW $3, Y9, Y1 \
	VPAND Y15, Y1, Y1 \
	VPSRLW $6, Y9, Y3 \
	VPAND Y14, Y3, Y3 \
	VPSRLW $5, Y10, Y4 \
	VPAND Y13, Y4, Y4 \
	VPOR Y4, Y3, Y2 \
	VPBROADCASTD 592(DI)(R12*1), Y7 \
	VPMADDUBSW Y7, Y1, Y5 \
	VPBROADCASTD 608(DI)(R12*1), Y7 \
	VPMADDUBSW Y7, Y2, Y7 \
	VPADDW Y7, Y5, Y5 \
	VPBROADCASTD 256(AX)(R13*1), Y7 \
	VPSUBW Y7, Y5, Y5 \
	VPMADDWD goff+64(SP)(R14*1), Y5, Y5 \
	VPADDD Y5, Y0, Y0 \
	VPAND Y15, Y10, Y1 \
	VPSRLW $3, Y10, Y2 \
	VPAND Y15, Y2, Y2 \
	VPBROADCASTD 848(DI)(R12*1), Y7 \
	VPMADDUBSW Y7, Y1, Y5 \
	VPBROADCASTD 864(DI)(R12*1), Y7 \
	VPMADDUBSW Y7, Y2, Y7 \
	VPADDW Y7, Y5, Y5 \
	VPBROADCASTD 384(AX)(R13*1), Y7 \
	VPSUBW Y7, Y5, Y5 \
	VPMADDWD goff+96(SP)(R14*1), Y5, Y5 \
	VPADDD Y5, Y0, Y0 \
	VCVTDQ2PS Y0, Y0 \
	VMOVUPS goff+288(SP)(R12*1), Y5 \
	VFMADD231PS goff+256(SP), Y0, Y5 \
	VMOVUPS Y5, goff+288(SP)(R12*1)

// Q3K_OUT stores the eight sums of the lanes at lanes(SP), each row's
// HSUM, ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)), at (DX), then moves DX
// on by BX bytes.
#define Q3K_OUT(lanes) \
	VMOVUPS lanes(SP), Y0         \
	VMOVUPS lanes+32(SP), Y1      \
	VMOVUPS lanes+64(SP), Y2      \
	VMOVUPS lanes+96(SP), Y3      \
	VADDPS  lanes+128(SP), Y0, Y0 \
	VADDPS  lanes+160(SP), Y1, Y1 \
	VADDPS  lanes+192(SP), Y2, Y2 \
	VADDPS  lanes+224(SP), Y3, Y3 \
	VADDPS  Y2, Y0, Y0            \
	VADDPS  Y3, Y1, Y1            \
	VADDPS  Y1, Y0, Y0            \
	VMOVUPS Y0, (DX)              \
	ADDQ    BX, DX

// Q3K_LANE_START and Q3K_LANE_NEXT run the lane counters (see above).
#define Q3K_LANE_START \
	XORQ R11, R11 \
	XORQ R12, R12 \
	XORQ R13, R13 \
	XORQ R14, R14

#define Q3K_LANE_NEXT \
	ADDQ $96, R11 \
	ADDQ $32, R12 \
	ADDQ $16, R13 \
	MOVQ R12, R14 \
	ANDQ $128, R14


// Q3K_LANE4 adds lane g of the block column of the group at SI for the
// four tokens of the quad block at DI, each piece unpacked once, into token
// t's lanes at 384+256t(SP). Y0-Y3 are the tokens' int32 lanes, Y10-Y12
// the lane's planes; Y4-Y9 scratch.
#define Q3K_LANE4 \
	VMOVDQU 144(SI)(R11*1), Y10 \
	VMOVDQU 176(SI)(R11*1), Y11 \
	VMOVDQU 208(SI)(R11*1), Y12 \
	VPAND Y15, Y10, Y4 \
	VPSRLW $3, Y10, Y5 \
	VPAND Y15, Y5, Y5 \
	VPBROADCASTD 80(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 96(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 0(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+0(SP)(R14*1), Y8, Y0 \
	VPBROADCASTD 84(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 100(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 4(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+0(SP)(R14*1), Y8, Y1 \
	VPBROADCASTD 88(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 104(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 8(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+0(SP)(R14*1), Y8, Y2 \
	VPBROADCASTD 92(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 108(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 12(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+0(SP)(R14*1), Y8, Y3 \
	VPSRLW $6, Y10, Y6 \
	VPAND Y14, Y6, Y6 \
	VPSRLW $4, Y12, Y7 \
	VPAND Y13, Y7, Y7 \
	VPOR Y7, Y6, Y4 \
	VPAND Y11, Y15, Y5 \
	VPBROADCASTD 336(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 352(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 128(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+32(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y0, Y0 \
	VPBROADCASTD 340(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 356(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 132(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+32(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y1, Y1 \
	VPBROADCASTD 344(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 360(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 136(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+32(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y2, Y2 \
	VPBROADCASTD 348(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 364(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 140(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+32(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y3, Y3 \
	VPSRLW $3, Y11, Y4 \
	VPAND Y15, Y4, Y4 \
	VPSRLW $6, Y11, Y6 \
	VPAND Y14, Y6, Y6 \
	VPSRLW $5, Y12, Y7 \
	VPAND Y13, Y7, Y7 \
	VPOR Y7, Y6, Y5 \
	VPBROADCASTD 592(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 608(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 256(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+64(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y0, Y0 \
	VPBROADCASTD 596(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 612(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 260(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+64(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y1, Y1 \
	VPBROADCASTD 600(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 616(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 264(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+64(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y2, Y2 \
	VPBROADCASTD 604(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 620(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 268(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+64(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y3, Y3 \
	VPAND Y15, Y12, Y4 \
	VPSRLW $3, Y12, Y5 \
	VPAND Y15, Y5, Y5 \
	VPBROADCASTD 848(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 864(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 384(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+96(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y0, Y0 \
	VPBROADCASTD 852(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 868(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 388(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+96(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y1, Y1 \
	VPBROADCASTD 856(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 872(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 392(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+96(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y2, Y2 \
	VPBROADCASTD 860(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y4, Y8 \
	VPBROADCASTD 876(DI)(R12*1), Y9 \
	VPMADDUBSW Y9, Y5, Y9 \
	VPADDW Y9, Y8, Y8 \
	VPBROADCASTD 396(AX)(R13*1), Y9 \
	VPSUBW Y9, Y8, Y8 \
	VPMADDWD 0+96(SP)(R14*1), Y8, Y8 \
	VPADDD Y8, Y3, Y3 \
	VCVTDQ2PS Y0, Y0 \
	VMOVUPS 384(SP)(R12*1), Y8 \
	VFMADD231PS 256(SP), Y0, Y8 \
	VMOVUPS Y8, 384(SP)(R12*1) \
	VCVTDQ2PS Y1, Y1 \
	VMOVUPS 640(SP)(R12*1), Y8 \
	VFMADD231PS 288(SP), Y1, Y8 \
	VMOVUPS Y8, 640(SP)(R12*1) \
	VCVTDQ2PS Y2, Y2 \
	VMOVUPS 896(SP)(R12*1), Y8 \
	VFMADD231PS 320(SP), Y2, Y8 \
	VMOVUPS Y8, 896(SP)(R12*1) \
	VCVTDQ2PS Y3, Y3 \
	VMOVUPS 1152(SP)(R12*1), Y8 \
	VFMADD231PS 352(SP), Y3, Y8 \
	VMOVUPS Y8, 1152(SP)(R12*1)

// Q3K_HEAD4 stores the scale pairs of the block column of the group at SI
// and the four tokens' d_w*d_a at 256+32t (Y8-Y10 scratch).
#define Q3K_HEAD4 \
	Q3K_SCALES(SI, 0) \
	VCVTPH2PS    (SI), Y8 \
	VBROADCASTSS 0(DI), Y9 \
	VMULPS       Y9, Y8, Y10 \
	VMOVUPS      Y10, 256(SP) \
	VBROADCASTSS 4(DI), Y9 \
	VMULPS       Y9, Y8, Y10 \
	VMOVUPS      Y10, 288(SP) \
	VBROADCASTSS 8(DI), Y9 \
	VMULPS       Y9, Y8, Y10 \
	VMOVUPS      Y10, 320(SP) \
	VBROADCASTSS 12(DI), Y9 \
	VMULPS       Y9, Y8, Y10 \
	VMOVUPS      Y10, 352(SP)

// One Q3_K group against token 0: out[0..7] (frame block at 0).

// func q3_Kx8GemvAVX2(nb int, w, a, s *byte, out *float32)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q3_Kx8GemvAVX2(SB), 0, $544-40
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q3K_CONSTS
	MOVQ s+24(FP), AX
	VXORPS Y0, Y0, Y0
	VMOVUPS Y0, 288(SP)
	VMOVUPS Y0, 320(SP)
	VMOVUPS Y0, 352(SP)
	VMOVUPS Y0, 384(SP)
	VMOVUPS Y0, 416(SP)
	VMOVUPS Y0, 448(SP)
	VMOVUPS Y0, 480(SP)
	VMOVUPS Y0, 512(SP)
	TESTQ CX, CX
	JZ    q3kgvdone

q3kgvloop:
	Q3K_HEAD(SI, 0)
	Q3K_LANE_START

q3kgvlane:
	Q3K_LANE(SI, 0)
	Q3K_LANE_NEXT
	CMPQ R12, $256
	JLT  q3kgvlane
	ADDQ $Q3K_GROUP_BYTES, SI
	ADDQ $Q8K_QUAD_MAIN, DI
	ADDQ $Q8K_QUAD_SUMS, AX
	DECQ CX
	JNZ  q3kgvloop

q3kgvdone:
	MOVQ out+32(FP), DX
	Q3K_OUT(288)
	VZEROUPPER
	RET

// Four groups gstride bytes apart (four DRAM streams per core), taking
// turns by lane: 96 bytes of each stream at a time after the groups' 144
// header bytes. Group g's frame block is at 544g.

// func q3_Kx8Gemv4AVX2(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q3_Kx8Gemv4AVX2(SB), 0, $2176-56
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ gstride+16(FP), BX
	MOVQ a+24(FP), DI
	LEAQ (SI)(BX*1), R8
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	Q3K_CONSTS
	MOVQ s+32(FP), AX
	VXORPS Y0, Y0, Y0
	VMOVUPS Y0, 288(SP)
	VMOVUPS Y0, 320(SP)
	VMOVUPS Y0, 352(SP)
	VMOVUPS Y0, 384(SP)
	VMOVUPS Y0, 416(SP)
	VMOVUPS Y0, 448(SP)
	VMOVUPS Y0, 480(SP)
	VMOVUPS Y0, 512(SP)
	VMOVUPS Y0, 832(SP)
	VMOVUPS Y0, 864(SP)
	VMOVUPS Y0, 896(SP)
	VMOVUPS Y0, 928(SP)
	VMOVUPS Y0, 960(SP)
	VMOVUPS Y0, 992(SP)
	VMOVUPS Y0, 1024(SP)
	VMOVUPS Y0, 1056(SP)
	VMOVUPS Y0, 1376(SP)
	VMOVUPS Y0, 1408(SP)
	VMOVUPS Y0, 1440(SP)
	VMOVUPS Y0, 1472(SP)
	VMOVUPS Y0, 1504(SP)
	VMOVUPS Y0, 1536(SP)
	VMOVUPS Y0, 1568(SP)
	VMOVUPS Y0, 1600(SP)
	VMOVUPS Y0, 1920(SP)
	VMOVUPS Y0, 1952(SP)
	VMOVUPS Y0, 1984(SP)
	VMOVUPS Y0, 2016(SP)
	VMOVUPS Y0, 2048(SP)
	VMOVUPS Y0, 2080(SP)
	VMOVUPS Y0, 2112(SP)
	VMOVUPS Y0, 2144(SP)
	TESTQ CX, CX
	JZ    q3kgv4done

q3kgv4loop:
	Q3K_HEAD(SI, 0)
	Q3K_HEAD(R8, 544)
	Q3K_HEAD(R9, 1088)
	Q3K_HEAD(R10, 1632)
	Q3K_LANE_START

q3kgv4lane:
	Q3K_LANE(SI, 0)
	Q3K_LANE(R8, 544)
	Q3K_LANE(R9, 1088)
	Q3K_LANE(R10, 1632)
	Q3K_LANE_NEXT
	CMPQ R12, $256
	JLT  q3kgv4lane
	ADDQ $Q3K_GROUP_BYTES, SI
	ADDQ $Q3K_GROUP_BYTES, R8
	ADDQ $Q3K_GROUP_BYTES, R9
	ADDQ $Q3K_GROUP_BYTES, R10
	ADDQ $Q8K_QUAD_MAIN, DI
	ADDQ $Q8K_QUAD_SUMS, AX
	DECQ CX
	JNZ  q3kgv4loop

q3kgv4done:
	MOVQ out+40(FP), DX
	MOVQ ostride+48(FP), BX
	SHLQ $2, BX
	Q3K_OUT(288)
	Q3K_OUT(832)
	Q3K_OUT(1376)
	Q3K_OUT(1920)
	VZEROUPPER
	RET

// One group of eight rows against the ntok (1..4) tokens of the quad
// blocks: out[t*ostride+r], every token in the gemv's steps (same bits).

// func q3_Kx8GemmAVX2(nb int, w, a, s *byte, out *float32, ostride, ntok int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q3_Kx8GemmAVX2(SB), 0, $1408-56
	MOVQ nb+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	Q3K_CONSTS
	MOVQ s+24(FP), AX
	VXORPS Y0, Y0, Y0
	VMOVUPS Y0, 384(SP)
	VMOVUPS Y0, 416(SP)
	VMOVUPS Y0, 448(SP)
	VMOVUPS Y0, 480(SP)
	VMOVUPS Y0, 512(SP)
	VMOVUPS Y0, 544(SP)
	VMOVUPS Y0, 576(SP)
	VMOVUPS Y0, 608(SP)
	VMOVUPS Y0, 640(SP)
	VMOVUPS Y0, 672(SP)
	VMOVUPS Y0, 704(SP)
	VMOVUPS Y0, 736(SP)
	VMOVUPS Y0, 768(SP)
	VMOVUPS Y0, 800(SP)
	VMOVUPS Y0, 832(SP)
	VMOVUPS Y0, 864(SP)
	VMOVUPS Y0, 896(SP)
	VMOVUPS Y0, 928(SP)
	VMOVUPS Y0, 960(SP)
	VMOVUPS Y0, 992(SP)
	VMOVUPS Y0, 1024(SP)
	VMOVUPS Y0, 1056(SP)
	VMOVUPS Y0, 1088(SP)
	VMOVUPS Y0, 1120(SP)
	VMOVUPS Y0, 1152(SP)
	VMOVUPS Y0, 1184(SP)
	VMOVUPS Y0, 1216(SP)
	VMOVUPS Y0, 1248(SP)
	VMOVUPS Y0, 1280(SP)
	VMOVUPS Y0, 1312(SP)
	VMOVUPS Y0, 1344(SP)
	VMOVUPS Y0, 1376(SP)
	TESTQ CX, CX
	JZ    q3kgmdone

q3kgmloop:
	Q3K_HEAD4
	Q3K_LANE_START

q3kgmlane:
	Q3K_LANE4
	Q3K_LANE_NEXT
	CMPQ R12, $256
	JLT  q3kgmlane
	ADDQ $Q3K_GROUP_BYTES, SI
	ADDQ $Q8K_QUAD_MAIN, DI
	ADDQ $Q8K_QUAD_SUMS, AX
	DECQ CX
	JNZ  q3kgmloop

q3kgmdone:
	MOVQ out+32(FP), DX
	MOVQ ostride+40(FP), BX
	SHLQ $2, BX
	MOVQ ntok+48(FP), AX
	Q3K_OUT(384)
	CMPQ AX, $1
	JLE  q3kgmend
	Q3K_OUT(640)
	CMPQ AX, $2
	JLE  q3kgmend
	Q3K_OUT(896)
	CMPQ AX, $3
	JLE  q3kgmend
	Q3K_OUT(1152)

q3kgmend:
	VZEROUPPER
	RET
