package engine

import (
	"math"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
)

// Split decode: a pass of few tokens (decode, batched decode) has too few
// (token, KV head) items to keep the KV cache streaming: each item reads
// its KV head's slice of every cached row, a quarter or less of each row's
// cache lines, scattered, and the reads of long contexts come from DRAM.
// Instead, each token's positions are split into a few ranges; an item
// serves one range for every head, reading whole rows (contiguous memory
// the prefetchers follow), and leaves its per-head softmax state and
// accumulator in a partial slot. The item that finishes a token's last
// range combines the partials (flash-decoding).
const (
	// fastSplitTokens: passes of at most this many tokens split.
	fastSplitTokens = 8
	// fastSplits is the number of ranges per token (fewer when the
	// context has fewer tiles, or the model fewer heads).
	fastSplits = 4
)

// splitPlan returns how many ranges a query over n positions is split
// into and their length (a whole number of tiles; the last range may be
// shorter).
func (f *fastAttn) splitPlan(n int) (splits, chunk int) {
	tiles := (n + f.tile - 1) / f.tile
	s := min(fastSplits, f.allHeads, tiles)
	chunk = (tiles + s - 1) / s * f.tile
	return (n + chunk - 1) / chunk, chunk
}

// partial returns split sp of token tok's partial slot: per head its
// running maximum, sum and accumulator (hdvp apart).
func (f *fastAttn) partial(tok, sp int) (m, l, acc []float32) {
	h := f.allHeads
	slot := f.part[(tok*fastSplits+sp)*h*(f.hdvp+2):][:h*(f.hdvp+2)]
	return slot[:h], slot[h : 2*h], slot[2*h:]
}

// attendSplit serves positions [sp*chunk, min((sp+1)*chunk, n)) of token
// tok for every query head, tile by tile and within a tile KV head by KV
// head, and combines the token's partials if it is the last of its
// splits ranges to finish.
func (j *attnJob) attendSplit(sc *fastScratch, tok, sp, splits, chunk, n int, v *kvcache.View) {
	c, f := j.c, j.fast
	hdp, tile := f.hdp, f.tile
	group := c.Heads / c.KVHeads
	q := j.queries(sc, tok, 0, c.Heads)
	m, l, acc := f.partial(tok, sp)
	for h := range m {
		m[h], l[h] = float32(math.Inf(-1)), 0
	}
	clear(acc)
	from, to := sp*chunk, min((sp+1)*chunk, n)
	j.prefetchFull(v, from, min(from+tile, to))
	for p0 := from; p0 < to; p0 += tile {
		rows := min(tile, to-p0)
		j.prefetchFull(v, p0+tile, min(p0+2*tile, to))
		for kvh := 0; kvh < c.KVHeads; kvh++ {
			for r := 0; r < rows; {
				b, i := (p0+r)/v.BlockLen, (p0+r)%v.BlockLen
				cnt := min(v.BlockLen-i, rows-r)
				j.widenRows(sc, v, b, i, cnt, kvh, r)
				r += cnt
			}
			for h0 := kvh * group; h0 < (kvh+1)*group; h0 += f.heads {
				nh := min(f.heads, (kvh+1)*group-h0)
				j.tileStep(sc, q[h0*hdp:], nh, rows, m[h0:], l[h0:], acc[h0*f.hdvp:])
			}
		}
	}
	if int(f.done[tok].Add(1)) == splits {
		j.combineSplits(tok, splits)
		f.done[tok].Store(0) // the next pass starts after this one's pool job returns
	}
}

// combineSplits writes token tok's output from its partials (combineHead
// per head).
func (j *attnJob) combineSplits(tok, splits int) {
	c, f := j.c, j.fast
	hdv := c.HeadDimV
	var ms, ls [fastSplits]float32
	var accs [fastSplits][]float32
	for h := 0; h < c.Heads; h++ {
		for sp := 0; sp < splits; sp++ {
			m, l, acc := f.partial(tok, sp)
			ms[sp], ls[sp], accs[sp] = m[h], l[h], acc[h*f.hdvp:h*f.hdvp+hdv]
		}
		j.combineHead(j.out[(tok*c.Heads+h)*hdv:(tok*c.Heads+h+1)*hdv], ms[:splits], ls[:splits], accs[:splits])
	}
}

// combineHead writes one query head's output from the partial results of
// its position ranges: each range's accumulator weighted by
// e^(scale*(its maximum - the overall one)), over the likewise weighted
// sum of the softmax sums. Both fast paths (split decode and attendFast)
// end here with the same ranges (splitPlan depends only on the number of
// positions), so a token's attention has the same bits whatever pass it
// is in: the server's results do not depend on the batch.
func (j *attnJob) combineHead(out, ms, ls []float32, accs [][]float32) {
	var w [fastSplits]float32
	mx := float32(math.Inf(-1))
	for _, m := range ms {
		mx = max(mx, m)
	}
	var sum float32
	for sp, m := range ms {
		w[sp] = kernels.ExpFast((m - mx) * j.scale) // m: raw scores
		sum += ls[sp] * w[sp]
	}
	inv := safeInv(sum)
	for sp, a := range accs {
		if sp == 0 {
			copy(out, a)
			kernels.Scale(out, w[0]*inv)
		} else {
			kernels.Axpy(out, w[sp]*inv, a)
		}
	}
}

// prefetchFull starts loading whole cached rows [from, to) (every KV
// head) of an f16 cache.
func (j *attnJob) prefetchFull(v *kvcache.View, from, to int) {
	if v.Type != ggml.F16 {
		return
	}
	kvDim, vDim := j.c.KVDim(), j.c.VDim()
	for p := from; p < to; {
		b, i := p/v.BlockLen, p%v.BlockLen
		cnt := min(v.BlockLen-i, to-p)
		kernels.AttnPrefetch(v.KF16(b)[i*kvDim:], kvDim, cnt, kvDim)
		kernels.AttnPrefetch(v.VF16(b)[i*vDim:], vDim, cnt, vDim)
		p += cnt
	}
}
