package quant

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/ggml"
)

// Shared machinery of the K-quants (super-blocks of ggml.QK_K = 256 values).
//
// Every function here mirrors a helper of ggml-quants.c and must produce the
// same bits: the arithmetic is float32 wherever ggml uses float, in the same
// order. Products that feed a sum are wrapped in an explicit float32(...)
// conversion: the Go spec allows the compiler to fuse x*y+z into an FMA
// (it does on arm64, and on amd64 with GOAMD64=v3), and an explicit
// conversion is the documented way to forbid that and keep ggml's rounding.

const qkK = ggml.QK_K

// groupMaxEps is ggml's GROUP_MAX_EPS: below this a group counts as zero.
const groupMaxEps = 1e-15

// nearestInt is ggml's nearest_int: adding 1.5*2^23 pushes the fraction bits
// out of the float32 mantissa, so the hardware's round-half-to-even does the
// rounding, and the integer is read back from the low mantissa bits. ggml only
// asserts |f| <= 4194303 (the assert is compiled out in release builds); for
// larger magnitudes, infinities and NaN the same bit trick yields a
// deterministic but meaningless value, which callers then clamp. We reproduce
// the trick rather than use math.RoundToEven so those cases match too.
func nearestInt(f float32) int {
	v := float32(f) + 12582912
	return int(math.Float32bits(v)&0x007fffff) - 0x00400000
}

// clampInt returns v limited to [lo, hi].
func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }

// sqrt32 is C's sqrtf: the float64 square root is correctly rounded, and
// rounding it again to float32 gives the correctly rounded float32 root
// (53 >= 2*24+2 bits, so double rounding cannot go wrong for sqrt).
func sqrt32(f float32) float32 { return float32(math.Sqrt(float64(f))) }

func getF16(b []byte) float32 { return FP16ToFP32(binary.LittleEndian.Uint16(b)) }

func putF16(b []byte, f float32) { binary.LittleEndian.PutUint16(b, FP32ToFP16(f)) }

// ScaleMinK4 decodes sub-block j (0..7) of the 12-byte packed 6-bit
// scale/min array of a Q4_K or Q5_K block (ggml's get_scale_min_k4):
// sub-blocks 0-3 keep their scale and min in the low 6 bits of bytes j and
// j+4; sub-blocks 4-7 keep the low 4 bits in the nibbles of byte j+4 and the
// high 2 bits in the top bits of bytes j-4 (scale) and j (min).
func ScaleMinK4(j int, scales []byte) (sc, m uint8) {
	if j < 4 {
		return scales[j] & 63, scales[j+4] & 63
	}
	sc = scales[j+4]&0xF | (scales[j-4]>>6)<<4
	m = scales[j+4]>>4 | (scales[j]>>6)<<4
	return sc, m
}

// putScaleMinK4 is the inverse of ScaleMinK4 for the quantizers: it packs
// the eight 6-bit (scale, min) pairs in the same order ggml writes them.
func putScaleMinK4(scales []byte, ls, lm *[8]uint8) {
	for j := 0; j < 8; j++ {
		if j < 4 {
			scales[j] = ls[j]
			scales[j+4] = lm[j]
		} else {
			scales[j+4] = ls[j]&0xF | (lm[j]&0xF)<<4
			scales[j-4] |= (ls[j] >> 4) << 6
			scales[j] |= (lm[j] >> 4) << 6
		}
	}
}

// makeQXQuants is make_qx_quants with rmse_type 1: a symmetric quantizer to
// the signed range [-nmax, nmax-1] that tries 19 candidate scales and keeps the
// one maximising sumlx^2/suml2 under the weights w (ggml passes w = x*x when
// no importance matrix is given). L receives the levels shifted by +nmax.
// len(x) must be at most 32 and len(w), len(L) >= len(x).
//
// As in makeQKX2Quants, work is skipped only where the result provably
// stays the same: w*x (ggml's first product in w*x*l) is computed once; a
// candidate with the same levels as the one before it has the same sums and
// cannot change the outcome (re-running the comparison on identical sums
// leaves scale, best and L as they are); and a winning candidate's levels
// are kept instead of being rounded a second time.
func makeQXQuants(x []float32, nmax int, L []int8, w []float32) float32 {
	n := len(x)
	w = w[:n]
	L = L[:n]
	var max, amax float32
	for _, v := range x {
		if ax := abs32(v); ax > amax {
			amax = ax
			max = v
		}
	}
	if amax < groupMaxEps {
		for i := range L {
			L[i] = 0
		}
		return 0
	}
	var wxA [32]float32
	var candA [32]int8
	wx, cand := wxA[:n], candA[:n]
	for i, v := range x {
		wx[i] = w[i] * v
	}
	fnmax := float32(nmax)
	iscale := float32(-nmax) / max
	qxLevels(x, cand, iscale, nmax)
	sumlx, suml2 := qxSums(w, wx, cand)
	for i, l := range cand {
		L[i] = l + int8(nmax)
	}
	var scale float32
	if suml2 != 0 {
		scale = sumlx / suml2
	}
	best := scale * sumlx
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(fnmax + float32(float32(0.1)*float32(is))) / max
		if !qxLevels(x, cand, iscale, nmax) {
			continue
		}
		sumlx, suml2 = qxSums(w, wx, cand)
		if suml2 > 0 && float32(sumlx*sumlx) > float32(best*suml2) {
			for i, l := range cand {
				L[i] = l + int8(nmax)
			}
			scale = sumlx / suml2
			best = scale * sumlx
		}
	}
	return scale
}

// qxLevels sets cand to clamp(nearestInt(iscale*x), -nmax, nmax-1) and
// reports whether any level changed.
//
//go:noinline
func qxLevels(x []float32, cand []int8, iscale float32, nmax int) bool {
	cand = cand[:len(x)]
	var changed int8
	for i, v := range x {
		l := int8(clampInt(nearestInt(iscale*v), -nmax, nmax-1))
		changed |= cand[i] ^ l
		cand[i] = l
	}
	return changed != 0
}

// qxSums returns make_qx_quants' sums of w*x*l and w*l*l, in its order and
// rounding, with wx = w*x precomputed.
//
//go:noinline
func qxSums(w, wx []float32, cand []int8) (sumlx, suml2 float32) {
	wx = wx[:len(w)]
	cand = cand[:len(w)]
	for i, wi := range w {
		fl := float32(cand[i])
		sumlx += float32(wx[i] * fl)
		suml2 += float32(float32(wi*fl) * fl)
	}
	return sumlx, suml2
}

// makeQ3Quants is make_q3_quants with do_rmse set (the Q3_K reference path):
// an initial max-based quantization to [-nmax, nmax-1] followed by up to five
// rounds of coordinate descent on the x^2-weighted error. L receives levels
// shifted by +nmax. len(x) must equal len(L) and be at most 32.
func makeQ3Quants(x []float32, nmax int, L []int8) float32 {
	n := len(x)
	L = L[:n]
	var max, amax float32
	for _, v := range x {
		if ax := abs32(v); ax > amax {
			amax = ax
			max = v
		}
	}
	if amax < groupMaxEps {
		for i := range L {
			L[i] = 0
		}
		return 0
	}
	iscale := float32(-nmax) / max
	var sumlx, suml2 float32
	for i, v := range x {
		l := clampInt(nearestInt(iscale*v), -nmax, nmax-1)
		L[i] = int8(l)
		w := v * v
		fl := float32(l)
		sumlx += float32(w * v * fl)
		suml2 += float32(w * fl * fl)
	}
	for itry := 0; itry < 5; itry++ {
		changed := 0
		for i, v := range x {
			w := v * v
			li := float32(L[i])
			slx := sumlx - float32(w*v*li)
			if slx > 0 {
				sl2 := suml2 - float32(w*li*li)
				nl := clampInt(nearestInt(v*sl2/slx), -nmax, nmax-1)
				if nl != int(L[i]) {
					fnl := float32(nl)
					slx += float32(w * v * fnl)
					sl2 += float32(w * fnl * fnl)
					if sl2 > 0 && float32(float32(slx*slx)*suml2) > float32(float32(sumlx*sumlx)*sl2) {
						L[i] = int8(nl)
						sumlx = slx
						suml2 = sl2
						changed++
					}
				}
			}
		}
		if changed == 0 {
			break
		}
	}
	for i := range L {
		L[i] += int8(nmax)
	}
	if suml2 > 0 {
		return sumlx / suml2
	}
	return 0
}

// blockCount returns how many whole blocks both buffers hold, so that a
// caller violating the Traits length contract gets a short result instead of
// a panic.
func blockCount(nElems, nBytes, blockBytes int) int {
	nb := nElems / qkK
	if m := nBytes / blockBytes; m < nb {
		nb = m
	}
	return nb
}
