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

// TestQKX2BoundHolds checks the lower bound against the float32 error it
// bounds: for every candidate of the search and for perturbed and extreme
// (s, m) on the same levels, on many kinds of data, bound <= error.
func TestQKX2BoundHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	var cands, pruned, losers int
	for it := 0; it < 20000; it++ {
		n := 32
		var xa, wa [32]float32
		x, w := xa[:n], wa[:n]
		qkx2BoundCase(r, it, x, w)
		nmax, rmin, rdelta, nstep := 15, float32(-1), float32(0.1), 20
		if it%3 == 1 {
			nmax, rmin, rdelta, nstep = 31, -0.5, 0.1, 15
		}
		b := newQKX2Bound(x, w, nmax, 0)
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
		bestErr := float32(math.Inf(1))
		for is := 0; is <= nstep; is++ {
			iscale := (rmin + float32(rdelta*float32(is)) + float32(nmax)) / (mx - mn)
			aux, sumL, sumL2, sumXL := qkx2Candidate(x, w, nmax, iscale, mn)
			d := float32(sumW*sumL2) - float32(sumL*sumL)
			if !(d > 0) {
				continue
			}
			s := (float32(sumW*sumXL) - float32(sumX*sumL)) / d
			m := (float32(sumL2*sumX) - float32(sumL*sumXL)) / d
			if m > 0 {
				m, s = 0, sumXL/sumL2
			}
			trial := [][2]float32{{s, m}, {s * 1.5, m}, {s * 0.7, m * 2}, {-s, m}, {s, m - s}, {s * 1e-3, 0}, {s * (1 + 1e-6), m}, {s, m * (1 - 1e-6)}}
			for k, sm := range trial {
				e := qkx2ErrorOf(x, w, &aux, sm[0], sm[1])
				lb := b.lower(sumL, sumL2, sumXL, sm[0], sm[1])
				if !(lb <= float64(e)) && !math.IsNaN(float64(e)) {
					t.Fatalf("kind %d is %d trial %d: bound %g > error %g (s=%g m=%g x=%v w=%v)", it%14, is, k, lb, e, sm[0], sm[1], x, w)
				}
				// The test itself: with a best error just above e it must
				// not reject (it may only reject when e >= best).
				b.setBest(math.Nextafter32(e, float32(math.Inf(1))))
				if b.cannotWin(sumL, sumL2, sumXL, sm[0], sm[1]) && !math.IsNaN(float64(e)) {
					t.Fatalf("kind %d is %d trial %d: rejects error %g against a best just above it (s=%g m=%g x=%v w=%v)", it%14, is, k, e, sm[0], sm[1], x, w)
				}
				if k == 0 && it%14 == 0 { // normal data, Q4_K's weights
					cands++
					if e > bestErr {
						losers++
						b.setBest(bestErr)
						if b.cannotWin(sumL, sumL2, sumXL, sm[0], sm[1]) {
							pruned++
						}
					}
				}
			}
			e := qkx2ErrorOf(x, w, &aux, s, m)
			if e < bestErr {
				bestErr, mn = e, m
			}
		}
	}
	t.Logf("normal data: %d candidates, %d strict losers, %d of them rejected by the bound", cands, losers, pruned)
	if pruned < losers*9/10 {
		t.Errorf("the bound settles only %d of %d losing candidates", pruned, losers)
	}
}
