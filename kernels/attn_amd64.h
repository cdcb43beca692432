// Shared by the AVX2 attention-score kernels (attn_fast_amd64.s,
// attn_direct_amd64.s).

// ATTN_REDUCE8 sums each of the eight row accumulators Y0-Y7 into lane r
// of Y10, ((l0+l2)+(l1+l3)) + ((l4+l6)+(l5+l7)) per row (transposeSum8):
// rows 0-3 and 4-7 lanes two apart, then neighbours, per 128-bit half,
// then the two halves. Y8, Y9, Y11 and Y12 are clobbered.
#define ATTN_REDUCE8 \
	VUNPCKLPS  Y1, Y0, Y8          \
	VUNPCKHPS  Y1, Y0, Y9          \
	VADDPS     Y9, Y8, Y8          \
	VUNPCKLPS  Y3, Y2, Y10         \
	VUNPCKHPS  Y3, Y2, Y11         \
	VADDPS     Y11, Y10, Y10       \
	VUNPCKLPD  Y10, Y8, Y9         \
	VUNPCKHPD  Y10, Y8, Y11        \
	VADDPS     Y11, Y9, Y9         \
	VUNPCKLPS  Y5, Y4, Y8          \
	VUNPCKHPS  Y5, Y4, Y10         \
	VADDPS     Y10, Y8, Y8         \
	VUNPCKLPS  Y7, Y6, Y10         \
	VUNPCKHPS  Y7, Y6, Y11         \
	VADDPS     Y11, Y10, Y10       \
	VUNPCKLPD  Y10, Y8, Y12        \
	VUNPCKHPD  Y10, Y8, Y11        \
	VADDPS     Y11, Y12, Y12       \
	VPERM2F128 $0x20, Y12, Y9, Y10 \
	VPERM2F128 $0x31, Y12, Y9, Y11 \
	VADDPS     Y11, Y10, Y10
