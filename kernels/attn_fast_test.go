package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// sameBits reports whether two float32 slices are equal bit for bit.
func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// randPadded returns rows rows of n random floats (around scale) padded
// with zeros to a row length of dim, starting at offset off of the slice
// (so SIMD code sees unaligned addresses).
func randPadded(r *rand.Rand, rows, n, dim, off int, scale float32) []float32 {
	x := make([]float32, off+rows*dim)
	for i := 0; i < rows; i++ {
		for j := 0; j < n; j++ {
			x[off+i*dim+j] = float32(r.NormFloat64()) * scale
		}
	}
	return x[off:]
}

// TestAttnFastImplsBitExact runs every available implementation of the
// long-context attention kernels against the generic one on random data:
// odd widths and row counts, tails, unaligned slices, large and tiny
// values.
func TestAttnFastImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	scales := []float32{1, 1e-3, 30}
	for _, s := range simdSets(t) {
		// Widening.
		for _, n := range []int{1, 7, 8, 9, 64, 80, 100, 128, 131} {
			for _, rows := range []int{1, 3, 16} {
				off := r.IntN(4)
				srcStride, dstStride := n+r.IntN(9), n+r.IntN(9)
				src := randHalves(r, off+(rows-1)*srcStride+n, scales[r.IntN(3)])[off:]
				a := make([]float32, (rows-1)*dstStride+n+5)
				for i := range a {
					a[i] = -7 // must survive outside the rows
				}
				b := slices.Clone(a)
				genericSet.f16RowsToF32(a, dstStride, src, srcStride, rows, n)
				s.f16RowsToF32(b, dstStride, src, srcStride, rows, n)
				if !sameBits(a, b) {
					t.Errorf("%s F16RowsToF32 n=%d rows=%d differs", s.name, n, rows)
				}
			}
		}
		// Widening into the K tile, from any row of it.
		for _, dim := range []int{8, 16, 64, 72, 128, 136} {
			for _, rows := range []int{1, 3, 5, 8, 16, 21} {
				n := dim - r.IntN(min(dim, 11))
				row := r.IntN(12)
				off := r.IntN(4)
				srcStride := n + r.IntN(9)
				src := randHalves(r, off+(rows-1)*srcStride+n, scales[r.IntN(3)])[off:]
				a := make([]float32, AttnKTileLen(row+rows, dim)+r.IntN(3))
				for i := range a {
					a[i] = -7 // must survive outside the rows
				}
				b := slices.Clone(a)
				genericSet.attnWidenK(a, dim, row, src, srcStride, rows, n)
				s.attnWidenK(b, dim, row, src, srcStride, rows, n)
				if !sameBits(a, b) {
					t.Errorf("%s AttnWidenK dim=%d n=%d row=%d rows=%d differs", s.name, dim, n, row, rows)
				}
			}
		}
		// Widening several heads of each row into their K tiles.
		for _, dim := range []int{8, 64, 72, 128} {
			for _, heads := range []int{1, 2, 4, 5} {
				rows := 1 + r.IntN(16)
				n := dim - r.IntN(min(dim, 11))
				row := r.IntN(12)
				tileLen := AttnKTileLen(row+rows, dim) + 8*r.IntN(3)
				headStride := n + r.IntN(5)
				srcStride := heads*headStride + r.IntN(9)
				off := r.IntN(4)
				src := randHalves(r, off+(rows-1)*srcStride+(heads-1)*headStride+n, scales[r.IntN(3)])[off:]
				a := make([]float32, heads*tileLen+r.IntN(3))
				for i := range a {
					a[i] = -7 // must survive outside the rows
				}
				b := slices.Clone(a)
				for h := 0; h < heads; h++ {
					genericSet.attnWidenK(a[h*tileLen:], dim, row, src[h*headStride:], srcStride, rows, n)
				}
				s.attnWidenKHeads(b, tileLen, dim, row, src, srcStride, headStride, heads, rows, n)
				if !sameBits(a, b) {
					t.Errorf("%s attnWidenKHeads dim=%d n=%d heads=%d row=%d rows=%d differs", s.name, dim, n, heads, row, rows)
				}
			}
		}
		// Scores.
		for _, dim := range []int{8, 16, 64, 72, 128, 136} {
			for _, rows8 := range []int{8, 16, 32} {
				for _, heads := range []int{1, 2, 3, 8, 9} {
					sc := scales[r.IntN(3)]
					q := randPadded(r, heads, dim-r.IntN(8), dim, r.IntN(4), sc)
					k := randPadded(r, rows8, dim, dim, r.IntN(4), 1/sc)
					sStride := rows8 + r.IntN(5)
					a := make([]float32, r.IntN(3)+heads*sStride)
					b := slices.Clone(a)
					genericSet.attnScores(a, sStride, q, k, heads, rows8, dim)
					s.attnScores(b, sStride, q, k, heads, rows8, dim)
					if !sameBits(a, b) {
						t.Errorf("%s AttnScores dim=%d rows=%d heads=%d differs", s.name, dim, rows8, heads)
					}
				}
			}
		}
		// Softmax steps, from the first tile (m = -Inf) and from a state.
		for _, rows := range []int{1, 5, 8, 13, 16, 24, 31, 32} {
			for _, heads := range []int{1, 3, 8} {
				for _, first := range []bool{true, false} {
					rows8 := (rows + 7) &^ 7
					sStride := rows8 + 8*r.IntN(2)
					sc := []float32{1, 0.01, 40}[r.IntN(3)]
					sa := randPadded(r, heads, sStride, sStride, r.IntN(4), sc)
					for i := range sa {
						if r.IntN(50) == 0 {
							sa[i] = -1e30 // weight 0 (below the clamp)
						}
					}
					ma, la, aa := make([]float32, heads), make([]float32, heads), make([]float32, heads)
					for g := range ma {
						ma[g], la[g] = float32(math.Inf(-1)), 0
						if !first {
							ma[g], la[g] = float32(r.NormFloat64())*sc, float32(r.Float64()*20)
						}
					}
					sb, mb, lb, ab := slices.Clone(sa), slices.Clone(ma), slices.Clone(la), slices.Clone(aa)
					scale := []float32{1, 0.125, 0.0883883}[r.IntN(3)]
					genericSet.attnSoftmax(sa, sStride, heads, rows, scale, ma, la, aa)
					s.attnSoftmax(sb, sStride, heads, rows, scale, mb, lb, ab)
					for g := 0; g < heads; g++ {
						if !sameBits(sa[g*sStride:g*sStride+rows8], sb[g*sStride:g*sStride+rows8]) {
							t.Errorf("%s AttnSoftmax rows=%d heads=%d: weights of head %d differ", s.name, rows, heads, g)
						}
					}
					if !slices.Equal(ma, mb) || !sameBits(la, lb) || !sameBits(aa, ab) {
						t.Errorf("%s AttnSoftmax rows=%d heads=%d first=%v: m %v/%v l %v/%v alpha %v/%v",
							s.name, rows, heads, first, ma, mb, la, lb, aa, ab)
					}
				}
			}
		}
		// Value accumulation.
		for _, dim := range []int{8, 16, 24, 40, 56, 64, 72, 80, 120, 128, 136, 200} {
			for _, rows := range []int{0, 1, 5, 16, 32} {
				// Groups of four heads, then the rest one at a time.
				heads := []int{1, 3, 4, 5, 7, 8, 9, 12}[r.IntN(8)]
				pStride := max(rows, 1) + r.IntN(8)
				acc := randPadded(r, heads, dim, dim, r.IntN(4), 3)
				p := randPadded(r, heads, pStride, pStride, r.IntN(4), 1)
				v := randPadded(r, max(rows, 1), dim, dim, r.IntN(4), scales[r.IntN(3)])
				alpha := make([]float32, heads)
				for g := range alpha {
					alpha[g] = []float32{1, 0, 0.3, float32(r.Float64())}[r.IntN(4)]
				}
				acc = append(acc, -7, -7, -7) // must survive
				a, b := slices.Clone(acc), slices.Clone(acc)
				genericSet.attnAccumV(a, p, pStride, v, heads, rows, dim, alpha)
				s.attnAccumV(b, p, pStride, v, heads, rows, dim, alpha)
				if !sameBits(a, b) {
					t.Errorf("%s AttnAccumV dim=%d rows=%d heads=%d differs", s.name, dim, rows, heads)
				}
			}
		}
	}
}

// TestExpFast bounds expFast's error against math.Exp and checks its
// clamps.
func TestExpFast(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	var worst float64
	for i := 0; i < 200000; i++ {
		x := float32(-86 + 174*r.Float64())
		if i < 1000 {
			x = float32(i) * -0.0001 // near 0, where softmax weights live
		}
		got, want := float64(expFast(x)), math.Exp(float64(x))
		worst = math.Max(worst, math.Abs(got-want)/want)
	}
	if worst > 3e-7 {
		t.Errorf("expFast relative error %.3g > 3e-7", worst)
	}
	for _, x := range []float32{-86.5, -100, -1e30, float32(math.Inf(-1))} {
		if got := expFast(x); got != expFast(-86) {
			t.Errorf("expFast(%v) = %v, want the clamped e^-86 %v", x, got, expFast(-86))
		}
	}
	if got := expFast(0); got != 1 {
		t.Errorf("expFast(0) = %v", got)
	}
	if got := expFast(1000); got != expFast(88) || math.IsInf(float64(got), 0) {
		t.Errorf("expFast(1000) = %v, want the clamped e^88", got)
	}
}

// TestAttnFastGenericMath checks the oracle against float64 arithmetic:
// one tile of scores, softmax and value accumulation from scratch gives
// softmax(q·k)·v.
func TestAttnFastGenericMath(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	const heads, rows, dim, sStride = 3, 13, 24, 16
	q := randPadded(r, heads, dim, dim, 0, 1)
	k := randPadded(r, 16, dim, dim, 0, 1) // rows, then as a K tile
	kt := make([]float32, AttnKTileLen(16, dim))
	for j := 0; j < 16; j++ {
		AttnPutKRow(kt, dim, j, k[j*dim:(j+1)*dim])
	}
	v := randPadded(r, rows, dim, dim, 0, 1)
	s := make([]float32, heads*sStride)
	m, l, alpha := make([]float32, heads), make([]float32, heads), make([]float32, heads)
	for g := range m {
		m[g] = float32(math.Inf(-1))
	}
	acc := make([]float32, heads*dim)
	AttnScores(s, sStride, q, kt, heads, rows, dim)
	for g := 0; g < heads; g++ {
		for j := 0; j < rows; j++ {
			var want float64
			for d := 0; d < dim; d++ {
				want += float64(q[g*dim+d]) * float64(k[j*dim+d])
			}
			if got := s[g*sStride+j]; math.Abs(float64(got)-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("score head %d row %d: %v, want %v", g, j, got, want)
			}
		}
	}
	scores := slices.Clone(s)
	const scale = 0.3
	AttnSoftmax(s, sStride, heads, rows, scale, m, l, alpha)
	AttnAccumV(acc, s, sStride, v, heads, rows, dim, alpha)
	for g := 0; g < heads; g++ {
		mx := math.Inf(-1)
		for j := 0; j < rows; j++ {
			mx = math.Max(mx, float64(scores[g*sStride+j]))
		}
		var sum float64
		out := make([]float64, dim)
		for j := 0; j < rows; j++ {
			w := math.Exp((float64(scores[g*sStride+j]) - mx) * scale)
			sum += w
			for d := range out {
				out[d] += w * float64(v[j*dim+d])
			}
		}
		if math.Abs(float64(l[g])-sum) > 1e-6*sum || float64(m[g]) != mx {
			t.Errorf("head %d: m %v l %v, want %v %v", g, m[g], l[g], mx, sum)
		}
		for d := range out {
			if got := float64(acc[g*dim+d]); math.Abs(got-out[d]) > 1e-5*(1+math.Abs(out[d])) {
				t.Errorf("head %d element %d: %v, want %v", g, d, got, out[d])
			}
		}
	}
}

// BenchmarkAttnFast times the long-context attention loop of one KV head
// (the engine's attendFast without its bookkeeping): 8 query heads of 64
// over 2048 cached f16 positions, tiles of 32 rows. ns/headpos is the cost
// per (query head, cached position).
func BenchmarkAttnFast(b *testing.B) {
	r := rand.New(rand.NewPCG(77, 78))
	for _, shape := range []struct{ heads, dim, tile int }{{8, 64, 32}, {4, 128, 16}, {1, 64, 32}} {
		heads, dim, tile := shape.heads, shape.dim, shape.tile
		const n, kvStride = 2048, 256
		kc := randHalves(r, n*kvStride, 1)
		vc := randHalves(r, n*kvStride, 1)
		q := randPadded(r, heads, dim, dim, 0, 0.2)
		kt, vt := make([]float32, tile*dim), make([]float32, tile*dim)
		s := make([]float32, heads*tile)
		acc := make([]float32, heads*dim)
		m, l, alpha := make([]float32, heads), make([]float32, heads), make([]float32, heads)
		for _, set := range implementations {
			if !set.available {
				continue
			}
			b.Run(set.name+"/"+strconv.Itoa(heads)+"x"+strconv.Itoa(dim), func(b *testing.B) {
				for b.Loop() {
					for g := range m {
						m[g], l[g] = float32(math.Inf(-1)), 0
					}
					clear(acc)
					for p0 := 0; p0 < n; p0 += tile {
						rows := min(tile, n-p0)
						set.attnWidenK(kt, dim, 0, kc[p0*kvStride:], kvStride, rows, dim)
						set.f16RowsToF32(vt, dim, vc[p0*kvStride:], kvStride, rows, dim)
						set.attnScores(s, tile, q, kt, heads, (rows+7)&^7, dim)
						set.attnSoftmax(s, tile, heads, rows, 0.125, m, l, alpha)
						set.attnAccumV(acc, s, tile, vt, heads, rows, dim, alpha)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*heads), "ns/headpos")
			})
		}
	}
}

// BenchmarkAttnDecodeRows times what bounds long-context decode: reading
// an f16 KV cache larger than the L3 (TinyLlama's shape: 22 layers of 2048
// positions of 4 KV heads of 64) and widening each 32-row tile of it into
// the per-head f32 tiles, KV head by KV head ("per-head": each head's
// slices of the rows, 128 of every 512 bytes) or row by row over all
// heads ("heads": AttnWidenKHeads, F16RowsToF32Heads). GB/s of cache read.
func BenchmarkAttnDecodeRows(b *testing.B) {
	r := rand.New(rand.NewPCG(79, 80))
	const layers, n, kvHeads, dim, tile = 22, 2048, 4, 64, 32
	const kvDim = kvHeads * dim
	kc := randHalves(r, layers*n*kvDim, 1)
	vc := randHalves(r, layers*n*kvDim, 1)
	kt, vt := make([]float32, kvHeads*tile*dim), make([]float32, kvHeads*tile*dim)
	run := func(b *testing.B, widen func(kl, vl []uint16)) {
		for b.Loop() {
			for l := 0; l < layers; l++ {
				kl, vl := kc[l*n*kvDim:(l+1)*n*kvDim], vc[l*n*kvDim:(l+1)*n*kvDim]
				for p0 := 0; p0 < n; p0 += tile {
					widen(kl[p0*kvDim:], vl[p0*kvDim:])
				}
			}
		}
		b.ReportMetric(float64(4*len(kc))*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GB/s") // K and V, 2 bytes each
	}
	b.Run("per-head", func(b *testing.B) {
		run(b, func(kl, vl []uint16) {
			for h := 0; h < kvHeads; h++ {
				AttnWidenK(kt[h*tile*dim:], dim, 0, kl[h*dim:], kvDim, tile, dim)
				F16RowsToF32(vt[h*tile*dim:], dim, vl[h*dim:], kvDim, tile, dim)
			}
		})
	})
	b.Run("heads", func(b *testing.B) {
		run(b, func(kl, vl []uint16) {
			AttnWidenKHeads(kt, tile*dim, dim, 0, kl, kvDim, dim, kvHeads, tile, dim)
			F16RowsToF32Heads(vt, tile*dim, dim, vl, kvDim, dim, kvHeads, tile, dim)
		})
	})
}
