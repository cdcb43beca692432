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
