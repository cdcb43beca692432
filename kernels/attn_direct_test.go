package kernels

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAttnDirectImplsBitExact runs every implementation of the f16-row
// attention kernels against the generic one: row counts with and without
// whole groups of 8, odd strides, unaligned slices, large and tiny values,
// and no write outside the scores and accumulators.
func TestAttnDirectImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	scales := []float32{1, 1e-3, 30}
	for _, s := range append(simdSets(t), attnDirectTestSets(t)...) {
		for _, dim := range []int{8, 16, 64, 72, 128, 136} {
			for _, rows := range []int{1, 5, 8, 13, 16, 32} {
				for _, heads := range []int{1, 2, 3, 4, 5, 8, 11, 16} {
					sc := scales[r.IntN(3)]
					q := randPadded(r, heads, dim, dim, r.IntN(4), sc)
					group, kHead := directGroup(r, heads, dim)
					kStride := max((heads+group-1)/group*kHead, dim) + r.IntN(3)*8 + r.IntN(2)
					off := r.IntN(4)
					k := randHalves(r, off+(heads-1)/group*kHead+(rows-1)*kStride+dim, 1/sc)[off:]
					sStride := rows + r.IntN(5)
					a := make([]float32, heads*sStride+2)
					for i := range a {
						a[i] = -7 // must survive outside the scores
					}
					b, c := slices.Clone(a), slices.Clone(a)
					genericSet.attnScoresF16(a, sStride, q, k, kStride, kHead, group, heads, rows, dim, nil)
					s.attnScoresF16(b, sStride, q, k, kStride, kHead, group, heads, rows, dim, prefetchOf(r, k))
					if !sameBits(a, b) {
						t.Errorf("%s AttnScoresF16 dim=%d rows=%d heads=%d group=%d kHead=%d differs", s.name, dim, rows, heads, group, kHead)
					}
					// The same as one call per group of heads over its rows.
					for h0 := 0; h0 < heads; h0 += group {
						n := min(group, heads-h0)
						genericSet.attnScoresF16(c[h0*sStride:], sStride, q[h0*dim:], k[h0/group*kHead:], kStride, 0, n, n, rows, dim, nil)
					}
					if !sameBits(a, c) {
						t.Errorf("AttnScoresF16 dim=%d rows=%d heads=%d group=%d kHead=%d: not the per-group calls' scores", dim, rows, heads, group, kHead)
					}
				}
			}
		}
		for _, dim := range []int{8, 16, 56, 64, 72, 120, 128, 136, 200} {
			for _, rows := range []int{0, 1, 5, 16, 32} {
				for _, heads := range []int{1, 3, 4, 6, 8, 16} {
					pStride := max(rows, 1) + r.IntN(8)
					group, vHead := directGroup(r, heads, dim)
					vStride := max((heads+group-1)/group*vHead, dim) + r.IntN(3)*8 + r.IntN(2)
					acc := randPadded(r, heads, dim, dim, r.IntN(4), 3)
					p := randPadded(r, heads, pStride, pStride, r.IntN(4), 1)
					off := r.IntN(4)
					v := randHalves(r, off+(heads-1)/group*vHead+max(rows-1, 0)*vStride+dim, scales[r.IntN(3)])[off:]
					alpha := make([]float32, heads)
					for g := range alpha {
						alpha[g] = []float32{1, 0, 0.3, float32(r.Float64())}[r.IntN(4)]
					}
					acc = append(acc, -7, -7, -7) // must survive
					a, b, c := slices.Clone(acc), slices.Clone(acc), slices.Clone(acc)
					genericSet.attnAccumVF16(a, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha, nil)
					s.attnAccumVF16(b, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha, prefetchOf(r, v))
					if !sameBits(a, b) {
						t.Errorf("%s AttnAccumVF16 dim=%d rows=%d heads=%d group=%d vHead=%d differs", s.name, dim, rows, heads, group, vHead)
					}
					for h0 := 0; h0 < heads; h0 += group {
						n := min(group, heads-h0)
						genericSet.attnAccumVF16(c[h0*dim:], p[h0*pStride:], pStride, v[h0/group*vHead:], vStride, 0, n, n, rows, dim, alpha[h0:], nil)
					}
					if !sameBits(a, c) {
						t.Errorf("AttnAccumVF16 dim=%d rows=%d heads=%d group=%d vHead=%d: not the per-group calls' sums", dim, rows, heads, group, vHead)
					}
				}
			}
		}
	}
}

// directGroup picks how many heads share a slice of the cached rows (one,
// all, or a group in between, not always dividing heads) and the slices'
// distance (the head size, or 0: one slice for all).
func directGroup(r *rand.Rand, heads, dim int) (group, stride int) {
	group = []int{1, heads, max(1, heads/2), 2}[r.IntN(4)]
	return group, []int{dim, dim, 0}[r.IntN(3)]
}

// TestAttnDirectMatchesTile: the f16-row kernels give the bits of the tile
// path (rows widened with AttnWidenK / F16RowsToF32, then AttnScores and
// AttnAccumV), also with the rows split over two calls, the second with
// alpha 1: what lets the engine skip the widening.
func TestAttnDirectMatchesTile(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	for _, dim := range []int{8, 64, 128} {
		for _, rows := range []int{3, 8, 21, 32} {
			heads := 1 + r.IntN(3)
			stride := dim + 8*r.IntN(3)
			k := randHalves(r, rows*stride, 1)
			v := randHalves(r, rows*stride, 2)
			q := randPadded(r, heads, dim, dim, 0, 0.5)
			rows8 := (rows + 7) &^ 7
			kt := make([]float32, AttnKTileLen(rows, dim))
			AttnWidenK(kt, dim, 0, k, stride, rows, dim)
			vt := make([]float32, rows*dim)
			F16RowsToF32(vt, dim, v, stride, rows, dim)

			want := make([]float32, heads*rows8)
			AttnScores(want, rows8, q, kt, heads, rows, dim)
			got := make([]float32, heads*rows8)
			AttnScoresF16(got, rows8, q, k, stride, 0, heads, heads, rows, dim, nil)
			for g := 0; g < heads; g++ {
				if !sameBits(want[g*rows8:g*rows8+rows], got[g*rows8:g*rows8+rows]) {
					t.Errorf("dim=%d rows=%d: scores of head %d differ from the tile path's", dim, rows, g)
				}
			}

			p := randPadded(r, heads, rows, rows, 0, 0.1)
			alpha := []float32{0.5, 1, 0.25}[:heads]
			acc := randPadded(r, heads, dim, dim, 0, 1)
			wantAcc, gotAcc := slices.Clone(acc), slices.Clone(acc)
			AttnAccumV(wantAcc, p, rows, vt, heads, rows, dim, alpha)
			cut := rows / 2
			AttnAccumVF16(gotAcc, p, rows, v, stride, 0, heads, heads, cut, dim, alpha, nil)
			ones := []float32{1, 1, 1}[:heads]
			AttnAccumVF16(gotAcc, p[cut:], rows, v[cut*stride:], stride, 0, heads, heads, rows-cut, dim, ones, nil)
			if !sameBits(wantAcc, gotAcc) {
				t.Errorf("dim=%d rows=%d: accumulators differ from the tile path's", dim, rows)
			}
		}
	}
}

// prefetchOf returns what a kernel's test asks it to prefetch: nothing, a
// few halves or up to all of x from a random start (the kernels' passes
// take shares of its lines; their results must not change).
func prefetchOf(r *rand.Rand, x []uint16) []uint16 {
	switch r.IntN(3) {
	case 0:
		return nil
	case 1:
		i := r.IntN(len(x))
		return x[i:min(i+1+r.IntN(3), len(x))]
	}
	i := r.IntN(len(x))
	return x[i:]
}

// BenchmarkAttnDirect times the f16-row attention kernels on one tile of
// decode attention in L1/L2, 64 cached rows eight at a time (as split
// decode calls them, engine.directRows): scores and value sums
// apart, in products (multiply-adds) per nanosecond. Shapes: TinyLlama's
// (32 query heads in groups of 8 over 4 KV heads of 64), Llama-3-8B's
// (groups of 4, heads of 128), Qwen3's small models' (groups of 2, heads
// of 128) and Llama-2-7B's (no GQA, 32 heads of 128).
func BenchmarkAttnDirect(b *testing.B) {
	for _, sh := range []struct {
		name                string
		heads, kvHeads, dim int
	}{
		{"g8d64", 32, 4, 64},
		{"g4d128", 32, 8, 128},
		{"g2d128", 16, 8, 128},
		{"g1d128", 32, 32, 128},
	} {
		r := rand.New(rand.NewPCG(93, 94))
		const rows = 64
		const step = 8
		heads, dim := sh.heads, sh.dim
		group, kvDim := heads/sh.kvHeads, sh.kvHeads*sh.dim
		q := randPadded(r, heads, dim, dim, 0, 1)
		k, v := randHalves(r, rows*kvDim, 1), randHalves(r, rows*kvDim, 1)
		s, acc := make([]float32, heads*rows), make([]float32, heads*dim)
		alpha := make([]float32, heads)
		for i := range alpha {
			alpha[i] = 1
		}
		for i := range s {
			s[i] = float32(r.Float64()) / rows
		}
		macs := float64(heads * rows * dim)
		for _, set := range append(simdSets(b), attnDirectTestSets(b)...) {
			b.Run(sh.name+"/"+set.name+"/scores", func(b *testing.B) {
				for b.Loop() {
					for r0 := 0; r0 < rows; r0 += step {
						set.attnScoresF16(s[r0:], rows, q, k[r0*kvDim:], kvDim, dim, group, heads, step, dim, nil)
					}
				}
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
			b.Run(sh.name+"/"+set.name+"/accum", func(b *testing.B) {
				for b.Loop() {
					for r0 := 0; r0 < rows; r0 += step {
						set.attnAccumVF16(acc, s[r0:], rows, v[r0*kvDim:], kvDim, dim, group, heads, step, dim, alpha, nil)
					}
				}
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
		}
	}
}
