package quant

import "math"

// The scale search of Q2_K, Q4_K and Q5_K (ggml's make_qkx2_quants), kept
// bit-identical to ggml but restructured for speed: it is where nearly all
// of their quantization time goes.

// makeQKX2Quants is make_qkx2_quants: an asymmetric quantizer to [0, nmax]
// with value = scale*L + min (min <= 0). Starting from the min/max fit it
// tries nstep+1 scales (rmin + rdelta*is + nmax)/(max - min), solving the
// weighted least-squares scale and min for each, and keeps the lowest weighted
// error (absolute when useMad, squared otherwise). It returns the scale and
// -min. n = len(x) <= 32; w, L have at least n entries.
//
// This search dominates K-quant quantization time, so it skips work in ways
// that keep the result bit-identical:
//   - a candidate whose levels equal the previous candidate's has the same
//     sums, hence the same error, and the previous outcome already settled
//     it (accepted: its error is not < itself; rejected: still not better);
//   - with non-negative weights the running error only grows (adding a
//     non-negative float never rounds below the sum), so a candidate is
//     dropped as soon as its partial error reaches the best error;
//   - levels are kept as float32 and rounded with the same magic-number
//     addition nearestInt uses, without the trip through an integer, where
//     that is provably the same (finite inputs, |x| far below 2^22), and
//     clamped on their bit patterns.
//
// makeQKX2Pair runs two independent searches in lockstep: each float sum is
// a serial chain (ggml's order must be kept), so interleaving two chains
// lets the CPU overlap them.
func makeQKX2Quants(x, w []float32, nmax int, L []uint8, rmin, rdelta float32, nstep int, useMad bool) (scale, negMin float32) {
	ln := newQKX2Lane(x, w, nmax, L, useMad)
	return ln.search(nmax, rmin, rdelta, nstep, useMad)
}

// makeQKX2Pair is two makeQKX2Quants calls (on x0 and x1, which must have the
// same length) computed together.
func makeQKX2Pair(x0, w0 []float32, L0 []uint8, x1, w1 []float32, L1 []uint8, nmax int, rmin, rdelta float32, nstep int, useMad bool) (s0, m0, s1, m1 float32) {
	a := newQKX2Lane(x0, w0, nmax, L0, useMad)
	b := newQKX2Lane(x1, w1, nmax, L1, useMad)
	if a.done || b.done || nstep < 1 || len(x0) != len(x1) {
		s0, m0 = a.search(nmax, rmin, rdelta, nstep, useMad)
		s1, m1 = b.search(nmax, rmin, rdelta, nstep, useMad)
		return s0, m0, s1, m1
	}
	fnmax := float32(nmax)
	earlyOut := a.nonNeg && b.nonNeg
	for is := 0; is <= nstep; is++ {
		needA := a.levels(a.iscaleFor(is, rmin, rdelta, fnmax), fnmax, nmax) || is == 0
		needB := b.levels(b.iscaleFor(is, rmin, rdelta, fnmax), fnmax, nmax) || is == 0
		var tsA, tmA, tsB, tmB float32
		var evalA, evalB bool
		switch {
		case needA && needB:
			lA, l2A, xlA, lB, l2B, xlB := qkx2Sums2(a.x, a.w, a.aux[:len(a.x)], b.x, b.w, b.aux[:len(b.x)])
			tsA, tmA, evalA = a.fit(lA, l2A, xlA)
			tsB, tmB, evalB = b.fit(lB, l2B, xlB)
		case needA:
			tsA, tmA, evalA = a.fit(qkx2Sums(a.x, a.w, a.aux[:len(a.x)]))
		case needB:
			tsB, tmB, evalB = b.fit(qkx2Sums(b.x, b.w, b.aux[:len(b.x)]))
		}
		switch {
		case evalA && evalB:
			eA, eB, okA, okB := qkx2Error2(a.x, a.w, a.aux[:len(a.x)], tsA, tmA, a.bestErr,
				b.x, b.w, b.aux[:len(b.x)], tsB, tmB, b.bestErr, useMad, earlyOut)
			if okA {
				a.offer(eA, tsA, tmA)
			}
			if okB {
				b.offer(eB, tsB, tmB)
			}
		case evalA:
			if e, complete := qkx2Error(a.x, a.w, a.aux[:len(a.x)], tsA, tmA, a.bestErr, useMad, a.nonNeg); complete {
				a.offer(e, tsA, tmA)
			}
		case evalB:
			if e, complete := qkx2Error(b.x, b.w, b.aux[:len(b.x)], tsB, tmB, b.bestErr, useMad, b.nonNeg); complete {
				b.offer(e, tsB, tmB)
			}
		}
	}
	a.finish()
	b.finish()
	return a.scale, -a.min, b.scale, -b.min
}

// qkx2Lane is the state of one make_qkx2_quants search.
type qkx2Lane struct {
	x, w     []float32
	L        []uint8
	aux      [32]float32 // levels l of the current candidate, stored as magicRound + l
	best     [32]float32 // the winning candidate's aux, copied to L by finish
	bestSet  bool
	min, max float32 // min is the fitted offset (<= 0) once candidates win
	minX     float32 // the smallest x
	sumW     float32
	sumX     float32
	scale    float32
	bestErr  float32
	finite   bool // every x is finite: the fast level rounding applies
	nonNeg   bool // every weight is >= 0: errors only grow as terms add up
	done     bool // max == min: the result is final

	// For the current min: xm = x - min (as ggml computes it inside the
	// rounding), and rangeM, a bound on |x - min| with a margin for the
	// float32 roundings: levels takes the fast path only when
	// |iscale|*rangeM < 4e6, far inside nearestInt's exact range.
	xm     [32]float32
	rangeM float64
	xmTop  float32 // fl(max - min): no xm is larger
	noLow  bool    // every x >= min: no xm is negative

	// Sum (mod 2^32) of the level bit patterns of the previous candidate,
	// when it was computed by the fast path with the current min (see
	// levels).
	prevSum   uint32
	prevValid bool
}

// newQKX2Lane computes the starting min/max fit into L, as make_qkx2_quants
// does before its search. (It returns the state by value: storing the slices
// through a pointer would make escape analysis move the callers' arrays to
// the heap.)
func newQKX2Lane(x, w []float32, nmax int, L []uint8, useMad bool) (ln qkx2Lane) {
	if len(x) == 32 && len(w) >= 32 && len(L) >= 32 && !useMad && nmax <= 255 {
		return newQKX2Lane32((*[32]float32)(x), (*[32]float32)(w), nmax, (*[32]uint8)(L))
	}
	return newQKX2LaneGeneric(x, w, nmax, L, useMad)
}

// newQKX2LaneGeneric is newQKX2Lane for any input.
func newQKX2LaneGeneric(x, w []float32, nmax int, L []uint8, useMad bool) (ln qkx2Lane) {
	n := len(x)
	w = w[:n]
	L = L[:n]
	ln.x, ln.w, ln.L = x, w, L
	min, max := x[0], x[0]
	sumW := w[0]
	sumX := sumW * x[0]
	nonNeg := w[0] >= 0
	for i := 1; i < n; i++ {
		if x[i] < min {
			min = x[i]
		}
		if x[i] > max {
			max = x[i]
		}
		sumW += w[i]
		sumX += float32(w[i] * x[i])
		nonNeg = nonNeg && w[i] >= 0
	}
	ln.minX, ln.sumW, ln.sumX, ln.nonNeg = min, sumW, sumX, nonNeg
	if min > 0 {
		min = 0
	}
	ln.min, ln.max = min, max
	if max == min {
		for i := range L {
			L[i] = 0
		}
		ln.scale, ln.done = 0, true
		return ln
	}
	iscale := float32(nmax) / (max - min)
	scale := 1 / iscale
	var bestErr float32
	for i, v := range x {
		l := clampInt(nearestInt(iscale*(v-min)), 0, nmax)
		L[i] = uint8(l)
		diff := float32(scale*float32(l)) + min - v
		if useMad {
			diff = abs32(diff)
		} else {
			diff = diff * diff
		}
		bestErr += float32(w[i] * diff)
	}
	ln.scale, ln.bestErr = scale, bestErr
	ln.finite = allFinite(x)
	ln.setMin(min)
	return ln
}

// newQKX2Lane32 is newQKX2Lane for 32 values and squared errors, in two
// passes: one for the extremes and sums (and whether all x are finite),
// one for the starting levels, error and x - min. When every x and
// max - min are finite, the levels round with magicRound: x - min lies in
// [0, max - min], so iscale*(x - min) is at most nmax*(1 + 2^-23), inside
// [0, nmax + 0.5), where nearestInt and the clamps change nothing.
func newQKX2Lane32(x, w *[32]float32, nmax int, L *[32]uint8) (ln qkx2Lane) {
	ln.x, ln.w, ln.L = x[:], w[:], L[:]
	// The extremes are found on integer keys that order finite floats as
	// their values, with -0 keyed as +0: conditional moves instead of a
	// mispredicted branch per new record, and, as with C's
	// `if (x < min) min = x`, the first of equal values is kept. With a
	// NaN or an infinity the generic code redoes the lane.
	minB, maxB := math.Float32bits(x[0]), math.Float32bits(x[0])
	kmin := orderKey(x[0])
	kmax := kmin
	sumW := w[0]
	sumX := sumW * x[0]
	nonNeg := w[0] >= 0
	ab := math.Float32bits(x[0]) &^ (1 << 31)
	for i := 1; i < 32; i++ {
		v := x[i]
		b := math.Float32bits(v)
		k := orderKey(v)
		if k < kmin {
			kmin, minB = k, b
		}
		if k > kmax {
			kmax, maxB = k, b
		}
		sumW += w[i]
		sumX += float32(w[i] * v)
		nonNeg = nonNeg && w[i] >= 0
		ab = max(ab, b&^(1<<31))
	}
	if ab >= expInf {
		return newQKX2LaneGeneric(x[:], w[:], nmax, L[:], false)
	}
	min, max := math.Float32frombits(minB), math.Float32frombits(maxB)
	ln.minX, ln.sumW, ln.sumX, ln.nonNeg = min, sumW, sumX, nonNeg
	ln.finite = true
	if min > 0 {
		min = 0
	}
	ln.min, ln.max = min, max
	if max == min {
		clear(L[:])
		ln.scale, ln.done = 0, true
		return ln
	}
	r := max - min
	iscale := float32(nmax) / r
	scale := 1 / iscale
	var bestErr float32
	if !ln.finite || !(r < math.MaxFloat32) {
		for i, v := range x {
			l := clampInt(nearestInt(iscale*(v-min)), 0, nmax)
			L[i] = uint8(l)
			diff := float32(scale*float32(l)) + min - v
			bestErr += float32(w[i] * float32(diff*diff))
		}
		ln.scale, ln.bestErr = scale, bestErr
		ln.setMin(min)
		return ln
	}
	for i, v := range x {
		xm := v - min
		ln.xm[i] = xm
		l := uint8(math.Float32bits(float32(iscale*xm) + magicRound))
		L[i] = l
		diff := float32(scale*float32(l)) + min - v
		bestErr += float32(w[i] * float32(diff*diff))
	}
	ln.scale, ln.bestErr = scale, bestErr
	ln.setMinDone(min)
	return ln
}

// newQKX2Lane32Pair is newQKX2Lane32 on two sub-blocks, its serial float
// sums (ggml's order, one chain per sub-block) interleaved so that the two
// chains overlap. Non-finite input in either falls back to newQKX2Lane32.
func newQKX2Lane32Pair(x0, w0 *[32]float32, L0 *[32]uint8, x1, w1 *[32]float32, L1 *[32]uint8, nmax int) (a, b qkx2Lane) {
	a.x, a.w, a.L = x0[:], w0[:], L0[:]
	b.x, b.w, b.L = x1[:], w1[:], L1[:]
	minA, maxA := math.Float32bits(x0[0]), math.Float32bits(x0[0])
	minB, maxB := math.Float32bits(x1[0]), math.Float32bits(x1[0])
	kminA, kminB := orderKey(x0[0]), orderKey(x1[0])
	kmaxA, kmaxB := kminA, kminB
	sumWA, sumWB := w0[0], w1[0]
	sumXA, sumXB := sumWA*x0[0], sumWB*x1[0]
	nonNegA, nonNegB := w0[0] >= 0, w1[0] >= 0
	ab := max(math.Float32bits(x0[0])&^(1<<31), math.Float32bits(x1[0])&^(1<<31))
	for i := 1; i < 32; i++ {
		u, v := x0[i], x1[i]
		bu, bv := math.Float32bits(u), math.Float32bits(v)
		ku, kv := orderKey(u), orderKey(v)
		if ku < kminA {
			kminA, minA = ku, bu
		}
		if ku > kmaxA {
			kmaxA, maxA = ku, bu
		}
		if kv < kminB {
			kminB, minB = kv, bv
		}
		if kv > kmaxB {
			kmaxB, maxB = kv, bv
		}
		sumWA += w0[i]
		sumWB += w1[i]
		sumXA += float32(w0[i] * u)
		sumXB += float32(w1[i] * v)
		nonNegA = nonNegA && w0[i] >= 0
		nonNegB = nonNegB && w1[i] >= 0
		ab = max(ab, bu&^(1<<31), bv&^(1<<31))
	}
	if ab >= expInf {
		return newQKX2Lane32(x0, w0, nmax, L0), newQKX2Lane32(x1, w1, nmax, L1)
	}
	a.minX, a.sumW, a.sumX, a.nonNeg, a.finite = math.Float32frombits(minA), sumWA, sumXA, nonNegA, true
	b.minX, b.sumW, b.sumX, b.nonNeg, b.finite = math.Float32frombits(minB), sumWB, sumXB, nonNegB, true
	var mnA, mnB float32 // ggml's "if (min > 0) min = 0"
	if a.minX > 0 {
		mnA = 0
	} else {
		mnA = a.minX
	}
	if b.minX > 0 {
		mnB = 0
	} else {
		mnB = b.minX
	}
	mxA, mxB := math.Float32frombits(maxA), math.Float32frombits(maxB)
	a.min, a.max, b.min, b.max = mnA, mxA, mnB, mxB
	rA, rB := mxA-mnA, mxB-mnB
	if mxA == mnA || mxB == mnB || !(rA < math.MaxFloat32) || !(rB < math.MaxFloat32) {
		return newQKX2Lane32(x0, w0, nmax, L0), newQKX2Lane32(x1, w1, nmax, L1)
	}
	iA, iB := float32(nmax)/rA, float32(nmax)/rB
	sA, sB := 1/iA, 1/iB
	var eA, eB float32
	for i := 0; i < 32; i++ {
		u, v := x0[i], x1[i]
		xu, xv := u-mnA, v-mnB
		a.xm[i], b.xm[i] = xu, xv
		lu := uint8(math.Float32bits(float32(iA*xu) + magicRound))
		lv := uint8(math.Float32bits(float32(iB*xv) + magicRound))
		L0[i], L1[i] = lu, lv
		du := float32(sA*float32(lu)) + mnA - u
		dv := float32(sB*float32(lv)) + mnB - v
		eA += float32(w0[i] * float32(du*du))
		eB += float32(w1[i] * float32(dv*dv))
	}
	a.scale, a.bestErr = sA, eA
	b.scale, b.bestErr = sB, eB
	a.setMinDone(mnA)
	b.setMinDone(mnB)
	return a, b
}

// orderKey maps a finite float to an int32 that orders as the float does,
// both zeros to 0.
func orderKey(v float32) int32 {
	k := int32(math.Float32bits(v + 0)) // -0 + 0 is +0
	return k ^ (k >> 31 & 0x7fffffff)
}

// setMin makes min the offset the next candidates are rounded against.
func (ln *qkx2Lane) setMin(min float32) {
	ln.min = min
	if len(ln.x) == 32 {
		x := (*[32]float32)(ln.x)
		for i := 0; i < 32; i += 4 {
			ln.xm[i], ln.xm[i+1], ln.xm[i+2], ln.xm[i+3] = x[i]-min, x[i+1]-min, x[i+2]-min, x[i+3]-min
		}
	} else {
		for i, v := range ln.x {
			ln.xm[i] = v - min
		}
	}
	a := math.Abs(float64(ln.max) - float64(min))
	b := math.Abs(float64(ln.minX) - float64(min))
	ln.rangeM = math.Max(a, b) * 1.001
	ln.xmTop = ln.max - min
	ln.noLow = ln.minX >= min
	ln.prevValid = false
}

// setMinDone is setMin where the caller has already stored x - min in xm.
func (ln *qkx2Lane) setMinDone(min float32) {
	ln.min = min
	a := math.Abs(float64(ln.max) - float64(min))
	b := math.Abs(float64(ln.minX) - float64(min))
	ln.rangeM = math.Max(a, b) * 1.001
	ln.xmTop = ln.max - min
	ln.noLow = ln.minX >= min
	ln.prevValid = false
}

// search runs the candidate loop of make_qkx2_quants on its own.
func (ln *qkx2Lane) search(nmax int, rmin, rdelta float32, nstep int, useMad bool) (scale, negMin float32) {
	if ln.done || nstep < 1 {
		return ln.scale, -ln.min
	}
	fnmax := float32(nmax)
	aux := ln.aux[:len(ln.x)]
	for is := 0; is <= nstep; is++ {
		if !ln.levels(ln.iscaleFor(is, rmin, rdelta, fnmax), fnmax, nmax) && is > 0 {
			continue
		}
		ts, tm, ok := ln.fit(qkx2Sums(ln.x, ln.w, aux))
		if !ok {
			continue
		}
		if e, complete := qkx2Error(ln.x, ln.w, aux, ts, tm, ln.bestErr, useMad, ln.nonNeg); complete {
			ln.offer(e, ts, tm)
		}
	}
	ln.finish()
	return ln.scale, -ln.min
}

func (ln *qkx2Lane) iscaleFor(is int, rmin, rdelta, fnmax float32) float32 {
	return (rmin + float32(rdelta*float32(is)) + fnmax) / (ln.max - ln.min)
}

// levels computes the candidate's levels into aux and reports whether they
// may differ from the previous candidate's. Between candidates with the same
// min, iscale only grows, so no level can decrease (x - min < 0 always
// gives level 0); the levels are then all equal exactly when the sums of
// their bit patterns (which order as the values) are equal: the sums differ
// from 32 levels' total by a constant, below 2^10, so mod 2^32 is enough.
func (ln *qkx2Lane) levels(iscale, fnmax float32, nmax int) bool {
	n := len(ln.x)
	if ln.finite && math.Abs(float64(iscale))*ln.rangeM < 4e6 { // false for NaN
		var sum uint32
		switch {
		case n != 32:
			sum = qkx2LevelsFast(ln.xm[:n], ln.aux[:n], iscale, magicBits+uint32(nmax))
		case ln.noLow && iscale > 0 && float32(iscale*ln.xmTop) < fnmax+0.5:
			// No level can leave [0, nmax]: every xm >= 0, and the largest
			// product rounds to at most nmax (the products grow with xm).
			sum = qkx2Levels32NoClamp(&ln.xm, &ln.aux, iscale)
		default:
			sum = qkx2Levels32(&ln.xm, &ln.aux, iscale, magicBits+uint32(nmax))
		}
		changed := !ln.prevValid || sum != ln.prevSum
		ln.prevSum, ln.prevValid = sum, true
		return changed
	}
	ln.prevValid = false
	return qkx2LevelsExact(ln.x, ln.aux[:n], iscale, ln.min, nmax)
}

// fit solves the weighted least-squares scale and min from the sums, as
// make_qkx2_quants does; ok is false when the system is degenerate (D <= 0).
func (ln *qkx2Lane) fit(sumL, sumL2, sumXL float32) (scale, min float32, ok bool) {
	d := float32(ln.sumW*sumL2) - float32(sumL*sumL)
	if !(d > 0) {
		return 0, 0, false
	}
	scale = (float32(ln.sumW*sumXL) - float32(ln.sumX*sumL)) / d
	min = (float32(sumL2*ln.sumX) - float32(sumL*sumXL)) / d
	if min > 0 {
		min = 0
		scale = sumXL / sumL2
	}
	return scale, min, true
}

// offer keeps the candidate if its full error beats the best so far.
func (ln *qkx2Lane) offer(e, scale, min float32) {
	if e < ln.bestErr {
		ln.best, ln.bestSet = ln.aux, true
		ln.bestErr, ln.scale = e, scale
		ln.setMin(min)
	}
}

// finish writes the levels of the last winning candidate, if any, into L
// (which holds the starting fit's otherwise).
func (ln *qkx2Lane) finish() {
	if ln.bestSet {
		for i, f := range ln.best[:len(ln.x)] {
			ln.L[i] = uint8(math.Float32bits(f) - magicBits)
		}
	}
}

// magicRound is 1.5*2^23: adding it to a float32 t with |t| < 2^22 gives a
// float in [2^23, 2^24), where floats are the integers, holding
// magicRound + round-half-to-even(t) (the trick behind ggml's nearest_int).
// Its bit patterns order as the values, so levels are clamped on the bits
// and kept in that form; magicRound + l - magicRound is l again, exactly.
const magicRound float32 = 12582912

// magicBits is the bit pattern of magicRound (level 0).
const magicBits = 0x4b400000

func allFinite(x []float32) bool {
	var m uint32
	for _, v := range x {
		m = max(m, math.Float32bits(v)&^(1<<31))
	}
	return m < expInf
}

// qkx2LevelsFast stores magicRound + clamp(round(iscale*xm), 0, nmax) into
// aux, with xm = x - min, and returns the sum of their bit patterns
// (top = magicBits + nmax). Valid only where levels checks it: finite
// inputs and |iscale*xm| far below 2^22.
//
//go:noinline
func qkx2LevelsFast(xm, aux []float32, iscale float32, top uint32) uint32 {
	aux = aux[:len(xm)]
	var sum uint32
	for i, v := range xm {
		b := min(max(math.Float32bits(float32(iscale*v)+magicRound), magicBits), top)
		sum += b
		aux[i] = math.Float32frombits(b)
	}
	return sum
}

// qkx2Levels32 is qkx2LevelsFast for 32 values, unrolled.
//
//go:noinline
func qkx2Levels32(xm, aux *[32]float32, iscale float32, top uint32) uint32 {
	var sum uint32
	for i := 0; i < 32; i += 4 {
		b0 := min(max(math.Float32bits(float32(iscale*xm[i])+magicRound), magicBits), top)
		b1 := min(max(math.Float32bits(float32(iscale*xm[i+1])+magicRound), magicBits), top)
		b2 := min(max(math.Float32bits(float32(iscale*xm[i+2])+magicRound), magicBits), top)
		b3 := min(max(math.Float32bits(float32(iscale*xm[i+3])+magicRound), magicBits), top)
		aux[i] = math.Float32frombits(b0)
		aux[i+1] = math.Float32frombits(b1)
		aux[i+2] = math.Float32frombits(b2)
		aux[i+3] = math.Float32frombits(b3)
		sum += b0 + b1 + b2 + b3
	}
	return sum
}

// qkx2Levels32NoClamp is qkx2Levels32 where the caller has shown that no
// level needs clamping.
//
//go:noinline
func qkx2Levels32NoClamp(xm, aux *[32]float32, iscale float32) uint32 {
	var sum uint32
	for i := 0; i < 32; i += 4 {
		r0 := float32(iscale*xm[i]) + magicRound
		r1 := float32(iscale*xm[i+1]) + magicRound
		r2 := float32(iscale*xm[i+2]) + magicRound
		r3 := float32(iscale*xm[i+3]) + magicRound
		aux[i], aux[i+1], aux[i+2], aux[i+3] = r0, r1, r2, r3
		sum += math.Float32bits(r0) + math.Float32bits(r1) + math.Float32bits(r2) + math.Float32bits(r3)
	}
	return sum
}

// qkx2LevelsExact is qkx2LevelsFast through nearestInt itself, for inputs
// where the fast form is not provably equal (NaN, infinities, huge ratios).
//
//go:noinline
func qkx2LevelsExact(x, aux []float32, iscale, min float32, nmax int) bool {
	aux = aux[:len(x)]
	changed := false
	for i, v := range x {
		r := float32(clampInt(nearestInt(iscale*(v-min)), 0, nmax)) + magicRound
		if math.Float32bits(aux[i]) != math.Float32bits(r) {
			changed = true
		}
		aux[i] = r
	}
	return changed
}

// qkx2Sums returns the weighted sums of l, l^2 and l*x that
// make_qkx2_quants accumulates, in its order and rounding. (Small leaf
// functions keep the hot loops' values in registers.)
//
//go:noinline
func qkx2Sums(x, w, aux []float32) (sumL, sumL2, sumXL float32) {
	w = w[:len(x)]
	aux = aux[:len(x)]
	for i, v := range x {
		fl := aux[i] - magicRound
		wl := float32(w[i] * fl)
		sumL += wl
		sumL2 += float32(wl * fl)
		sumXL += float32(wl * v)
	}
	return sumL, sumL2, sumXL
}

// qkx2Error sums w*|diff| or w*diff^2 over the candidate levels aux, as
// make_qkx2_quants does. With earlyOut it stops, reporting ok == false,
// once the partial sum reaches bestErr (the candidate can no longer win).
func qkx2Error(x, w, aux []float32, scale, min, bestErr float32, useMad, earlyOut bool) (float32, bool) {
	return qkx2ErrorFrom(x, w, aux, scale, min, bestErr, 0, 0, useMad, earlyOut)
}

// qkx2ErrorFrom continues the error sum e from element start.
//
//go:noinline
func qkx2ErrorFrom(x, w, aux []float32, scale, min, bestErr, e float32, start int, useMad, earlyOut bool) (float32, bool) {
	w = w[:len(x)]
	aux = aux[:len(x)]
	for i := start; i < len(x); i++ {
		diff := float32(scale*(aux[i]-magicRound)) + min - x[i]
		if useMad {
			diff = abs32(diff)
		} else {
			diff = float32(diff * diff)
		}
		e += float32(w[i] * diff)
		if earlyOut && e >= bestErr {
			return e, false
		}
	}
	return e, true
}

// qkx2Sums2 is qkx2Sums on two independent inputs at once.
//
//go:noinline
func qkx2Sums2(x0, w0, a0, x1, w1, a1 []float32) (l0, l20, xl0, l1, l21, xl1 float32) {
	n := len(x0)
	w0, a0 = w0[:n], a0[:n]
	x1, w1, a1 = x1[:n], w1[:n], a1[:n]
	for i := 0; i < n; i++ {
		f0, f1 := a0[i]-magicRound, a1[i]-magicRound
		wl0 := float32(w0[i] * f0)
		wl1 := float32(w1[i] * f1)
		l0 += wl0
		l1 += wl1
		l20 += float32(wl0 * f0)
		l21 += float32(wl1 * f1)
		xl0 += float32(wl0 * x0[i])
		xl1 += float32(wl1 * x1[i])
	}
	return l0, l20, xl0, l1, l21, xl1
}

// qkx2Error2 is qkx2Error on two independent candidates at once; ok0 and ok1
// report which sums are complete. With earlyOut (both lanes' weights
// non-negative) a lane whose partial error reaches its best is dropped and
// the other lane finishes alone.
//
//go:noinline
func qkx2Error2(x0, w0, a0 []float32, s0, m0, b0 float32, x1, w1, a1 []float32, s1, m1, b1 float32, useMad, earlyOut bool) (e0, e1 float32, ok0, ok1 bool) {
	n := len(x0)
	w0, a0 = w0[:n], a0[:n]
	x1, w1, a1 = x1[:n], w1[:n], a1[:n]
	for i := 0; i < n; i++ {
		d0 := float32(s0*(a0[i]-magicRound)) + m0 - x0[i]
		d1 := float32(s1*(a1[i]-magicRound)) + m1 - x1[i]
		if useMad {
			d0, d1 = abs32(d0), float32(abs32(d1))
		} else {
			d0, d1 = float32(d0*d0), float32(d1*d1)
		}
		e0 += float32(w0[i] * d0)
		e1 += float32(w1[i] * d1)
		if earlyOut {
			if e0 >= b0 {
				e1, ok1 = qkx2ErrorFrom(x1, w1, a1, s1, m1, b1, e1, i+1, useMad, earlyOut)
				return e0, e1, false, ok1
			}
			if e1 >= b1 {
				e0, ok0 = qkx2ErrorFrom(x0, w0, a0, s0, m0, b0, e0, i+1, useMad, earlyOut)
				return e0, e1, ok0, false
			}
		}
	}
	return e0, e1, true, true
}
