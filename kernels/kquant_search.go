package kernels

import "math"

// The scale searches of the K-quant quantizers (Q4_K and Q5_K:
// make_qkx2_quants; Q6_K: make_qx_quants), the bulk of `gollm quantize`
// time for the K-quant mixes, on whole super-blocks with one sub-block per
// SIMD lane. Package quant defines them (scalar, bit for bit ggml) and
// cannot import this package, so the SIMD versions (kquant_search_amd64.go)
// belong to the AVX2 implementation sets (kernelSet.kSearch) and are
// installed into quant with quant.SetKSearchKernels whenever such a set
// becomes active (at init, or by SetImpl); with the generic set active,
// quant runs its scalar search.
//
// Lanes make the float order easy to keep: each lane runs ggml's sequence of
// float32 operations for its own sub-block, element after element, exactly
// as the scalar code does, so every sum, quotient and comparison is the same
// IEEE operation on the same operands. Only the levels are computed
// differently, by adding 1.5*2^23 (ggml's nearest_int trick) and clamping
// on the bit patterns, which is exact while |iscale*(x - min)| < 2^22; the
// Q4_K/Q5_K kernel tracks a bound on that product and declines the block
// (quant then runs the scalar search) when it could be exceeded. Both decline
// blocks with a NaN or an infinity.
//
// The generic functions below are the kernels' definition in Go, lane by
// lane, and the oracle their assembly is tested against.

// kqsMagicRound is 1.5*2^23: adding it to a float32 t with |t| < 2^22 leaves
// kqsMagicRound + round-half-to-even(t), whose bit patterns order as the
// values.
const (
	kqsMagicRound float32 = 12582912
	kqsMagicBits          = 0x4b400000
	kqsInfBits            = 0x7f800000
	// kqsTMax bounds |iscale*(x - min)| where the fast rounding is used:
	// 4e6 < 2^22 (the same limit as quant's scalar search).
	kqsTMax float32 = 4e6
	// kqsGroupMaxEps is ggml's GROUP_MAX_EPS.
	kqsGroupMaxEps float32 = 1e-15
)

// qkx2Block8Generic is the Q4_K/Q5_K search kernel (see
// quant.KSearchKernels.QKX2) in Go: make_qkx2_quants with squared errors
// and weights av_x + |x| on each 32-value sub-block, returning scales and
// negated mins. ok is false when some x is not finite or some candidate's
// levels could fall outside the fast rounding's range.
func qkx2Block8Generic(x *[256]float32, nmax int, nums []float32) (scales, negMins [8]float32, ok bool) {
	fnmax := float32(nmax)
	top := kqsMagicBits + uint32(nmax)
	level := func(t float32) float32 {
		b := min(max(math.Float32bits(t+kqsMagicRound), kqsMagicBits), top)
		return math.Float32frombits(b) - kqsMagicRound
	}
	var absMax uint32 // the largest |x|, as bits
	var tMax uint32   // the largest bound on |iscale*(x - min)|, as bits
	for j := 0; j < 8; j++ {
		xs := (*[32]float32)(x[32*j:])
		var sumX2 float32
		mn, mx := xs[0], xs[0]
		for i, v := range xs {
			sumX2 += float32(v * v)
			if i > 0 {
				if v < mn {
					mn = v
				}
				if v > mx {
					mx = v
				}
			}
			absMax = max(absMax, math.Float32bits(v)&^(1<<31))
		}
		avX := float32(math.Sqrt(float64(sumX2 / 32)))
		var w [32]float32
		for i, v := range xs {
			w[i] = avX + float32(math.Abs(float64(v)))
		}
		sumW, sumX := w[0], float32(w[0]*xs[0])
		for i := 1; i < 32; i++ {
			sumW += w[i]
			sumX += float32(w[i] * xs[i])
		}
		minX := mn
		if mn > 0 {
			mn = 0
		}
		done := mx == mn
		r := mx - mn
		iscale := fnmax / r
		scale := 1 / iscale
		if !done {
			tMax = max(tMax, math.Float32bits(float32(iscale*r))&^(1<<31))
		}
		var best float32
		for i, v := range xs {
			l := level(float32(iscale * (v - mn)))
			d := float32(float32(scale*l)+mn) - v
			best += float32(w[i] * float32(d*d))
		}
		min := mn
		var lv [32]float32
		for _, num := range nums {
			r := mx - min
			iscale := num / r
			// |x - min| is at most m (rounding is monotonic), so no
			// product exceeds |iscale|*m.
			m := max(math.Float32bits(r)&^(1<<31), math.Float32bits(minX-min)&^(1<<31))
			t := float32(math.Float32frombits(math.Float32bits(iscale)&^(1<<31)) * math.Float32frombits(m))
			if !done {
				tMax = max(tMax, math.Float32bits(t))
			}
			var sumL, sumL2, sumXL float32
			for i, v := range xs {
				l := level(float32(iscale * (v - min)))
				lv[i] = l
				wl := float32(w[i] * l)
				sumL += wl
				sumL2 += float32(wl * l)
				sumXL += float32(wl * v)
			}
			D := float32(sumW*sumL2) - float32(sumL*sumL)
			ts := (float32(sumW*sumXL) - float32(sumX*sumL)) / D
			tm := (float32(sumL2*sumX) - float32(sumL*sumXL)) / D
			if tm > 0 {
				tm = 0
				ts = sumXL / sumL2
			}
			var e float32
			for i, v := range xs {
				d := float32(float32(ts*lv[i])+tm) - v
				e += float32(w[i] * float32(d*d))
			}
			if !done && D > 0 && e < best {
				best, scale, min = e, ts, tm
			}
		}
		if done {
			scale = 0
		}
		scales[j], negMins[j] = scale, -min
	}
	ok = absMax < kqsInfBits && tMax < math.Float32bits(kqsTMax)
	return scales, negMins, ok
}

// qkx2Block8x2Generic is qkx2Block8Generic on two super-blocks; ok only
// if both are.
func qkx2Block8x2Generic(x *[512]float32, nmax int, nums []float32) (scales, negMins [16]float32, ok bool) {
	s0, m0, ok0 := qkx2Block8Generic((*[256]float32)(x[:256]), nmax, nums)
	s1, m1, ok1 := qkx2Block8Generic((*[256]float32)(x[256:]), nmax, nums)
	copy(scales[:8], s0[:])
	copy(scales[8:], s1[:])
	copy(negMins[:8], m0[:])
	copy(negMins[8:], m1[:])
	return scales, negMins, ok0 && ok1
}

// q6kBlock16Generic is the Q6_K search kernel (see
// quant.KSearchKernels.Q6K) in Go: make_qx_quants with nmax 32 and weights
// x*x on each 16-value sub-block, returning the scales. Levels are within
// [-33, 33] before clamping whatever the data (|iscale*x| <= |nums|), so
// only non-finite input makes ok false.
func q6kBlock16Generic(x *[256]float32, nums []float32) (scales [16]float32, ok bool) {
	level := func(t float32) float32 {
		b := min(max(math.Float32bits(t+kqsMagicRound), kqsMagicBits-32), kqsMagicBits+31)
		return math.Float32frombits(b) - kqsMagicRound
	}
	var absMax uint32
	for j := 0; j < 16; j++ {
		xs := (*[16]float32)(x[16*j:])
		var amax, mx float32
		var w, wx [16]float32
		for i, v := range xs {
			absMax = max(absMax, math.Float32bits(v)&^(1<<31))
			if a := float32(math.Abs(float64(v))); a > amax {
				amax, mx = a, v
			}
			w[i] = v * v
			wx[i] = w[i] * v
		}
		var scale, best float32
		for k, num := range nums {
			iscale := num / mx
			var sumLX, sumL2 float32
			for i, v := range xs {
				l := level(float32(iscale * v))
				sumLX += float32(wx[i] * l)
				sumL2 += float32(float32(w[i]*l) * l)
			}
			if k == 0 {
				scale = 0
				if sumL2 != 0 {
					scale = sumLX / sumL2
				}
				best = scale * sumLX
			} else if sumL2 > 0 && float32(sumLX*sumLX) > float32(best*sumL2) {
				scale = sumLX / sumL2
				best = scale * sumLX
			}
		}
		if amax < kqsGroupMaxEps {
			scale = 0
		}
		scales[j] = scale
	}
	return scales, absMax < kqsInfBits
}

// kLevelsGeneric is the K-quant requantization kernel (see
// quant.KSearchKernels.Levels) in Go.
func kLevelsGeneric(x *[256]float32, g int, d, a [16]float32, lo, hi, off int) (L [256]uint8) {
	for i, v := range x {
		j := i / g
		L[i] = uint8(min(max(kqsNearestInt((v+a[j])/d[j]), lo), hi) + off)
	}
	return L
}

// kqsNearestInt is ggml's nearest_int: the float addition of 1.5*2^23
// rounds, the low mantissa bits are read back (meaningless but
// deterministic beyond 2^22, for infinities and NaN).
func kqsNearestInt(f float32) int {
	return int(math.Float32bits(f+kqsMagicRound)&0x007fffff) - 0x00400000
}
