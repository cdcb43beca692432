//go:build !purego



#include "lanes_amd64.h"
#include "quad_amd64.h"
#include "textflag.h"
#include "vnni_amd64.h"

// The avx512zmm set's Q5_K decode kernel: q5_Kx8Gemv4AVX2
// (packed_q5_k_amd64.s, same layout, quads and bits) with two groups per
// 512-bit register, the first group's rows in the lower half. Per piece
// and pair of groups the AVX2 kernel's twelve vector operations for one
// group become ten for two: one to join the groups' pieces, five to
// unpack the 5-bit quants (VPTERNLOGD merges the top bits with the plane
// bits), two byte products, one int16 add and one VPDPWSSD (the scale
// pairs' multiply-add and the lane's add in one). The groups (g0, g1)
// and (g2, g3) take turns by lane, as the AVX2 kernel's four groups do.
//
// Registers: Z29 = 0x18, Z30 = 0x07, Z31 = 0x1F bytes; the pairs' scale
// pairs (int16, chunk k) in Z16-Z19 and Z20-Z23, their d_w*d_a in Z24 and
// Z25. Frame, per pair p at 576p: the min floats (0), the eight lanes
// (64 + 64g).

// Q5KZ_HEAD loads the block column's scale pairs of the groups at A and B
// into s0-s3 and their d_w*d_a (token 0) into Zd, and adds their min
// terms to the pair's min floats at goff(SP) as ggml does (FNMADD by
// d_a*dmin_w). Z0-Z3 scratch.
#define Q5KZ_HEAD(A, B, goff, s0, s1, s2, s3, Zd) \
	VMOVDQU      32(A), X0                \
	VINSERTI128  $1, 32(B), Y0, Y0        \
	VPMOVZXBW    Y0, s0                   \
	VMOVDQU      48(A), X0                \
	VINSERTI128  $1, 48(B), Y0, Y0        \
	VPMOVZXBW    Y0, s1                   \
	VMOVDQU      64(A), X0                \
	VINSERTI128  $1, 64(B), Y0, Y0        \
	VPMOVZXBW    Y0, s2                   \
	VMOVDQU      80(A), X0                \
	VINSERTI128  $1, 80(B), Y0, Y0        \
	VPMOVZXBW    Y0, s3                   \
	VMOVDQU      (A), X0                  \
	VINSERTI128  $1, (B), Y0, Y0          \
	VCVTPH2PS    Y0, Zd                   \
	VMULPS.BCST  0(DI), Zd, Zd            \
	VPXORD       Z1, Z1, Z1               \
	VMOVDQU      96(A), X0                \
	VINSERTI128  $1, 96(B), Y0, Y0        \
	VPMOVZXBW    Y0, Z0                   \
	VPDPWSSD.BCST 16(DI), Z0, Z1          \
	VMOVDQU      112(A), X0               \
	VINSERTI128  $1, 112(B), Y0, Y0       \
	VPMOVZXBW    Y0, Z0                   \
	VPDPWSSD.BCST 32(DI), Z0, Z1          \
	VMOVDQU      128(A), X0               \
	VINSERTI128  $1, 128(B), Y0, Y0       \
	VPMOVZXBW    Y0, Z0                   \
	VPDPWSSD.BCST 48(DI), Z0, Z1          \
	VMOVDQU      144(A), X0               \
	VINSERTI128  $1, 144(B), Y0, Y0       \
	VPMOVZXBW    Y0, Z0                   \
	VPDPWSSD.BCST 64(DI), Z0, Z1          \
	VCVTDQ2PS    Z1, Z1                   \
	VMOVDQU      16(A), X0                \
	VINSERTI128  $1, 16(B), Y0, Y0        \
	VCVTPH2PS    Y0, Z2                   \
	VMULPS.BCST  0(DI), Z2, Z2            \
	VMOVUPS      goff(SP), Z3             \
	VFNMADD231PS Z1, Z2, Z3               \
	VMOVUPS      Z3, goff(SP)

// Q5KZ_CHUNK adds chunk k of lane g (R11 = 160g) of the groups at A and B
// to the int32 lanes in Zs: the piece at off(A)(R11*1) and off(B)(R11*1),
// its planes in Zp moved by SHIFT n, the token's activation slots
// broadcast in Z13 (v_A) and Z14 (v_B), the pair's scale pairs of the
// chunk in sc. FIRST is VPMADDWD for chunk 0 (Zs started), VPDPWSSD after.
// Z10-Z12 scratch.
#define Q5KZ_CHUNK(off, A, B, Zp, SHIFT, n, sc, FIRST, Zs) \
	VMOVDQU      off(A)(R11*1), Y10           \
	VINSERTI64X4 $1, off(B)(R11*1), Z10, Z10   \
	VPANDD       Z31, Z10, Z11                 \
	VPSRLW       $5, Z10, Z10                  \
	SHIFT        $n, Zp, Z12                   \
	VPANDD       Z29, Z12, Z12                 \
	VPTERNLOGD   $0xEC, Z30, Z12, Z10          \
	VPMADDUBSW   Z13, Z11, Z11                 \
	VPMADDUBSW   Z14, Z10, Z10                 \
	VPADDW       Z10, Z11, Z11                 \
	FIRST        sc, Z11, Zs

// Q5KZ_CHUNKS broadcasts token 0's activation slots of chunk k, lane g
// (R12 = 32g) at ao into Z13 and Z14 and adds the chunk of both pairs.
#define Q5KZ_CHUNKS(ao, off, SHIFT, n, sc0, sc1, FIRST) \
	VPBROADCASTD ao(DI)(R12*1), Z13                   \
	VPBROADCASTD ao+16(DI)(R12*1), Z14                \
	Q5KZ_CHUNK(off, SI, R8, Z8, SHIFT, n, sc0, FIRST, Z6) \
	Q5KZ_CHUNK(off, R9, R10, Z9, SHIFT, n, sc1, FIRST, Z7)

// Q5KZ_FLOAT adds the int32 lanes Zs times d_w*d_a (Zd) to the pair's
// float lane g at goff+64+64g(SP) (R12 = 32g).
#define Q5KZ_FLOAT(Zs, Zd, goff) \
	VCVTDQ2PS   Zs, Zs                    \
	VMOVUPS     goff+64(SP)(R12*2), Z10   \
	VFMADD231PS Zd, Zs, Z10               \
	VMOVUPS     Z10, goff+64(SP)(R12*2)

// Q5KZ_OUT stores the sums of the pair's lanes at goff+64(SP), each row's
// HSUM ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)), plus its min floats at
// goff(SP): the lower group's at (DX), the upper's at (DX)(BX*1); then
// moves DX on by two groups.
#define Q5KZ_OUT(goff) \
	LANES8_REDUCEZ(goff+64)          \
	VADDPS goff(SP), Z0, Z0          \
	PAIR_OUT

// Q5KZ_GEMV4 is the body of q5_Kx8Gemv4ZMMVNNI with PF issued per lane (and
// its own labels).
#define Q5KZ_GEMV4(PF, clear, loop, lane, done) \
	GEMV4_ARGS                                \
	MOVL         $0x18181818, AX              \
	VPBROADCASTD AX, Z29                      \
	MOVL         $0x07070707, AX              \
	VPBROADCASTD AX, Z30                      \
	MOVL         $0x1F1F1F1F, AX              \
	VPBROADCASTD AX, Z31                      \
	VPXORD       Z0, Z0, Z0                   \
	XORQ         AX, AX                       \
clear:                                        \
	VMOVUPS Z0, (SP)(AX*1)                    \
	ADDQ    $64, AX                           \
	CMPQ    AX, $1152                         \
	JLT     clear                             \
	TESTQ   CX, CX                            \
	JZ      done                              \
loop:                                         \
	Q5KZ_HEAD(SI, R8, 0, Z16, Z17, Z18, Z19, Z24)    \
	Q5KZ_HEAD(R9, R10, 576, Z20, Z21, Z22, Z23, Z25) \
	XORQ R11, R11                             \
	XORQ R12, R12                             \
lane:                                         \
	PF                                        \
	VMOVDQU      160(SI)(R11*1), Y8           \
	VINSERTI64X4 $1, 160(R8)(R11*1), Z8, Z8   \
	VMOVDQU      160(R9)(R11*1), Y9           \
	VINSERTI64X4 $1, 160(R10)(R11*1), Z9, Z9  \
	Q5KZ_CHUNKS(80, 192, VPSLLW, 3, Z16, Z20, VPMADDWD)  \
	Q5KZ_CHUNKS(336, 224, VPSLLW, 1, Z17, Z21, VPDPWSSD) \
	Q5KZ_CHUNKS(592, 256, VPSRLW, 1, Z18, Z22, VPDPWSSD) \
	Q5KZ_CHUNKS(848, 288, VPSRLW, 3, Z19, Z23, VPDPWSSD) \
	Q5KZ_FLOAT(Z6, Z24, 0)                    \
	Q5KZ_FLOAT(Z7, Z25, 576)                  \
	ADDQ $160, R11                            \
	ADDQ $32, R12                             \
	CMPQ R12, $256                            \
	JLT  lane                                 \
	GEMV4_NEXT($1440)                         \
	ADDQ $Q8K_QUAD_MAIN, DI                   \
	DECQ CX                                   \
	JNZ  loop                                 \
done:                                         \
	MOVQ out+32(FP), DX                       \
	MOVQ ostride+40(FP), BX                   \
	SHLQ $2, BX                               \
	Q5KZ_OUT(0)                               \
	Q5KZ_OUT(576)                             \
	VZEROUPPER                                \
	RET

// func q5_Kx8Gemv4ZMMVNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// Not NOSPLIT: the frame is larger than a nosplit function may take.
TEXT ·q5_Kx8Gemv4ZMMVNNI(SB), 0, $1152-48
	Q5KZ_GEMV4(Q5K_NOPF, q5kzclear, q5kzloop, q5kzlane, q5kzdone)

// func q5_Kx8Gemv4ZMMVNNIPF(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)
// q5_Kx8Gemv4ZMMVNNI with software prefetch.
TEXT ·q5_Kx8Gemv4ZMMVNNIPF(SB), 0, $1152-48
	Q5KZ_GEMV4(Q5K_PF4, q5kzpclear, q5kzploop, q5kzplane, q5kzpdone)
