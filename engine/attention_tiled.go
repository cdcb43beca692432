package engine

import (
	"math"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
)

// tiledAttnMinTokens is the pass size from which attention takes
// llama.cpp's tiled arithmetic (attendTiled): llama.cpp's CPU flash
// attention runs its tiled kernel for a batch of at least GGML_FA_TILE_Q
// (64) query rows over an f16 or f32 cache, and its one-row f16 kernel
// (attendF16's arithmetic) for smaller batches. A prompt's tokens thus get
// llama.cpp's logits whatever its length, not only under 64 tokens.
const tiledAttnMinTokens = 64

// tiledAttnMinPositions: under EvalBatch, whose tokens choose their
// arithmetic by position only (a request's logits must not depend on what
// shares its passes), queries over more than this many positions and at
// most fastAttnMinPositions take the tiled arithmetic: prompt chunks there
// get llama.cpp's prompt arithmetic, and the one-row path's ~43 ns a head
// and position (an AMD EPYC Zen3) is left to the first 64, where short
// conversations keep llama.cpp's decode arithmetic.
const tiledAttnMinPositions = 64

// tiledQueries is the queries one attendTiled item serves at most (a
// block of tokens times the query heads of one KV head): every widened
// K/V tile serves them all.
const tiledQueries = 64

// tiledBlockTokens is the tokens of one attendTiled block for GQA groups
// of group query heads.
func tiledBlockTokens(group int) int { return max(1, tiledQueries/group) }

// tiledScratch is one worker's scratch for attendTiled: the block's
// queries or outputs as rows (rows[q*dim+d]) and its queries transposed
// (qt[d*nq+q]), a tile's scores or weights
// (s[key*nq+q]), its K and V rows widened to f32 (row layout), the
// accumulators (acc[d*nq+q]), and per query the running maximum and sum,
// the tile's rescale factor and the range of the tile's keys it sees.
type tiledScratch struct {
	rows, qt, s, k, v, acc []float32
	m, l, ms               []float32
	first, last            []int32
	toks                   []int
}

func newTiledScratch(c *Config) *tiledScratch {
	group := max(c.Heads/max(c.KVHeads, 1), 1)
	nq := (tiledBlockTokens(group)*group + 7) &^ 7
	t := kernels.AttnTileKeys
	return &tiledScratch{
		rows: make([]float32, nq*max(c.HeadDim, c.HeadDimV)),
		qt:   make([]float32, nq*c.HeadDim), s: make([]float32, t*nq),
		k: make([]float32, t*c.HeadDim), v: make([]float32, t*c.HeadDimV),
		acc: make([]float32, nq*c.HeadDimV),
		m:   make([]float32, nq), l: make([]float32, nq), ms: make([]float32, nq),
		first: make([]int32, nq), last: make([]int32, nq),
		toks: make([]int, 0, tiledBlockTokens(group)),
	}
}

// tiledFor reports whether a pass of ntok tokens over views takes the
// tiled arithmetic (llama.cpp's condition; not in batch-invariant passes,
// where a token's arithmetic depends only on its position: tiledPos
// reports whether their tokens may take it by position).
func tiledFor(c *Config, ntok int, invariant bool, views []kvcache.View, minTokens int) (tiled, tiledPos bool) {
	if c.HeadDimV%8 != 0 || len(views) == 0 {
		return false, false
	}
	if t := views[0].Type; t != ggml.F16 && t != ggml.F32 {
		return false, false
	}
	return ntok >= minTokens && !invariant, invariant
}

// takesTiled reports whether token t's attention takes the tiled
// arithmetic.
func (j *attnJob) takesTiled(t int) bool {
	if j.tiled {
		return true
	}
	if !j.tiledPos {
		return false
	}
	lo, n, _ := j.fastSpan(t)
	return n-lo > tiledAttnMinPositions && n-lo <= j.fastMin
}

// startsTiledBlock reports whether token tok (which takes the tiled
// arithmetic) starts an attendTiled block: blocks are runs of consecutive
// tokens of one sequence that take it, cut at multiples of
// tiledBlockTokens.
func (j *attnJob) startsTiledBlock(tok, b int) bool {
	return tok%b == 0 || j.tokSeq[tok-1] != j.tokSeq[tok] || !j.takesTiled(tok-1)
}

// tiledBlock returns the block token tok starts (in sc.toks).
func (j *attnJob) tiledBlock(sc *tiledScratch, tok, b int) []int {
	toks := append(sc.toks[:0], tok)
	for t := tok + 1; t < min(tok-tok%b+b, len(j.tokPos)) && j.tokSeq[t] == j.tokSeq[tok] && j.takesTiled(t); t++ {
		toks = append(toks, t)
	}
	return toks
}

// attendTiled is attention for the query heads of KV head kvh of the
// tokens toks (consecutive tokens of one sequence) in llama.cpp's tiled
// arithmetic (kernels/attn_tiled.go): tiles of kernels.AttnTileKeys cached
// positions from position 0, each widened to f32 once for all the block's
// queries.
func (j *attnJob) attendTiled(sc *tiledScratch, toks []int, kvh int, v *kvcache.View) {
	c := j.c
	group := c.Heads / c.KVHeads
	hd, hdv := c.HeadDim, c.HeadDimV
	nq0 := len(toks) * group
	nq := (nq0 + 7) &^ 7
	qt, acc := sc.qt[:nq*hd], sc.acc[:nq*hdv]
	lo, end := math.MaxInt, 0
	rows := sc.rows[:nq*hd]
	for b, tok := range toks {
		// The token's query heads of KV head kvh: group rows in a row.
		copy(rows[b*group*hd:(b+1)*group*hd], j.q[(tok*c.Heads+kvh*group)*hd:])
		n := j.tokPos[tok] + 1
		lo, end = min(lo, j.windowStart(n)), max(end, n)
	}
	clear(rows[nq0*hd:]) // padding lanes: zero queries
	kernels.TransposeF32(qt, rows, nq, hd)
	clear(acc)
	for q := 0; q < nq; q++ {
		sc.m[q], sc.l[q] = float32(math.Inf(-1)), 0
	}
	scale := j.scale
	if j.softcap != 0 {
		scale = j.capScale
	}
	t := kernels.AttnTileKeys
	for t0 := lo / t * t; t0 < end; t0 += t {
		keys := min(t, end-t0)
		for q := 0; q < nq; q++ {
			sc.first[q], sc.last[q] = 0, -1
		}
		for b, tok := range toks {
			n := j.tokPos[tok] + 1
			first, last := int32(max(j.windowStart(n)-t0, 0)), int32(n-1-t0)
			for g := 0; g < group; g++ {
				sc.first[b*group+g], sc.last[b*group+g] = first, last
			}
		}
		j.widenTile(sc, v, t0, keys, kvh)
		j.prefetchRows(v, t0+t, min(t0+2*t, end), kvh, 1)
		s := sc.s[:t*nq] // the rows past keys are the kernels' scratch
		kernels.AttnTileQK(s, qt, nq, sc.k, hd, keys, hd, scale)
		if j.softcap != 0 {
			for i, x := range s[:keys*nq] {
				s[i] = kernels.Tanhf(x) * j.softcap
			}
		}
		kernels.AttnTileSoftmax(s, nq, keys, sc.first[:nq], sc.last[:nq], sc.m, sc.l, sc.ms)
		kernels.AttnTileAccV(acc, nq, s, sc.v, hdv, keys, hdv, sc.ms)
	}
	// The outputs: the accumulators times 1/S (llama.cpp multiplies by
	// the rounded inverse), as rows.
	for q := 0; q < nq; q++ {
		sc.ms[q] = safeInv(sc.l[q])
	}
	kernels.AttnTileAccV(acc, nq, nil, nil, 0, 0, hdv, sc.ms)
	out := sc.rows[:nq*hdv]
	kernels.TransposeF32(out, acc, hdv, nq)
	for b, tok := range toks {
		copy(j.out[(tok*c.Heads+kvh*group)*hdv:][:group*hdv], out[b*group*hdv:])
	}
}

// widenTile writes the K and V rows of positions [t0, t0+keys) of KV head
// kvh, widened to f32, into sc.k and sc.v (rows of HeadDim and HeadDimV).
func (j *attnJob) widenTile(sc *tiledScratch, v *kvcache.View, t0, keys, kvh int) {
	c := j.c
	hd, hdv := c.HeadDim, c.HeadDimV
	kvDim, vDim := c.KVDim(), c.VDim()
	for r := 0; r < keys; {
		b, i := (t0+r)/v.BlockLen, (t0+r)%v.BlockLen
		cnt := min(v.BlockLen-i, keys-r)
		kt, vt := sc.k[r*hd:], sc.v[r*hdv:]
		if v.Type == ggml.F16 {
			kernels.F16RowsToF32(kt, hd, v.KF16(b)[i*kvDim+kvh*hd:], kvDim, cnt, hd)
			kernels.F16RowsToF32(vt, hdv, v.VF16(b)[i*vDim+kvh*hdv:], vDim, cnt, hdv)
		} else {
			kb, vb := v.KF32(b), v.VF32(b)
			for n := 0; n < cnt; n++ {
				copy(kt[n*hd:(n+1)*hd], kb[(i+n)*kvDim+kvh*hd:])
				copy(vt[n*hdv:(n+1)*hdv], vb[(i+n)*vDim+kvh*hdv:])
			}
		}
		r += cnt
	}
}
