package quant

// qkx2Quad is make_qkx2_quants with squared errors (the Q4_K and Q5_K
// search) on four sub-blocks of 32 at once: x holds them back to back, w
// their weights, L receives their levels. It returns each sub-block's scale
// and -min, bit for bit as four makeQKX2Quants calls would.
//
// Beyond the single search's shortcuts (see makeQKX2Quants) it settles most
// losing candidates with qkx2Bound instead of the error sum, and it runs the
// four searches in lockstep over the candidates so that the sums' serial
// chains of two lanes at a time overlap (with the error sums mostly gone,
// the sums are much of what a candidate costs; two lanes' six chains keep
// the adders busy, more would not fit the registers).
func qkx2Quad(x *[128]float32, w *[4][32]float32, L *[128]uint8, nmax int, rmin, rdelta float32, nstep int) (scales, negMins [4]float32) {
	var lanes [4]qkx2Lane
	var bounds [4]qkx2Bound
	for k := range lanes {
		lanes[k] = newQKX2Lane(x[32*k:32*k+32], w[k][:], nmax, L[32*k:32*k+32], false)
		if ln := &lanes[k]; !ln.done && ln.finite && ln.nonNeg {
			bounds[k] = newQKX2Bound(ln.x, ln.w, nmax, ln.bestErr)
		}
	}
	fnmax := float32(nmax)
	for is := 0; is <= nstep; is++ {
		var need [4]bool
		any := false
		for k := range lanes {
			ln := &lanes[k]
			if ln.done {
				continue
			}
			need[k] = ln.levels(ln.iscaleFor(is, rmin, rdelta, fnmax), fnmax, nmax) || is == 0
			any = any || need[k]
		}
		if !any {
			continue
		}
		// Sums for the lanes that need them, two at a time.
		var sums [4][3]float32
		var todo [4]int
		nt := 0
		for k := range lanes {
			if need[k] {
				todo[nt] = k
				nt++
			}
		}
		for j := 0; j+1 < nt; j += 2 {
			a, b := todo[j], todo[j+1]
			sums[a], sums[b] = qkx2Sums2x32(&lanes[a], &lanes[b])
		}
		if nt%2 == 1 {
			k := todo[nt-1]
			sums[k] = qkx2Sums1x32(&lanes[k])
		}
		for _, k := range todo[:nt] {
			ln := &lanes[k]
			sl, sl2, sxl := sums[k][0], sums[k][1], sums[k][2]
			ts, tm, ok := ln.fit(sl, sl2, sxl)
			if !ok || bounds[k].cannotWin(sl, sl2, sxl, ts, tm) {
				continue
			}
			if e, complete := qkx2Error(ln.x, ln.w, ln.aux[:len(ln.x)], ts, tm, ln.bestErr, false, ln.nonNeg); complete && e < ln.bestErr {
				ln.offer(e, ts, tm)
				bounds[k].setBest(e)
			}
		}
	}
	for k := range lanes {
		lanes[k].finish()
		scales[k], negMins[k] = lanes[k].scale, -lanes[k].min
	}
	return scales, negMins
}

// qkx2Sums2x32 is qkx2Sums on the current levels of two lanes of 32 values,
// interleaved: six independent serial sums.
//
//go:noinline
func qkx2Sums2x32(p, q *qkx2Lane) (sp, sq [3]float32) {
	x0, w0 := (*[32]float32)(p.x), (*[32]float32)(p.w)
	x1, w1 := (*[32]float32)(q.x), (*[32]float32)(q.w)
	a0, a1 := &p.aux, &q.aux
	var l0, l20, xl0, l1, l21, xl1 float32
	for i := 0; i < 32; i++ {
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
	return [3]float32{l0, l20, xl0}, [3]float32{l1, l21, xl1}
}

// qkx2Sums1x32 is qkx2Sums on one lane of 32 values.
//
//go:noinline
func qkx2Sums1x32(p *qkx2Lane) [3]float32 {
	x0, w0 := (*[32]float32)(p.x), (*[32]float32)(p.w)
	a0 := &p.aux
	var l0, l20, xl0 float32
	for i := 0; i < 32; i++ {
		f0 := a0[i] - magicRound
		wl0 := float32(w0[i] * f0)
		l0 += wl0
		l20 += float32(wl0 * f0)
		xl0 += float32(wl0 * x0[i])
	}
	return [3]float32{l0, l20, xl0}
}
