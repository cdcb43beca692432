// Shared by the packed kernels that keep llama.cpp's eight int32 or float
// lanes per row as eight vectors across rows (#include "lanes_amd64.h"):
// the Q5_0 kernels (packed_q5_0_amd64.s, packed_q5_0_vnni_amd64.s) and
// the Q3_K and Q5_K ones; by the four-group (four-stream) decode kernels,
// V_PTRS4, GEMV4_ARGS, GEMV4_NEXT and the prefetch macros at the end; and
// by the AVX2 prefill tiles (tile_amd64.s: LANES8_ZERO).

// The four-group kernels' streams: three pointers gstride (BX) apart
// after base.
#define V_PTRS4(base, r1, r2, r3) \
	LEAQ (base)(BX*1), r1 \
	LEAQ (r1)(BX*1), r2   \
	LEAQ (r2)(BX*1), r3

// GEMV4_ARGS loads a four-group kernel's first arguments (nb, w, gstride,
// a) into CX, SI, BX and DI, and its four streams into SI, R8, R9, R10.
#define GEMV4_ARGS \
	MOVQ nb+0(FP), CX       \
	MOVQ w+8(FP), SI        \
	MOVQ gstride+16(FP), BX \
	MOVQ a+24(FP), DI       \
	V_PTRS4(SI, R8, R9, R10)

// GEMV4_OUT loads a four-group kernel's out and ostride arguments into DX
// and BX (ostride in bytes).
#define GEMV4_OUT \
	MOVQ out+32(FP), DX     \
	MOVQ ostride+40(FP), BX \
	SHLQ $2, BX

// GEMV4_NEXT moves the four streams on by n bytes.
#define GEMV4_NEXT(n) \
	ADDQ n, SI \
	ADDQ n, R8 \
	ADDQ n, R9 \
	ADDQ n, R10

// LANES8_LOAD and LANES8_STORE move the lane accumulators Y0-Y7 from and to
// the frame at off (32 bytes apart).
#define LANES8_LOAD(off) \
	VMOVUPS off(SP), Y0     \
	VMOVUPS off+32(SP), Y1  \
	VMOVUPS off+64(SP), Y2  \
	VMOVUPS off+96(SP), Y3  \
	VMOVUPS off+128(SP), Y4 \
	VMOVUPS off+160(SP), Y5 \
	VMOVUPS off+192(SP), Y6 \
	VMOVUPS off+224(SP), Y7

#define LANES8_STORE(off) \
	VMOVUPS Y0, off(SP)     \
	VMOVUPS Y1, off+32(SP)  \
	VMOVUPS Y2, off+64(SP)  \
	VMOVUPS Y3, off+96(SP)  \
	VMOVUPS Y4, off+128(SP) \
	VMOVUPS Y5, off+160(SP) \
	VMOVUPS Y6, off+192(SP) \
	VMOVUPS Y7, off+224(SP)

// LANES8_CLEAR stores Y0 (zero) into the eight lanes parked in the frame
// at off (32 bytes apart).
#define LANES8_CLEAR(off) \
	VMOVUPS Y0, off(SP)     \
	VMOVUPS Y0, off+32(SP)  \
	VMOVUPS Y0, off+64(SP)  \
	VMOVUPS Y0, off+96(SP)  \
	VMOVUPS Y0, off+128(SP) \
	VMOVUPS Y0, off+160(SP) \
	VMOVUPS Y0, off+192(SP) \
	VMOVUPS Y0, off+224(SP)

#define LANES8_ZERO(a0, a1, a2, a3, a4, a5, a6, a7) \
	VXORPS a0, a0, a0 \
	VXORPS a1, a1, a1 \
	VXORPS a2, a2, a2 \
	VXORPS a3, a3, a3 \
	VXORPS a4, a4, a4 \
	VXORPS a5, a5, a5 \
	VXORPS a6, a6, a6 \
	VXORPS a7, a7, a7

// LANES8_REDUCE leaves in a0 each row's sum of its lanes a0..a7 in HSUM's
// order: ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
#define LANES8_REDUCE(a0, a1, a2, a3, a4, a5, a6, a7) \
	VADDPS a4, a0, a0 \
	VADDPS a5, a1, a1 \
	VADDPS a6, a2, a2 \
	VADDPS a7, a3, a3 \
	VADDPS a2, a0, a0 \
	VADDPS a3, a1, a1 \
	VADDPS a1, a0, a0

// LANES8_REDUCEZ sets Z0 to the rows' sums, in HSUM's order, of the eight
// 512-bit lanes at off(SP) (64 bytes apart; two groups' rows in each):
// the 512-bit kernels' frame (Z1-Z3 scratch).
#define LANES8_REDUCEZ(off) \
	VMOVUPS off(SP), Z0          \
	VMOVUPS off+64(SP), Z1       \
	VMOVUPS off+128(SP), Z2      \
	VMOVUPS off+192(SP), Z3      \
	VADDPS  off+256(SP), Z0, Z0  \
	VADDPS  off+320(SP), Z1, Z1  \
	VADDPS  off+384(SP), Z2, Z2  \
	VADDPS  off+448(SP), Z3, Z3  \
	VADDPS  Z2, Z0, Z0           \
	VADDPS  Z3, Z1, Z1           \
	VADDPS  Z1, Z0, Z0

// PAIR_OUT stores Z0's lower group's rows at (DX) and its upper's at
// (DX)(BX*1), then moves DX on by two groups (Y1 scratch).
#define PAIR_OUT \
	VMOVUPS       Y0, (DX)        \
	VEXTRACTF64X4 $1, Z0, Y1      \
	VMOVUPS       Y1, (DX)(BX*1)  \
	LEAQ          (DX)(BX*2), DX

// Q3K_LANE_START and Q3K_LANE_NEXT run the Q3_K kernels' lane counters:
// R11 = 96g into the group's planes, R12 = 32g into the quad's slots and
// the frame's lanes, R13 = 16g into the quad's sums, R14 = 128*(g/4)
// into the frame's scale pairs.
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

// Q3K_PF4 prefetches the next lane's planes (at R11) two block columns
// ahead in each of the four streams SI, R8, R9, R10 (the Q3_K four-group
// kernels' prefetching twins); Q3K_NOPF does not.
#define Q3K_PF(W) \
	PREFETCHT0 2*Q3K_GROUP_BYTES+144(W)(R11*1) \
	PREFETCHT0 2*Q3K_GROUP_BYTES+208(W)(R11*1)

#define Q3K_PF4 \
	Q3K_PF(SI)  \
	Q3K_PF(R8)  \
	Q3K_PF(R9)  \
	Q3K_PF(R10)

#define Q3K_NOPF

// Q5K_PF4 prefetches the next lane's 160 bytes (at R11) two block columns
// (2880 bytes) ahead in each of the four streams SI, R8, R9, R10 (the
// Q5_K four-group kernels' prefetching twins); Q5K_NOPF does not.
#define Q5K_PF(W) \
	PREFETCHT0 2880(W)(R11*1)     \
	PREFETCHT0 2880+64(W)(R11*1)  \
	PREFETCHT0 2880+128(W)(R11*1)

#define Q5K_PF4 \
	Q5K_PF(SI)  \
	Q5K_PF(R8)  \
	Q5K_PF(R9)  \
	Q5K_PF(R10)

#define Q5K_NOPF
