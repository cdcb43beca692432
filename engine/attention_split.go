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
// serves one range for every head, and leaves its per-head softmax state
// and accumulator in a partial slot. It widens each tile row by row over
// the KV heads (widenHeads): each cached row is read once, in address
// order, which the hardware prefetchers follow (2x the speed of reading
// it head by head, BenchmarkAttnDecodeRows; software prefetching of the
// next tile slowed such reads down). The item that finishes a token's last
// range combines the partials (flash-decoding).
//
// A widened tile serves the query heads of its KV head; with few of them
// (no GQA, e.g. Llama-2-7B, or groups of 2-4, Llama-3-8B) the widening
// (f32 tiles written and read back through L1/L2) cost more than it saved,
// and took most of the step. The direct path (tileStepF16) computes every
// head's scores and values from the f16 rows where they are cached, eight
// rows at a time over all heads. BenchmarkAttendSplitLayers on an AMD
// EPYC Zen3, 2 threads, GB/s of cache read, widened -> direct: Llama-2-7B
// 6.1-7.0 -> 14.3-16.8 (head by head over 32-row tiles, 64 sequential
// streams at a time, it read 8.8-10.6; a software prefetch of the next
// tile, whole or head by head, did not help), Llama-3-8B's shape (groups
// of 4 heads of 128) 4.0-4.4 -> 6.1-7.5, groups of 2 5.1-5.5 -> 12-12.9,
// TinyLlama's (groups of 8 heads of 64) 5.0 -> 4.6 (directMaxGroup later
// let it take the direct path too). The kernels now widen each row once
// per four heads of a KV head (kernels.AttnScoresF16's GQA kernels); on
// an Intel Xeon (2 threads, 2048 positions, the cache read from DRAM),
// GB/s before -> after: TinyLlama 5.1-6.2 -> 8.8-9.0 (512-bit kernels),
// 7.4-7.6 (AVX2), Llama-3-8B 9.7-10.4 -> 14.4-14.9, 11.5-11.8; the
// widened-tile path read TinyLlama's at 7.7-8.0.
const (
	// fastSplitTokens: passes of at most this many tokens split.
	fastSplitTokens = 8
	// fastSplits is the number of ranges per token (fewer when the
	// context has fewer tiles, or the model fewer heads).
	fastSplits = 4
)

// splitPlan returns how many ranges a query over n positions (those of
// its window) is split
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

// attendSplit serves positions [lo+sp*chunk, min(lo+(sp+1)*chunk, n)) of token
// tok for every query head, tile by tile and within a tile KV head by KV
// head, and combines the token's partials if it is the last of its
// splits ranges to finish.
func (j *attnJob) attendSplit(sc *fastScratch, tok, sp, splits, chunk, lo, n int, v *kvcache.View) {
	c, f := j.c, j.fast
	hdp, tile := f.hdp, f.tile
	group := c.Heads / c.KVHeads
	q := j.queries(sc, 0, tok, 0, c.Heads)
	m, l, acc := f.partial(tok, sp)
	for h := range m {
		m[h], l[h] = float32(math.Inf(-1)), 0
	}
	clear(acc)
	from, to := lo+sp*chunk, min(lo+(sp+1)*chunk, n)
	direct := f.direct && v.Type == ggml.F16
	for p0 := from; p0 < to; p0 += tile {
		rows := min(tile, to-p0)
		if direct {
			j.tileStepF16(sc, v, p0, rows, min(tile, to-p0-rows), q, m, l, acc)
			continue
		}
		for k0 := 0; k0 < c.KVHeads; k0 += f.kvChunk {
			nk := min(f.kvChunk, c.KVHeads-k0)
			j.widenHeads(sc, v, p0, rows, k0, nk)
			// The next chunk's rows load while this one's heads compute,
			// a share of them before each head.
			pf0, pf1, pk0, pnk := p0, p0, 0, 0
			if k1 := k0 + nk; k1 < c.KVHeads {
				pf1, pk0, pnk = p0+rows, k1, min(f.kvChunk, c.KVHeads-k1)
			} else if p0+rows < to {
				pf0, pf1, pnk = p0+rows, min(p0+rows+tile, to), min(f.kvChunk, c.KVHeads)
			}
			share := (pf1 - pf0 + nk - 1) / nk
			for kvh := k0; kvh < k0+nk; kvh++ {
				if pnk > 0 {
					a := pf0 + (kvh-k0)*share
					j.prefetchRows(v, a, min(a+share, pf1), pk0, pnk)
				}
				kt, vt := sc.k[(kvh-k0)*f.kTile:][:f.kTile], sc.v[(kvh-k0)*f.vTile:][:f.vTile]
				for h0 := kvh * group; h0 < (kvh+1)*group; h0 += f.heads {
					nh := min(f.heads, (kvh+1)*group-h0)
					j.tileStep(sc, kt, vt, q[h0*hdp:], nh, rows, m[h0:], l[h0:], acc[h0*f.hdvp:])
				}
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
		w[sp] = kernels.ExpFast((m - mx) * j.fastScale()) // m: raw (or capped) scores
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

// widenHeads writes cached positions p0..p0+rows-1 of KV heads k0..k0+nk-1
// into the scratch's tiles, head k0+h's into sc.k[h*kTile:] and
// sc.v[h*vTile:]. An f16 cache is read row by row over all nk heads
// (kernels.AttnWidenKHeads), a q8_0 cache likewise dequantized
// (kernels.AttnDequantKHeadsQ8_0): the rows' slices of the heads are
// adjacent, so each cached row's part is read once, in address order.
func (j *attnJob) widenHeads(sc *fastScratch, v *kvcache.View, p0, rows, k0, nk int) {
	c, f := j.c, j.fast
	hd, hdv := c.HeadDim, c.HeadDimV
	kvDim, vDim := c.KVDim(), c.VDim()
	for r := 0; r < rows; {
		b, i := (p0+r)/v.BlockLen, (p0+r)%v.BlockLen
		cnt := min(v.BlockLen-i, rows-r)
		switch v.Type {
		case ggml.F16:
			kernels.AttnWidenKHeads(sc.k, f.kTile, f.hdp, r, v.KF16(b)[i*kvDim+k0*hd:], kvDim, hd, nk, cnt, hd)
			kernels.F16RowsToF32Heads(sc.v[r*f.hdvp:], f.vTile, f.hdvp, v.VF16(b)[i*vDim+k0*hdv:], vDim, hdv, nk, cnt, hdv)
		case ggml.Q8_0: // whole blocks of 32 per head (checked at load)
			kHead, vHead := hd/32*34, hdv/32*34
			kernels.AttnDequantKHeadsQ8_0(sc.k, f.kTile, f.hdp, r, v.K[b][i*v.KRowBytes+k0*kHead:], v.KRowBytes, kHead, nk, cnt, hd)
			kernels.DequantizeQ8_0Heads(sc.v[r*f.hdvp:], f.vTile, f.hdvp, v.V[b][i*v.VRowBytes+k0*vHead:], v.VRowBytes, vHead, nk, cnt, hdv)
		default:
			for h := 0; h < nk; h++ {
				j.widenRows(sc.k[h*f.kTile:][:f.kTile], sc.v[h*f.vTile:][:f.vTile], sc, v, b, i, cnt, k0+h, r)
			}
		}
		r += cnt
	}
}

// directRows is the most cached rows one call of the direct kernels
// reads for every head: the rows are read head slice by head slice, and
// eight rows at a time keep that to eight sequential streams (16 read
// 9.5-13 GB/s where 8 read 14-16.6, Llama-2-7B's shape).
const directRows = 8

// directMaxGroup is the most query heads per KV head that take the direct
// path (each reconverts its KV head's rows).
const directMaxGroup = 8

// cachedRows returns the cached keys (or values) of positions p..p+n-1,
// whole rows, none past p's block.
func cachedRows(v *kvcache.View, p, n int, keys bool) []uint16 {
	b, i := p/v.BlockLen, p%v.BlockLen
	n = min(n, v.BlockLen-i)
	if keys {
		w := v.KRowBytes / 2
		return v.KF16(b)[i*w:][:n*w]
	}
	w := v.VRowBytes / 2
	return v.VF16(b)[i*w:][:n*w]
}

// tileStepF16 is tileStep for every query head (fastAttn.direct) over
// cached positions p0..p0+rows-1 of an f16 cache, the rows read where
// they are cached, eight at a time. Same arithmetic as tileStep on the
// widened rows, so the same bits (the value rows after the first call
// take alpha 1). With GQA the kernels read one KV head's short slice of
// the rows at a time, too little for the hardware prefetchers; each call
// asks for the next eight rows (all their KV heads, in address order)
// while it computes: the keys and values of this tile, then the first
// keys of the next tile, whose length is next. The kernels spread those
// requests over their passes over the heads: asked for at once before
// each call, 64 lines or more, they stalled the kernels until the first
// came back, and the cache was read at 7.5-9 GB/s (TinyLlama's shape,
// AMD Zen4, BenchmarkAttendSplitLayers).
func (j *attnJob) tileStepF16(sc *fastScratch, v *kvcache.View, p0, rows, next int, q, m, l, acc []float32) {
	c, f := j.c, j.fast
	hd, hdv := c.HeadDim, c.HeadDimV
	kvDim, vDim := c.KVDim(), c.VDim()
	// One call over every head; each KV head's query heads (group of
	// them) share its slice of the rows.
	group := c.Heads / c.KVHeads
	gqa := group > 1
	for r := 0; r < rows; {
		b, i := (p0+r)/v.BlockLen, (p0+r)%v.BlockLen
		cnt := min(v.BlockLen-i, rows-r, directRows)
		var pf []uint16
		if gqa { // the next rows' keys, or the first rows' values
			if r+cnt < rows {
				pf = cachedRows(v, p0+r+cnt, min(rows-r-cnt, directRows), true)
			} else {
				pf = cachedRows(v, p0, min(rows, directRows), false)
			}
		}
		kernels.AttnScoresF16(sc.s[r:], f.tile, q, v.KF16(b)[i*kvDim:], kvDim, hd, group, c.Heads, cnt, hd, pf)
		r += cnt
	}
	j.capScores(sc.s, f.tile, c.Heads, rows)
	kernels.AttnSoftmax(sc.s, f.tile, c.Heads, rows, j.fastScale(), m, l, sc.alpha)
	alpha := sc.alpha
	for r := 0; r < rows; {
		b, i := (p0+r)/v.BlockLen, (p0+r)%v.BlockLen
		cnt := min(v.BlockLen-i, rows-r, directRows)
		var pf []uint16
		if gqa { // the next rows' values, or the next tile's first keys
			if r+cnt < rows {
				pf = cachedRows(v, p0+r+cnt, min(rows-r-cnt, directRows), false)
			} else if next > 0 {
				pf = cachedRows(v, p0+rows, min(next, directRows), true)
			}
		}
		kernels.AttnAccumVF16(acc, sc.s[r:], f.tile, v.VF16(b)[i*vDim:], vDim, hdv, group, c.Heads, cnt, hdv, alpha, pf)
		alpha = sc.ones
		r += cnt
	}
}
