package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// qkx2Candidate computes, as make_qkx2_quants does, the levels and fit sums
// of the candidate iscale at offset min, and the float32 error of (s, m)
// over those levels (no early exit).
func qkx2Candidate(x, w []float32, nmax int, iscale, min float32) (aux [32]float32, sumL, sumL2, sumXL float32) {
	for i, v := range x {
		l := float32(clampInt(nearestInt(iscale*(v-min)), 0, nmax))
		aux[i] = l
		wl := float32(w[i] * l)
		sumL += wl
		sumL2 += float32(wl * l)
		sumXL += float32(wl * v)
	}
	return aux, sumL, sumL2, sumXL
}

func qkx2ErrorOf(x, w []float32, aux *[32]float32, s, m float32) float32 {
	var e float32
	for i, v := range x {
		d := float32(s*aux[i]) + m - v
		e += float32(w[i] * float32(d*d))
	}
	return e
}

// qkx2BoundCase draws a sub-block and its weights: Q4_K's weights on
// data from normal to heavy-tailed, one-signed, gridded, tiny and huge, and
// arbitrary non-negative weights (some zero).
func qkx2BoundCase(r *rand.Rand, kind int, x, w []float32) {
	scale := math.Pow(10, float64(r.IntN(25)-12))
	for i := range x {
		var v float64
		switch kind % 7 {
		case 0:
			v = r.NormFloat64()
		case 1:
			v = r.NormFloat64() * math.Exp(2*r.NormFloat64())
		case 2:
			v = 1 + r.Float64()
		case 3:
			v = float64(r.IntN(7)-3) / 3
		case 4:
			v = -r.Float64()
		case 5:
			v = r.NormFloat64()
			if r.IntN(8) == 0 {
				v *= 1000
			}
		case 6: // a large offset with a small spread: the diffs cancel
			v = 1000*float64(1-2*(kind%2)) + r.NormFloat64()*math.Pow(10, -float64(kind%5))
		}
		x[i] = float32(v * scale)
	}
	if kind/7%2 == 0 { // Q4_K/Q5_K weights: RMS + |x|
		var s2 float32
		for _, v := range x {
			s2 += float32(v * v)
		}
		av := sqrt32(s2 / float32(len(x)))
		for i, v := range x {
			w[i] = av + abs32(v)
		}
	} else {
		for i := range w {
			w[i] = float32(r.Float64() * math.Pow(10, float64(r.IntN(9)-4)))
			if r.IntN(5) == 0 {
				w[i] = 0
			}
		}
	}
}

// TestQKX2BoundHolds checks the bound the way the search
// uses it: float64 sums carried from candidate to candidate by the changed
// levels, and for each candidate a best error just above the smallest
// float32 error found over the fitted (s, m) and many others on the same
// levels; the bound must never claim that none of them wins, and each of
// those errors must lie in errInterval.
func TestQKX2BoundHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	var cands, settled int
	for it := 0; it < 20000; it++ {
		var x, w [32]float32
		qkx2BoundCase(r, it, x[:], w[:])
		nmax, rmin, rdelta, nstep := 15, float32(-1), float32(0.1), 20
		if it%3 == 1 {
			nmax, rmin, rdelta, nstep = 31, -0.5, 0.1, 15
		}
		var b qkx2Bound
		b.init(&x, &w, nmax, 0)
		if !b.ok {
			continue
		}
		mn, mx := x[0], x[0]
		var sumW, sumX float32
		for i, v := range x {
			mn, mx = min(mn, v), max(mx, v)
			sumW += w[i]
			sumX += float32(w[i] * v)
		}
		mn = min(mn, 0)
		if mx == mn {
			continue
		}
		var prev [32]uint8
		for is := 0; is <= nstep; is++ {
			iscale := (rmin + float32(rdelta*float32(is)) + float32(nmax)) / (mx - mn)
			aux, sumL, sumL2, sumXL := qkx2Candidate(x[:], w[:], nmax, iscale, mn)
			var cur [32]uint8
			for i, l := range aux {
				cur[i] = uint8(l)
			}
			if is == 0 {
				b.full(&cur)
			} else {
				b.update(&prev, &cur)
			}
			prev = cur
			d := float32(sumW*sumL2) - float32(sumL*sumL)
			s := (float32(sumW*sumXL) - float32(sumX*sumL)) / d
			m := (float32(sumL2*sumX) - float32(sumL*sumXL)) / d
			if m > 0 {
				m, s = 0, sumXL/sumL2
			}
			best := float32(math.Inf(1))
			for _, sm := range [][2]float32{{s, m}, {s * 1.01, m}, {s, m * 1.01}, {s * 0.99, m * 0.98}, {s, 0}, {s * 2, m / 2}, {-s, -m}, {0, m}} {
				e := qkx2ErrorOf(x[:], w[:], &aux, sm[0], sm[1])
				if e < best {
					best = e
				}
				// errInterval must contain the float32 error.
				if lo, hi := b.errInterval(sm[0], sm[1]); !math.IsNaN(float64(e)) && !(lo <= float64(e) && float64(e) <= hi) {
					t.Fatalf("kind %d is %d: error %g outside [%g, %g] (s=%g m=%g x=%v w=%v)", it%14, is, e, lo, hi, sm[0], sm[1], x, w)
				}
			}
			if math.IsInf(float64(best), 0) || math.IsNaN(float64(best)) {
				continue
			}
			b.setBest(math.Nextafter32(best, float32(math.Inf(1))))
			if b.cannotWin() {
				t.Fatalf("kind %d is %d: bound rejects levels reaching error %g (x=%v w=%v)", it%14, is, best, x, w)
			}
			if it%14 == 0 && is > 0 { // how tight: against 1.02 times that error
				cands++
				b.setBest(best * 0.98)
				if b.cannotWin() {
					settled++
				}
			}
			// Move the offset now and then, as accepted candidates do.
			if is%5 == 4 && m <= 0 && !math.IsNaN(float64(m)) {
				mn = m
			}
		}
	}
	t.Logf("normal data: bound settles %d of %d candidates 2%% above their best error", settled, cands)
	if settled < cands*8/10 {
		t.Errorf("the sums-free bound settles only %d of %d candidates", settled, cands)
	}
}
