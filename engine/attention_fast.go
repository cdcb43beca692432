package engine

import (
	"math"
	"runtime"
	"sync/atomic"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
)

// fastAttnMinPositions is the number of cached positions past which a
// lone query of its sequence (decode) takes the fast attention path
// (attendFast, attendSplit) instead of llama.cpp's one-row f16 arithmetic
// (see takesFast and EvalBatch's rule). Beyond it the one-row path's
// per-row f16 rounding costs ~4-5x the fast path's time per position, and
// llama.cpp's own decode changes kernels there: once its cache view holds
// 512 cells (it grows in steps of 256) it splits them over its threads and
// merges the parts, which no thread-independent path matches.
const fastAttnMinPositions = 256

// Shape of the fast path's work.
const (
	// fastMaxHeads bounds the query heads one item serves (the scratch
	// holds their queries, scores and accumulators next to the K/V tile).
	fastMaxHeads = 8
	// fastMinItems: in a pass with fewer (token, KV head) pairs than this
	// (decode of a model with few KV heads), a KV head's query heads are
	// split over several items so every thread gets work.
	fastMinItems = 4
	// fastTileFloats is the f32 budget of one K tile and one V tile
	// together (32 KiB: 64 rows of head dim 64, 32 of 128). Tiles of 64
	// rows rather than 32 made long-context decode attention 12% faster
	// on an AMD EPYC Zen3 (BenchmarkAttendSplitLayers, 8.3 -> 7.3 ms a
	// token; TinyLlama Q4_0 tg64 at depth 2048 +9%, prefill there
	// unchanged): half the tile steps, longer runs of cache rows per
	// widening; 128 rows gained nothing more.
	fastTileFloats = 8192
	// fastMaxSlots bounds the scratch slots (concurrent workers).
	fastMaxSlots = 64
	// fastBlock is the most tokens of a pass one attendFast item serves:
	// a block of consecutive tokens of one sequence shares every widened
	// tile (prefill over a long context reads and widens each cached row
	// once per block instead of once per token).
	fastBlock = 8
	// fastChunkFloats is the f32 budget of the K and V tiles of the KV
	// heads split decode widens at once (128 KiB: four heads of 64 for
	// TinyLlama, in L2).
	fastChunkFloats = 32768
)

// fastAttn is the fast path's shape and its per-worker scratch. A worker
// claims a slot for the span of one pool chunk; slots for as many workers
// as the machine has CPUs are allocated at load, more (a pool with more
// threads than CPUs) on their first use.
type fastAttn struct {
	hdp, hdvp int // head sizes rounded up to 8 (zero padding)
	tile      int // cached rows per tile, a multiple of 8
	heads     int // query heads per tile step at most
	allHeads  int
	// kvChunk is the KV heads split decode widens at once (the scratch
	// holds a K and a V tile of each), kTile and vTile the floats of one
	// head's tiles.
	kvChunk, kTile, vTile int
	// direct: split decode over an f16 cache reads the rows straight from
	// it (tileStepF16) instead of widening tiles; set for models with at
	// most directMaxGroup query heads per KV head and head sizes that are
	// multiples of 8.
	direct bool

	// Split decode (attention_split.go): per token of a pass of at most
	// fastSplitTokens, fastSplits partial slots and the number of its
	// ranges done.
	part []float32
	done []atomic.Int32

	busy  atomic.Uint64 // bit i: slot i is claimed
	slots [fastMaxSlots]*fastScratch
	cfg   *Config // for the slots' tiled scratch
}

// fastScratch is one worker's scratch: the zero-padded queries when the
// head size needs padding (of every head for split decode, of each token
// of an attendFast block), the f32
// accumulators, the scores of a tile and the tile's K rows (in the
// kernels' K tile layout) and V rows widened to f32, each row
// zero-padded to hdp/hdvp (the padding is never written): kvChunk KV
// heads' tiles, kTile and vTile floats apart.
type fastScratch struct {
	q, acc, s, k, v []float32
	m, l, alpha     []float32 // online-softmax state per head
	ones            []float32 // alpha 1 for the later row segments of a direct tile step

	// attendFast's per-range partials: [token of the block][range][head]
	// maximum and sum, [token][range][head][hdvp] accumulator.
	pm, pl, pacc []float32
	toks         [fastBlock]int // attendFast's block

	tiled *tiledScratch // attendTiled's
}

func newFastAttn(c *Config, batch int) *fastAttn {
	f := &fastAttn{
		hdp:      (c.HeadDim + 7) &^ 7,
		hdvp:     (c.HeadDimV + 7) &^ 7,
		heads:    min(c.Heads/max(c.KVHeads, 1), fastMaxHeads),
		allHeads: c.Heads,
		cfg:      c,
	}
	f.tile = min(max(fastTileFloats/(f.hdp+f.hdvp), 8), 64) &^ 7
	f.kTile, f.vTile = f.tile*f.hdp, f.tile*f.hdvp
	f.kvChunk = min(max(fastChunkFloats/(f.kTile+f.vTile), 1), max(c.KVHeads, 1))
	f.direct = c.Heads <= directMaxGroup*c.KVHeads && f.hdp == c.HeadDim && f.hdvp == c.HeadDimV
	splitTokens := min(batch, fastSplitTokens)
	f.part = make([]float32, splitTokens*fastSplits*c.Heads*(f.hdvp+2))
	f.done = make([]atomic.Int32, splitTokens)
	for i := 0; i < min(runtime.NumCPU(), fastMaxSlots); i++ {
		f.slots[i] = f.newScratch()
	}
	return f
}

func (f *fastAttn) newScratch() *fastScratch {
	h, t := f.heads, f.tile
	hs := h // heads of one tile step: all of them for direct split decode
	if f.direct {
		hs = max(h, f.allHeads)
	}
	sc := &fastScratch{
		q: make([]float32, max(f.allHeads, fastBlock*h)*f.hdp), acc: make([]float32, h*f.hdvp), s: make([]float32, hs*t),
		k: make([]float32, f.kvChunk*f.kTile), v: make([]float32, f.kvChunk*f.vTile),
		m: make([]float32, h), l: make([]float32, h), alpha: make([]float32, hs),
		ones: make([]float32, hs),
		pm:   make([]float32, fastBlock*fastSplits*h), pl: make([]float32, fastBlock*fastSplits*h),
		pacc: make([]float32, fastBlock*fastSplits*h*f.hdvp),

		tiled: newTiledScratch(f.cfg),
	}
	for i := range sc.ones {
		sc.ones[i] = 1
	}
	return sc
}

// claim returns a free slot and its index; with every slot taken (more
// workers than fastMaxSlots) it waits for one.
func (f *fastAttn) claim() (int, *fastScratch) {
	i := kernels.ClaimSlot(&f.busy)
	if f.slots[i] == nil {
		f.slots[i] = f.newScratch() // only the claimer touches slot i
	}
	return i, f.slots[i]
}

func (f *fastAttn) release(i int) { kernels.ReleaseSlot(&f.busy, i) }

// fastGroup returns how many query heads of a KV head one item serves in
// a pass of ntok tokens (in blocks of up to fastBlock).
func (j *attnJob) fastGroup(ntok int) int {
	group := j.c.Heads / j.c.KVHeads
	items := max((ntok+fastBlock-1)/fastBlock*j.c.KVHeads, 1)
	parts := min(max((fastMinItems+items-1)/items, (group+fastMaxHeads-1)/fastMaxHeads, 1), group)
	return (group + parts - 1) / parts
}

// attendFast is attention for query heads h0..h0+nh-1 (one KV head) of
// the tokens toks (at most fastBlock, of one sequence, with the same
// window start lo; token t attends to [lo, tokPos[t]+1)), in f32 with an
// online softmax per tile of cached rows: each tile's K and V rows are
// widened once and serve all nh heads of every token that reaches the
// tile (kernels/attn_fast.go). Its results differ from the exact path's
// by f16 rounding (~1e-3 relative).
//
// Each token's positions are cut into the ranges of split decode
// (splitPlan), each with its own softmax state, combined at the end by
// combineHead: the same arithmetic as attendSplit, so a token's result
// does not depend on how many tokens share its pass or its block. (The
// ranges are whole tiles from lo, so every token's tiles are the block's;
// a token stops at its own last position, the rows past it masked.)
func (j *attnJob) attendFast(sc *fastScratch, toks []int, h0, nh, lo int, v *kvcache.View) {
	c, f := j.c, j.fast
	hdv, hdvp, tile := c.HeadDimV, f.hdvp, f.tile
	kvh := h0 / (c.Heads / c.KVHeads)
	var ns, splits, chunks [fastBlock]int
	var qs [fastBlock][]float32
	end := lo
	for b, tok := range toks {
		ns[b] = j.tokPos[tok] + 1
		end = max(end, ns[b])
		splits[b], chunks[b] = f.splitPlan(ns[b] - lo)
		qs[b] = j.queries(sc, b, tok, h0, nh)
		for sp := 0; sp < splits[b]; sp++ {
			m, l, acc := sc.partial(f, b, sp, nh)
			for g := range m {
				m[g], l[g] = float32(math.Inf(-1)), 0
			}
			clear(acc)
		}
	}
	j.prefetchRows(v, lo, min(lo+tile, end), kvh, 1)
	for p0 := lo; p0 < end; p0 += tile {
		rows := min(tile, end-p0)
		for r := 0; r < rows; {
			b, i := (p0+r)/v.BlockLen, (p0+r)%v.BlockLen
			cnt := min(v.BlockLen-i, rows-r)
			j.widenRows(sc.k, sc.v, sc, v, b, i, cnt, kvh, r)
			r += cnt
		}
		j.prefetchRows(v, p0+tile, min(p0+2*tile, end), kvh, 1)
		for b := range toks {
			if p0 >= ns[b] {
				continue
			}
			sp := (p0 - lo) / chunks[b]
			to := min(lo+(sp+1)*chunks[b], ns[b])
			m, l, acc := sc.partial(f, b, sp, nh)
			j.tileStep(sc, sc.k[:f.kTile], sc.v[:f.vTile], qs[b], nh, min(tile, to-p0), m, l, acc)
		}
	}
	var ms, ls [fastSplits]float32
	var accs [fastSplits][]float32
	for b, tok := range toks {
		out := j.out[(tok*c.Heads+h0)*hdv : (tok*c.Heads+h0+nh)*hdv]
		for g := 0; g < nh; g++ {
			for sp := 0; sp < splits[b]; sp++ {
				m, l, acc := sc.partial(f, b, sp, nh)
				ms[sp], ls[sp], accs[sp] = m[g], l[g], acc[g*hdvp:g*hdvp+hdv]
			}
			j.combineHead(out[g*hdv:(g+1)*hdv], ms[:splits[b]], ls[:splits[b]], accs[:splits[b]])
		}
	}
}

// partial returns the softmax state of range sp of token b of an
// attendFast block: nh heads' maximum, sum and accumulator (hdvp apart).
func (sc *fastScratch) partial(f *fastAttn, b, sp, nh int) (m, l, acc []float32) {
	i := b*fastSplits + sp
	return sc.pm[i*f.heads:][:nh], sc.pl[i*f.heads:][:nh], sc.pacc[i*f.heads*f.hdvp:][:nh*f.hdvp]
}

// fastSpan returns token t's window start and number of positions, and
// whether its attention takes the fast path.
func (j *attnJob) fastSpan(t int) (lo, n int, fast bool) {
	n = j.tokPos[t] + 1
	lo = j.windowStart(n)
	return lo, n, j.takesFast(t)
}

// takesFast reports whether token t's attention takes the fast path: a
// query over more than fastMin positions, unless the pass keeps the
// one-row arithmetic for it (rowsExact and another token of its sequence
// in the pass).
func (j *attnJob) takesFast(t int) bool {
	n := j.tokPos[t] + 1
	if n-j.windowStart(n) <= j.fastMin {
		return false
	}
	if !j.rowsExact {
		return true
	}
	seq := j.tokSeq[t]
	return !(t > 0 && j.tokSeq[t-1] == seq || t+1 < len(j.tokSeq) && j.tokSeq[t+1] == seq)
}

// joinsBlock reports whether token t's fast attention is served by the
// item of its block's first token (t - t%fastBlock), in one attendFast
// call: both take the fast path, in the same sequence and window start.
func (j *attnJob) joinsBlock(t int) bool {
	first := t - t%fastBlock
	if first == t || j.tokSeq[first] != j.tokSeq[t] {
		return false
	}
	flo, _, ffast := j.fastSpan(first)
	tlo, _, tfast := j.fastSpan(t)
	return ffast && tfast && flo == tlo
}

// fastBlockOf returns the tokens the item of token tok serves with it
// (tok first), in sc.toks: the tokens of its block that join it, when tok
// is the block's first.
func (j *attnJob) fastBlockOf(sc *fastScratch, tok int) []int {
	toks := append(sc.toks[:0], tok)
	if tok%fastBlock == 0 {
		for t := tok + 1; t < min(tok+fastBlock, len(j.tokPos)); t++ {
			if j.joinsBlock(t) {
				toks = append(toks, t)
			}
		}
	}
	return toks
}

// queries returns the queries of heads h0..h0+nh-1 of token tok, hdp
// apart: in place when the head size is a multiple of 8, else copied into
// the scratch's zero padding, at slot b (the token's place in an
// attendFast block; 0 for split decode, which takes every head).
func (j *attnJob) queries(sc *fastScratch, b, tok, h0, nh int) []float32 {
	hd, hdp := j.c.HeadDim, j.fast.hdp
	q := j.q[(tok*j.c.Heads+h0)*hd : (tok*j.c.Heads+h0+nh)*hd]
	if hdp == hd {
		return q
	}
	dst := sc.q[b*j.fast.heads*hdp:][:nh*hdp]
	for g := 0; g < nh; g++ {
		copy(dst[g*hdp:g*hdp+hd], q[g*hd:(g+1)*hd])
	}
	return dst
}

// tileStep is one online-softmax step of nh <= f.heads query heads over
// the K and V tiles k and v (rows rows): q holds their queries (hdp
// apart), m, l and acc their running maximum, sum and accumulator.
func (j *attnJob) tileStep(sc *fastScratch, k, v, q []float32, nh, rows int, m, l, acc []float32) {
	f := j.fast
	kernels.AttnScores(sc.s, f.tile, q, k, nh, rows, f.hdp)
	j.capScores(sc.s, f.tile, nh, rows)
	kernels.AttnSoftmax(sc.s, f.tile, nh, rows, j.fastScale(), m, l, sc.alpha)
	kernels.AttnAccumV(acc, sc.s, f.tile, v, nh, rows, f.hdvp, sc.alpha)
}

// prefetchRows starts loading KV heads k0..k0+nk-1's K and V of positions
// [from, to) into the cache hierarchy: each cached row's slice of those
// heads (adjacent in the row), whatever the cache's type.
func (j *attnJob) prefetchRows(v *kvcache.View, from, to, k0, nk int) {
	kHead, vHead := v.KRowBytes/j.c.KVHeads, v.VRowBytes/j.c.KVHeads
	for p := from; p < to; {
		b, i := p/v.BlockLen, p%v.BlockLen
		cnt := min(v.BlockLen-i, to-p)
		kernels.AttnPrefetchBytes(v.K[b][i*v.KRowBytes+k0*kHead:], v.KRowBytes, cnt, nk*kHead)
		kernels.AttnPrefetchBytes(v.V[b][i*v.VRowBytes+k0*vHead:], v.VRowBytes, cnt, nk*vHead)
		p += cnt
	}
}

// widenRows writes rows i..i+cnt-1 of block b, KV head kvh, as rows
// r..r+cnt-1 of the K and V tiles kt and vTile.
func (j *attnJob) widenRows(kt, vTile []float32, sc *fastScratch, v *kvcache.View, b, i, cnt, kvh, r int) {
	c, f := j.c, j.fast
	hd, hdv := c.HeadDim, c.HeadDimV
	kvDim, vDim := c.KVDim(), c.VDim()
	vt := vTile[r*f.hdvp:]
	switch v.Type {
	case ggml.F16:
		kernels.AttnWidenK(kt, f.hdp, r, v.KF16(b)[i*kvDim+kvh*hd:], kvDim, cnt, hd)
		kernels.F16RowsToF32(vt, f.hdvp, v.VF16(b)[i*vDim+kvh*hdv:], vDim, cnt, hdv)
	case ggml.F32:
		kb, vb := v.KF32(b), v.VF32(b)
		for n := 0; n < cnt; n++ {
			kernels.AttnPutKRow(kt, f.hdp, r+n, kb[(i+n)*kvDim+kvh*hd:][:hd])
			copy(vt[n*f.hdvp:n*f.hdvp+hdv], vb[(i+n)*vDim+kvh*hdv:])
		}
	default: // Q8_0: whole blocks of 32 per head (checked at load)
		kHead, vHead := hd/32*34, hdv/32*34
		kernels.AttnDequantKHeadsQ8_0(kt, len(kt), f.hdp, r, v.K[b][i*v.KRowBytes+kvh*kHead:], v.KRowBytes, kHead, 1, cnt, hd)
		kernels.DequantizeQ8_0Heads(vt, len(vt), f.hdvp, v.V[b][i*v.VRowBytes+kvh*vHead:], v.VRowBytes, vHead, 1, cnt, hdv)
	}
}
