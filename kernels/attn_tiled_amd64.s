//go:build !purego

#include "attn_tiled_amd64.h"
#include "textflag.h"

// llama.cpp's tiled flash attention with the queries in the lanes
// (attn_tiled.go): each lane computes attnTile*Generic's operations for
// its query, in the same order. attnTileQK<NV> and attnTileAccV<NV> hold
// NV vectors of 8 queries (1-3) times 4 keys (QK: accumulator j*NV+v is
// key j, vector v) or 4 value dimensions (AccV) in Y0-Y11; the variants
// differ only in NV. Y12-Y14 take the queries' (or weights') vectors, Y15
// the broadcast key (or value) element.

// The tiled softmax's constants beyond ggml_v_expf's (·vexpfC, silu_amd64.s).
DATA atC<>+0(SB)/4, $0xff800000 // -Inf
DATA atC<>+4(SB)/4, $0xff800000
DATA atC<>+8(SB)/4, $0xff800000
DATA atC<>+12(SB)/4, $0xff800000
DATA atC<>+16(SB)/4, $0xff800000
DATA atC<>+20(SB)/4, $0xff800000
DATA atC<>+24(SB)/4, $0xff800000
DATA atC<>+28(SB)/4, $0xff800000
DATA atC<>+32(SB)/4, $0x82000000 // slow-path g
DATA atC<>+36(SB)/4, $0x82000000
DATA atC<>+40(SB)/4, $0x82000000
DATA atC<>+44(SB)/4, $0x82000000
DATA atC<>+48(SB)/4, $0x82000000
DATA atC<>+52(SB)/4, $0x82000000
DATA atC<>+56(SB)/4, $0x82000000
DATA atC<>+60(SB)/4, $0x82000000
DATA atC<>+64(SB)/4, $0x7f000000 // slow-path s1 bias
DATA atC<>+68(SB)/4, $0x7f000000
DATA atC<>+72(SB)/4, $0x7f000000
DATA atC<>+76(SB)/4, $0x7f000000
DATA atC<>+80(SB)/4, $0x7f000000
DATA atC<>+84(SB)/4, $0x7f000000
DATA atC<>+88(SB)/4, $0x7f000000
DATA atC<>+92(SB)/4, $0x7f000000
DATA atC<>+96(SB)/4, $0x43400000 // 192
DATA atC<>+100(SB)/4, $0x43400000
DATA atC<>+104(SB)/4, $0x43400000
DATA atC<>+108(SB)/4, $0x43400000
DATA atC<>+112(SB)/4, $0x43400000
DATA atC<>+116(SB)/4, $0x43400000
DATA atC<>+120(SB)/4, $0x43400000
DATA atC<>+124(SB)/4, $0x43400000
GLOBL atC<>(SB), RODATA|NOPTR, $128

// One key (its element at k) times the NV query vectors Y12-Y14 into a0...
#define QK_KEY1(k, a0) \
	VBROADCASTSS k, Y15         \
	VFMADD231PS  Y15, Y12, a0

#define QK_KEY2(k, a0, a1) \
	QK_KEY1(k, a0)             \
	VFMADD231PS  Y15, Y13, a1

#define QK_KEY3(k, a0, a1, a2) \
	QK_KEY2(k, a0, a1)         \
	VFMADD231PS  Y15, Y14, a2

// One key's scores, times the scale in Y15, to row (the key's scores).
#define QK_PUT1(row, a0) \
	VMULPS  Y15, a0, a0 \
	VMOVUPS a0, row

#define QK_PUT2(row, a0, a1) \
	QK_PUT1(row, a0)    \
	VMULPS  Y15, a1, a1 \
	VMOVUPS a1, 32 row

#define QK_PUT3(row, a0, a1, a2) \
	QK_PUT2(row, a0, a1) \
	VMULPS  Y15, a2, a2  \
	VMOVUPS a2, 64 row

// One dimension's accumulators (row) times ms (Y12-Y14) into a0...
#define ACCV_GET1(row, a0) \
	VMULPS row, Y12, a0

#define ACCV_GET2(row, a0, a1) \
	ACCV_GET1(row, a0)      \
	VMULPS 32 row, Y13, a1

#define ACCV_GET3(row, a0, a1, a2) \
	ACCV_GET2(row, a0, a1)  \
	VMULPS 64 row, Y14, a2

// One value dimension (its element at x) times the NV weight vectors.
#define ACCV_DIM1(x, a0) \
	VBROADCASTSS x, Y15         \
	VFMADD231PS  Y15, Y12, a0

#define ACCV_DIM2(x, a0, a1) \
	ACCV_DIM1(x, a0)           \
	VFMADD231PS  Y15, Y13, a1

#define ACCV_DIM3(x, a0, a1, a2) \
	ACCV_DIM2(x, a0, a1)       \
	VFMADD231PS  Y15, Y14, a2

#define ACCV_PUT1(row, a0) \
	VMOVUPS a0, row

#define ACCV_PUT2(row, a0, a1) \
	ACCV_PUT1(row, a0)    \
	VMOVUPS a1, 32 row

#define ACCV_PUT3(row, a0, a1, a2) \
	ACCV_PUT2(row, a0, a1) \
	VMOVUPS a2, 64 row

// func attnTileQK1AVX2(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)
TEXT ·attnTileQK1AVX2(SB), NOSPLIT, $0-60
	QK_ARGS
quad:
	QK_QUAD_START
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
dloop:
	VMOVUPS 0(R12), Y12
	QK_KEY1((R10), Y0)
	QK_KEY1((R10)(R9*1), Y1)
	QK_KEY1((R11), Y2)
	QK_KEY1((R11)(R9*1), Y3)
	QK_D_NEXT
	VBROADCASTSS scale+56(FP), Y15
	LEAQ         (DI)(R8*2), R14
	QK_PUT1((DI), Y0)
	QK_PUT1((DI)(R8*1), Y1)
	QK_PUT1((R14), Y2)
	QK_PUT1((R14)(R8*1), Y3)
	QK_QUAD_END
done:
	VZEROUPPER
	RET

// func attnTileQK2AVX2(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)
TEXT ·attnTileQK2AVX2(SB), NOSPLIT, $0-60
	QK_ARGS
quad:
	QK_QUAD_START
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
dloop:
	VMOVUPS 0(R12), Y12
	VMOVUPS 32(R12), Y13
	QK_KEY2((R10), Y0, Y1)
	QK_KEY2((R10)(R9*1), Y2, Y3)
	QK_KEY2((R11), Y4, Y5)
	QK_KEY2((R11)(R9*1), Y6, Y7)
	QK_D_NEXT
	VBROADCASTSS scale+56(FP), Y15
	LEAQ         (DI)(R8*2), R14
	QK_PUT2((DI), Y0, Y1)
	QK_PUT2((DI)(R8*1), Y2, Y3)
	QK_PUT2((R14), Y4, Y5)
	QK_PUT2((R14)(R8*1), Y6, Y7)
	QK_QUAD_END
done:
	VZEROUPPER
	RET

// func attnTileQK3AVX2(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)
TEXT ·attnTileQK3AVX2(SB), NOSPLIT, $0-60
	QK_ARGS
quad:
	QK_QUAD_START
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
dloop:
	VMOVUPS 0(R12), Y12
	VMOVUPS 32(R12), Y13
	VMOVUPS 64(R12), Y14
	QK_KEY3((R10), Y0, Y1, Y2)
	QK_KEY3((R10)(R9*1), Y3, Y4, Y5)
	QK_KEY3((R11), Y6, Y7, Y8)
	QK_KEY3((R11)(R9*1), Y9, Y10, Y11)
	QK_D_NEXT
	VBROADCASTSS scale+56(FP), Y15
	LEAQ         (DI)(R8*2), R14
	QK_PUT3((DI), Y0, Y1, Y2)
	QK_PUT3((DI)(R8*1), Y3, Y4, Y5)
	QK_PUT3((R14), Y6, Y7, Y8)
	QK_PUT3((R14)(R8*1), Y9, Y10, Y11)
	QK_QUAD_END
done:
	VZEROUPPER
	RET

// func attnTileAccV1AVX2(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)
TEXT ·attnTileAccV1AVX2(SB), NOSPLIT, $0-64
	ACCV_ARGS
quad:
	ACCV_QUAD_START
	VMOVUPS 0(AX), Y12
	ACCV_GET1((DI), Y0)
	ACCV_GET1((DI)(R8*1), Y1)
	ACCV_GET1((R14), Y2)
	ACCV_GET1((R14)(R8*1), Y3)
	ACCV_KEYS_START
kloop:
	VMOVUPS 0(R12), Y12
	ACCV_DIM1(0(R13), Y0)
	ACCV_DIM1(4(R13), Y1)
	ACCV_DIM1(8(R13), Y2)
	ACCV_DIM1(12(R13), Y3)
	ACCV_K_NEXT
store:
	ACCV_PUT1((DI), Y0)
	ACCV_PUT1((DI)(R8*1), Y1)
	ACCV_PUT1((R14), Y2)
	ACCV_PUT1((R14)(R8*1), Y3)
	ACCV_QUAD_END
done:
	VZEROUPPER
	RET

// func attnTileAccV2AVX2(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)
TEXT ·attnTileAccV2AVX2(SB), NOSPLIT, $0-64
	ACCV_ARGS
quad:
	ACCV_QUAD_START
	VMOVUPS 0(AX), Y12
	VMOVUPS 32(AX), Y13
	ACCV_GET2((DI), Y0, Y1)
	ACCV_GET2((DI)(R8*1), Y2, Y3)
	ACCV_GET2((R14), Y4, Y5)
	ACCV_GET2((R14)(R8*1), Y6, Y7)
	ACCV_KEYS_START
kloop:
	VMOVUPS 0(R12), Y12
	VMOVUPS 32(R12), Y13
	ACCV_DIM2(0(R13), Y0, Y1)
	ACCV_DIM2(4(R13), Y2, Y3)
	ACCV_DIM2(8(R13), Y4, Y5)
	ACCV_DIM2(12(R13), Y6, Y7)
	ACCV_K_NEXT
store:
	ACCV_PUT2((DI), Y0, Y1)
	ACCV_PUT2((DI)(R8*1), Y2, Y3)
	ACCV_PUT2((R14), Y4, Y5)
	ACCV_PUT2((R14)(R8*1), Y6, Y7)
	ACCV_QUAD_END
done:
	VZEROUPPER
	RET

// func attnTileAccV3AVX2(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)
TEXT ·attnTileAccV3AVX2(SB), NOSPLIT, $0-64
	ACCV_ARGS
quad:
	ACCV_QUAD_START
	VMOVUPS 0(AX), Y12
	VMOVUPS 32(AX), Y13
	VMOVUPS 64(AX), Y14
	ACCV_GET3((DI), Y0, Y1, Y2)
	ACCV_GET3((DI)(R8*1), Y3, Y4, Y5)
	ACCV_GET3((R14), Y6, Y7, Y8)
	ACCV_GET3((R14)(R8*1), Y9, Y10, Y11)
	ACCV_KEYS_START
kloop:
	VMOVUPS 0(R12), Y12
	VMOVUPS 32(R12), Y13
	VMOVUPS 64(R12), Y14
	ACCV_DIM3(0(R13), Y0, Y1, Y2)
	ACCV_DIM3(4(R13), Y3, Y4, Y5)
	ACCV_DIM3(8(R13), Y6, Y7, Y8)
	ACCV_DIM3(12(R13), Y9, Y10, Y11)
	ACCV_K_NEXT
store:
	ACCV_PUT3((DI), Y0, Y1, Y2)
	ACCV_PUT3((DI)(R8*1), Y3, Y4, Y5)
	ACCV_PUT3((R14), Y6, Y7, Y8)
	ACCV_PUT3((R14)(R8*1), Y9, Y10, Y11)
	ACCV_QUAD_END
done:
	VZEROUPPER
	RET

// func attnTileMaskMaxAVX2(s *float32, nqBytes, nv, keys, keys8 int, first, last *int32, tmax *float32)
// Per 8 queries: keys outside [first, min(last, keys-1)] become -Inf in s
// (up to keys8), tmax the maximum, ggml_vec_max_f32's (max > x ? max : x).
TEXT ·attnTileMaskMaxAVX2(SB), NOSPLIT, $0-64
	MOVQ s+0(FP), DI
	MOVQ nqBytes+8(FP), R8
	MOVQ nv+16(FP), CX
	MOVQ keys+24(FP), AX
	MOVQ keys8+32(FP), BX
	MOVQ first+40(FP), SI
	MOVQ last+48(FP), DX
	MOVQ tmax+56(FP), R9
	DECQ AX
	MOVQ AX, X0
	VPBROADCASTD X0, Y10      // keys-1
	VMOVUPS atC<>+0(SB), Y11
	VPCMPEQD Y12, Y12, Y12
	VPSRLD $31, Y12, Y12      // 1 in every lane
vec:
	TESTQ CX, CX
	JLE done
	VMOVDQU (SI), Y1         // first
	VMOVDQU (DX), Y2
	VPMINSD Y10, Y2, Y2       // last = min(last, keys-1)
	VXORPS Y3, Y3, Y3        // key index 0
	VMOVAPS Y11, Y4          // max = -Inf
	MOVQ DI, R10
	MOVQ BX, R11
key:
	TESTQ R11, R11
	JLE vdone
	VPCMPGTD Y3, Y1, Y5      // first > key
	VPCMPGTD Y2, Y3, Y6      // key > last
	VPOR Y6, Y5, Y5
	VMOVUPS (R10), Y0
	VBLENDVPS Y5, Y11, Y0, Y0 // hidden: -Inf
	VMOVUPS Y0, (R10)
	VMAXPS Y0, Y4, Y4
	VPADDD Y12, Y3, Y3
	ADDQ R8, R10
	DECQ R11
	JMP key
vdone:
	VMOVUPS Y4, (R9)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R9
	DECQ CX
	JMP vec
done:
	VZEROUPPER
	RET

// func attnTileExpAVX2(s *float32, nqBytes, nv, groups int, m, l *float32)
// Per 8 queries: s = v_expf(s - m) (+0 where s is -Inf) over groups of 8
// keys, each group summed ((p0+p4)+(p2+p6))+((p1+p5)+(p3+p7)) in float32,
// the groups in float64, and l = float32(float64(l) + sum).
TEXT ·attnTileExpAVX2(SB), NOSPLIT, $0-48
	MOVQ s+0(FP), DI
	MOVQ nqBytes+8(FP), R8
	MOVQ nv+16(FP), CX
	MOVQ groups+24(FP), BX
	MOVQ m+32(FP), SI
	MOVQ l+40(FP), DX
vec:
	TESTQ CX, CX
	JLE done
	VMOVUPS (SI), Y15        // m
	VXORPD Y13, Y13, Y13     // sums of lanes 0-3 (float64)
	VXORPD Y14, Y14, Y14     // lanes 4-7
	MOVQ DI, R10
	MOVQ BX, R11
group:
	TESTQ R11, R11
	JLE vdone
	MOVQ R10, R12
	MOVQ $8, R13
row:
	VMOVUPS (R12), Y0
	VCMPPS $0, atC<>+0(SB), Y0, Y10 // x == -Inf
	VSUBPS Y15, Y0, Y0       // a = x - m
	VMOVUPS ·vexpfC+0(SB), Y1
	VMOVAPS Y1, Y2
	VFMADD231PS ·vexpfC+32(SB), Y0, Y2 // z = fma(a, log2e, r)
	VSUBPS Y1, Y2, Y3        // n = z - r
	VANDPS ·vexpfC+352(SB), Y3, Y11 // |n|
	VCMPPS $0x1e, ·vexpfC+320(SB), Y11, Y4 // |n| > 126
	VANDNPS Y4, Y10, Y5      // ... where x is not -Inf
	VMOVMSKPS Y5, AX
	VMOVAPS Y0, Y5
	VFNMADD231PS ·vexpfC+64(SB), Y3, Y5
	VFNMADD231PS ·vexpfC+96(SB), Y3, Y5 // b
	VPSLLD $23, Y2, Y6       // e = bits(z) << 23
	VPADDD ·vexpfC+288(SB), Y6, Y7 // k = e + bits(1)
	VMULPS Y5, Y5, Y8        // u = b*b
	VMOVUPS ·vexpfC+160(SB), Y9
	VFMADD231PS ·vexpfC+128(SB), Y5, Y9
	VMOVUPS ·vexpfC+224(SB), Y1
	VFMADD231PS ·vexpfC+192(SB), Y5, Y1
	VFMADD231PS Y8, Y9, Y1
	VMULPS ·vexpfC+256(SB), Y5, Y9
	VFMADD231PS Y8, Y1, Y9   // j
	TESTL AX, AX
	JNZ slow
	VMOVAPS Y7, Y0
	VFMADD231PS Y9, Y7, Y0   // fma(k, j, k)
	JMP put
slow:
	VXORPS Y1, Y1, Y1
	VCMPPS $2, Y1, Y3, Y1    // n <= 0
	VANDPS atC<>+32(SB), Y1, Y1 // g
	VPADDD atC<>+64(SB), Y1, Y2 // s1
	VPSUBD Y1, Y6, Y6       // s2 = e - g
	VMOVAPS Y6, Y1
	VFMADD231PS Y9, Y6, Y1   // fma(s2, j, s2)
	VMULPS Y2, Y1, Y1       // * s1
	VMOVAPS Y7, Y0
	VFMADD231PS Y9, Y7, Y0   // fast result
	VBLENDVPS Y4, Y1, Y0, Y0 // |n| > 126: the slow one
	VCMPPS $0x1e, atC<>+96(SB), Y11, Y4 // |n| > 192
	VMULPS Y2, Y2, Y2        // s1*s1
	VBLENDVPS Y4, Y2, Y0, Y0
put:
	VANDNPS Y0, Y10, Y0      // +0 where x was -Inf
	VMOVUPS Y0, (R12)
	ADDQ R8, R12
	DECQ R13
	JNZ row
	MOVQ R10, R12
	LEAQ (R10)(R8*4), R13   // row 4
	VMOVUPS (R12), Y0
	VADDPS (R13), Y0, Y0     // p0+p4
	VMOVUPS (R12)(R8*2), Y1
	VADDPS (R13)(R8*2), Y1, Y1 // p2+p6
	ADDQ R8, R12
	ADDQ R8, R13
	VMOVUPS (R12), Y2
	VADDPS (R13), Y2, Y2     // p1+p5
	VMOVUPS (R12)(R8*2), Y3
	VADDPS (R13)(R8*2), Y3, Y3 // p3+p7
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VCVTPS2PD X0, Y1
	VADDPD Y1, Y13, Y13
	VEXTRACTF128 $1, Y0, X0
	VCVTPS2PD X0, Y1
	VADDPD Y1, Y14, Y14
	LEAQ (R10)(R8*8), R10
	DECQ R11
	JMP group
vdone:
	VMOVUPS (DX), Y0
	VCVTPS2PD X0, Y1
	VADDPD Y13, Y1, Y1
	VCVTPD2PSY Y1, X1
	VEXTRACTF128 $1, Y0, X0
	VCVTPS2PD X0, Y2
	VADDPD Y14, Y2, Y2
	VCVTPD2PSY Y2, X2
	VINSERTF128 $1, X2, Y1, Y1
	VMOVUPS Y1, (DX)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JMP vec
done:
	VZEROUPPER
	RET
