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

				// One row of one head: DequantizeRowQ8_0's values, nothing
				// written past them.
				dw := make([]float32, n+1)
				dw[n] = -7
				s.dequantQ8_0Rows(dw, 0, 0, 0, 0, src, 0, 0, 1, 1, n/32)
				if !sameBits(dw[:n], x) || dw[n] != -7 {
					t.Errorf("%s dequantQ8_0Rows n=%d: not DequantizeRowQ8_0", s.name, n)
				}
			}
		}
	}
}

// TestDequantQ8_0Heads checks DequantizeQ8_0Heads and
// AttnDequantKHeadsQ8_0 (the exported functions on the active set, and
// every set's kernel) against quant.DequantizeRowQ8_0 of each head's
// slice, copied (values) or placed with AttnPutKRow (K tiles): several
// heads and rows, K tile rows starting anywhere in a group of eight,
// padded and unaligned source rows; what lies outside the written runs
// must survive.
func TestDequantQ8_0Heads(t *testing.T) {
	r := rand.New(rand.NewPCG(99, 100))
	for _, s := range append([]*kernelSet{nil, genericSet}, simdSets(t)...) {
		name := "active"
		if s != nil {
			name = s.name
		}
		for trial := 0; trial < 24; trial++ {
			dim := []int{32, 64, 72, 128}[r.IntN(4)]
			n := dim &^ 31
			heads, rows := 1+r.IntN(4), 1+r.IntN(17)
			row := r.IntN(9)
			headStride := n/32*34 + r.IntN(2)*34
			srcStride := heads*headStride + r.IntN(40)
			off := r.IntN(5)
			src := randQ8Row(r, 32*((off+rows*srcStride)/34+1), 0)[off:]
			x := make([]float32, n)

			// Values: rows dstStride floats apart, tiles tileLen apart.
			dstStride := n + r.IntN(9)
			tileLen := rows*dstStride + r.IntN(7)
			want := make([]float32, heads*tileLen)
			for i := range want {
				want[i] = -7
			}
			got := slices.Clone(want)
			for i := range rows {
				for h := range heads {
					quant.DequantizeRowQ8_0(src[i*srcStride+h*headStride:][:n/32*34], x)
					copy(want[h*tileLen+i*dstStride:], x)
				}
			}
			if s == nil {
				DequantizeQ8_0Heads(got, tileLen, dstStride, src, srcStride, headStride, heads, rows, n)
			} else {
				s.dequantQ8_0Rows(got, tileLen, 0, 0, dstStride, src, srcStride, headStride, heads, rows, n/32)
			}
			if !sameBits(want, got) {
				t.Errorf("%s DequantizeQ8_0Heads dim=%d heads=%d rows=%d: wrong values", name, dim, heads, rows)
			}

			// K tiles from row row.
			tileLen = AttnKTileLen(row+rows, dim) + 8*r.IntN(2)
			want = make([]float32, heads*tileLen)
			for i := range want {
				want[i] = float32(i)
			}
			got = slices.Clone(want)
			for i := range rows {
				for h := range heads {
					quant.DequantizeRowQ8_0(src[i*srcStride+h*headStride:][:n/32*34], x)
					AttnPutKRow(want[h*tileLen:], dim, row+i, x)
				}
			}
			if s == nil {
				AttnDequantKHeadsQ8_0(got, tileLen, dim, row, src, srcStride, headStride, heads, rows, n)
			} else {
				s.dequantQ8_0Rows(got, tileLen, dim, row, 0, src, srcStride, headStride, heads, rows, n/32)
			}
			if !sameBits(want, got) {
				t.Errorf("%s AttnDequantKHeadsQ8_0 dim=%d row=%d heads=%d rows=%d: not AttnPutKRow of the dequantized rows", name, dim, row, heads, rows)
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
				s.dequantQ8_0Rows(x, 0, 0, 0, 0, src, 0, 0, 1, 1, n/32)
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
