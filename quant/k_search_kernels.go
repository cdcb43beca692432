package quant

// Optional faster implementations of the K-quant scale searches. quant has
// no SIMD (package kernels has, and imports quant), so the kernels are
// installed from outside: package kernels does it from an init function
// when the CPU has what its assembly needs. The scalar code here stays the
// definition, and the fallback wherever a kernel is absent or declines a
// block.
//
// The kernels return scales only, not levels: every Q4_K, Q5_K and Q6_K
// quantizer recomputes the levels of a sub-block from its stored scale, and
// keeps the search's levels only where that scale decodes to zero. For
// those (rare) sub-blocks the scalar search is run again to get them.

// KSearchKernels holds the searches a kernel package may provide; a nil
// field leaves that search to the scalar code. Each must give bit for bit
// the results of the scalar code it replaces, whose contract is ggml's.
type KSearchKernels struct {
	// QKX2 is make_qkx2_quants with squared errors (use_mad false) and
	// weights av_x + |x_i|, av_x = sqrtf(sum x_i^2/32), on each of the
	// eight 32-value sub-blocks of x, as quantize_row_q4_K_ref and
	// quantize_row_q5_K_ref call it: levels 0..nmax; candidate is
	// (0 <= is < len(nums)) has iscale = nums[is]/(max - min), nums[is]
	// being ggml's rmin + rdelta*is + nmax in float32. It returns each
	// sub-block's scale and negated min (ggml's the_min) and ok, or ok
	// false to leave the whole super-block to the scalar search (for
	// example for non-finite input). (Results are returned by value: a
	// pointer into the caller's frame would escape through the function
	// value and cost an allocation per row.)
	QKX2 func(x *[256]float32, nmax int, nums []float32) (scales, negMins [8]float32, ok bool)

	// QKX2Pair is QKX2 on two consecutive super-blocks (x[:256] and
	// x[256:]), ok only if it takes both; a kernel may do two at once
	// faster than one after the other.
	QKX2Pair func(x *[512]float32, nmax int, nums []float32) (scales, negMins [16]float32, ok bool)

	// Q6K is make_qx_quants with nmax 32 and rmse_type 1 (weights x_i^2)
	// on each of the sixteen 16-value sub-blocks of x, as
	// quantize_row_q6_K_ref calls it: nums[0] = -32 gives the first
	// candidate's iscale = nums[0]/max, nums[1..] the later ones'
	// (ggml's -(nmax + 0.1*is), is = -9..9 without 0). It returns each
	// sub-block's scale (0 for a sub-block whose max |x| is below
	// GROUP_MAX_EPS) and ok, or ok false to leave the super-block to the
	// scalar search.
	Q6K func(x *[256]float32, nums []float32) (scales [16]float32, ok bool)

	// Levels is the requantization step of the Q4_K, Q5_K and Q6_K
	// quantizers: for sub-blocks of g values (g = 16 or 32; 256/g of
	// them, the first 256/g entries of d and a), L[i] = clamp(
	// nearest_int((x[i] + a[j])/d[j]), lo, hi) + off with j = i/g,
	// nearest_int being ggml's (the magic-number trick, for every input,
	// as nearestInt). Q6_K's x/d is (x + 0)/d: adding +0 changes no
	// quotient's rounding. Levels of sub-blocks with d[j] == 0 are
	// unspecified (the callers keep the search's there).
	Levels func(x *[256]float32, g int, d, a [16]float32, lo, hi, off int) [256]uint8
}

// kSearch is the installed set; it is written only by SetKSearchKernels
// (from init functions, before any quantization) and read by the row
// quantizers.
var kSearch KSearchKernels

// SetKSearchKernels installs k and returns the set it replaces. It must not
// run while rows are being quantized: call it from an init function (or a
// test that quantizes nothing concurrently).
func SetKSearchKernels(k KSearchKernels) (previous KSearchKernels) {
	previous, kSearch = kSearch, k
	return previous
}

// Candidate numerators of the searches, rounded as ggml computes them:
// make_qkx2_quants' rmin + rdelta*is + nmax (Q4_K: -1, 0.1, 15, 20 steps;
// Q5_K: -0.5, 0.1, 31, 15 steps) and make_qx_quants' -nmax, then
// -(nmax + 0.1*is) for is = -9..9 without 0.
var (
	q4kNums = qkx2Nums(15, -1, 0.1, 20)
	q5kNums = qkx2Nums(31, -0.5, 0.1, 15)
	q6kNums = q6kNumerators()
)

func qkx2Nums(nmax int, rmin, rdelta float32, nstep int) []float32 {
	nums := make([]float32, nstep+1)
	for is := range nums {
		nums[is] = rmin + float32(rdelta*float32(is)) + float32(nmax)
	}
	return nums
}

func q6kNumerators() []float32 {
	nums := []float32{-32}
	for is := -9; is <= 9; is++ {
		if is != 0 {
			nums = append(nums, -(32 + float32(float32(0.1)*float32(is))))
		}
	}
	return nums
}
