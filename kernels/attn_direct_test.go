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
	for _, s := range simdSets(t) {
		for _, dim := range []int{8, 16, 64, 72, 128, 136} {
			for _, rows := range []int{1, 5, 8, 13, 16, 32} {
				for _, heads := range []int{1, 2, 3, 4, 5, 8, 11} {
					sc := scales[r.IntN(3)]
					q := randPadded(r, heads, dim, dim, r.IntN(4), sc)
					kHead := r.IntN(2) * dim // shared rows (GQA) or a slice per head
					kStride := max(heads*kHead, dim) + r.IntN(3)*8 + r.IntN(2)
					off := r.IntN(4)
					k := randHalves(r, off+(heads-1)*kHead+(rows-1)*kStride+dim, 1/sc)[off:]
					sStride := rows + r.IntN(5)
					a := make([]float32, heads*sStride+2)
					for i := range a {
						a[i] = -7 // must survive outside the scores
					}
					b := slices.Clone(a)
					genericSet.attnScoresF16(a, sStride, q, k, kStride, kHead, heads, rows, dim)
					s.attnScoresF16(b, sStride, q, k, kStride, kHead, heads, rows, dim)
					if !sameBits(a, b) {
						t.Errorf("%s AttnScoresF16 dim=%d rows=%d heads=%d kHead=%d differs", s.name, dim, rows, heads, kHead)
					}
				}
			}
		}
		for _, dim := range []int{8, 16, 56, 64, 72, 120, 128, 136, 200} {
			for _, rows := range []int{0, 1, 5, 16, 32} {
				for _, heads := range []int{1, 3, 4, 6, 8} {
					pStride := max(rows, 1) + r.IntN(8)
					vHead := r.IntN(2) * dim
					vStride := max(heads*vHead, dim) + r.IntN(3)*8 + r.IntN(2)
					acc := randPadded(r, heads, dim, dim, r.IntN(4), 3)
					p := randPadded(r, heads, pStride, pStride, r.IntN(4), 1)
					off := r.IntN(4)
					v := randHalves(r, off+(heads-1)*vHead+max(rows-1, 0)*vStride+dim, scales[r.IntN(3)])[off:]
					alpha := make([]float32, heads)
					for g := range alpha {
						alpha[g] = []float32{1, 0, 0.3, float32(r.Float64())}[r.IntN(4)]
					}
					acc = append(acc, -7, -7, -7) // must survive
					a, b := slices.Clone(acc), slices.Clone(acc)
					genericSet.attnAccumVF16(a, p, pStride, v, vStride, vHead, heads, rows, dim, alpha)
					s.attnAccumVF16(b, p, pStride, v, vStride, vHead, heads, rows, dim, alpha)
					if !sameBits(a, b) {
						t.Errorf("%s AttnAccumVF16 dim=%d rows=%d heads=%d vHead=%d differs", s.name, dim, rows, heads, vHead)
					}
				}
			}
		}
	}
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
			AttnScoresF16(got, rows8, q, k, stride, 0, heads, rows, dim)
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
			AttnAccumVF16(gotAcc, p, rows, v, stride, 0, heads, cut, dim, alpha)
			ones := []float32{1, 1, 1}[:heads]
			AttnAccumVF16(gotAcc, p[cut:], rows, v[cut*stride:], stride, 0, heads, rows-cut, dim, ones)
			if !sameBits(wantAcc, gotAcc) {
				t.Errorf("dim=%d rows=%d: accumulators differ from the tile path's", dim, rows)
			}
		}
	}
}
