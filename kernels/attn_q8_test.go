package kernels

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gollm/gollm/quant"
)

// randQ8Row returns n/32 Q8_0 blocks of random quants (-128 included) and
// finite scales of several magnitudes, off bytes into a larger slice.
func randQ8Row(r *rand.Rand, n, off int) []byte {
	b := make([]byte, off+n/32*34)
	row := b[off:]
	for i := range row {
		row[i] = byte(r.Uint32())
	}
	for blk := 0; blk < n/32; blk++ {
		d := float32(r.NormFloat64()) * []float32{1, 1e-3, 1e3}[r.IntN(3)]
		binary.LittleEndian.PutUint16(row[blk*34:], quant.FP32ToFP16(d))
	}
	return row
}

// TestAttnQ8ImplsBitExact checks the q8_0 cache helpers of every
// implementation against the generic ones, and the generic AxpyQ8_0
// against what it replaced (quant.DequantizeRowQ8_0, then Axpy's
// y += a*x): lengths of one to eight blocks, unaligned rows and
// accumulators, weights 0, 1 and others, no write past y or dst.
func TestAttnQ8ImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	for _, s := range simdSets(t) {
		for _, n := range []int{32, 64, 96, 128, 256} {
			for trial := 0; trial < 8; trial++ {
				src := randQ8Row(r, n, r.IntN(5))
				a := []float32{0, 1, -0.75, float32(r.NormFloat64())}[r.IntN(4)]
				y := randPadded(r, 1, n, n, r.IntN(4), 2)
				y = append(y, -7) // must survive
				want, got, ref := slices.Clone(y), slices.Clone(y), slices.Clone(y)
				genericSet.axpyQ8_0(want[:n], a, src)
				s.axpyQ8_0(got[:n], a, src)
				if !sameBits(want, got) {
					t.Errorf("%s AxpyQ8_0 n=%d a=%v differs", s.name, n, a)
				}
				x := make([]float32, n)
				quant.DequantizeRowQ8_0(src, x)
				axpyGeneric(ref[:n], a, x)
				if !sameBits(want, ref) {
					t.Errorf("AxpyQ8_0 n=%d a=%v: not DequantizeRowQ8_0 and Axpy", n, a)
				}

				// Runs of 8 in a row (DequantizeQ8_0) and 16 floats apart
				// (AttnDequantKQ8_0's K tile rows); the floats between
				// runs and after the last must survive.
				for _, stride := range []int{8, 16} {
					m := (n/8-1)*stride + 8
					dw, dg := make([]float32, m+1), make([]float32, m+1)
					for i := range dw {
						dw[i], dg[i] = -7, -7
					}
					genericSet.dequantQ8_0(dw, stride, src, n/32)
					s.dequantQ8_0(dg, stride, src, n/32)
					if !sameBits(dw, dg) {
						t.Errorf("%s dequantQ8_0 n=%d stride=%d differs", s.name, n, stride)
					}
					if stride == 8 && !sameBits(dw[:n], x) {
						t.Errorf("dequantQ8_0 n=%d: not DequantizeRowQ8_0", n)
					}
				}
			}
		}
	}
}

// TestAttnDequantKQ8_0 checks that a Q8_0 row dequantized into a K tile
// is AttnPutKRow of the dequantized row, for rows in every place of the
// tile's groups of eight, and leaves the other rows alone.
func TestAttnDequantKQ8_0(t *testing.T) {
	r := rand.New(rand.NewPCG(99, 100))
	// nil: the exported function on the active set; the others through
	// their kernel as it calls it.
	for _, s := range append([]*kernelSet{nil, genericSet}, simdSets(t)...) {
		name := "active"
		if s != nil {
			name = s.name
		}
		for _, dim := range []int{32, 64, 72, 128} {
			n := dim &^ 31
			const rows = 16
			want := make([]float32, AttnKTileLen(rows, dim))
			for i := range want {
				want[i] = float32(i)
			}
			got := slices.Clone(want)
			x := make([]float32, n)
			for row := range rows {
				src := randQ8Row(r, n, r.IntN(3))
				quant.DequantizeRowQ8_0(src, x)
				AttnPutKRow(want, dim, row, x)
				if s == nil {
					AttnDequantKQ8_0(got, dim, row, src, n)
				} else {
					s.dequantQ8_0(got[kTileIndex(row, 0, dim):], 16, src, n/32)
				}
			}
			if !sameBits(want, got) {
				t.Errorf("%s AttnDequantKQ8_0 dim=%d: not AttnPutKRow of the dequantized rows", name, dim)
			}
		}
	}
}

// BenchmarkAttnQ8 times the q8_0 cache's value step on one head of 64
// (TinyLlama's): dequantizing and adding in two calls, as the one-row
// path did, against AxpyQ8_0.
func BenchmarkAttnQ8(b *testing.B) {
	r := rand.New(rand.NewPCG(97, 98))
	const n = 64
	src := randQ8Row(r, n, 0)
	y, x := make([]float32, n), make([]float32, n)
	for _, s := range append([]*kernelSet{genericSet}, simdSets(b)...) {
		b.Run(s.name+"/dequant+axpy", func(b *testing.B) {
			for b.Loop() {
				s.dequantQ8_0(x, 8, src, n/32)
				s.axpy(y, 0.5, x)
			}
		})
		b.Run(s.name+"/AxpyQ8_0", func(b *testing.B) {
			for b.Loop() {
				s.axpyQ8_0(y, 0.5, src)
			}
		})
	}
}
