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

				dw, dg := make([]float32, n+1), make([]float32, n+1)
				dw[n], dg[n] = -7, -7
				genericSet.dequantQ8_0(dw[:n], src)
				s.dequantQ8_0(dg[:n], src)
				if !sameBits(dw, dg) {
					t.Errorf("%s DequantizeQ8_0 n=%d differs", s.name, n)
				}
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
				s.dequantQ8_0(x, src)
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
