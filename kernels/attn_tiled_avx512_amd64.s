//go:build !purego

#include "attn_avx512_amd64.h"
#include "attn_tiled_amd64.h"
#include "textflag.h"

// The tiled attention's QK and AccV kernels (attn_tiled_amd64.s) on
// 16-lane vectors, for the avx512zmm set: the same loops, each lane the
// same operations for its query. attnTileQK4AVX512 and attnTileAccV4AVX512
// hold four vectors (64 queries, tiledQueries) times four keys or value
// dimensions in Z0-Z15 (accumulator 4j+v: key or dimension j, vector v),
// the queries' (or weights') vectors in Z16-Z19, the broadcast key (or
// value) element in Z20; the 1 variants one vector in Z0-Z3 and Z16.

// One key (its element at k) times the query vectors into a0...
#define ZQK_KEY1(k, a0) \
	VBROADCASTSS k, Z20        \
	VFMADD231PS  Z20, Z16, a0

#define ZQK_KEY4(k, a0, a1, a2, a3) \
	ZQK_KEY1(k, a0)            \
	VFMADD231PS  Z20, Z17, a1  \
	VFMADD231PS  Z20, Z18, a2  \
	VFMADD231PS  Z20, Z19, a3

// One key's scores, times the scale in Z20, to row.
#define ZQK_PUT1(row, a0) \
	VMULPS  Z20, a0, a0 \
	VMOVUPS a0, row

#define ZQK_PUT4(row, a0, a1, a2, a3) \
	ZQK_PUT1(row, a0)     \
	VMULPS  Z20, a1, a1   \
	VMOVUPS a1, 64 row    \
	VMULPS  Z20, a2, a2   \
	VMOVUPS a2, 128 row   \
	VMULPS  Z20, a3, a3   \
	VMOVUPS a3, 192 row

// The vectors at row into Z16.. (queries, weights or factors).
#define ZVEC1(row) \
	VMOVUPS row, Z16

#define ZVEC4(row) \
	VMOVUPS row, Z16     \
	VMOVUPS 64 row, Z17  \
	VMOVUPS 128 row, Z18 \
	VMOVUPS 192 row, Z19

// One dimension's accumulators (row) times ms (Z16..) into a0...
#define ZACCV_GET1(row, a0) \
	VMULPS row, Z16, a0

#define ZACCV_GET4(row, a0, a1, a2, a3) \
	ZACCV_GET1(row, a0)        \
	VMULPS 64 row, Z17, a1     \
	VMULPS 128 row, Z18, a2    \
	VMULPS 192 row, Z19, a3

#define ZACCV_PUT1(row, a0) \
	VMOVUPS a0, row

#define ZACCV_PUT4(row, a0, a1, a2, a3) \
	ZACCV_PUT1(row, a0)  \
	VMOVUPS a1, 64 row   \
	VMOVUPS a2, 128 row  \
	VMOVUPS a3, 192 row

// func attnTileQK1AVX512(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)
TEXT ·attnTileQK1AVX512(SB), NOSPLIT, $0-60
	QK_ARGS
quad:
	QK_QUAD_START
	VPXORD  Z0, Z0, Z0
	VMOVAPS Z0, Z1
	VMOVAPS Z0, Z2
	VMOVAPS Z0, Z3
dloop:
	ZVEC1((R12))
	ZQK_KEY1((R10), Z0)
	ZQK_KEY1((R10)(R9*1), Z1)
	ZQK_KEY1((R11), Z2)
	ZQK_KEY1((R11)(R9*1), Z3)
	QK_D_NEXT
	VBROADCASTSS scale+56(FP), Z20
	LEAQ         (DI)(R8*2), R14
	ZQK_PUT1((DI), Z0)
	ZQK_PUT1((DI)(R8*1), Z1)
	ZQK_PUT1((R14), Z2)
	ZQK_PUT1((R14)(R8*1), Z3)
	QK_QUAD_END
done:
	VZEROUPPER
	RET

// func attnTileQK4AVX512(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)
TEXT ·attnTileQK4AVX512(SB), NOSPLIT, $0-60
	QK_ARGS
quad:
	QK_QUAD_START
	ZERO_Z0_Z15
dloop:
	ZVEC4((R12))
	ZQK_KEY4((R10), Z0, Z1, Z2, Z3)
	ZQK_KEY4((R10)(R9*1), Z4, Z5, Z6, Z7)
	ZQK_KEY4((R11), Z8, Z9, Z10, Z11)
	ZQK_KEY4((R11)(R9*1), Z12, Z13, Z14, Z15)
	QK_D_NEXT
	VBROADCASTSS scale+56(FP), Z20
	LEAQ         (DI)(R8*2), R14
	ZQK_PUT4((DI), Z0, Z1, Z2, Z3)
	ZQK_PUT4((DI)(R8*1), Z4, Z5, Z6, Z7)
	ZQK_PUT4((R14), Z8, Z9, Z10, Z11)
	ZQK_PUT4((R14)(R8*1), Z12, Z13, Z14, Z15)
	QK_QUAD_END
done:
	VZEROUPPER
	RET

// One value dimension (its element at x) times the weight vectors.
#define ZACCV_DIM1(x, a0) \
	VBROADCASTSS x, Z20        \
	VFMADD231PS  Z20, Z16, a0

#define ZACCV_DIM4(x, a0, a1, a2, a3) \
	ZACCV_DIM1(x, a0)          \
	VFMADD231PS  Z20, Z17, a1  \
	VFMADD231PS  Z20, Z18, a2  \
	VFMADD231PS  Z20, Z19, a3

// func attnTileAccV1AVX512(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)
TEXT ·attnTileAccV1AVX512(SB), NOSPLIT, $0-64
	ACCV_ARGS
quad:
	ACCV_QUAD_START
	ZVEC1((AX))
	ZACCV_GET1((DI), Z0)
	ZACCV_GET1((DI)(R8*1), Z1)
	ZACCV_GET1((R14), Z2)
	ZACCV_GET1((R14)(R8*1), Z3)
	ACCV_KEYS_START
kloop:
	ZVEC1((R12))
	ZACCV_DIM1(0(R13), Z0)
	ZACCV_DIM1(4(R13), Z1)
	ZACCV_DIM1(8(R13), Z2)
	ZACCV_DIM1(12(R13), Z3)
	ACCV_K_NEXT
store:
	ZACCV_PUT1((DI), Z0)
	ZACCV_PUT1((DI)(R8*1), Z1)
	ZACCV_PUT1((R14), Z2)
	ZACCV_PUT1((R14)(R8*1), Z3)
	ACCV_QUAD_END
done:
	VZEROUPPER
	RET

// func attnTileAccV4AVX512(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)
TEXT ·attnTileAccV4AVX512(SB), NOSPLIT, $0-64
	ACCV_ARGS
quad:
	ACCV_QUAD_START
	ZVEC4((AX))
	ZACCV_GET4((DI), Z0, Z1, Z2, Z3)
	ZACCV_GET4((DI)(R8*1), Z4, Z5, Z6, Z7)
	ZACCV_GET4((R14), Z8, Z9, Z10, Z11)
	ZACCV_GET4((R14)(R8*1), Z12, Z13, Z14, Z15)
	ACCV_KEYS_START
kloop:
	ZVEC4((R12))
	ZACCV_DIM4(0(R13), Z0, Z1, Z2, Z3)
	ZACCV_DIM4(4(R13), Z4, Z5, Z6, Z7)
	ZACCV_DIM4(8(R13), Z8, Z9, Z10, Z11)
	ZACCV_DIM4(12(R13), Z12, Z13, Z14, Z15)
	ACCV_K_NEXT
store:
	ZACCV_PUT4((DI), Z0, Z1, Z2, Z3)
	ZACCV_PUT4((DI)(R8*1), Z4, Z5, Z6, Z7)
	ZACCV_PUT4((R14), Z8, Z9, Z10, Z11)
	ZACCV_PUT4((R14)(R8*1), Z12, Z13, Z14, Z15)
	ACCV_QUAD_END
done:
	VZEROUPPER
	RET

// attnTileExpAVX512 is attnTileExpAVX2 (attn_tiled_amd64.s) on 16 queries
// a vector: the same operations in each lane, masks in K registers, the
// float64 sums of lanes 0-7 in Z13 and of lanes 8-15 in Z14. Constants in
// Z16-Z31: ·vexpfC's rows 0-11 (Z16-Z27), -Inf, the slow path's g and s1
// bias, 192.
DATA atzC<>+0(SB)/4, $0xff800000  // -Inf
DATA atzC<>+4(SB)/4, $0x82000000  // slow-path g
DATA atzC<>+8(SB)/4, $0x7f000000  // slow-path s1 bias
DATA atzC<>+12(SB)/4, $0x43400000 // 192
GLOBL atzC<>(SB), RODATA|NOPTR, $16

// func attnTileExpAVX512(s *float32, nqBytes, nv, groups int, m, l *float32)
// Per 16 queries (nv vectors): s = v_expf(s - m) (+0 where s is -Inf) over
// groups of 8 keys, each group summed ((p0+p4)+(p2+p6))+((p1+p5)+(p3+p7))
// in float32, the groups in float64, and l = float32(float64(l) + sum).
TEXT ·attnTileExpAVX512(SB), NOSPLIT, $0-48
	MOVQ s+0(FP), DI
	MOVQ nqBytes+8(FP), R8
	MOVQ nv+16(FP), CX
	MOVQ groups+24(FP), BX
	MOVQ m+32(FP), SI
	MOVQ l+40(FP), DX
	VBROADCASTSS ·vexpfC+0(SB), Z16   // r = 0x1.8p23
	VBROADCASTSS ·vexpfC+32(SB), Z17  // log2(e)
	VBROADCASTSS ·vexpfC+64(SB), Z18  // ln2, high part
	VBROADCASTSS ·vexpfC+96(SB), Z19  // ln2, low part
	VBROADCASTSS ·vexpfC+128(SB), Z20
	VBROADCASTSS ·vexpfC+160(SB), Z21
	VBROADCASTSS ·vexpfC+192(SB), Z22
	VBROADCASTSS ·vexpfC+224(SB), Z23
	VBROADCASTSS ·vexpfC+256(SB), Z24
	VBROADCASTSS ·vexpfC+288(SB), Z25 // bits(1)
	VBROADCASTSS ·vexpfC+320(SB), Z26 // 126
	VBROADCASTSS ·vexpfC+352(SB), Z27 // |x| mask
	VBROADCASTSS atzC<>+0(SB), Z28
	VBROADCASTSS atzC<>+4(SB), Z29
	VBROADCASTSS atzC<>+8(SB), Z30
	VBROADCASTSS atzC<>+12(SB), Z31

zvec:
	TESTQ CX, CX
	JLE   zdone
	VMOVUPS (SI), Z15      // m
	VXORPD  Z13, Z13, Z13  // sums of lanes 0-7 (float64)
	VXORPD  Z14, Z14, Z14  // lanes 8-15
	MOVQ    DI, R10
	MOVQ    BX, R11

zgroup:
	TESTQ R11, R11
	JLE   zvdone
	MOVQ  R10, R12
	MOVQ  $8, R13

zrow:
	VMOVUPS      (R12), Z0
	VCMPPS       $4, Z28, Z0, K3   // x is not -Inf
	VSUBPS       Z15, Z0, Z0       // a = x - m
	VMOVAPS      Z16, Z2
	VFMADD231PS  Z17, Z0, Z2       // z = fma(a, log2e, r)
	VSUBPS       Z16, Z2, Z3       // n = z - r
	VANDPS       Z27, Z3, Z11      // |n|
	VCMPPS       $0x1e, Z26, Z11, K4 // |n| > 126
	KANDW        K3, K4, K5        // ... where x is not -Inf
	VMOVAPS      Z0, Z5
	VFNMADD231PS Z18, Z3, Z5
	VFNMADD231PS Z19, Z3, Z5       // b
	VPSLLD       $23, Z2, Z6       // e = bits(z) << 23
	VPADDD       Z25, Z6, Z7       // k = e + bits(1)
	VMULPS       Z5, Z5, Z8        // u = b*b
	VMOVAPS      Z21, Z9
	VFMADD231PS  Z20, Z5, Z9
	VMOVAPS      Z23, Z1
	VFMADD231PS  Z22, Z5, Z1
	VFMADD231PS  Z8, Z9, Z1
	VMULPS       Z24, Z5, Z9
	VFMADD231PS  Z8, Z1, Z9        // j
	KORTESTW     K5, K5
	JNZ          zslow
	VMOVAPS      Z7, Z0
	VFMADD231PS  Z9, Z7, Z0        // fma(k, j, k)
	JMP          zput

zslow:
	VXORPS      Z1, Z1, Z1
	VCMPPS      $2, Z1, Z3, K6     // n <= 0
	VMOVAPS.Z   Z29, K6, Z1        // g
	VPADDD      Z30, Z1, Z2        // s1
	VPSUBD      Z1, Z6, Z6         // s2 = e - g
	VMOVAPS     Z6, Z1
	VFMADD231PS Z9, Z6, Z1         // fma(s2, j, s2)
	VMULPS      Z2, Z1, Z1         // * s1
	VMOVAPS     Z7, Z0
	VFMADD231PS Z9, Z7, Z0         // fast result
	VBLENDMPS   Z1, Z0, K4, Z0     // |n| > 126: the slow one
	VCMPPS      $0x1e, Z31, Z11, K4 // |n| > 192
	VMULPS      Z2, Z2, Z2         // s1*s1
	VBLENDMPS   Z2, Z0, K4, Z0

zput:
	VMOVAPS.Z Z0, K3, Z0           // +0 where x was -Inf
	VMOVUPS   Z0, (R12)
	ADDQ      R8, R12
	DECQ      R13
	JNZ       zrow
	MOVQ      R10, R12
	LEAQ      (R10)(R8*4), R13     // row 4
	VMOVUPS   (R12), Z0
	VADDPS    (R13), Z0, Z0        // p0+p4
	VMOVUPS   (R12)(R8*2), Z1
	VADDPS    (R13)(R8*2), Z1, Z1  // p2+p6
	ADDQ      R8, R12
	ADDQ      R8, R13
	VMOVUPS   (R12), Z2
	VADDPS    (R13), Z2, Z2        // p1+p5
	VMOVUPS   (R12)(R8*2), Z3
	VADDPS    (R13)(R8*2), Z3, Z3  // p3+p7
	VADDPS    Z1, Z0, Z0
	VADDPS    Z3, Z2, Z2
	VADDPS    Z2, Z0, Z0
	VCVTPS2PD Y0, Z1
	VADDPD    Z1, Z13, Z13
	VEXTRACTF64X4 $1, Z0, Y0
	VCVTPS2PD Y0, Z1
	VADDPD    Z1, Z14, Z14
	LEAQ      (R10)(R8*8), R10
	DECQ      R11
	JMP       zgroup

zvdone:
	VMOVUPS       (DX), Z0
	VCVTPS2PD     Y0, Z1
	VADDPD        Z13, Z1, Z1
	VCVTPD2PS     Z1, Y1
	VEXTRACTF64X4 $1, Z0, Y0
	VCVTPS2PD     Y0, Z2
	VADDPD        Z14, Z2, Z2
	VCVTPD2PS     Z2, Y2
	VINSERTF64X4  $1, Y2, Z1, Z1
	VMOVUPS       Z1, (DX)
	ADDQ          $64, DI
	ADDQ          $64, SI
	ADDQ          $64, DX
	DECQ          CX
	JMP           zvec

zdone:
	VZEROUPPER
	RET

// func attnTileMaskMaxAVX512(s *float32, nqBytes, nv, keys, keys8 int, first, last *int32, tmax *float32)
// attnTileMaskMaxAVX2 on 16 queries a vector: keys outside [first,
// min(last, keys-1)] become -Inf in s (up to keys8), tmax the maximum,
// ggml_vec_max_f32's (max > x ? max : x).
TEXT ·attnTileMaskMaxAVX512(SB), NOSPLIT, $0-64
	MOVQ s+0(FP), DI
	MOVQ nqBytes+8(FP), R8
	MOVQ nv+16(FP), CX
	MOVQ keys+24(FP), AX
	MOVQ keys8+32(FP), BX
	MOVQ first+40(FP), SI
	MOVQ last+48(FP), DX
	MOVQ tmax+56(FP), R9
	DECQ AX
	VPBROADCASTD AX, Z10             // keys-1
	VBROADCASTSS atzC<>+0(SB), Z11   // -Inf
	VPTERNLOGD   $0xff, Z12, Z12, Z12
	VPSRLD       $31, Z12, Z12       // 1 in every lane

mvec:
	TESTQ CX, CX
	JLE   mdone
	VMOVDQU32 (SI), Z1     // first
	VMOVDQU32 (DX), Z2
	VPMINSD   Z10, Z2, Z2  // last = min(last, keys-1)
	VPXORD    Z3, Z3, Z3   // key index 0
	VMOVAPS   Z11, Z4      // max = -Inf
	MOVQ      DI, R10
	MOVQ      BX, R11

mkey:
	TESTQ    R11, R11
	JLE      mvdone
	VPCMPGTD Z3, Z1, K1    // first > key
	VPCMPGTD Z2, Z3, K2    // key > last
	KORW     K1, K2, K1
	VMOVUPS  (R10), Z0
	VMOVAPS  Z11, K1, Z0   // hidden: -Inf
	VMOVUPS  Z0, (R10)
	VMAXPS   Z0, Z4, Z4
	VPADDD   Z12, Z3, Z3
	ADDQ     R8, R10
	DECQ     R11
	JMP      mkey

mvdone:
	VMOVUPS Z4, (R9)
	ADDQ    $64, DI
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $64, R9
	DECQ    CX
	JMP     mvec

mdone:
	VZEROUPPER
	RET
