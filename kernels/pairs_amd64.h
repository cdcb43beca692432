// Shared by the kernels on 512-bit vectors whose ZMM accumulators hold two
// outputs' 8-lane sums, one in each 256-bit half (#include
// "pairs_amd64.h"): the 8 x 4 tiles (a token in each half) and the
// four-row kernels (a row in each half); the 256-bit 4 x 4 tiles store
// with its HSUM8 too (TOKEN_ROWS4).

// HSUM8 is the 8-lane horizontal sum of tinyBLAS's hsum on Y into X (the
// upper half added to the lower, then MOVHLPS and MOVSHDUP), T a scratch
// XMM register.
#define HSUM8(Y, X, T) \
	VEXTRACTF32X4 $1, Y, T \
	VADDPS        T, X, X  \
	VMOVHLPS      X, X, T  \
	VADDPS        T, X, X  \
	VMOVSHDUP     X, T     \
	VADDSS        T, X, X

// STORE_PAIR stores the sums of accumulator Z's halves (Y, X: its lower
// parts): the lower at A, the upper at B. YT/XT and T are scratch.
#define STORE_PAIR(Z, Y, X, A, B, YT, XT, T) \
	VEXTRACTF64X4 $1, Z, YT \
	HSUM8(Y, X, T)          \
	VMOVSS        X, A      \
	HSUM8(YT, XT, T)        \
	VMOVSS        XT, B

// TOKEN_ROWS4 stores the sums of one token's four rows (accumulators
// a..d, xa..xd their low 128 bits) to 0, 4, 8 and 12 bytes from B; T a
// scratch XMM register.
#define TOKEN_ROWS4(a, b, c, d, xa, xb, xc, xd, B, T) \
	HSUM8(a, xa, T) \
	VMOVSS xa, 0(B) \
	HSUM8(b, xb, T) \
	VMOVSS xb, 4(B) \
	HSUM8(c, xc, T) \
	VMOVSS xc, 8(B) \
	HSUM8(d, xd, T) \
	VMOVSS xd, 12(B)

// R4Z_ARGS loads a four-row kernel's arguments (vecDotR4's: nb, w,
// wstride, a, out, ostride): CX = nb, the rows at R11, R8, R9, R10
// (wstride apart, in BX), the token at DI.
#define R4Z_ARGS \
	MOVQ nb+0(FP), CX       \
	MOVQ w+8(FP), R11       \
	MOVQ wstride+16(FP), BX \
	MOVQ a+24(FP), DI       \
	LEAQ (R11)(BX*1), R8    \
	LEAQ (R8)(BX*1), R9     \
	LEAQ (R9)(BX*1), R10

// R4Z_OUT sets DX to a four-row kernel's out and BX to its ostride in
// bytes.
#define R4Z_OUT \
	MOVQ out+32(FP), DX     \
	MOVQ ostride+40(FP), BX \
	SHLQ $2, BX

// R4Z_STORE stores the rows' sums of Z0 (rows 0 and 1) and Z1 (rows 2
// and 3) to DX, DX+BX, DX+2BX, DX+3BX (R4Z_OUT's); SI, Y2, Y3 and X4
// scratch.
#define R4Z_STORE \
	LEAQ (DX)(BX*1), SI                            \
	STORE_PAIR(Z0, Y0, X0, (DX), (SI), Y2, X2, X4) \
	LEAQ (SI)(BX*1), DX                            \
	LEAQ (DX)(BX*1), SI                            \
	STORE_PAIR(Z1, Y1, X1, (DX), (SI), Y3, X3, X4)

// ZERO_Z0_15 clears the accumulators Z0-Z15 of the half-precision tiles.
#define ZERO_Z0_15 \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	VPXORD Z2, Z2, Z2 \
	VPXORD Z3, Z3, Z3 \
	VPXORD Z4, Z4, Z4 \
	VPXORD Z5, Z5, Z5 \
	VPXORD Z6, Z6, Z6 \
	VPXORD Z7, Z7, Z7 \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPXORD Z12, Z12, Z12 \
	VPXORD Z13, Z13, Z13 \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15

// ZERO_Z16_31 clears the accumulators Z16-Z31 of the 8 x 4 integer tiles.
#define ZERO_Z16_31 \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21 \
	VPXORD Z22, Z22, Z22 \
	VPXORD Z23, Z23, Z23 \
	VPXORD Z24, Z24, Z24 \
	VPXORD Z25, Z25, Z25 \
	VPXORD Z26, Z26, Z26 \
	VPXORD Z27, Z27, Z27 \
	VPXORD Z28, Z28, Z28 \
	VPXORD Z29, Z29, Z29 \
	VPXORD Z30, Z30, Z30 \
	VPXORD Z31, Z31, Z31

// STORE8x4_Z16_31 stores an 8 x 4 tile whose row r holds tokens 0|1 in
// Z(16+2r) and 2|3 in Z(17+2r) to out[t*ostride+r] (the frame's out and
// ostride, as in the tiles' signature; Y0, X0, X1 scratch).
#define STORE8x4_Z16_31 \
	MOVQ out+32(FP), DI                                      \
	MOVQ ostride+40(FP), R11                                 \
	SHLQ $2, R11                                             \
	LEAQ (DI)(R11*1), R8                                     \
	LEAQ (DI)(R11*2), R9                                     \
	LEAQ (R8)(R11*2), R10                                    \
	STORE_PAIR(Z16, Y16, X16, 0(DI), 0(R8), Y0, X0, X1)      \
	STORE_PAIR(Z17, Y17, X17, 0(R9), 0(R10), Y0, X0, X1)     \
	STORE_PAIR(Z18, Y18, X18, 4(DI), 4(R8), Y0, X0, X1)      \
	STORE_PAIR(Z19, Y19, X19, 4(R9), 4(R10), Y0, X0, X1)     \
	STORE_PAIR(Z20, Y20, X20, 8(DI), 8(R8), Y0, X0, X1)      \
	STORE_PAIR(Z21, Y21, X21, 8(R9), 8(R10), Y0, X0, X1)     \
	STORE_PAIR(Z22, Y22, X22, 12(DI), 12(R8), Y0, X0, X1)    \
	STORE_PAIR(Z23, Y23, X23, 12(R9), 12(R10), Y0, X0, X1)   \
	STORE_PAIR(Z24, Y24, X24, 16(DI), 16(R8), Y0, X0, X1)    \
	STORE_PAIR(Z25, Y25, X25, 16(R9), 16(R10), Y0, X0, X1)   \
	STORE_PAIR(Z26, Y26, X26, 20(DI), 20(R8), Y0, X0, X1)    \
	STORE_PAIR(Z27, Y27, X27, 20(R9), 20(R10), Y0, X0, X1)   \
	STORE_PAIR(Z28, Y28, X28, 24(DI), 24(R8), Y0, X0, X1)    \
	STORE_PAIR(Z29, Y29, X29, 24(R9), 24(R10), Y0, X0, X1)   \
	STORE_PAIR(Z30, Y30, X30, 28(DI), 28(R8), Y0, X0, X1)    \
	STORE_PAIR(Z31, Y31, X31, 28(R9), 28(R10), Y0, X0, X1)
