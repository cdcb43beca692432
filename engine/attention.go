package engine

import (
	"math"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
)

// attnJob is causal multi-head attention for a batch of query tokens, each
// over the cache blocks of its own sequence. Work items are (token, head)
// pairs so the pool can split them.
//
// The arithmetic follows llama.cpp's CPU flash-attention kernel for
// batches of fewer than 64 rows (its one-row kernel): the query is
// converted to the K storage's dot-product type (f16 for an f16 cache,
// Q8_0 for q8_0), the softmax is online (one pass over the cache blocks,
// no score buffer), and with an f16 cache the weighted sum of V is
// accumulated in f16. Matching it is what
// keeps gollm's logits within 1e-6 of llama.cpp's on the test models, where
// every rounding difference is amplified.
//
// A pass of tiledAttnMinTokens or more takes llama.cpp's tiled kernel's
// arithmetic instead (attention_tiled.go), as llama.cpp does; under
// EvalBatch, a query over more than tiledAttnMinPositions and at most
// fastAttnMinPositions positions. A query over more than
// fastAttnMinPositions cached positions takes the fast path under
// EvalBatch, and in a smaller pass when it is the only token of its
// sequence there (takesFast: decode) (attention_fast.go,
// attention_split.go): f32
// arithmetic, each K/V tile widened once for all the query heads of its KV
// head, ~5-10x less time per position; its items are chosen among the
// (token, head) indexes the pool hands out.
type attnJob struct {
	c      *Config
	views  []kvcache.View // the layer's blocks, one view per sequence in the batch
	tokSeq []int          // per token: index into views
	tokPos []int          // per token: its position (it attends to [0, pos])
	q      []float32      // [ntok][Heads*HeadDim]
	out    []float32      // [ntok][Heads*HeadDimV]
	scale  float32        // score scale (1/sqrt(HeadDim), or 1 when the queries carry it)

	// softcap, when not 0, caps each scaled score s at softcap*tanh(s/softcap)
	// (gemma2), as llama.cpp's flash attention does: capScale is
	// scale/softcap, rounded once as there.
	softcap, capScale float32
	// window, when not 0, is a sliding window: the query at position p sees
	// the keys of positions (p-window, p] only (llama.cpp's standard SWA
	// mask). The cache keeps every position; attention starts its loop at
	// the window's first one, which is the mask's result and reads no
	// more than the window.
	window int

	// Queries over more than fastMin positions take the fast path
	// (attention_fast.go): fastAttnMinPositions, tests change it.
	fastMin int
	fast    *fastAttn

	// tiled: the pass takes llama.cpp's tiled arithmetic (attendTiled),
	// set per pass by tiledFor; tiledMin is tiledAttnMinTokens (tests
	// change it). tiledPos: a batch-invariant pass over a cache the tiled
	// kernels read, whose queries over more than tiledAttnMinPositions and
	// at most fastMin positions take the tiled arithmetic.
	tiled, tiledPos bool
	tiledMin        int
	// rowsExact: a pass outside EvalBatch that does not take the tiled
	// arithmetic, whose tokens that have another token of their sequence
	// in it keep the one-row arithmetic at every depth (llama.cpp's kernel
	// for batches of 2-63 rows: a prompt's last few tokens, a chat turn);
	// a lone token (decode) takes the fast path past fastMin.
	rowsExact bool

	// Per-item scratch, sized for a full batch at load.
	q16   []uint16  // [item][HeadDim] query as f16 (f16 cache)
	qq    []byte    // [item][Q8_0 row of HeadDim] query as Q8_0 (q8_0 cache)
	acc16 []uint16  // [item][HeadDimV] f16 accumulator (f16 cache)
	acc32 []float32 // [item][HeadDimV] f32 accumulator (other caches); softmax factors (f16 cache)
	vtmp  []float32 // [item][HeadDimV] scores (f16 cache)
	// [item][3][exactChunk] attendF32Acc's scores, rescales and weights
	// (f32, q8_0 cache)
	rowExp []float32
}

func (j *attnJob) run(lo, hi int) {
	c := j.c
	group := c.Heads / c.KVHeads
	slot, fastHeads := -1, 0
	var sc *fastScratch
	for item := lo; item < hi; item++ {
		tok, h := item/c.Heads, item%c.Heads
		v := &j.views[j.tokSeq[tok]]
		n := j.tokPos[tok] + 1
		lo := j.windowStart(n)
		kvh := h / group
		if j.takesTiled(tok) {
			// Items of a block's first token and a KV head's first query
			// head serve the block's queries of that KV head.
			if b := tiledBlockTokens(group); h%group == 0 && j.startsTiledBlock(tok, b) {
				if sc == nil {
					slot, sc = j.fast.claim()
				}
				j.attendTiled(sc.tiled, j.tiledBlock(sc.tiled, tok, b), kvh, v)
			}
			continue
		}
		if j.takesFast(tok) {
			// The fast path serves several heads at once, from the item of
			// the first of them; the others have nothing left to do. A
			// few tokens (decode) split their positions instead, each
			// range served by an item spread over the token's heads.
			if len(j.tokPos) <= fastSplitTokens {
				splits, chunk := j.fast.splitPlan(n - lo)
				if every := c.Heads / splits; h%every == 0 && h/every < splits {
					if sc == nil {
						slot, sc = j.fast.claim()
					}
					j.attendSplit(sc, tok, h/every, splits, chunk, lo, n, v)
				}
				continue
			}
			if fastHeads == 0 {
				fastHeads = j.fastGroup(len(j.tokPos))
			}
			if h%group%fastHeads == 0 && !j.joinsBlock(tok) {
				if sc == nil {
					slot, sc = j.fast.claim()
				}
				j.attendFast(sc, j.fastBlockOf(sc, tok), h, min(fastHeads, group-h%group), lo, v)
			}
			continue
		}
		switch {
		case v.Type == ggml.F16 && item+3 < hi && h+3 < c.Heads && (h+3)/group == kvh:
			// Four query heads of one KV head: their rows are read (and
			// widened) once.
			j.attendF16(item, 4, v, lo, n, kvh)
			item += 3
		case v.Type == ggml.F16 && item+1 < hi && h+1 < c.Heads && (h+1)/group == kvh:
			j.attendF16(item, 2, v, lo, n, kvh)
			item++
		case v.Type == ggml.F16:
			j.attendF16(item, 1, v, lo, n, kvh)
		case v.Type == ggml.Q8_0 && item+1 < hi && h+1 < c.Heads && (h+1)/group == kvh:
			// Two query heads of one KV head: each row read once.
			j.attendF32Acc(item, 2, v, lo, n, kvh)
			item++
		default:
			j.attendF32Acc(item, 1, v, lo, n, kvh)
		}
	}
	if sc != nil {
		j.fast.release(slot)
	}
}

// attendF16 is llama.cpp's f16 path for heads items first..first+nh-1 (nh
// is 1, 2 or 4; several share their KV head): f16 query, f16 dot products and an
// f16 V accumulator scaled and fused-multiply-added in place. Each head's
// arithmetic is the same whether it runs alone or with others. It reads
// positions [lo, n).
func (j *attnJob) attendF16(first, nh int, v *kvcache.View, lo, n, kvh int) {
	hd, hdv := j.c.HeadDim, j.c.HeadDimV
	kvDim, vDim := j.c.KVDim(), j.c.VDim()
	// The f32 scratch of the other cache types holds this path's per-row
	// scores and softmax factors: up to chunk rows of a block at a time.
	chunk := min(max(hdv/2, 1), 64) // 64: the width of the newMax bit set
	var (
		q16, acc       [4][]uint16
		scores, ms, vs [4][]float32
		runMax, runSum [4]float32
	)
	for k := 0; k < nh; k++ {
		item := first + k
		q16[k] = j.q16[item*hd : (item+1)*hd]
		kernels.F32ToF16(q16[k], j.q[item*hd:(item+1)*hd])
		acc[k] = j.acc16[item*hdv : (item+1)*hdv]
		clear(acc[k])
		scores[k] = j.vtmp[item*hdv : (item+1)*hdv]
		ms[k], vs[k] = j.acc32[item*hdv:item*hdv+hdv/2], j.acc32[item*hdv+hdv/2:(item+1)*hdv]
		runMax[k] = float32(math.Inf(-1))
	}
	for b := lo / v.BlockLen; b < len(v.K); b++ {
		rows := min(v.BlockLen, n-b*v.BlockLen)
		if rows <= 0 {
			break
		}
		kb, vb := v.KF16(b), v.VF16(b)
		for i0 := max(lo-b*v.BlockLen, 0); i0 < rows; i0 += chunk {
			m := min(chunk, rows-i0)
			krows, vrows := kb[i0*kvDim+kvh*hd:], vb[i0*vDim+kvh*hdv:]
			// All scores of the rows first (each one ggml_vec_dot_f16), then
			// the online-softmax steps in row order: the same arithmetic as
			// one row at a time.
			if nh == 1 {
				kernels.DotF16Rows(scores[0][:m], q16[0], krows, kvDim)
			}
			for k := 0; k+1 < nh; k += 2 {
				kernels.DotF16Rows2(scores[k][:m], scores[k+1][:m], q16[k], q16[k+1], krows, kvDim)
			}
			j.softmaxFactors(nh, m, &scores, &ms, &vs, &runMax, &runSum)
			switch nh {
			case 4:
				kernels.MadF16Rows4(acc, vrows, vDim, [4][]float32{ms[0][:m], ms[1][:m], ms[2][:m], ms[3][:m]},
					[4][]float32{vs[0][:m], vs[1][:m], vs[2][:m], vs[3][:m]})
			case 2:
				kernels.MadF16Rows2(acc[0], acc[1], vrows, vDim, ms[0][:m], vs[0][:m], ms[1][:m], vs[1][:m])
			default:
				kernels.MadF16Rows(acc[0], vrows, vDim, ms[0][:m], vs[0][:m])
			}
		}
	}
	for k := 0; k < nh; k++ {
		item := first + k
		out := j.out[item*hdv : (item+1)*hdv]
		kernels.F16ToF32(out, acc[k])
		kernels.Scale(out, safeInv(runSum[k]))
	}
}

// softmaxFactors turns the scores of m rows (at most 64) of nh heads into
// the online-softmax factors of their rows and updates the heads' running
// maxima and sums. The running maximum along the rows decides every
// exponent argument up front (a new maximum rescales what was accumulated
// under the old one: ms = e^(old-new); otherwise the row's weight is vs =
// e^(s-max)), so the exponentials go in one batch; the sums then run in
// row order, the heads' chains side by side (an add's latency per row
// each, overlapped).
func (j *attnJob) softmaxFactors(nh, m int, scores, ms, vs *[4][]float32, runMax, runSum *[4]float32) {
	var newMax [4]uint64 // bit i: row i raised the head's maximum
	for k := 0; k < nh; k++ {
		newMax[k], runMax[k] = j.softmaxArgs(scores[k][:m], ms[k][:m], runMax[k])
		kernels.ExpfN(vs[k][:m], ms[k][:m])
	}
	switch nh {
	case 4:
		s0, s1, s2, s3 := runSum[0], runSum[1], runSum[2], runSum[3]
		for i := 0; i < m; i++ {
			s0 = softmaxSum(newMax[0], i, ms[0], vs[0], s0)
			s1 = softmaxSum(newMax[1], i, ms[1], vs[1], s1)
			s2 = softmaxSum(newMax[2], i, ms[2], vs[2], s2)
			s3 = softmaxSum(newMax[3], i, ms[3], vs[3], s3)
		}
		runSum[0], runSum[1], runSum[2], runSum[3] = s0, s1, s2, s3
	case 2:
		s0, s1 := runSum[0], runSum[1]
		for i := 0; i < m; i++ {
			s0 = softmaxSum(newMax[0], i, ms[0], vs[0], s0)
			s1 = softmaxSum(newMax[1], i, ms[1], vs[1], s1)
		}
		runSum[0], runSum[1] = s0, s1
	default:
		s0 := runSum[0]
		for i := 0; i < m; i++ {
			s0 = softmaxSum(newMax[0], i, ms[0], vs[0], s0)
		}
		runSum[0] = s0
	}
}

// softmaxArgs writes the exponent argument of each row's factor into ms
// and returns the rows that raised the running maximum (bit i) and the
// new maximum.
func (j *attnJob) softmaxArgs(scores, ms []float32, runMax float32) (uint64, float32) {
	var newMax uint64
	ms = ms[:len(scores)]
	for i, sc := range scores {
		s := sc * j.scale
		if j.softcap != 0 {
			s = j.softcap * kernels.Tanhf(sc*j.capScale)
		}
		if s > runMax {
			ms[i] = runMax - s
			runMax = s
			newMax |= 1 << i
		} else {
			ms[i] = s - runMax
		}
	}
	return newMax, runMax
}

// softmaxSum turns row i's exponential (in vs) into its factors and adds
// them to the running sum s.
func softmaxSum(newMax uint64, i int, ms, vs []float32, s float32) float32 {
	if newMax&(1<<i) != 0 {
		ms[i] = vs[i]
		vs[i] = 1
		return fma32(s, ms[i], 1)
	}
	// fma32(s, 1, vs[i]) is the float32 sum (a float64 sum of two float32
	// rounds to float32 as one rounding would): the common row costs an
	// add, not a dependent chain of two conversions and a float64
	// multiply-add.
	ms[i] = 1
	return s + vs[i]
}

// exactChunk is the most cached rows attendF32Acc scores before it
// exponentiates their softmax factors together (kernels.ExpfN, the same
// bits as one Expf per row: the scalar Expf took 20% of a q8_0 cache's
// prompt time at depth).
const exactChunk = 16

// attendF32Acc serves the f32 and q8_0 caches (llama.cpp's VKQ32 path)
// for nh query heads first.. of KV head kvh (1, or 2 over a q8_0 cache),
// over positions [lo, n): scores in the K storage's dot-product type (f32,
// or Q8_0 against the query quantized to Q8_0), V accumulated in f32.
// Each row's online-softmax step is llama.cpp's: a score above the running
// maximum rescales the accumulator by e^(old max - score) and adds its row
// with weight 1, any other adds its row with weight e^(score - max). A
// chunk of rows is scored first, its steps found as attendF16's
// (softmaxArgs, softmaxSum), then its value rows added; over a q8_0 cache
// the row kernels take the chunk (kernels.VecDotQ8_0Rows, AxpyQ8_0Rows),
// with two heads reading each row once for both. Each head's bits are the
// same whether it runs alone or not.
func (j *attnJob) attendF32Acc(first, nh int, v *kvcache.View, lo, n, kvh int) {
	hd, hdv := j.c.HeadDim, j.c.HeadDimV
	q8 := v.Type == ggml.Q8_0
	kHead, vHead := hd*4, hdv*4 // bytes of one head in a row
	if q8 {
		kHead, vHead = hd/32*34, hdv/32*34 // whole blocks (checked at load)
	}
	var (
		q, acc, sc, ms, vs [2][]float32
		qq                 [2][]byte
		newMax             [2]uint64
		runMax, runSum     [2]float32
	)
	for k := 0; k < nh; k++ {
		item := first + k
		q[k] = j.q[item*hd : (item+1)*hd]
		acc[k] = j.acc32[item*hdv : (item+1)*hdv]
		clear(acc[k])
		if q8 {
			qq[k] = j.qq[item*kHead : (item+1)*kHead]
			kernels.QuantizeRow(ggml.Q8_0, q[k], qq[k])
		}
		rf := j.rowExp[item*3*exactChunk : (item+1)*3*exactChunk]
		sc[k], ms[k], vs[k] = rf[:exactChunk], rf[exactChunk:2*exactChunk], rf[2*exactChunk:]
		runMax[k] = float32(math.Inf(-1))
	}
	for b := lo / v.BlockLen; b < len(v.K); b++ {
		rows := min(v.BlockLen, n-b*v.BlockLen)
		if rows <= 0 {
			break
		}
		for i0 := max(lo-b*v.BlockLen, 0); i0 < rows; i0 += exactChunk {
			cnt := min(exactChunk, rows-i0)
			krows, vrows := v.K[b][i0*v.KRowBytes+kvh*kHead:], v.V[b][i0*v.VRowBytes+kvh*vHead:]
			switch {
			case q8 && nh == 2:
				kernels.VecDotQ8_0Rows2(sc[0][:cnt], sc[1][:cnt], hd, krows, v.KRowBytes, qq[0], qq[1])
			case q8:
				kernels.VecDotQ8_0Rows(sc[0][:cnt], hd, krows, v.KRowBytes, qq[0])
			default:
				for r := range cnt {
					sc[0][r] = kernels.Dot(q[0], bytesAsF32(krows[r*v.KRowBytes:][:kHead]))
				}
			}
			for k := 0; k < nh; k++ {
				newMax[k], runMax[k] = j.softmaxArgs(sc[k][:cnt], ms[k][:cnt], runMax[k])
				kernels.ExpfN(vs[k][:cnt], ms[k][:cnt])
				for r := range cnt {
					runSum[k] = softmaxSum(newMax[k], r, ms[k], vs[k], runSum[k])
				}
			}
			switch {
			case q8 && nh == 2:
				kernels.AxpyQ8_0Rows2(acc[0], acc[1], vrows, v.VRowBytes, ms[0][:cnt], vs[0][:cnt], ms[1][:cnt], vs[1][:cnt])
			case q8:
				kernels.AxpyQ8_0Rows(acc[0], vrows, v.VRowBytes, ms[0][:cnt], vs[0][:cnt])
			default:
				for r := range cnt {
					if ms[0][r] != 1 {
						kernels.Scale(acc[0], ms[0][r])
					}
					kernels.Axpy(acc[0], vs[0][r], bytesAsF32(vrows[r*v.VRowBytes:][:vHead]))
				}
			}
		}
	}
	for k := 0; k < nh; k++ {
		out := j.out[(first+k)*hdv : (first+k+1)*hdv]
		copy(out, acc[k])
		kernels.Scale(out, safeInv(runSum[k]))
	}
}

// windowStart is the first position a query over positions [0, n) sees.
func (j *attnJob) windowStart(n int) int {
	if j.window > 0 && n > j.window {
		return n - j.window
	}
	return 0
}

// fastScale is the scale the fast path's softmax applies to its scores:
// with a soft-cap they are capped (and scaled) before it.
func (j *attnJob) fastScale() float32 {
	if j.softcap != 0 {
		return 1
	}
	return j.scale
}

// capScores soft-caps the raw scores of nh heads (stride apart, rows each)
// in place, as the exact path does one at a time.
func (j *attnJob) capScores(s []float32, stride, nh, rows int) {
	if j.softcap == 0 {
		return
	}
	for g := 0; g < nh; g++ {
		for r, x := range s[g*stride : g*stride+rows] {
			s[g*stride+r] = j.softcap * kernels.Tanhf(x*j.capScale)
		}
	}
}

func safeInv(s float32) float32 {
	if s == 0 {
		return 0
	}
	return 1 / s
}

// fma32 is a float32 fused multiply-add (a*b+c rounded once).
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }
