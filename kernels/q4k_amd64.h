// Shared by the AVX2 assembly files of the packed Q4_K layouts
// (#include "q4k_amd64.h").

// Q4K_QSTEP is a chunk's float steps in the four-token order
// (vecDotQ4_KQ8_KQuadGeneric) for the token whose fields sit at the quad
// offsets from DI: acc = fma(float(s_k), d_w*d_a, acc) with the chunk's
// int32 sums in I (clobbered) and d_w*d_a in dd; accm = fma(float(m_k),
// dmin_w*d_a, accm) with m_k the group's min pairs of chunk k (R12 = 16k)
// times the token's sum pairs, dmin_w*d_a in dm. Y6, Y7 scratch.
#define Q4K_QSTEP(W, I, dd, dm, acc, accm) \
	VCVTDQ2PS    I, I              \
	VFMADD231PS  dd, I, acc        \
	VPMOVZXBW    96(W)(R12*1), Y6  \
	VPBROADCASTD 16(DI)(R12*1), Y7 \
	VPMADDWD     Y7, Y6, Y6        \
	VCVTDQ2PS    Y6, Y6            \
	VFMADD231PS  dm, Y6, accm

// Q4K_DDM stores d_w*d_a and dmin_w*d_a of the group at W (d_a in Y7) in
// the frame at off and off+32 (Y12 scratch).
#define Q4K_DDM(W, off) \
	VCVTPH2PS (W), Y12        \
	VMULPS    Y7, Y12, Y12    \
	VMOVUPS   Y12, off(SP)    \
	VCVTPH2PS 16(W), Y12      \
	VMULPS    Y7, Y12, Y12    \
	VMOVUPS   Y12, off+32(SP)

// Q4K_ZERO4 clears the four groups' acc and accm (frame bytes 0-255) with
// the register Z.
#define Q4K_ZERO4(Z) \
	VXORPS  Z, Z, Z     \
	VMOVUPS Z, 0(SP)    \
	VMOVUPS Z, 32(SP)   \
	VMOVUPS Z, 64(SP)   \
	VMOVUPS Z, 96(SP)   \
	VMOVUPS Z, 128(SP)  \
	VMOVUPS Z, 160(SP)  \
	VMOVUPS Z, 192(SP)  \
	VMOVUPS Z, 224(SP)

// Q4K_NEXT4 moves the four groups' streams (SI, R8-R10) and the token's
// fields (DI, ab bytes a block column) to the next block column.
#define Q4K_NEXT4(ab) \
	ADDQ $1184, SI \
	ADDQ $1184, R8 \
	ADDQ $1184, R9 \
	ADDQ $1184, R10 \
	ADDQ $ab, DI

// Q4K_STORE4 writes each group's acc - accm from the frame to DX, DX + S,
// DX + 2S, DX + 3S (S in bytes; Y10 scratch).
#define Q4K_STORE4(S) \
	VMOVUPS 0(SP), Y10       \
	VSUBPS  32(SP), Y10, Y10 \
	VMOVUPS Y10, (DX)        \
	ADDQ    S, DX            \
	VMOVUPS 64(SP), Y10      \
	VSUBPS  96(SP), Y10, Y10 \
	VMOVUPS Y10, (DX)        \
	ADDQ    S, DX            \
	VMOVUPS 128(SP), Y10     \
	VSUBPS  160(SP), Y10, Y10 \
	VMOVUPS Y10, (DX)        \
	ADDQ    S, DX            \
	VMOVUPS 192(SP), Y10     \
	VSUBPS  224(SP), Y10, Y10 \
	VMOVUPS Y10, (DX)
