package quant

import "math"

// A rigorous lower bound on a make_qkx2_quants candidate's error, so that
// most losing candidates are rejected without the 32-term error sum. ggml
// computes E = sum w_i*(s*l_i + m - x_i)^2 in float32, term by term in
// order; a candidate is kept only if E < bestErr. The bound uses the sums
// the fit has already computed and is valid for every rounding ggml's
// float32 arithmetic can make (u = 2^-24, the unit roundoff):
//
//  1. R = sum w_i*(s*l_i + m - x_i)^2 in real arithmetic equals
//     s^2*A + 2sm*B + m^2*Sw - 2s*C - 2m*Sx + Sxx with the exact sums
//     A = sum w*l^2, B = sum w*l, C = sum w*l*x, Sw = sum w, Sx = sum w*x,
//     Sxx = sum w*x^2. The fit's float32 sums sumL2, sumL, sumXL differ from
//     A, B, C by at most gamma_(n+1)*A, gamma_n*B and
//     gamma_(n+1)*sum |w*l*x| <= gamma_(n+1)*sqrt(A*Sxx) (recursive
//     summation of non-negative terms, and Cauchy-Schwarz); Sw, Sx, Sxx
//     are summed in float64 (results in the subnormal range add at most
//     2^-150 per rounding). So R >= Rlb, the quadratic form in float64
//     minus those bounds and a float64 evaluation allowance.
//  2. ggml's diff d_i = fl(fl(fl(s*l_i) + m) - x_i) is (1+c)(r_i + eta_i)
//     with r_i the real residual, |c| <= u and
//     |eta_i| <= u*((2+u)|s*l_i| + |m|) (+ 4*2^-150 for subnormal steps),
//     so by Minkowski sum w*d^2 >= (1-u)^2*(sqrt(R) - |eta|_w)^2, where
//     |eta|_w <= u*((2+u)|s|*sqrt(A) + |m|*sqrt(Sw)) (+ the subnormal part)
//     and sqrt(A) <= nmax*sqrt(Sw).
//  3. The float32 sum of the non-negative terms fl(w*fl(d*d)), each
//     rounded twice and added n-1 times, is at least (1-u)^(n+1) times
//     sum w*d^2, less n*2^-150*(1+Sw) for results in the subnormal range.
//
// Every step only lowers the bound, and the float64 arithmetic that
// evaluates it is given a relative allowance of 1e-13, hundreds of times
// its own error. A candidate is rejected only if the bound is >= bestErr:
// then E >= bestErr and ggml would reject it too. The bound is within a few
// parts per thousand of E, while losing candidates typically miss by tens
// of percent, so nearly all of them are settled here.

// qkx2Bound holds the per-sub-block constants of the bound. To keep square
// roots and divisions out of the per-candidate test, sums over the levels
// are bounded with l <= nmax where only a rounding allowance needs them:
// sum w*l*|x| <= nmax*sum w*|x| and sqrt(A) <= nmax*sqrt(Sw); and the test
// lossN3*(sqrt(Rlb) - eta)^2 - subnormalSum >= bestErr is decided as
// Rlb >= (q + eta)^2 with q = sqrt((bestErr + subnormalSum)/lossN3),
// computed when bestErr changes.
type qkx2Bound struct {
	ok            bool // the bound applies: finite data, weights >= 0
	sw, sx, sxx   float64
	sax           float64 // sum w*|x|
	nmax          float64
	gN, gN1       float64 // gamma_n/(1-gamma_n) and gamma_(n+1)/(1-gamma_(n+1))
	etaS, etaM    float64 // eta <= etaS*|s| + etaM*|m| + subnormalDiff
	lossN3        float64 // (1-u)^(n+3), with the allowance
	subnormalDiff float64 // 4*2^-150*sqrt(Sw): eta's subnormal part
	subnormalSum  float64 // n*2^-150*(1+Sw): the error sum's
	subnormalSums float64 // 4n*2^-150: the fit sums'
	q             float64 // sqrt((bestErr + subnormalSum)/lossN3), rounded up
}

const (
	unitRoundoff = 1.0 / (1 << 24)
	boundSlack   = 1e-13
	tinyF32      = 0x1p-150 // half the smallest subnormal float32
)

// lossN3 is (1-u)^(n+3) with the allowance, for the sub-block lengths
// in use precomputed.
func lossN3(n int) float64 {
	switch n {
	case 32:
		return lossN3For32
	case 16:
		return lossN3For16
	}
	return math.Pow(1-unitRoundoff, float64(n+3)) * (1 - boundSlack)
}

var (
	lossN3For32 = math.Pow(1-unitRoundoff, 35) * (1 - boundSlack)
	lossN3For16 = math.Pow(1-unitRoundoff, 19) * (1 - boundSlack)
)

func gammaRatio(k int) float64 {
	g := float64(k) * unitRoundoff / (1 - float64(k)*unitRoundoff)
	return g / (1 - g)
}

// newQKX2Bound prepares the bound for x and w, levels up to nmax, and the
// current best error (the caller has checked that all x are finite and all
// w >= 0).
func newQKX2Bound(x, w []float32, nmax int, bestErr float32) (b qkx2Bound) {
	n := len(x)
	w = w[:n]
	for i, v := range x {
		wi, xi := float64(w[i]), float64(v)
		b.sw += wi
		b.sx += wi * xi
		b.sax += wi * math.Abs(xi)
		b.sxx += wi * xi * xi
	}
	if math.IsInf(b.sxx, 0) || math.IsInf(b.sw, 0) || math.IsNaN(b.sxx) || math.IsNaN(b.sw) {
		return b
	}
	b.ok = true
	sqrtSw := math.Sqrt(b.sw) * (1 + boundSlack)
	b.nmax = float64(nmax)
	b.gN, b.gN1 = gammaRatio(n), gammaRatio(n+1)
	b.etaS = unitRoundoff * (2 + unitRoundoff) * b.nmax * sqrtSw
	b.etaM = unitRoundoff * sqrtSw
	b.lossN3 = lossN3(n)
	b.subnormalDiff = 4 * tinyF32 * sqrtSw
	b.subnormalSum = float64(n) * tinyF32 * (1 + b.sw)
	b.subnormalSums = 4 * float64(n) * tinyF32
	b.setBest(bestErr)
	return b
}

// setBest records a new best error.
func (b *qkx2Bound) setBest(bestErr float32) {
	b.q = math.Sqrt((float64(bestErr)+b.subnormalSum)/b.lossN3) * (1 + boundSlack)
}

// terms returns Rlb, the lower bound on R, and eta's bound for the
// candidate with fit sums sumL, sumL2, sumXL and fitted scale s and min m.
func (b *qkx2Bound) terms(sumL, sumL2, sumXL, s, m float32) (rlb, eta float64) {
	A, B, C := float64(sumL2), float64(sumL), float64(sumXL)
	S, M := float64(s), float64(m)
	sa, ma := math.Abs(S), math.Abs(M)
	aHi := A * (1 + b.gN1) // an upper bound on the exact A
	lxHi := b.nmax * b.sax // an upper bound on sum w*l*|x|
	ss, sm2 := S*S, 2*sa*ma
	r := ss*A + 2*S*M*B + M*M*b.sw - 2*S*C - 2*M*b.sx + b.sxx
	sumErr := ss*b.gN1*A + sm2*b.gN*B + 2*sa*b.gN1*lxHi + (ss+sm2+2*sa)*b.subnormalSums
	evalErr := boundSlack * (ss*aHi + sm2*B + M*M*b.sw + 2*sa*lxHi + 2*ma*b.sax + b.sxx)
	return r - sumErr - evalErr, b.etaS*sa + b.etaM*ma + b.subnormalDiff
}

// cannotWin reports whether the candidate provably has error >= the best
// error given to setBest: Rlb >= (q + eta)^2.
func (b *qkx2Bound) cannotWin(sumL, sumL2, sumXL, s, m float32) bool {
	if !b.ok {
		return false
	}
	rlb, eta := b.terms(sumL, sumL2, sumXL, s, m)
	t := b.q + eta
	return rlb >= t*t*(1+boundSlack) // false for NaN
}

// lower returns the lower bound itself (for tests): 0 when there is no
// better one (the error of finite data under non-negative weights is never
// negative).
func (b *qkx2Bound) lower(sumL, sumL2, sumXL, s, m float32) float64 {
	if !b.ok {
		return 0
	}
	rlb, eta := b.terms(sumL, sumL2, sumXL, s, m)
	if !(rlb > 0) {
		return 0
	}
	t := math.Sqrt(rlb)*(1-boundSlack) - eta*(1+boundSlack)
	if !(t > 0) {
		return 0
	}
	return max(0, b.lossN3*t*t-b.subnormalSum)
}
