package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refMakeQKX2Quants is a line-by-line port of ggml's make_qkx2_quants with
// none of the shortcuts of makeQKX2Quants: the oracle the optimized search
// must match bit for bit (it was the implementation while the golden test
// first passed).
func refMakeQKX2Quants(x, w []float32, nmax int, L []uint8, rmin, rdelta float32, nstep int, useMad bool) (scale, negMin float32) {
	n := len(x)
	w = w[:n]
	L = L[:n]
	var laux [32]uint8
	aux := laux[:n]

	min, max := x[0], x[0]
	sumW := w[0]
	sumX := sumW * x[0]
	for i := 1; i < n; i++ {
		if x[i] < min {
			min = x[i]
		}
		if x[i] > max {
			max = x[i]
		}
		sumW += w[i]
		sumX += float32(w[i] * x[i])
	}
	if min > 0 {
		min = 0
	}
	if max == min {
		for i := range L {
			L[i] = 0
		}
		return 0, -min
	}
	fnmax := float32(nmax)
	iscale := fnmax / (max - min)
	scale = 1 / iscale
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
	if nstep < 1 {
		return scale, -min
	}
	for is := 0; is <= nstep; is++ {
		iscale = (rmin + float32(rdelta*float32(is)) + fnmax) / (max - min)
		var sumL, sumL2, sumXL float32
		for i, v := range x {
			l := clampInt(nearestInt(iscale*(v-min)), 0, nmax)
			aux[i] = uint8(l)
			fl := float32(l)
			wl := float32(w[i] * fl)
			sumL += wl
			sumL2 += float32(wl * fl)
			sumXL += float32(wl * v)
		}
		d := float32(sumW*sumL2) - float32(sumL*sumL)
		if d > 0 {
			thisScale := (float32(sumW*sumXL) - float32(sumX*sumL)) / d
			thisMin := (float32(sumL2*sumX) - float32(sumL*sumXL)) / d
			if thisMin > 0 {
				thisMin = 0
				thisScale = sumXL / sumL2
			}
			var curErr float32
			for i, v := range x {
				diff := float32(thisScale*float32(aux[i])) + thisMin - v
				if useMad {
					diff = abs32(diff)
				} else {
					diff = diff * diff
				}
				curErr += float32(w[i] * diff)
			}
			if curErr < bestErr {
				copy(L, aux)
				bestErr = curErr
				scale = thisScale
				min = thisMin
			}
		}
	}
	return scale, -min
}

// qkx2Case draws one sub-block of an input family that stresses a path of
// the search: ordinary data, one-signed data, exact grids (many ties and
// repeated candidates), lone outliers, tiny and huge magnitudes, zero
// weights, and non-finite or negative-weight inputs that force the exact
// fallbacks.
func qkx2Case(r *rand.Rand, kind, n int, x, w []float32, mad bool) {
	for i := 0; i < n; i++ {
		var v float64
		switch kind % 8 {
		case 0:
			v = r.NormFloat64()
		case 1:
			v = 1 + r.Float64()
		case 2:
			v = float64(r.IntN(9)-3) / 4
		case 3:
			v = r.NormFloat64()
			if r.IntN(16) == 0 {
				v *= 300
			}
		case 4:
			v = r.NormFloat64() * 1e-30
		case 5:
			v = r.NormFloat64() * 1e30
		case 6:
			v = -r.Float64()
		case 7:
			v = float64(r.IntN(3)) * 1e-3
		}
		x[i] = float32(v)
	}
	for i := 0; i < n; i++ {
		if mad {
			w[i] = abs32(x[i])
		} else {
			w[i] = float32(0.1 + r.Float64())
		}
	}
	switch kind / 8 {
	case 1: // a NaN, or an infinity
		if r.IntN(2) == 0 {
			x[r.IntN(n)] = float32(math.NaN())
		} else {
			x[r.IntN(n)] = float32(math.Inf(1 - 2*r.IntN(2)))
		}
	case 2: // a negative weight disables the early exit
		w[r.IntN(n)] = -0.5
	case 3: // zero weights
		for i := 0; i < n; i += 3 {
			w[i] = 0
		}
	}
}

func TestMakeQKX2QuantsMatchesReference(t *testing.T) {
	params := []struct {
		n, nmax      int
		rmin, rdelta float32
		nstep        int
		mad          bool
	}{
		{16, 3, -0.5, 0.1, 15, true},   // Q2_K
		{32, 15, -1, 0.1, 20, false},   // Q4_K
		{32, 31, -0.5, 0.1, 15, false}, // Q5_K
		{32, 15, -0.9, 0.05, 36, false},
		{16, 7, 0.2, 0.0, 3, false},
	}
	r := rand.New(rand.NewPCG(11, 12))
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
	for _, p := range params {
		for it := 0; it < 3000; it++ {
			var x0, x1, w0, w1 [32]float32
			kind := it % 32
			qkx2Case(r, kind, p.n, x0[:], w0[:], p.mad)
			qkx2Case(r, (kind*7+3)%32, p.n, x1[:], w1[:], p.mad)
			var wantL0, wantL1, gotL0, gotL1, pairL0, pairL1 [32]uint8
			ws0, wm0 := refMakeQKX2Quants(x0[:p.n], w0[:], p.nmax, wantL0[:], p.rmin, p.rdelta, p.nstep, p.mad)
			ws1, wm1 := refMakeQKX2Quants(x1[:p.n], w1[:], p.nmax, wantL1[:], p.rmin, p.rdelta, p.nstep, p.mad)
			gs0, gm0 := makeQKX2Quants(x0[:p.n], w0[:], p.nmax, gotL0[:], p.rmin, p.rdelta, p.nstep, p.mad)
			gs1, gm1 := makeQKX2Quants(x1[:p.n], w1[:], p.nmax, gotL1[:], p.rmin, p.rdelta, p.nstep, p.mad)
			ps0, pm0, ps1, pm1 := makeQKX2Pair(x0[:p.n], w0[:p.n], pairL0[:], x1[:p.n], w1[:p.n], pairL1[:],
				p.nmax, p.rmin, p.rdelta, p.nstep, p.mad)
			if !same(ws0, gs0) || !same(wm0, gm0) || wantL0 != gotL0 || !same(ws1, gs1) || !same(wm1, gm1) || wantL1 != gotL1 {
				t.Fatalf("%+v case %d: single search differs: (%v,%v) vs ref (%v,%v); x0=%v w0=%v", p, kind, gs0, gm0, ws0, wm0, x0[:p.n], w0[:p.n])
			}
			if !same(ws0, ps0) || !same(wm0, pm0) || wantL0 != pairL0 || !same(ws1, ps1) || !same(wm1, pm1) || wantL1 != pairL1 {
				t.Fatalf("%+v case %d: pair search differs from the reference; x0=%v x1=%v", p, kind, x0[:p.n], x1[:p.n])
			}
		}
	}
}

// TestQKX2Search32MatchesReference holds the bound-pruned search of
// Q4_K/Q5_K to the plain port, with their parameters and weights (and
// others) on every kind of input, including those that take fallbacks.
func TestQKX2Search32MatchesReference(t *testing.T) {
	params := []struct {
		nmax         int
		rmin, rdelta float32
		nstep        int
	}{
		{15, -1, 0.1, 20},   // Q4_K
		{31, -0.5, 0.1, 15}, // Q5_K
		{15, -0.9, 0.05, 36},
	}
	r := rand.New(rand.NewPCG(13, 14))
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
	for _, p := range params {
		for it := 0; it < 3000; it++ {
			var x [128]float32
			var w [4][32]float32
			for k := 0; k < 4; k++ {
				kind := (it + 11*k) % 32
				if it%2 == 0 {
					kind = it % 8 // all four of one ordinary kind
				}
				qkx2Case(r, kind, 32, x[32*k:32*k+32], w[k][:], false)
				if it%5 == 1 { // signed zeros among the values, ties for min/max
					for z := 0; z < 4; z++ {
						x[32*k+r.IntN(32)] = float32(math.Copysign(0, float64(1-2*r.IntN(2))))
					}
				}
				if it%4 < 2 { // Q4_K's weights
					var s2 float32
					for _, v := range x[32*k : 32*k+32] {
						s2 += float32(v * v)
					}
					av := sqrt32(s2 / 32)
					for i, v := range x[32*k : 32*k+32] {
						w[k][i] = av + abs32(v)
					}
				}
			}
			for k := 0; k < 4; k++ {
				var got, want [32]uint8
				gs, gm := qkx2Search32((*[32]float32)(x[32*k:]), &w[k], &got, p.nmax, p.rmin, p.rdelta, p.nstep)
				ws, wm := refMakeQKX2Quants(x[32*k:32*k+32], w[k][:], p.nmax, want[:], p.rmin, p.rdelta, p.nstep, false)
				if !same(ws, gs) || !same(wm, gm) || want != got {
					t.Fatalf("%+v it %d lane %d: (%v,%v) %v, want (%v,%v) %v; x=%v w=%v", p, it, k,
						gs, gm, got, ws, wm, want, x[32*k:32*k+32], w[k])
				}
			}
		}
	}
}

func sameBits(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestQKX2Lane32PairMatchesGeneric holds the fused starting fits (single
// and paired) to the generic one, field by field, on every kind of input.
func TestQKX2Lane32PairMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
	check := func(it int, got, want *qkx2Lane, gotL, wantL *[32]uint8) {
		t.Helper()
		if !same(got.min, want.min) || !same(got.max, want.max) || !same(got.minX, want.minX) ||
			!same(got.sumW, want.sumW) || !same(got.sumX, want.sumX) || !same(got.scale, want.scale) ||
			!same(got.bestErr, want.bestErr) || got.finite != want.finite || got.nonNeg != want.nonNeg ||
			got.done != want.done || *gotL != *wantL || (!want.done && !sameBits(got.xm[:], want.xm[:])) {
			t.Fatalf("it %d: starting fit differs:\n got %+v %v\nwant %+v %v", it, *got, *gotL, *want, *wantL)
		}
	}
	for it := 0; it < 20000; it++ {
		var x0, x1, w0, w1 [32]float32
		qkx2Case(r, it%32, 32, x0[:], w0[:], false)
		qkx2Case(r, (it*5+1)%32, 32, x1[:], w1[:], false)
		if it%3 == 0 {
			for z := 0; z < 5; z++ {
				x0[r.IntN(32)] = float32(math.Copysign(0, float64(1-2*r.IntN(2))))
				x1[r.IntN(32)] = float32(math.Copysign(0, float64(1-2*r.IntN(2))))
			}
		}
		var L0, L1, W0, W1, S0 [32]uint8
		a, b := newQKX2Lane32Pair(&x0, &w0, &L0, &x1, &w1, &L1, 15)
		ga := newQKX2LaneGeneric(x0[:], w0[:], 15, W0[:], false)
		gb := newQKX2LaneGeneric(x1[:], w1[:], 15, W1[:], false)
		s := newQKX2Lane32(&x0, &w0, 15, &S0)
		check(it, &a, &ga, &L0, &W0)
		check(it, &b, &gb, &L1, &W1)
		check(it, &s, &ga, &S0, &W0)
	}
}
