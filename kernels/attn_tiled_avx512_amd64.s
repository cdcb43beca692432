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
