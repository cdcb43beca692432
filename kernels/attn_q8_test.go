package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gollm/gollm/ggml"
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

// TestAttnQ8ImplsBitExact checks the one-row steps of the q8_0 cache
// helpers: axpyQ8_0Generic (AxpyQ8_0Rows' step) against what it replaced
// (quant.DequantizeRowQ8_0, then Axpy's y += a*x), and every set's
// dequantizer on one row of one head against quant.DequantizeRowQ8_0:
// lengths of one to eight blocks, unaligned rows and accumulators, weights
// 0, 1 and others, no write past y or dst.
func TestAttnQ8ImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	for _, n := range []int{32, 64, 96, 128, 256} {
		for trial := 0; trial < 8; trial++ {
			src := randQ8Row(r, n, r.IntN(5))
			a := []float32{0, 1, -0.75, float32(r.NormFloat64())}[r.IntN(4)]
			y := randPadded(r, 1, n, n, r.IntN(4), 2)
			y = append(y, -7) // must survive
			got, ref := slices.Clone(y), slices.Clone(y)
			axpyQ8_0Generic(got[:n], a, src)
			x := make([]float32, n)
			quant.DequantizeRowQ8_0(src, x)
			axpyGeneric(ref[:n], a, x)
			if !sameBits(got, ref) {
				t.Errorf("axpyQ8_0Generic n=%d a=%v: not DequantizeRowQ8_0 and Axpy", n, a)
			}
			for _, s := range append([]*kernelSet{genericSet}, simdSets(t)...) {
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

// BenchmarkAttnQ8 times the q8_0 cache's one-row attention steps on 16
// rows of one head of 64 (TinyLlama's; a block of the cache, 4 KV heads
// per row): the scores (VecDotQ8_0Rows, and VecDot row by row as the
// path called it before) and the value step (AxpyQ8_0Rows), for one head
// and for two (the two-head kernels).
func BenchmarkAttnQ8(b *testing.B) {
	r := rand.New(rand.NewPCG(97, 98))
	const n, rows, stride = 64, 16, 4 * 68
	k := randQ8Row(r, 32*rows*stride/34, 0)
	for i := range k { // no -128 quants (the dot products' sign trick)
		if k[i] == 0x80 {
			k[i] = 0x81
		}
	}
	q := k[:68]
	out := make([]float32, rows)
	y := make([]float32, n)
	ms, vs := make([]float32, rows), make([]float32, rows)
	for i := range rows {
		ms[i], vs[i] = 1, 0.5
	}
	ms[3], vs[3] = 0.25, 1
	for _, s := range append([]*kernelSet{genericSet}, simdSets(b)...) {
		rowDot := s.rowDot[ggml.Q8_0]
		if rowDot == nil {
			rowDot = s.vecDot[ggml.Q8_0]
		}
		b.Run(s.name+"/scores/rows", func(b *testing.B) {
			for b.Loop() {
				s.vecDotQ8_0Rows(out, n/32, k, stride, q)
			}
		})
		b.Run(s.name+"/scores/one-by-one", func(b *testing.B) {
			for b.Loop() {
				for i := range rows {
					out[i] = rowDot(n, k[i*stride:i*stride+68], q)
				}
			}
		})
		b.Run(s.name+"/values/rows", func(b *testing.B) {
			for b.Loop() {
				s.axpyQ8_0Rows(y, k, stride, ms, vs)
			}
		})
		// Two heads of the KV head at once (ns per op: both heads).
		out2, y2 := make([]float32, rows), make([]float32, n)
		b.Run(s.name+"/scores/rows2", func(b *testing.B) {
			for b.Loop() {
				s.vecDotQ8_0Rows2(out, out2, n/32, k, stride, q, q)
			}
		})
		b.Run(s.name+"/values/rows2", func(b *testing.B) {
			for b.Loop() {
				s.axpyQ8_0Rows2(y, y2, k, stride, ms, vs, ms, vs)
			}
		})
	}
}

// TestAttnQ8RowsBitExact checks the row-loop kernels of a q8_0 cache's
// one-row attention in every implementation: VecDotQ8_0Rows (and its
// two-query twin) against the set's VecDot kernel row by row,
// AxpyQ8_0Rows (and its two-head twin) against Scale and the
// generic one-row step row by row (rescales of 1, 0 and others); rows
// stride bytes apart (padded, unaligned), one to seventeen of them, and
// nothing written past the outputs.
func TestAttnQ8RowsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	for _, s := range append([]*kernelSet{genericSet}, simdSets(t)...) {
		rowDot := s.rowDot[ggml.Q8_0]
		if rowDot == nil {
			rowDot = s.vecDot[ggml.Q8_0]
		}
		for trial := 0; trial < 40; trial++ {
			n := 32 * (1 + r.IntN(8))
			rows := 1 + r.IntN(17)
			rb := n / 32 * 34
			stride := rb + r.IntN(3)*34 + r.IntN(7)
			off := r.IntN(5)
			buf := make([]byte, off+rows*stride)
			x := make([]float32, n)
			for i := range rows {
				for j := range x {
					x[j] = float32(r.NormFloat64()) * []float32{1, 1e-3, 50}[r.IntN(3)]
				}
				quant.QuantizeRowQ8_0(x, buf[off+i*stride:off+i*stride+rb])
			}
			k := buf[off:]
			for j := range x {
				x[j] = float32(r.NormFloat64())
			}
			q := make([]byte, rb)
			quant.QuantizeRowQ8_0(x, q)

			want := make([]float32, rows+1)
			got := slices.Clone(want)
			want[rows], got[rows] = -7, -7
			for i := range rows {
				want[i] = rowDot(n, k[i*stride:i*stride+rb], q)
			}
			s.vecDotQ8_0Rows(got[:rows], n/32, k, stride, q)
			if !sameBits(want, got) {
				t.Errorf("%s vecDotQ8_0Rows n=%d rows=%d stride=%d: not its VecDot row by row", s.name, n, rows, stride)
			}

			// Two queries at once: each as alone.
			for j := range x {
				x[j] = float32(r.NormFloat64())
			}
			q2 := make([]byte, rb)
			quant.QuantizeRowQ8_0(x, q2)
			want2 := make([]float32, rows+1)
			want2[rows] = -7
			for i := range rows {
				want2[i] = rowDot(n, k[i*stride:i*stride+rb], q2)
			}
			got1, got2 := slices.Clone(want2), slices.Clone(want2)
			for i := range rows {
				got1[i], got2[i] = 0, 0
			}
			s.vecDotQ8_0Rows2(got1[:rows], got2[:rows], n/32, k, stride, q, q2)
			if !sameBits(want, got1) || !sameBits(want2, got2) {
				t.Errorf("%s vecDotQ8_0Rows2 n=%d rows=%d stride=%d: not its VecDot row by row", s.name, n, rows, stride)
			}

			factors := func() (ms, vs []float32) {
				ms, vs = make([]float32, rows), make([]float32, rows)
				for i := range rows {
					ms[i], vs[i] = 1, float32(r.Float64())
					switch r.IntN(4) {
					case 0:
						ms[i], vs[i] = float32(r.Float64()), 1
					case 1:
						ms[i], vs[i] = 0, 1
					}
				}
				return ms, vs
			}
			ms, vs := factors()
			ms2, vs2 := factors()
			rowByRow := func(y, ms, vs []float32) {
				for i := range rows {
					if ms[i] != 1 {
						Scale(y[:n], ms[i])
					}
					axpyQ8_0Generic(y[:n], vs[i], k[i*stride:])
				}
			}
			y := randPadded(r, 1, n, n, r.IntN(4), 2)
			y = append(y, -7) // must survive
			wantY, gotY := slices.Clone(y), slices.Clone(y)
			rowByRow(wantY, ms, vs)
			s.axpyQ8_0Rows(gotY[:n], k, stride, ms, vs)
			if !sameBits(wantY, gotY) {
				t.Errorf("%s axpyQ8_0Rows n=%d rows=%d stride=%d: not Scale and axpyQ8_0Generic row by row", s.name, n, rows, stride)
			}
			y2 := randPadded(r, 1, n, n, r.IntN(4), 2)
			y2 = append(y2, -7)
			wantY2, gotY1, gotY2 := slices.Clone(y2), slices.Clone(y), slices.Clone(y2)
			rowByRow(wantY2, ms2, vs2)
			s.axpyQ8_0Rows2(gotY1[:n], gotY2[:n], k, stride, ms, vs, ms2, vs2)
			if !sameBits(wantY, gotY1) || !sameBits(wantY2, gotY2) {
				t.Errorf("%s axpyQ8_0Rows2 n=%d rows=%d stride=%d: not each head row by row", s.name, n, rows, stride)
			}
		}
	}
	// The exported functions on the active set.
	const n, rows, stride = 64, 5, 3 * 34
	k := make([]byte, rows*stride)
	x := make([]float32, n)
	for i := range rows {
		for j := range x {
			x[j] = float32(r.NormFloat64())
		}
		quant.QuantizeRowQ8_0(x, k[i*stride:i*stride+68])
	}
	q := k[:68]
	out := make([]float32, rows)
	VecDotQ8_0Rows(out, n, k, stride, q)
	for i := range rows {
		if got := VecDot(ggml.Q8_0, n, k[i*stride:i*stride+68], q); math.Float32bits(got) != math.Float32bits(out[i]) {
			t.Errorf("VecDotQ8_0Rows row %d: %v, VecDot %v", i, out[i], got)
		}
	}
}
