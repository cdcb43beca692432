package quant

import "math"

// The scale search of Q6_K (make_qx_quants with nmax 32, rmse_type 1 and
// weights x*x) on sub-blocks of 16, restructured for speed with the same
// bits as makeQXQuants, which it falls back to for non-finite input.
//
// It works on magnitudes. The candidate scale iscale = -(32+0.1*is)/max has
// the sign opposite to max, so level l_i = round(iscale*x_i) has the sign of
// -sign(max)*sign(x_i), fixed across candidates, and |l_i| is
// round(|iscale|*|x_i|) (products and round-half-to-even are symmetric),
// clamped at 31 where l_i > 0 and 32 where l_i < 0. Every nonzero term
// w*x*l of sumlx then has the sign -sign(max), so sumlx is that sign times
// the same sum over magnitudes (negation commutes with rounding; zero
// terms cannot change a sum that starts at +0), and suml2 has no signs at
// all. Comparisons use sumlx squared; the sign is put back for the scale.
//
// Working on magnitudes makes |l_i| grow with |iscale|, and consecutive
// candidates' |iscale| are ordered (the first, 32/amax, then 31.1/amax up to
// 32.9/amax in steps), so two consecutive candidates have the same levels
// exactly when their level sums are equal: a candidate whose sum did not
// change has the sums of the one before and cannot change the outcome
// (re-running the comparison on identical sums leaves the result as it is).
// Levels are rounded with the magic-number addition of nearestInt, kept as
// float bits: |iscale*x_i| <= 33 is far inside its exact range.

// q6kMagicBits is the bit pattern of magicRound (1.5*2^23): a level l is
// stored as the bits of magicRound + l.
var q6kMagicBits = math.Float32bits(magicRound)

// q6kLane is one sub-block's search state.
type q6kLane struct {
	ax, w, awx [16]float32 // |x|, x*x, |x*x*x| as ggml rounds them
	hi         [16]uint32  // bits of magicRound + the largest |level|
	lv, best   [16]float32 // current and best levels as magicRound + |l|
	amax       float32
	negMax     bool // max < 0: levels of positive x are negative
	sum        uint32
	scale      float32 // best scale, signed as ggml's
	bestV      float32 // best = scale*sumlx
	zero       bool    // amax below groupMaxEps: all levels 0, scale 0
}

// q6kMaxAmax bounds the sub-blocks the fast search takes: with |x| <= 1024
// no product or sum of the search can overflow (x*x*x*l summed 16 times
// stays below 2^40, its square below 2^80), so no infinity or NaN arises
// whose sign the magnitude arithmetic could get wrong. Larger (and
// non-finite) values take makeQXQuants.
const q6kMaxAmax = 1024

// init prepares the lane for x and reports whether the fast search applies.
func (ln *q6kLane) init(x *[16]float32) bool {
	ab, mb := absMax16(x)
	if ab > math.Float32bits(q6kMaxAmax) {
		return false
	}
	ln.amax = math.Float32frombits(ab)
	ln.zero = ln.amax < groupMaxEps
	ln.negMax = mb>>31 != 0
	for i, v := range x {
		a := abs32(v)
		w := v * v
		ln.ax[i] = a
		ln.w[i] = w
		ln.awx[i] = w * a
		// l_i > 0 when x_i and max differ in sign; those clamp at 31.
		// (Branch-free: the signs are random.)
		ln.hi[i] = q6kMagicBits + 32 - (math.Float32bits(v)^mb)>>31
	}
	return true
}

// absMax16 is absMax32 for 16 values.
func absMax16(x *[16]float32) (ab, mb uint32) {
	var a0, m0, a1, m1 uint32
	for j := 0; j < 8; j++ {
		b0 := math.Float32bits(x[j])
		b1 := math.Float32bits(x[j+8])
		if v := b0 &^ (1 << 31); v > a0 {
			a0, m0 = v, b0
		}
		if v := b1 &^ (1 << 31); v > a1 {
			a1, m1 = v, b1
		}
	}
	if a1 > a0 {
		return a1, m1
	}
	return a0, m0
}

// levels sets lv for |iscale| = ia and returns the sum of the level bits
// (wrapping: only equality matters, and the level part stays below 2^10).
//
//go:noinline
func (ln *q6kLane) levels(ia float32) uint32 {
	var sum uint32
	for i := 0; i < 16; i += 4 {
		b0 := min(math.Float32bits(float32(ia*ln.ax[i])+magicRound), ln.hi[i])
		b1 := min(math.Float32bits(float32(ia*ln.ax[i+1])+magicRound), ln.hi[i+1])
		b2 := min(math.Float32bits(float32(ia*ln.ax[i+2])+magicRound), ln.hi[i+2])
		b3 := min(math.Float32bits(float32(ia*ln.ax[i+3])+magicRound), ln.hi[i+3])
		ln.lv[i], ln.lv[i+1] = math.Float32frombits(b0), math.Float32frombits(b1)
		ln.lv[i+2], ln.lv[i+3] = math.Float32frombits(b2), math.Float32frombits(b3)
		sum += b0 + b1 + b2 + b3
	}
	return sum
}

// q6kSums returns the magnitude sums sum |x*x*x*l| and sum x*x*l*l over the
// current levels, in ggml's order and rounding.
//
//go:noinline
func q6kSums(ln *q6kLane) (sumlx, suml2 float32) {
	for i := 0; i < 16; i += 4 {
		a0, a1 := ln.lv[i]-magicRound, ln.lv[i+1]-magicRound
		a2, a3 := ln.lv[i+2]-magicRound, ln.lv[i+3]-magicRound
		sumlx += float32(ln.awx[i] * a0)
		suml2 += float32(float32(ln.w[i]*a0) * a0)
		sumlx += float32(ln.awx[i+1] * a1)
		suml2 += float32(float32(ln.w[i+1]*a1) * a1)
		sumlx += float32(ln.awx[i+2] * a2)
		suml2 += float32(float32(ln.w[i+2]*a2) * a2)
		sumlx += float32(ln.awx[i+3] * a3)
		suml2 += float32(float32(ln.w[i+3]*a3) * a3)
	}
	return sumlx, suml2
}

// q6kSums2 is q6kSums on two lanes at once, so that the four serial sums
// overlap.
//
//go:noinline
func q6kSums2(p, q *q6kLane) (lxP, l2P, lxQ, l2Q float32) {
	for i := 0; i < 16; i += 2 {
		a0, b0 := p.lv[i]-magicRound, q.lv[i]-magicRound
		a1, b1 := p.lv[i+1]-magicRound, q.lv[i+1]-magicRound
		lxP += float32(p.awx[i] * a0)
		lxQ += float32(q.awx[i] * b0)
		l2P += float32(float32(p.w[i]*a0) * a0)
		l2Q += float32(float32(q.w[i]*b0) * b0)
		lxP += float32(p.awx[i+1] * a1)
		lxQ += float32(q.awx[i+1] * b1)
		l2P += float32(float32(p.w[i+1]*a1) * a1)
		l2Q += float32(float32(q.w[i+1]*b1) * b1)
	}
	return lxP, l2P, lxQ, l2Q
}

// first takes the sums of the first candidate (|iscale| = 32/amax).
func (ln *q6kLane) first(sumlx, suml2 float32) {
	ln.best = ln.lv
	ln.scale = 0
	if suml2 != 0 {
		ln.scale = ln.signed(sumlx) / suml2
	}
	ln.bestV = ln.scale * ln.signed(sumlx)
}

// offer is make_qx_quants' acceptance test for a later candidate.
func (ln *q6kLane) offer(sumlx, suml2 float32) {
	if suml2 > 0 && float32(sumlx*sumlx) > float32(ln.bestV*suml2) {
		ln.best = ln.lv
		ln.scale = ln.signed(sumlx) / suml2
		ln.bestV = ln.scale * ln.signed(sumlx)
	}
}

// signed gives a magnitude sum ggml's sign: -sign(max), except that a
// zero sum stays +0 as ggml's does.
func (ln *q6kLane) signed(s float32) float32 {
	if s != 0 && !ln.negMax {
		return -s
	}
	return s
}

// finish writes ggml's levels (l + 32) into L and returns the scale.
func (ln *q6kLane) finish(x *[16]float32, L []int8) float32 {
	L = L[:16]
	if ln.zero {
		clear(L)
		return 0
	}
	for i, f := range ln.best {
		a := int8(math.Float32bits(f) - q6kMagicBits)
		// l_i > 0 where x_i and max differ in sign, which hi records
		// (clamp 31, odd). m is 0 there and -1 elsewhere, and
		// (a^m) - m is a or -a accordingly, without a branch.
		m := int8(ln.hi[i]&1) - 1
		L[i] = 32 + (a ^ m) - m
	}
	return ln.scale
}

// q6kIscale is |iscale| of candidate is (-9..9, 0 meaning the first).
func q6kIscale(is int, amax float32) float32 {
	if is == 0 {
		return 32 / amax
	}
	return (32 + float32(float32(0.1)*float32(is))) / amax
}

// q6kSearchPair runs make_qx_quants (Q6_K's parameters) on two sub-blocks
// of 16, writing levels into La, Lb and returning the two scales.
func q6kSearchPair(xa, xb *[16]float32, La, Lb []int8) (sa, sb float32) {
	var p, q q6kLane
	okA, okB := p.init(xa), q.init(xb)
	if !okA || !okB || p.zero || q.zero {
		if okA {
			sa = q6kSearchOne(&p, xa, La)
		} else {
			w := squares16(xa)
			sa = makeQXQuants(xa[:], 32, La, w[:])
		}
		if okB {
			sb = q6kSearchOne(&q, xb, Lb)
		} else {
			w := squares16(xb)
			sb = makeQXQuants(xb[:], 32, Lb, w[:])
		}
		return sa, sb
	}
	p.sum = p.levels(q6kIscale(0, p.amax))
	q.sum = q.levels(q6kIscale(0, q.amax))
	lxP, l2P, lxQ, l2Q := q6kSums2(&p, &q)
	p.first(lxP, l2P)
	q.first(lxQ, l2Q)
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		sP := p.levels(q6kIscale(is, p.amax))
		sQ := q.levels(q6kIscale(is, q.amax))
		chP, chQ := sP != p.sum, sQ != q.sum
		p.sum, q.sum = sP, sQ
		switch {
		case chP && chQ:
			lxP, l2P, lxQ, l2Q := q6kSums2(&p, &q)
			p.offer(lxP, l2P)
			q.offer(lxQ, l2Q)
		case chP:
			p.offer(q6kSums(&p))
		case chQ:
			q.offer(q6kSums(&q))
		}
	}
	return p.finish(xa, La), q.finish(xb, Lb)
}

// q6kSearchSub runs the search on one sub-block of 16, writing its levels
// into L and returning its scale.
func q6kSearchSub(x *[16]float32, L []int8) float32 {
	var ln q6kLane
	if !ln.init(x) {
		w := squares16(x)
		return makeQXQuants(x[:], 32, L, w[:])
	}
	return q6kSearchOne(&ln, x, L)
}

// q6kSearchOne is the search on one prepared lane.
func q6kSearchOne(ln *q6kLane, x *[16]float32, L []int8) float32 {
	if ln.zero {
		return ln.finish(x, L)
	}
	ln.sum = ln.levels(q6kIscale(0, ln.amax))
	ln.first(q6kSums(ln))
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		s := ln.levels(q6kIscale(is, ln.amax))
		if s != ln.sum {
			ln.sum = s
			ln.offer(q6kSums(ln))
		}
	}
	return ln.finish(x, L)
}

// squares16 returns x*x, make_qx_quants' weights without an importance
// matrix.
func squares16(x *[16]float32) (w [16]float32) {
	for i, v := range x {
		w[i] = v * v
	}
	return w
}
