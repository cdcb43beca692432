package kernels

import (
	"errors"
	"fmt"
	"math"
)

// RoPE applies rotary position embeddings as ggml_rope does (no YaRN
// extrapolation: ext_factor 0, attn_factor 1). For pair i (0 <= i < Dims/2)
// the angle is pos * FreqBase^(-2i/Dims) * FreqScale / factor[i], with
// ggml's float32 arithmetic: theta_scale = powf(base, -2/Dims) and theta
// accumulated by repeated multiplication starting from float(pos).
//
// Normal mode rotates adjacent pairs (x[2i], x[2i+1]); NeoX mode rotates
// (x[i], x[i+Dims/2]). Only the first Dims dimensions of each head rotate.
// Angles of positions below the maxPos given to NewRoPE are precomputed; a
// RoPE is read-only after construction and safe for concurrent use.
type RoPE struct {
	HeadDim   int
	Dims      int
	FreqBase  float32
	FreqScale float32
	NeoX      bool
	Factors   []float32 // optional per-pair frequency divisors (llama3 rope_freqs)

	thetaScale float32
	maxPos     int
	cs         []float32 // maxPos x Dims: cos, sin interleaved per pair
}

// ErrBadRoPE is returned for inconsistent rope parameters.
var ErrBadRoPE = errors.New("kernels: bad rope parameters")

// NewRoPE precomputes the rotation of positions [0, maxPos) for heads of
// headDim with the first ropeDim dimensions rotated (ropeDim even, <=
// headDim; 0 means headDim).
func NewRoPE(headDim, ropeDim int, freqBase float32, neox bool, maxPos int) (*RoPE, error) {
	return NewRoPEScaled(headDim, ropeDim, freqBase, 1, nil, neox, maxPos)
}

// NewRoPEScaled is NewRoPE with linear frequency scaling (freqScale, ggml's
// freq_scale = 1/rope scaling factor) and optional per-pair frequency
// factors (len ropeDim/2).
func NewRoPEScaled(headDim, ropeDim int, freqBase, freqScale float32, factors []float32, neox bool, maxPos int) (*RoPE, error) {
	if ropeDim == 0 {
		ropeDim = headDim
	}
	if headDim <= 0 || ropeDim <= 0 || ropeDim > headDim || ropeDim%2 != 0 || !(freqBase > 0) || !(freqScale > 0) || maxPos < 0 {
		return nil, fmt.Errorf("%w: head dim %d, rope dim %d, base %v, scale %v, max pos %d",
			ErrBadRoPE, headDim, ropeDim, freqBase, freqScale, maxPos)
	}
	if factors != nil && len(factors) != ropeDim/2 {
		return nil, fmt.Errorf("%w: %d frequency factors for %d pairs", ErrBadRoPE, len(factors), ropeDim/2)
	}
	r := &RoPE{
		HeadDim: headDim, Dims: ropeDim, FreqBase: freqBase, FreqScale: freqScale,
		NeoX: neox, Factors: factors, maxPos: maxPos,
		thetaScale: float32(math.Pow(float64(freqBase), float64(-2/float32(ropeDim)))),
	}
	r.cs = make([]float32, maxPos*ropeDim)
	for pos := 0; pos < maxPos; pos++ {
		r.angles(pos, r.cs[pos*ropeDim:(pos+1)*ropeDim])
	}
	return r, nil
}

// angles writes cos, sin of each pair's angle at pos into cs (len Dims).
func (r *RoPE) angles(pos int, cs []float32) {
	theta := float32(pos)
	for i := 0; i < r.Dims/2; i++ {
		t := theta
		if r.Factors != nil {
			t /= r.Factors[i]
		}
		t *= r.FreqScale
		// glibc's sinf/cosf, not math.Sin/Cos: llama.cpp's angles carry its 1-ulp errors.
		cs[2*i+1], cs[2*i] = sincosf32(t)
		theta *= r.thetaScale
	}
}

// Apply rotates, in place, nHeads heads of HeadDim floats each at position
// pos. x must hold at least nHeads*HeadDim floats.
func (r *RoPE) Apply(x []float32, nHeads, pos int) {
	x = x[:nHeads*r.HeadDim]
	if pos >= 0 && pos < r.maxPos {
		active.rope(x, r.cs[pos*r.Dims:(pos+1)*r.Dims], nHeads, r.HeadDim, r.Dims, r.NeoX)
		return
	}
	// Angles of a later position, computed for this call: the generic
	// rotation, called directly, so that the local table stays on the
	// stack (an indirect call's arguments escape).
	var local [512]float32
	var cs []float32
	if r.Dims <= len(local) {
		cs = local[:r.Dims]
	} else {
		cs = make([]float32, r.Dims)
	}
	r.angles(pos, cs)
	ropeGeneric(x, cs, nHeads, r.HeadDim, r.Dims, r.NeoX)
}

// ropeGeneric is RoPE's rotation of nHeads heads of x by the pairs' cos
// and sin in cs (interleaved).
func ropeGeneric(x, cs []float32, nHeads, headDim, dims int, neox bool) {
	half := dims / 2
	for h := 0; h < nHeads; h++ {
		v := x[h*headDim : h*headDim+dims]
		for i := 0; i < half; i++ {
			c, s := cs[2*i], cs[2*i+1]
			var a, b *float32
			if neox {
				a, b = &v[i], &v[i+half]
			} else {
				a, b = &v[2*i], &v[2*i+1]
			}
			// ggml's rotate_pairs computes x0*cos - x1*sin and x0*sin +
			// x1*cos, which GCC contracts (FMA builds) into one fused
			// multiply-add each, the x0 product fused: matching it keeps
			// q and k bit-identical to llama.cpp's, where a last-bit
			// difference can move an f16/BF16 rounding downstream.
			x0, x1 := *a, *b
			*a = fma32(x0, c, -(x1 * s))
			*b = fma32(x0, s, x1*c)
		}
	}
}
