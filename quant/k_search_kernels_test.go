package quant

import (
	"bytes"
	"math"
	"testing"
)

// scalarKSearch is a stand-in for a SIMD kernel package: the scalar
// searches, returning the scales but throwing the levels away, as the
// kernels do. Rows quantized with it must come out the same, which needs
// the levels of zero-scale sub-blocks to be searched again.
var scalarKSearch = KSearchKernels{
	QKX2: func(x *[256]float32, nmax int, nums []float32) (scales, negMins [8]float32, ok bool) {
		var L [256]uint8
		p := q4kParams
		if nmax == q5kParams.nmax {
			p = q5kParams
		}
		kSubblockSearch(x, &L, &scales, &negMins, p.nmax, p.rmin, p.rdelta, p.nstep)
		return scales, negMins, true
	},
	// The pair declines pairs whose first value is negative.
	QKX2Pair: func(x *[512]float32, nmax int, nums []float32) (scales, negMins [16]float32, ok bool) {
		if x[0] < 0 {
			return scales, negMins, false
		}
		for k := 0; k < 2; k++ {
			var L [256]uint8
			var s, m [8]float32
			p := q4kParams
			if nmax == q5kParams.nmax {
				p = q5kParams
			}
			kSubblockSearch((*[256]float32)(x[256*k:]), &L, &s, &m, p.nmax, p.rmin, p.rdelta, p.nstep)
			copy(scales[8*k:], s[:])
			copy(negMins[8*k:], m[:])
		}
		return scales, negMins, true
	},
	Levels: scalarLevels,
	Q6K: func(x *[256]float32, nums []float32) (scales [16]float32, ok bool) {
		var L [256]int8
		for j := 0; j < 16; j++ {
			scales[j] = q6kSearchSub((*[16]float32)(x[16*j:]), L[16*j:16*j+16])
		}
		return scales, true
	},
}

// scalarLevels is the Levels contract in plain Go, with junk where it is
// unspecified (d == 0), which must not reach the output.
func scalarLevels(x *[256]float32, g int, d, a [16]float32, lo, hi, off int) (L [256]uint8) {
	for i, v := range x {
		j := i / g
		if d[j] == 0 {
			L[i] = 0xEE
			continue
		}
		L[i] = uint8(clampInt(nearestInt((v+a[j])/d[j]), lo, hi) + off)
	}
	return L
}

func TestKSearchKernelsKeepBytes(t *testing.T) {
	prev := SetKSearchKernels(KSearchKernels{})
	defer SetKSearchKernels(prev)
	// Normal blocks, and blocks with sub-blocks a million times smaller
	// than the rest (their 6-bit scale rounds to zero, so the search's own
	// levels are kept), zero and constant sub-blocks.
	x := genBlocks("normal", 17, 1, 9)
	for b := 4; b < 17; b++ {
		for i := 0; i < 256; i++ {
			switch j := i / 32; {
			case b%4 == 0 && (j == 1 || j == 6):
				x[256*b+i] *= 1e-6
			case b%4 == 1 && j == 2:
				x[256*b+i] = 0
			case b%4 == 2 && j == 4:
				x[256*b+i] = -0.5
			case b%4 == 3 && i/16 == 7:
				x[256*b+i] = float32(math.Abs(float64(x[256*b+i]))) * 1e-5
			}
		}
	}
	for _, c := range []struct {
		name  string
		bytes int
		q     func([]float32, []byte)
	}{
		{"Q4_K", q4kBytes, QuantizeRowQ4_K},
		{"Q5_K", q5kBytes, QuantizeRowQ5_K},
		{"Q6_K", q6kBytes, QuantizeRowQ6_K},
	} {
		want := make([]byte, 17*c.bytes)
		got := make([]byte, 17*c.bytes)
		SetKSearchKernels(KSearchKernels{})
		c.q(x, want)
		for _, k := range []struct {
			name string
			k    KSearchKernels
		}{
			{"scales-only searches", scalarKSearch},
			{"a levels kernel", KSearchKernels{Levels: scalarLevels}},
		} {
			SetKSearchKernels(k.k)
			c.q(x, got)
			if !bytes.Equal(got, want) {
				t.Errorf("%s: bytes differ with %s", c.name, k.name)
			}
		}
	}
}

// The numerators handed to kernels are the scalar searches' own.
func TestKSearchNumerators(t *testing.T) {
	for _, c := range []struct {
		p    qkx2Params
		nums []float32
	}{{q4kParams, q4kNums}, {q5kParams, q5kNums}} {
		if len(c.nums) != c.p.nstep+1 {
			t.Fatalf("nmax %d: %d numerators for %d steps", c.p.nmax, len(c.nums), c.p.nstep)
		}
		ln := qkx2Lane{max: 1, min: 0}
		for is, num := range c.nums {
			if got := ln.iscaleFor(is, c.p.rmin, c.p.rdelta, float32(c.p.nmax)); got != num {
				t.Errorf("nmax %d step %d: numerator %v, search uses %v", c.p.nmax, is, num, got)
			}
		}
	}
	if len(q6kNums) != 19 || q6kNums[0] != -32 {
		t.Fatalf("q6kNums %v", q6kNums)
	}
	for k, is := 1, -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		if got := -q6kIscale(is, 1); got != q6kNums[k] {
			t.Errorf("q6k step %d: numerator %v, search uses %v", is, q6kNums[k], got)
		}
		k++
	}
}
