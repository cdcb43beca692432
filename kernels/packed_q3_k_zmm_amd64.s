//go:build !purego

#include "lanes_amd64.h"
#include "quad_amd64.h"
#include "textflag.h"
#include "vnni_amd64.h"

// The avx512zmm set's Q3_K decode kernel: q3_Kx8Gemv4AVX2
// (packed_q3_k_amd64.s, same layout, quads and bits) with two groups per
// 512-bit register, the first group's rows in the lower half. Per chunk
// and pair of groups the AVX2 kernel's eleven or so vector operations for
// one group become about nine for two: the 3-bit pieces unpacked with
// VPTERNLOGD merging the pieces split across planes, and VPDPWSSD doing
// the scale pairs' multiply-add and the lane's add in one. The pairs (g0,
// g1) and (g2, g3) share each chunk's broadcast activation slots and
// sums.
//
// Registers: Z29 = 0x07, Z30 = 0x03, Z31 = 0x04 bytes; the pairs' d_w*d_a
// in Z24 and Z25. Frame, per pair p at 1024p: the eight scale-pair
// vectors as int16 (vector 4h+k at 64(4h+k)), the eight float lanes
// (512 + 64g). Lane counters as the AVX2 kernel's (Q3K_LANE_START): R11 =
// 96g into the planes, R12 = 32g into the slots, R13 = 16g into the sums
// at AX, R14 = 128*(g/4) (twice that into the frame's scale pairs).

// Q3KZ_HEAD stores the scale pairs of the block column of the groups at A
// and B in the frame at goff and sets Zd to their d_w*d_a (token 0). Z0
// scratch.
#define Q3KZ_SC(A, B, v, goff) \
	VMOVDQU     16+16*v(A), X0         \
	VINSERTI128 $1, 16+16*v(B), Y0, Y0 \
	VPMOVSXBW   Y0, Z0                 \
	VMOVDQU64   Z0, goff+64*v(SP)

#define Q3KZ_HEAD(A, B, goff, Zd) \
	Q3KZ_SC(A, B, 0, goff)           \
	Q3KZ_SC(A, B, 1, goff)           \
	Q3KZ_SC(A, B, 2, goff)           \
	Q3KZ_SC(A, B, 3, goff)           \
	Q3KZ_SC(A, B, 4, goff)           \
	Q3KZ_SC(A, B, 5, goff)           \
	Q3KZ_SC(A, B, 6, goff)           \
	Q3KZ_SC(A, B, 7, goff)           \
	VMOVDQU     (A), X0              \
	VINSERTI128 $1, (B), Y0, Y0      \
	VCVTPH2PS   Y0, Zd               \
	VMULPS.BCST 0(DI), Zd, Zd

// Q3KZ_PLANES loads the three planes of lane g (R11) of the groups at A
// and B.
#define Q3KZ_JOIN(off, A, B, Yd, Zd) \
	VMOVDQU      off(A)(R11*1), Yd         \
	VINSERTI64X4 $1, off(B)(R11*1), Zd, Zd

#define Q3KZ_PLANES(A, B, Y0_, Z0_, Y1_, Z1_, Y2_, Z2_) \
	Q3KZ_JOIN(144, A, B, Y0_, Z0_) \
	Q3KZ_JOIN(176, A, B, Y1_, Z1_) \
	Q3KZ_JOIN(208, A, B, Y2_, Z2_)

// Q3KZ_U0..Q3KZ_U3 set Z1 and Z2 to the pieces u(2k), u(2k+1) of chunk k
// from the planes P0-P2 (Z3 scratch): a mask, or a shift and a mask, or
// for u2 and u5 two shifts, a mask and a VPTERNLOGD ((a & 3) | b).
#define Q3KZ_U0(P0, P1, P2) \
	VPANDD Z29, P0, Z1 \
	VPSRLW $3, P0, Z2  \
	VPANDD Z29, Z2, Z2

#define Q3KZ_U1(P0, P1, P2) \
	VPSRLW     $6, P0, Z1       \
	VPSRLW     $4, P2, Z3       \
	VPANDD     Z31, Z3, Z3      \
	VPTERNLOGD $0xEC, Z30, Z3, Z1 \
	VPANDD     Z29, P1, Z2

#define Q3KZ_U2(P0, P1, P2) \
	VPSRLW     $3, P1, Z1       \
	VPANDD     Z29, Z1, Z1      \
	VPSRLW     $6, P1, Z2       \
	VPSRLW     $5, P2, Z3       \
	VPANDD     Z31, Z3, Z3      \
	VPTERNLOGD $0xEC, Z30, Z3, Z2

#define Q3KZ_U3(P0, P1, P2) \
	VPANDD Z29, P2, Z1 \
	VPSRLW $3, P2, Z2  \
	VPANDD Z29, Z2, Z2

// Q3KZ_PAIR adds chunk k of one pair (planes P0-P2, unpacked by U) to its
// int32 lanes acc: the pieces against the slots broadcast in Z14 (low)
// and Z15 (high), the int16 pairs added, 4x the slots' sums (Z6) taken
// off, times the scale pairs at sc(SP)(R14*2) (FIRST: VPMADDWD for chunk
// 0, VPDPWSSD after). Z1-Z3 scratch.
#define Q3KZ_PAIR(U, P0, P1, P2, sc, FIRST, acc) \
	U(P0, P1, P2)               \
	VPMADDUBSW Z14, Z1, Z1      \
	VPMADDUBSW Z15, Z2, Z2      \
	VPADDW     Z2, Z1, Z1       \
	VPSUBW     Z6, Z1, Z1       \
	FIRST      sc(SP)(R14*2), Z1, acc

// Q3KZ_CHUNK broadcasts chunk k's activation slots (slot) and sums (sum)
// of lane g and adds the chunk to both pairs' lanes (Z0, Z16); sc is the
// chunk's scale-pair vector in a pair's frame block.
#define Q3KZ_CHUNK(U, slot, sum, sc, FIRST) \
	VPBROADCASTD slot(DI)(R12*1), Z14                      \
	VPBROADCASTD slot+16(DI)(R12*1), Z15                   \
	VPBROADCASTD sum(AX)(R13*1), Z6                        \
	Q3KZ_PAIR(U, Z8, Z9, Z10, sc, FIRST, Z0)               \
	Q3KZ_PAIR(U, Z11, Z12, Z13, 1024+sc, FIRST, Z16)

// Q3KZ_FLOAT adds the int32 lanes acc times d_w*d_a (Zd) to the pair's
// float lane g at goff+512+64g(SP).
#define Q3KZ_FLOAT(acc, Zd, goff) \
	VCVTDQ2PS   acc, acc                   \
	VMOVUPS     goff+512(SP)(R12*2), Z1    \
	VFMADD231PS Zd, acc, Z1                \
	VMOVUPS     Z1, goff+512(SP)(R12*2)

// Q3KZ_OUT stores the pair's row sums of its lanes at goff+512(SP), HSUM's
// ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)): the lower group's at (DX),
// the upper's at (DX)(BX*1); then moves DX on by two groups.
#define Q3KZ_OUT(goff) \
	LANES8_REDUCEZ(goff+512) \
	PAIR_OUT

// Q3KZ_GEMV4 is the body of q3_Kx8Gemv4ZMMVNNI with PF issued per lane
// (and its own labels).
#define Q3KZ_GEMV4(PF, clear, loop, lane, done) \
	GEMV4_ARGS                                \
	MOVL         $0x07070707, AX              \
	VPBROADCASTD AX, Z29                      \
	MOVL         $0x03030303, AX              \
	VPBROADCASTD AX, Z30                      \
	MOVL         $0x04040404, AX              \
	VPBROADCASTD AX, Z31                      \
	VPXORD       Z0, Z0, Z0                   \
	MOVQ         $512, AX                     \
clear:                                        \
	VMOVUPS Z0, (SP)(AX*1)                    \
	VMOVUPS Z0, 1024(SP)(AX*1)                \
	ADDQ    $64, AX                           \
	CMPQ    AX, $1024                         \
	JLT     clear                             \
	MOVQ    s+32(FP), AX                      \
	TESTQ   CX, CX                            \
	JZ      done                              \
loop:                                         \
	Q3KZ_HEAD(SI, R8, 0, Z24)                 \
	Q3KZ_HEAD(R9, R10, 1024, Z25)             \
	Q3K_LANE_START                            \
lane:                                         \
	PF                                        \
	Q3KZ_PLANES(SI, R8, Y8, Z8, Y9, Z9, Y10, Z10)      \
	Q3KZ_PLANES(R9, R10, Y11, Z11, Y12, Z12, Y13, Z13) \
	Q3KZ_CHUNK(Q3KZ_U0, 80, 0, 0, VPMADDWD)   \
	Q3KZ_CHUNK(Q3KZ_U1, 336, 128, 64, VPDPWSSD) \
	Q3KZ_CHUNK(Q3KZ_U2, 592, 256, 128, VPDPWSSD) \
	Q3KZ_CHUNK(Q3KZ_U3, 848, 384, 192, VPDPWSSD) \
	Q3KZ_FLOAT(Z0, Z24, 0)                    \
	Q3KZ_FLOAT(Z16, Z25, 1024)                \
	Q3K_LANE_NEXT                             \
	CMPQ R12, $256                            \
	JLT  lane                                 \
	GEMV4_NEXT($Q3K_GROUP_BYTES)              \
	ADDQ $Q8K_QUAD_MAIN, DI                   \
	ADDQ $Q8K_QUAD_SUMS, AX                   \
	DECQ CX                                   \
	JNZ  loop                                 \
done:                                         \
	MOVQ out+40(FP), DX                       \
	MOVQ ostride+48(FP), BX                   \
	SHLQ $2, BX                               \
	Q3KZ_OUT(0)                               \
	Q3KZ_OUT(1024)                            \
	VZEROUPPER                                \
	RET

// func q3_Kx8Gemv4ZMMVNNI(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q3_Kx8Gemv4ZMMVNNI(SB), 0, $2048-56
	Q3KZ_GEMV4(Q3K_NOPF, q3kzclear, q3kzloop, q3kzlane, q3kzdone)

// func q3_Kx8Gemv4ZMMVNNIPF(nb int, w *byte, gstride int, a, s *byte, out *float32, ostride int)
// q3_Kx8Gemv4ZMMVNNI with software prefetch (streamPrefetch).
TEXT ·q3_Kx8Gemv4ZMMVNNIPF(SB), 0, $2048-56
	Q3KZ_GEMV4(Q3K_PF4, q3kzpclear, q3kzploop, q3kzplane, q3kzpdone)
