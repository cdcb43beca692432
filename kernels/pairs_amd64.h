// Shared by the 8 x 4 tiles on 512-bit vectors (#include "pairs_amd64.h"),
// whose ZMM accumulators hold two outputs' 8-lane sums, one token in each
// 256-bit half.

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
