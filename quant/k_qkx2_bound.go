package quant

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// qkx2Bound settles make_qkx2_quants candidates (squared error, n = 32)
// without their float32 sums, fit or error: it proves that no scale and min
// whatsoever could give the candidate's levels a float32 error below the
// best one, so ggml (which computes the error of one particular scale and
// min, or skips the candidate) rejects it too. With u = 2^-24:
//
//  1. Sums. A = sum w*l^2, B = sum w*l, C = sum w*l*x are kept in float64
//     as levels change. The products are exact (w*l: 24+5 bits, w*x*l:
//     48+5), so only the additions round: at most 32 per candidate and
//     32*22 over a search, each off by 2^-53 of a partial sum no larger
//     than nmax^2*Sw, nmax*Sw or nmax*sum w*|x|; eA, eB, eC allow 1e-12 of
//     those, eW, eSx, eQ as much for Sw = sum w, Sx = sum w*x, Sxx = sum
//     w*x^2, summed once.
//  2. Residual. For every s, m the real R(s,m) = sum w*(s*l + m - x)^2 =
//     s^2*A + 2sm*B + m^2*Sw - 2s*C - 2m*Sx + Sxx is at least R', the same
//     quadratic in the float64 sums with the allowances folded into its
//     coefficients: 2|s||m|eB <= (s^2/g + m^2*g)eB, 2|s|eC <= s^2*eC/ds +
//     ds*eC, 2|m|eSx <= m^2*eSx/dm + dm*eSx for any positive ds, dm, g
//     (chosen as the scales of s, m and m/s, to keep the shrinkage
//     relative). So R >= min R' = Q' - (W'*C^2 - 2*B*C*Sx + A'*Sx^2)/D'
//     with A' = A - eA - eB/g - eC/ds, W' = Sw - eW - eB*g - eSx/dm,
//     Q' = Sxx - eQ - eC*ds - eSx*dm, D' = A'W' - B^2 > 0.
//  3. Rounding of the diffs. ggml's d_i = fl(fl(fl(s*l_i) + m) - x_i) is
//     (1+c)(r_i + eta_i), r_i the real residual, |c| <= u,
//     |eta_i| <= u*((2+u)|s|*l_i + |m|) + 4*2^-150 (the last for subnormal
//     steps); by Minkowski sum w*d^2 >= (1-u)^2*(|r| - |eta|)^2 (norms
//     weighted by w), with |eta| <= uK*(|s| + |m|) + subDiff,
//     uK = u*(2+u)*nmax*sqrt(Sw) (l <= nmax), subDiff = 4*2^-150*sqrt(Sw).
//  4. Unknown s and m. |r| >= |s*l + m| - |x| >= c*(|s| + |m|) - X with
//     X = sqrt(Sxx) and c^2 = lambda/2, lambda the smallest eigenvalue of
//     the Gram matrix of l and 1, at least D'/(A' + W') (the exact Gram
//     matrix minus the shrunk one is positive semidefinite: its diagonal
//     is at least eB/g and eB*g, its off-diagonal at most eB). So
//     |r| - |eta| >= max(a, c*z - X) - uK*z - subDiff over z = |s|+|m|,
//     a = sqrt(min R'); for rho = uK/c < 1 the minimum is at the kink:
//     a - rho*(a + X) - subDiff.
//  5. Error sum. ggml adds the non-negative fl(w*fl(d*d)) in order: the
//     result is at least (1-u)^(n+1)*sum w*d^2 less n*2^-150*(1+Sw) for
//     subnormal results. With (1-u)^2 from step 3: E >= lossN3*f^2 - subSum,
//     f = a - rho*(a + X) - subDiff, lossN3 = (1-u)^(n+3).
//
// E >= bestErr follows from f >= q = sqrt((bestErr + subSum)/lossN3), and
// that from a >= (q + subDiff + rho*X)*(1 + 2*rho) (rho <= 1/2), which is
// tested squared (see cannotWin for its division-free form). The float64
// arithmetic that evaluates it gets an allowance of 1e-13 relative to the
// magnitudes involved, hundreds of times its own rounding error.
//
// The bound is within a few parts in 10^5 of the best possible error of
// the levels, while losing candidates typically miss by tens of percent:
// nearly all of them are settled here.
type qkx2Bound struct {
	ok          bool // the bound applies: finite data, weights >= 0
	A, B, C     float64
	w, wx       [32]float64 // w and w*x, exact
	sw, sx, sax float64     // sum w, sum w*x, sum w*|x|
	sxx         float64
	nmax        float64
	cA, wP, qP  float64 // A - A', W', Q' (set by fix)
	pA, pD      float64 // rho*D <= pA*(A'+W') + pD*D
	x           float64 // sqrt(Sxx), rounded up
	subDiff     float64
	subSum      float64
	q           float64 // sqrt((bestErr + subSum)/lossN3), rounded up
	fixed       bool
	eA, eB, eC  float64
	eW, eSx, eQ float64
	uK          float64
	lossN3      float64
}

const (
	unitRoundoff = 1.0 / (1 << 24)
	boundSlack   = 1e-13
	sumDrift     = 1e-12
	tinyF32      = 0x1p-150 // half the smallest subnormal float32
	// rho0 is where the square-root-free bound on rho is tight; rho itself
	// is about 5e-6 for Q4_K and Q5_K data. rhoMax caps it.
	rho0   = 1e-5
	rhoMax = 1e-4
)

// lossN3For32 is (1-u)^35 with the allowance, gainN3For32 (1+u)^35.
var (
	lossN3For32 = math.Pow(1-unitRoundoff, 35) * (1 - boundSlack)
	gainN3For32 = math.Pow(1+unitRoundoff, 35) * (1 + boundSlack)
)

// init prepares the bound for x and w with levels up to nmax and the
// current best error; the caller has checked that all x are finite and all
// w >= 0 (b.ok reports whether the sums are finite too).
func (b *qkx2Bound) init(x, w *[32]float32, nmax int, bestErr float32) {
	// Two accumulators per sum halve the chains' latency; the allowances
	// cover any order of summation.
	var sw, sx, sax, sxx, sw1, sx1, sax1, sxx1 float64
	for i := 0; i < 32; i += 2 {
		wi, xi := float64(w[i]), float64(x[i])
		wj, xj := float64(w[i+1]), float64(x[i+1])
		wx, wxj := wi*xi, wj*xj
		b.w[i], b.wx[i], b.w[i+1], b.wx[i+1] = wi, wx, wj, wxj
		sw += wi
		sw1 += wj
		sx += wx
		sx1 += wxj
		sax += math.Abs(wx)
		sax1 += math.Abs(wxj)
		sxx += wx * xi
		sxx1 += wxj * xj
	}
	sw, sx, sax, sxx = sw+sw1, sx+sx1, sax+sax1, sxx+sxx1
	b.sw, b.sx, b.sax, b.sxx = sw, sx, sax, sxx
	// Magnitudes far from 1e+-40 take the plain search: cannotWin works
	// with D^2 (up to the 4th power of these sums), which must neither
	// overflow nor lose precision to underflow.
	b.ok = sw >= 1e-40 && sw <= 1e40 && sxx >= 1e-40 && sxx <= 1e40 // false for NaN
	if !b.ok {
		return
	}
	b.nmax = float64(nmax)
	sqrtSw := math.Sqrt(sw) * (1 + boundSlack)
	b.eA = sumDrift * b.nmax * b.nmax * sw
	b.eB = sumDrift * b.nmax * sw
	b.eC = sumDrift * b.nmax * sax
	b.eW = sumDrift * sw
	b.eSx = sumDrift * sax
	b.eQ = sumDrift * sxx
	b.uK = unitRoundoff * (2 + unitRoundoff) * b.nmax * sqrtSw
	b.pA = 2 * b.uK * b.uK / rho0 * 0.5 * (1 + 1e-6) * (1 + boundSlack)
	b.pD = rho0 * 0.5 * (1 + boundSlack)
	b.x = math.Sqrt(sxx) * (1 + boundSlack)
	b.subDiff = 4 * tinyF32 * sqrtSw
	b.subSum = 32 * tinyF32 * (1 + sw)
	b.lossN3 = lossN3For32
	b.setBest(bestErr)
}

// fix chooses the scales ds, dm, g of step 2 from the current sums and
// folds the allowances into A', W', Q'. Called once, after the first full.
func (b *qkx2Bound) fix() {
	ds := math.Sqrt(b.sxx / b.A)
	dm := math.Sqrt(b.sxx / b.sw)
	if !(ds > 0 && ds < math.MaxFloat64 && dm > 0 && dm < math.MaxFloat64) {
		b.ok = false
		return
	}
	g := dm / ds
	b.cA = b.eA + b.eB/g + b.eC/ds
	b.wP = b.sw - b.eW - b.eB*g - b.eSx/dm
	b.qP = b.sxx - b.eQ - b.eC*ds - b.eSx*dm
	b.ok = b.wP > 0
	b.fixed = true
}

// setBest records a new best error.
func (b *qkx2Bound) setBest(bestErr float32) { b.setBestAtMost(float64(bestErr)) }

// setBestAtMost records an upper bound on the best error (all cannotWin
// needs: a candidate whose error reaches it cannot beat the best).
func (b *qkx2Bound) setBestAtMost(bestHi float64) {
	b.q = math.Sqrt((bestHi+b.subSum)/b.lossN3) * (1 + boundSlack)
}

// errInterval bounds ggml's float32 error of scale s and min m on the
// current levels from both sides, from the float64 sums: steps 1, 3 and 5
// of the bound with this s and m (R from the quadratic form, its allowance
// from the sums' drift and the evaluation; |eta| <= uK*(|s|+|m|) +
// subDiff), and their mirror images for the upper end: |d_i| <=
// (1+u)(|r_i| + |eta_i|), so sum w*d^2 <= (1+u)^2*(|r| + |eta|)^2, and the
// float32 sum of the rounded terms is at most (1+u)^(n+1) times theirs plus
// the subnormal allowance. The interval is a few parts per million wide.
func (b *qkx2Bound) errInterval(s, m float32) (lo, hi float64) {
	S, M := float64(s), float64(m)
	sa, ma := math.Abs(S), math.Abs(M)
	ss, mm, sm := S*S, M*M, 2*sa*ma
	r := ss*b.A + 2*S*M*b.B + mm*b.sw - 2*S*b.C - 2*M*b.sx + b.sxx
	mag := ss*math.Abs(b.A) + sm*math.Abs(b.B) + mm*b.sw + 2*sa*math.Abs(b.C) + 2*ma*b.sax + b.sxx
	dr := ss*b.eA + sm*b.eB + 2*sa*b.eC + mm*b.eW + 2*ma*b.eSx + b.eQ + boundSlack*mag
	eta := b.uK*(sa+ma) + b.subDiff
	if f := math.Sqrt(max(0, r-dr))*(1-boundSlack) - eta; f > 0 {
		lo = b.lossN3*f*f - b.subSum
	}
	g := math.Sqrt(max(0, r+dr))*(1+boundSlack) + eta
	hi = gainN3For32*g*g + 2*b.subSum
	if !(lo <= hi) { // NaN from a non-finite s or m: no claim
		return 0, math.Inf(1)
	}
	return lo, hi
}

// full recomputes the sums for the levels lv.
func (b *qkx2Bound) full(lv *[32]uint8) {
	var A, B, C, A1, B1, C1 float64
	for i := 0; i < 32; i += 2 {
		l, m := float64(lv[i]), float64(lv[i+1])
		wl, wm := b.w[i]*l, b.w[i+1]*m
		B += wl
		B1 += wm
		A += wl * l
		A1 += wm * m
		C += b.wx[i] * l
		C1 += b.wx[i+1] * m
	}
	b.A, b.B, b.C = A+A1, B+B1, C+C1
	if !b.fixed {
		b.fix()
	}
}

// update moves the sums from the levels in prev to those in cur and
// reports whether any changed. The changed bytes are found eight at a time
// and gathered into a bit mask without branches, so that the only branch
// that depends on the data is the loop over the (one or two) changes.
func (b *qkx2Bound) update(prev, cur *[32]uint8) bool {
	var mask uint32
	for k := 0; k < 32; k += 8 {
		d := binary.LittleEndian.Uint64(prev[k:]) ^ binary.LittleEndian.Uint64(cur[k:])
		d |= d >> 4
		d |= d >> 2
		d |= d >> 1
		d &= 0x0101010101010101 // bit 8j set: byte j differs
		// Gather bit 8j to bit 56+j: the other products land above bit
		// 63 or, at distinct positions, below bit 56.
		mask |= uint32((d*0x0102040810204080)>>56) << k
	}
	if mask == 0 {
		return false
	}
	A, B, C := b.A, b.B, b.C
	for ; mask != 0; mask &= mask - 1 {
		i := bits.TrailingZeros32(mask) & 31
		lo, ln := float64(prev[i]), float64(cur[i])
		d := ln - lo
		B += b.w[i] * d
		A += b.w[i] * (ln*ln - lo*lo)
		C += b.wx[i] * d
	}
	b.A, b.B, b.C = A, B, C
	return true
}

// cannotWin reports whether every scale and min on the current levels
// provably gives a float32 error >= the best error last given to setBest.
//
// It tests min R' >= t^2, t = (q + subDiff + rho*X)*(1 + 2*rho), multiplied
// through by D^2 so that no division is needed: with N = W'C^2 - 2BC*Sx +
// A'Sx^2 >= 0, min R'*D^2 = (Q'*D - N)*D; rho*D <= P = (2uK^2*(A'+W')/rho0 +
// rho0*D)/2 (any rho0 > 0); P <= rhoMax*D keeps 1 + 2*rho <= 1 + 2*rhoMax.
// D is computed, not exact: its error is within 2^-51*(A'W' + B^2), so
// requiring A'W' + B^2 <= 1e9*D keeps it below 1e-6 relative, which P's
// first term allows for, and the allowance's N*(A'W' + B^2) term covers in
// N/D.
func (b *qkx2Bound) cannotWin() bool {
	if !b.ok {
		return false
	}
	A, W, B, C, Sx := b.A-b.cA, b.wP, b.B, b.C, b.sx
	D := A*W - B*B
	awb := A*W + B*B
	if !(A > 0 && D > 0 && awb <= 1e9*D) {
		return false
	}
	P := b.pA*(A+W) + b.pD*D
	if !(P <= rhoMax*D) {
		return false
	}
	t1, t2, t3 := W*C*C, 2*B*C*Sx, A*Sx*Sx
	nAbs := t1 + math.Abs(t2) + t3
	lhs := (b.qP*D-(t1-t2+t3))*D - boundSlack*(b.qP*D*D+nAbs*D+nAbs*awb)
	tD := ((b.q+b.subDiff)*D + P*b.x) * (1 + 2*rhoMax)
	return lhs >= tD*tD*(1+boundSlack) // false for NaN
}
