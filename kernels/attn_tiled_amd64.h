// The tiled attention kernels' loops (attn_tiled_amd64.s on 8-lane
// vectors, attn_tiled_avx512_amd64.s on 16-lane ones), whatever the
// vectors' width: the kernels differ in the macros that load, multiply and
// store the query vectors.

// The QK kernels: accumulator j*NV+v is key j (of the quad), query vector
// v. DI: key 0's scores, SI: the queries (row d at d*nqBytes), R8:
// nqBytes, DX: key 0's row, R9: kStride, CX: keys left, BX: dim; per quad
// R10/R11 keys 0 and 2 at the current element, R12 the queries' row,
// R13 the elements left.
#define QK_ARGS \
	MOVQ s+0(FP), DI         \
	MOVQ qt+8(FP), SI        \
	MOVQ nqBytes+16(FP), R8  \
	MOVQ k+24(FP), DX        \
	MOVQ kStride+32(FP), R9  \
	MOVQ keys4+40(FP), CX    \
	MOVQ dim+48(FP), BX

#define QK_QUAD_START \
	TESTQ CX, CX         \
	JLE   done           \
	MOVQ  DX, R10        \
	LEAQ  (DX)(R9*2), R11 \
	MOVQ  SI, R12        \
	MOVQ  BX, R13

#define QK_D_NEXT \
	ADDQ $4, R10 \
	ADDQ $4, R11 \
	ADDQ R8, R12 \
	DECQ R13     \
	JNZ  dloop

// On to the next quad of keys (their scores stored).
#define QK_QUAD_END \
	LEAQ (DX)(R9*4), DX \
	LEAQ (DI)(R8*4), DI \
	SUBQ $4, CX         \
	JMP  quad

// The AccV kernels: accumulator j*NV+v is value dimension j (of the quad),
// query vector v. DI: dimension 0's accumulators, R8: nqBytes, SI: key 0's
// weights, DX: key 0's value row at the quad's dimension, R9: vStride, BX:
// keys, CX: dimensions left, AX: ms; R14 dimension 2's accumulators; per
// key R12 the weights, R13 the value row, R10 the keys left.
#define ACCV_ARGS \
	MOVQ acc+0(FP), DI       \
	MOVQ nqBytes+8(FP), R8   \
	MOVQ s+16(FP), SI        \
	MOVQ v+24(FP), DX        \
	MOVQ vStride+32(FP), R9  \
	MOVQ keys+40(FP), BX     \
	MOVQ dim4+48(FP), CX     \
	MOVQ ms+56(FP), AX

#define ACCV_QUAD_START \
	TESTQ CX, CX          \
	JLE   done            \
	LEAQ  (DI)(R8*2), R14

#define ACCV_KEYS_START \
	MOVQ  SI, R12  \
	MOVQ  DX, R13  \
	MOVQ  BX, R10  \
	TESTQ R10, R10 \
	JLE   store

#define ACCV_K_NEXT \
	ADDQ R8, R12 \
	ADDQ R9, R13 \
	DECQ R10     \
	JNZ  kloop

#define ACCV_QUAD_END \
	LEAQ (DI)(R8*4), DI \
	ADDQ $16, DX        \
	SUBQ $4, CX         \
	JMP  quad

