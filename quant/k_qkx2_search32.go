package quant

import "math"

// qkx2Search32 is make_qkx2_quants with squared errors (the Q4_K and Q5_K
// search) on one sub-block of 32, bit for bit. On top of the shortcuts of
// makeQKX2Quants it settles most candidates before their float32 sums:
// float64 sums of w*l^2, w*l and w*l*x are kept up to date as levels change
// (a candidate changes only a level or two), and qkx2Bound turns them into
// a lower bound on the candidate's error that holds whatever scale and min
// the float32 fit would produce. Only candidates it cannot
// settle (a few per sub-block, nearly all of them winners) get ggml's sums,
// fit and error sum.
//
// Levels are kept as bytes, so that a candidate is compared with the one
// before it, and the changed levels found, a word at a time. A candidate
// with the same levels as the one before it has the same sums and fit, so
// the same error as before: not below the best error (it either is the
// best or lost to it), whatever happened to the offset in between.
func qkx2Search32(x, w *[32]float32, L *[32]uint8, nmax int, rmin, rdelta float32, nstep int) (scale, negMin float32) {
	ln := newQKX2Lane(x[:], w[:], nmax, L[:], false)
	return qkx2Search32From(&ln, x, w, L, nmax, rmin, rdelta, nstep)
}

// qkx2Search32From is qkx2Search32 from the starting fit ln
// (newQKX2Lane's, of the same x, w, L and nmax).
func qkx2Search32From(ln *qkx2Lane, x, w *[32]float32, L *[32]uint8, nmax int, rmin, rdelta float32, nstep int) (scale, negMin float32) {
	if ln.done || !ln.finite || !ln.nonNeg || nstep < 1 {
		return ln.search(nmax, rmin, rdelta, nstep, false)
	}
	var b qkx2Bound
	b.init(x, w, nmax, ln.bestErr)
	if !b.ok {
		return ln.search(nmax, rmin, rdelta, nstep, false)
	}
	fnmax := float32(nmax)
	top := magicBits + uint32(nmax)
	var lv [2][32]uint8 // this candidate's levels and the last one's
	var best [32]uint8
	bestSet := false
	// The best error, exactly (ln.bestErr) or as an interval.
	bestLo, bestHi, bestExact := float64(ln.bestErr), float64(ln.bestErr), true
	cur := 0
	for is := 0; is <= nstep; is++ {
		iscale := ln.iscaleFor(is, rmin, rdelta, fnmax)
		c, p := &lv[cur], &lv[1-cur]
		// No level exceeds nmax when the largest product rounds to at most
		// nmax (the products grow with xm), and none is below 0 when every
		// xm >= 0: the kernels skip the clamps that cannot apply.
		noHigh := iscale > 0 && float32(iscale*ln.xmTop) < fnmax+0.5
		switch {
		case !(math.Abs(float64(iscale))*ln.rangeM < 4e6): // also NaN
			qkx2LevelsB32Exact(x, c, iscale, ln.min, nmax)
		case noHigh && ln.noLow:
			qkx2LevelsB32NoClamp(&ln.xm, c, iscale)
		case noHigh:
			qkx2LevelsB32Low(&ln.xm, c, iscale)
		default:
			qkx2LevelsB32(&ln.xm, c, iscale, top)
		}
		if is == 0 {
			b.full(c)
		} else if !b.update(p, c) {
			continue // the same levels as the last candidate
		}
		cur = 1 - cur
		if b.cannotWin() {
			continue
		}
		sl, sl2, sxl := qkx2SumsB32(x, w, c)
		ts, tm, ok := ln.fit(sl, sl2, sxl)
		if !ok {
			continue
		}
		// The candidate's error is bounded from both sides first: most
		// that get here are winners by a wide margin, and then the best
		// error only needs to be known as an interval (ggml's outputs are
		// the levels, scale and min). The float32 error is computed only
		// when the intervals overlap, with the best's if it is pending.
		lo, hi := b.errInterval(ts, tm)
		switch {
		case !b.ok: // no interval: plain comparison (bestExact holds)
			lo, hi = 0, math.Inf(1)
		case hi < bestLo:
			best, bestSet = *c, true
			ln.scale = ts
			ln.setMin(tm)
			bestLo, bestHi, bestExact = lo, hi, false
			b.setBestAtMost(hi)
			continue
		case lo >= bestHi:
			continue
		}
		if !bestExact {
			ln.bestErr = qkx2SqErrB32(x, w, &best, ln.scale, ln.min)
			bestLo, bestHi, bestExact = float64(ln.bestErr), float64(ln.bestErr), true
		}
		if e := qkx2SqErrB32(x, w, c, ts, tm); e < ln.bestErr {
			best, bestSet = *c, true
			ln.bestErr, ln.scale = e, ts
			ln.setMin(tm)
			bestLo, bestHi = float64(e), float64(e)
			b.setBest(e)
		}
	}
	if bestSet {
		*L = best
	}
	return ln.scale, -ln.min
}

// qkx2LevelsB32 stores clamp(round(iscale*xm), 0, nmax) as bytes, rounding
// with magicRound (|iscale*xm| far below 2^22, see levels) and clamping on
// the bit patterns (top = magicBits + nmax); the level is then the low byte,
// as magicBits ends in a zero byte. (Unrolled by eight: the kernels run 21
// times per sub-block, and loop and nil-check overhead is a fifth of a
// four-way loop's work.)
//
//go:noinline
func qkx2LevelsB32(xm *[32]float32, lv *[32]uint8, iscale float32, top uint32) {
	for i := 0; i < 32; i += 8 {
		b0 := min(max(math.Float32bits(float32(iscale*xm[i])+magicRound), magicBits), top)
		b1 := min(max(math.Float32bits(float32(iscale*xm[i+1])+magicRound), magicBits), top)
		b2 := min(max(math.Float32bits(float32(iscale*xm[i+2])+magicRound), magicBits), top)
		b3 := min(max(math.Float32bits(float32(iscale*xm[i+3])+magicRound), magicBits), top)
		b4 := min(max(math.Float32bits(float32(iscale*xm[i+4])+magicRound), magicBits), top)
		b5 := min(max(math.Float32bits(float32(iscale*xm[i+5])+magicRound), magicBits), top)
		b6 := min(max(math.Float32bits(float32(iscale*xm[i+6])+magicRound), magicBits), top)
		b7 := min(max(math.Float32bits(float32(iscale*xm[i+7])+magicRound), magicBits), top)
		lv[i], lv[i+1], lv[i+2], lv[i+3] = uint8(b0), uint8(b1), uint8(b2), uint8(b3)
		lv[i+4], lv[i+5], lv[i+6], lv[i+7] = uint8(b4), uint8(b5), uint8(b6), uint8(b7)
	}
}

// qkx2LevelsB32NoClamp is qkx2LevelsB32 where the caller has shown that no
// level needs clamping.
//
//go:noinline
func qkx2LevelsB32NoClamp(xm *[32]float32, lv *[32]uint8, iscale float32) {
	for i := 0; i < 32; i += 8 {
		b0 := math.Float32bits(float32(iscale*xm[i]) + magicRound)
		b1 := math.Float32bits(float32(iscale*xm[i+1]) + magicRound)
		b2 := math.Float32bits(float32(iscale*xm[i+2]) + magicRound)
		b3 := math.Float32bits(float32(iscale*xm[i+3]) + magicRound)
		b4 := math.Float32bits(float32(iscale*xm[i+4]) + magicRound)
		b5 := math.Float32bits(float32(iscale*xm[i+5]) + magicRound)
		b6 := math.Float32bits(float32(iscale*xm[i+6]) + magicRound)
		b7 := math.Float32bits(float32(iscale*xm[i+7]) + magicRound)
		lv[i], lv[i+1], lv[i+2], lv[i+3] = uint8(b0), uint8(b1), uint8(b2), uint8(b3)
		lv[i+4], lv[i+5], lv[i+6], lv[i+7] = uint8(b4), uint8(b5), uint8(b6), uint8(b7)
	}
}

// qkx2LevelsB32Low is qkx2LevelsB32 where the caller has shown that no
// level exceeds nmax.
//
//go:noinline
func qkx2LevelsB32Low(xm *[32]float32, lv *[32]uint8, iscale float32) {
	for i := 0; i < 32; i += 8 {
		b0 := max(math.Float32bits(float32(iscale*xm[i])+magicRound), magicBits)
		b1 := max(math.Float32bits(float32(iscale*xm[i+1])+magicRound), magicBits)
		b2 := max(math.Float32bits(float32(iscale*xm[i+2])+magicRound), magicBits)
		b3 := max(math.Float32bits(float32(iscale*xm[i+3])+magicRound), magicBits)
		b4 := max(math.Float32bits(float32(iscale*xm[i+4])+magicRound), magicBits)
		b5 := max(math.Float32bits(float32(iscale*xm[i+5])+magicRound), magicBits)
		b6 := max(math.Float32bits(float32(iscale*xm[i+6])+magicRound), magicBits)
		b7 := max(math.Float32bits(float32(iscale*xm[i+7])+magicRound), magicBits)
		lv[i], lv[i+1], lv[i+2], lv[i+3] = uint8(b0), uint8(b1), uint8(b2), uint8(b3)
		lv[i+4], lv[i+5], lv[i+6], lv[i+7] = uint8(b4), uint8(b5), uint8(b6), uint8(b7)
	}
}

// qkx2LevelsB32Exact is qkx2LevelsB32 through nearestInt itself, for ratios
// where the fast rounding is not provably the same.
func qkx2LevelsB32Exact(x *[32]float32, lv *[32]uint8, iscale, min float32, nmax int) {
	for i, v := range x {
		lv[i] = uint8(clampInt(nearestInt(iscale*(v-min)), 0, nmax))
	}
}

// qkx2SumsB32 is make_qkx2_quants' sums of w*l, w*l*l and w*l*x over byte
// levels, in its order and rounding.
//
//go:noinline
func qkx2SumsB32(x, w *[32]float32, lv *[32]uint8) (l, l2, xl float32) {
	for i := 0; i < 32; i += 4 {
		f0, f1, f2, f3 := float32(lv[i]), float32(lv[i+1]), float32(lv[i+2]), float32(lv[i+3])
		wl0, wl1 := float32(w[i]*f0), float32(w[i+1]*f1)
		wl2, wl3 := float32(w[i+2]*f2), float32(w[i+3]*f3)
		l += wl0
		l2 += float32(wl0 * f0)
		xl += float32(wl0 * x[i])
		l += wl1
		l2 += float32(wl1 * f1)
		xl += float32(wl1 * x[i+1])
		l += wl2
		l2 += float32(wl2 * f2)
		xl += float32(wl2 * x[i+2])
		l += wl3
		l2 += float32(wl3 * f3)
		xl += float32(wl3 * x[i+3])
	}
	return l, l2, xl
}

// qkx2SqErrB32 is make_qkx2_quants' squared error of (scale, min) over byte
// levels, in its order and rounding. (With weights >= 0 an early exit
// cannot change the outcome, and the few candidates that get here are
// mostly winners, which need the whole sum.)
//
//go:noinline
func qkx2SqErrB32(x, w *[32]float32, lv *[32]uint8, scale, min float32) float32 {
	var e float32
	for i := 0; i < 32; i += 4 {
		d0 := float32(scale*float32(lv[i])) + min - x[i]
		d1 := float32(scale*float32(lv[i+1])) + min - x[i+1]
		d2 := float32(scale*float32(lv[i+2])) + min - x[i+2]
		d3 := float32(scale*float32(lv[i+3])) + min - x[i+3]
		e += float32(w[i] * float32(d0*d0))
		e += float32(w[i+1] * float32(d1*d1))
		e += float32(w[i+2] * float32(d2*d2))
		e += float32(w[i+3] * float32(d3*d3))
	}
	return e
}
