// Shared by the AVX-512 attention kernels (attn_fast_avx512_amd64.s,
// attn_direct_avx512_amd64.s, attn_tiled_avx512_amd64.s).

// REDUCE4 turns the accumulators of eight K tile rows, held as four row
// pairs P0..P3 (rows p | p+4), into their eight scores in the ymm register
// YR (the 8-lane tree of transposeSum8, both halves at once); T0..T3 are
// clobbered, T0 is YR's zmm.
#define REDUCE4(P0, P1, P2, P3, T0, T1, T2, T3, YR, YT1) \
	VUNPCKLPS  P1, P0, T0       \
	VUNPCKHPS  P1, P0, T1       \
	VADDPS     T1, T0, T0       \
	VUNPCKLPS  P3, P2, T1       \
	VUNPCKHPS  P3, P2, T2       \
	VADDPS     T2, T1, T1       \
	VUNPCKLPD  T1, T0, T2       \
	VUNPCKHPD  T1, T0, T3       \
	VADDPS     T3, T2, T2       \
	VSHUFF32X4 $0x08, T2, T2, T0 \
	VSHUFF32X4 $0x0d, T2, T2, T1 \
	VADDPS     YT1, YR, YR

// ZERO_Z0_Z7 and ZERO_Z0_Z15 clear the accumulators Z0-Z7 or Z0-Z15.
#define ZERO_Z0_Z7 \
	VPXORD  Z0, Z0, Z0 \
	VMOVAPS Z0, Z1     \
	VMOVAPS Z0, Z2     \
	VMOVAPS Z0, Z3     \
	VMOVAPS Z0, Z4     \
	VMOVAPS Z0, Z5     \
	VMOVAPS Z0, Z6     \
	VMOVAPS Z0, Z7

#define ZERO_Z0_Z15 \
	ZERO_Z0_Z7         \
	VMOVAPS Z0, Z8     \
	VMOVAPS Z0, Z9     \
	VMOVAPS Z0, Z10    \
	VMOVAPS Z0, Z11    \
	VMOVAPS Z0, Z12    \
	VMOVAPS Z0, Z13    \
	VMOVAPS Z0, Z14    \
	VMOVAPS Z0, Z15
