package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
	"github.com/gollm/gollm/quant"
)

// attnCase is a batch for attnJob over a real paged cache: three sequences
// (one a fork sharing the other's first blocks), several query tokens per
// sequence at positions below and above fastAttnMinPositions.
type attnCase struct {
	c      Config
	cache  *kvcache.Cache
	seqs   []kvcache.SeqID
	views  []kvcache.View
	tokSeq []int
	tokPos []int
	q      []float32
	scale  float32

	// window and softcap, when not 0: a sliding window and a score
	// soft-cap (attnJob's fields).
	window  int
	softcap float32
	tiled   bool // force the tiled arithmetic on every pass
	// tiledPos: the tiled arithmetic by position, as under EvalBatch
	tiledPos bool
	// rowsExact: the one-row arithmetic for tokens with a neighbour of
	// their sequence in the pass (attnJob.rowsExact)
	rowsExact bool
}

func newAttnCase(t *testing.T, r *rand.Rand, c Config, blockLen int, typ ggml.Type, spread float32) *attnCase {
	t.Helper()
	cache, err := kvcache.New(kvcache.Config{Layers: 1, KVDim: c.KVDim(), VDim: c.VDim(),
		BlockLen: blockLen, Type: typ, MaxPositions: 2048})
	if err != nil {
		t.Fatal(err)
	}
	k, v := make([]float32, c.KVDim()), make([]float32, c.VDim())
	fill := func(seq kvcache.SeqID, from, to int) {
		if err := cache.Reserve(seq, to-from); err != nil {
			t.Fatal(err)
		}
		for p := from; p < to; p++ {
			for i := range k {
				k[i] = float32(r.NormFloat64())
			}
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			cache.Put(0, seq, p, k, v)
		}
		cache.Commit(seq, to-from)
	}
	// A: 600 positions. B: a fork of A at 301 (inside a block), then 200
	// of its own. C: 270 positions of its own.
	a := cache.NewSeq()
	fill(a, 0, 301)
	b, err := cache.Fork(a)
	if err != nil {
		t.Fatal(err)
	}
	fill(a, 301, 600)
	fill(b, 301, 501)
	cc := cache.NewSeq()
	fill(cc, 0, 270)
	ac := &attnCase{c: c, cache: cache, seqs: []kvcache.SeqID{a, b, cc},
		scale: float32(1 / math.Sqrt(float64(c.HeadDim)))}
	// Query tokens: a prefill-like run of A's last positions, single tokens
	// elsewhere, on both sides of the threshold.
	for _, p := range []int{0, 1, 100, 255, 256, 257, 300, 596, 597, 598, 599} {
		ac.tokSeq, ac.tokPos = append(ac.tokSeq, 0), append(ac.tokPos, p)
	}
	for _, p := range []int{299, 301, 500} {
		ac.tokSeq, ac.tokPos = append(ac.tokSeq, 1), append(ac.tokPos, p)
	}
	ac.tokSeq, ac.tokPos = append(ac.tokSeq, 2), append(ac.tokPos, 269)
	ac.views = make([]kvcache.View, 3)
	for i, s := range ac.seqs {
		ac.cache.View(0, s, cache.Len(s), &ac.views[i])
	}
	ac.q = make([]float32, len(ac.tokPos)*c.QDim())
	for i := range ac.q {
		ac.q[i] = float32(r.NormFloat64()) * spread
	}
	return ac
}

// run computes the batch's attention with a fresh run state, serving
// queries over more than fastMin positions with the fast path, through
// pool (nil: one call over every item).
func (ac *attnCase) run(fastMin int, pool *kernels.Pool) []float32 {
	return ac.runBy(len(ac.tokPos), fastMin, pool)
}

// runBy is run with the tokens in passes of at most per tokens (passes of
// fastSplitTokens or fewer take the split decode path).
func (ac *attnCase) runBy(per, fastMin int, pool *kernels.Pool) []float32 {
	c := &ac.c
	s := newRunState(c, per)
	j := &s.attn
	out := make([]float32, len(ac.tokPos)*c.Heads*c.HeadDimV)
	for t0 := 0; t0 < len(ac.tokPos); t0 += per {
		t1 := min(t0+per, len(ac.tokPos))
		j.views, j.tokSeq, j.tokPos, j.scale = ac.views, ac.tokSeq[t0:t1], ac.tokPos[t0:t1], ac.scale
		j.q = ac.q[t0*c.QDim() : t1*c.QDim()]
		j.out = out[t0*c.Heads*c.HeadDimV : t1*c.Heads*c.HeadDimV]
		j.fastMin = fastMin
		j.window, j.softcap, j.tiled, j.tiledPos = ac.window, ac.softcap, ac.tiled, ac.tiledPos
		j.rowsExact = ac.rowsExact
		if ac.softcap != 0 {
			j.capScale = ac.scale / ac.softcap
		}
		items := (t1 - t0) * c.Heads
		if pool != nil {
			pool.For(items, j.run)
		} else {
			j.run(0, items)
		}
	}
	return out
}

// reference is attention in float64 over the cache's stored values.
func (ac *attnCase) reference() []float64 {
	c := &ac.c
	group := c.Heads / c.KVHeads
	out := make([]float64, len(ac.tokPos)*c.Heads*c.HeadDimV)
	for t, p := range ac.tokPos {
		v := &ac.views[ac.tokSeq[t]]
		for h := 0; h < c.Heads; h++ {
			kvh := h / group
			q := ac.q[(t*c.Heads+h)*c.HeadDim:][:c.HeadDim]
			w := make([]float64, p+1)
			mx := math.Inf(-1)
			lo := 0
			if ac.window > 0 {
				lo = max(p+1-ac.window, 0)
			}
			for i := lo; i < len(w); i++ {
				k := decodeRow(v.Type, v.KRow(i), c.KVDim())[kvh*c.HeadDim:][:c.HeadDim]
				for d := range q {
					w[i] += float64(q[d]) * k[d]
				}
				w[i] *= float64(ac.scale)
				if ac.softcap != 0 {
					w[i] = float64(ac.softcap) * math.Tanh(w[i]/float64(ac.softcap))
				}
				mx = math.Max(mx, w[i])
			}
			var sum float64
			o := out[(t*c.Heads+h)*c.HeadDimV:][:c.HeadDimV]
			for i := lo; i < len(w); i++ {
				w[i] = math.Exp(w[i] - mx)
				sum += w[i]
				vr := decodeRow(v.Type, v.VRow(i), c.VDim())[kvh*c.HeadDimV:][:c.HeadDimV]
				for d := range o {
					o[d] += w[i] * vr[d]
				}
			}
			for d := range o {
				o[d] /= sum
			}
		}
	}
	return out
}

func decodeRow(t ggml.Type, b []byte, n int) []float64 {
	out := make([]float64, n)
	switch t {
	case ggml.F16:
		for i := range out {
			out[i] = float64(quant.FP16ToFP32(uint16(b[2*i]) | uint16(b[2*i+1])<<8))
		}
	case ggml.F32:
		f := bytesAsF32(b)
		for i := range out {
			out[i] = float64(f[i])
		}
	default:
		f := make([]float32, n)
		dequantQ8_0(b, f)
		for i := range out {
			out[i] = float64(f[i])
		}
	}
	return out
}

// headErr is the largest difference of one (token, head) output relative to
// that output's largest magnitude, over every token whose query attends to
// more than minN positions.
func (ac *attnCase) headErr(got []float32, want func(i int) float64, minN int) (worst float64, at string) {
	c := &ac.c
	for t, p := range ac.tokPos {
		if p+1 <= minN {
			continue
		}
		for h := 0; h < c.Heads; h++ {
			base := (t*c.Heads + h) * c.HeadDimV
			var mag, diff float64
			for d := 0; d < c.HeadDimV; d++ {
				mag = math.Max(mag, math.Abs(want(base+d)))
				diff = math.Max(diff, math.Abs(float64(got[base+d])-want(base+d)))
			}
			if e := diff / mag; e > worst || math.IsNaN(e) {
				worst, at = e, fmt.Sprintf("token %d (pos %d) head %d", t, p, h)
			}
		}
	}
	return worst, at
}

// TestAttendFast compares the fast attention path (both its items: KV
// head groups, and split decode) with a float64 reference and with the
// exact (llama.cpp) path over a paged cache with shared blocks, several
// sequences in one batch, prefill-like runs of tokens,
// GQA ratios 1 to 12, head sizes with and without padding, HeadDimV !=
// HeadDim, and block sizes that do not divide the tile.
func TestAttendFast(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	shapes := []struct {
		heads, kvHeads, hd, hdv, block int
		typ                            ggml.Type
	}{
		{8, 2, 64, 64, 16, ggml.F16},   // TinyLlama's head size and GQA 4 (split decode: direct)
		{8, 1, 64, 64, 16, ggml.F16},   // GQA 8, one KV head (split decode: direct)
		{8, 2, 64, 64, 7, ggml.F16},    // blocks that cut groups of 8, GQA (direct, prefetched)
		{16, 1, 64, 64, 16, ggml.F16},  // GQA 16: split decode widens
		{32, 4, 64, 64, 16, ggml.F16},  // TinyLlama's shape
		{16, 8, 64, 64, 16, ggml.F16},  // more KV heads than attendFast widens at once
		{4, 4, 128, 128, 32, ggml.F16}, // no GQA: split decode reads the rows in place
		{4, 4, 64, 64, 7, ggml.F16},    // the same across blocks that cut groups of 8
		{6, 2, 80, 80, 7, ggml.F16},
		{12, 1, 100, 100, 16, ggml.F16}, // GQA 12 (> 8 heads per item), padded head
		{3, 3, 12, 20, 5, ggml.F16},     // odd sizes, HeadDimV != HeadDim
		{4, 2, 64, 32, 16, ggml.F16},
		{4, 2, 40, 72, 16, ggml.F32},
		{4, 2, 64, 64, 16, ggml.Q8_0},
		{16, 8, 64, 64, 16, ggml.Q8_0}, // split decode widens two chunks of KV heads
		{8, 8, 128, 128, 7, ggml.Q8_0}, // the same, blocks that cut the tiles' groups of 8
	}
	for _, sh := range shapes {
		c := Config{Heads: sh.heads, KVHeads: sh.kvHeads, HeadDim: sh.hd, HeadDimV: sh.hdv}
		for _, spread := range []float32{1, 4} {
			name := fmt.Sprintf("h%d_kv%d_d%d_dv%d_b%d_%v_x%v", sh.heads, sh.kvHeads, sh.hd, sh.hdv, sh.block, sh.typ, spread)
			t.Run(name, func(t *testing.T) {
				ac := newAttnCase(t, r, c, sh.block, sh.typ, spread)
				fast := ac.run(0, nil)
				ref := ac.reference()
				if e, at := ac.headErr(fast, func(i int) float64 { return ref[i] }, 0); e > 1e-4 || math.IsNaN(e) {
					t.Errorf("fast path vs float64: %.3g at %s", e, at)
				}
				// Split decode: one token per pass, and passes of three.
				for _, per := range []int{1, 3} {
					split := ac.runBy(per, 0, nil)
					if e, at := ac.headErr(split, func(i int) float64 { return ref[i] }, 0); e > 1e-4 || math.IsNaN(e) {
						t.Errorf("split decode (%d per pass) vs float64: %.3g at %s", per, e, at)
					}
					// A token's result does not depend on its pass: split
					// decode, blocks of fastBlock tokens in one pass
					// (fast), blocks cut short by passes of 10.
					if !slices.Equal(split, fast) {
						t.Errorf("split decode (%d per pass) and blocks differ", per)
					}
				}
				if got := ac.runBy(10, 0, nil); !slices.Equal(got, fast) {
					t.Errorf("passes of 10 tokens and one pass differ")
				}
				// The exact path rounds its accumulator to f16 after every
				// row: over hundreds of rows that is ~1e-2 of the output (of
				// a softmax-weighted mean of random rows, much smaller than
				// the rows). The two paths must differ by no more than that.
				exact := ac.run(math.MaxInt, nil)
				eExact, _ := ac.headErr(exact, func(i int) float64 { return ref[i] }, 0)
				e, at := ac.headErr(fast, func(i int) float64 { return float64(exact[i]) }, 0)
				if e > 1.05*eExact+2e-4 || (sh.typ == ggml.F16 && e > 2e-2) {
					t.Errorf("fast path vs exact path: %.3g at %s (exact path vs float64: %.3g)", e, at, eExact)
				}
				// The default threshold: the exact path's bits up to it.
				mixed := ac.run(fastAttnMinPositions, nil)
				for tk, p := range ac.tokPos {
					n := c.Heads * c.HeadDimV
					want := exact
					if p+1 > fastAttnMinPositions {
						want = fast
					}
					if !slices.Equal(mixed[tk*n:(tk+1)*n], want[tk*n:(tk+1)*n]) {
						t.Errorf("token at %d positions: default threshold changed the result", p+1)
					}
				}
			})
		}
	}
}

// TestAttendFastPool: split over a pool (any chunking, slots claimed
// concurrently, split decode's partials combined by whichever item ends
// last) the fast path gives the single call's bits.
func TestAttendFastPool(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	c := Config{Heads: 32, KVHeads: 4, HeadDim: 64, HeadDimV: 64}
	ac := newAttnCase(t, r, c, 16, ggml.F16, 1)
	want := ac.run(0, nil)
	wantSplit := ac.runBy(2, 0, nil)
	for _, threads := range []int{2, 3, 8} {
		pool := kernels.NewPool(threads)
		for range 3 {
			if got := ac.run(0, pool); !slices.Equal(got, want) {
				t.Errorf("%d threads: results differ from one call", threads)
			}
			if got := ac.runBy(2, 0, pool); !slices.Equal(got, wantSplit) {
				t.Errorf("%d threads, split decode: results differ from one call", threads)
			}
		}
		pool.Close()
	}
}

// TestAttendFastNoAlloc: the fast path allocates nothing per call.
func TestAttendFastNoAlloc(t *testing.T) {
	r := rand.New(rand.NewPCG(85, 86))
	for _, tc := range []struct {
		c   Config
		typ ggml.Type
	}{
		{Config{Heads: 16, KVHeads: 1, HeadDim: 64, HeadDimV: 64}, ggml.F16},  // split decode widens
		{Config{Heads: 8, KVHeads: 2, HeadDim: 64, HeadDimV: 64}, ggml.F16},   // direct, GQA
		{Config{Heads: 4, KVHeads: 4, HeadDim: 64, HeadDimV: 64}, ggml.F16},   // direct, no GQA
		{Config{Heads: 16, KVHeads: 8, HeadDim: 64, HeadDimV: 64}, ggml.Q8_0}, // dequantized in chunks, prefetched
	} {
		c := tc.c
		ac := newAttnCase(t, r, c, 16, tc.typ, 1)
		for _, per := range []int{len(ac.tokPos), 2} { // group and split items
			s := newRunState(&c, per)
			j := &s.attn
			j.views, j.tokSeq, j.tokPos, j.q, j.scale = ac.views, ac.tokSeq[:per], ac.tokPos[:per], ac.q, ac.scale
			j.out = make([]float32, per*c.Heads*c.HeadDimV)
			j.fastMin = 0
			if n := testing.AllocsPerRun(5, func() { j.run(0, per*c.Heads) }); n != 0 {
				t.Errorf("%v cache, %d heads, %d KV heads, %d tokens per pass: %v allocations per call", tc.typ, c.Heads, c.KVHeads, per, n)
			}
		}
	}
}

// decodeAttnBench sets up one decode token at position n-1 over an f16
// cache of layers layers and n random positions of shape c: the attention
// job (one layer's view in j.views, the query random, scale 0.125) and the
// views of every layer.
func decodeAttnBench(b testing.TB, c *Config, layers, n int, r *rand.Rand) (*attnJob, []kvcache.View) {
	return decodeAttnBenchType(b, c, layers, n, r, ggml.F16)
}

// decodeAttnBenchType is decodeAttnBench over a cache of type typ.
func decodeAttnBenchType(b testing.TB, c *Config, layers, n int, r *rand.Rand, typ ggml.Type) (*attnJob, []kvcache.View) {
	cache, err := kvcache.New(kvcache.Config{Layers: layers, KVDim: c.KVDim(), VDim: c.VDim(), Type: typ, MaxPositions: n})
	if err != nil {
		b.Fatal(err)
	}
	seq := cache.NewSeq()
	if err := cache.Reserve(seq, n); err != nil {
		b.Fatal(err)
	}
	k, v := make([]float32, c.KVDim()), make([]float32, c.VDim())
	for l := 0; l < layers; l++ {
		for p := 0; p < n; p++ {
			for i := range k {
				k[i], v[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			cache.Put(l, seq, p, k, v)
		}
	}
	cache.Commit(seq, n)
	views := make([]kvcache.View, layers)
	for l := range views {
		cache.View(l, seq, n, &views[l])
	}
	j := &newRunState(c, 1).attn
	j.views = views[:1]
	j.tokSeq, j.tokPos = []int{0}, []int{n - 1}
	j.q = make([]float32, c.QDim())
	for i := range j.q {
		j.q[i] = float32(r.NormFloat64())
	}
	j.out, j.scale = make([]float32, c.Heads*c.HeadDimV), 0.125
	return j, views
}

// BenchmarkAttendFast times decode attention of TinyLlama's shape (32
// query heads, 4 KV heads of 64) at 2048 cached positions, one thread:
// ns/headpos is the cost per (query head, cached position).
func BenchmarkAttendFast(b *testing.B) {
	c := Config{Heads: 32, KVHeads: 4, HeadDim: 64, HeadDimV: 64}
	const n = 2048
	j, _ := decodeAttnBench(b, &c, 1, n, rand.New(rand.NewPCG(87, 88)))
	for _, mode := range []struct {
		name string
		min  int
	}{{"fast", 0}, {"exact", math.MaxInt}} {
		b.Run(mode.name, func(b *testing.B) {
			j.fastMin = mode.min
			for b.Loop() {
				j.run(0, c.Heads)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*c.Heads), "ns/headpos")
		})
	}
}

// BenchmarkAttendSplitLayers times one decode token's attention over all
// layers at 2048 cached positions with the pool's threads, as long-context
// decode reads the cache (the split path): TinyLlama's shape (22 layers,
// 32 query heads, 4 KV heads of 64: 46 MB of f16 cache, beyond the L3 of
// the reference machines), Llama-2-7B's (32 heads of 128, no GQA; 8 of
// its 32 layers, 268 MB) and Llama-3-8B's (8 KV heads of 128; 16 of its
// 32 layers, 134 MB), Llama-3.2-1B's (8 KV heads of 64; its 16 layers,
// 67 MB) and Llama-3.2-3B's (groups of 3 heads: 8 KV heads of 128; its 28
// layers, 235 MB). GB/s is cache read per second.
func BenchmarkAttendSplitLayers(b *testing.B) {
	for _, sh := range []struct {
		name   string
		c      Config
		layers int
	}{
		{"tinyllama", Config{Heads: 32, KVHeads: 4, HeadDim: 64, HeadDimV: 64}, 22},
		{"llama2-7b", Config{Heads: 32, KVHeads: 32, HeadDim: 128, HeadDimV: 128}, 8},
		{"llama3-8b", Config{Heads: 32, KVHeads: 8, HeadDim: 128, HeadDimV: 128}, 16},
		{"llama3.2-1b", Config{Heads: 32, KVHeads: 8, HeadDim: 64, HeadDimV: 64}, 16},
		{"llama3.2-3b", Config{Heads: 24, KVHeads: 8, HeadDim: 128, HeadDimV: 128}, 28},
	} {
		for _, typ := range []ggml.Type{ggml.F16, ggml.Q8_0} {
			name := sh.name
			if typ != ggml.F16 {
				name += "/" + strings.ToLower(typ.String())
			}
			b.Run(name, func(b *testing.B) {
				c := sh.c
				const n = 2048
				j, views := decodeAttnBenchType(b, &c, sh.layers, n, rand.New(rand.NewPCG(89, 90)), typ)
				j.fastMin = 0
				pool := kernels.NewPool(0)
				defer pool.Close()
				for b.Loop() {
					for l := range views {
						j.views = views[l : l+1]
						pool.For(c.Heads, j.run)
					}
				}
				rb, _ := ggml.RowBytes(typ, int64(c.KVDim()+c.VDim()))
				bytes := float64(sh.layers * n * int(rb))
				b.ReportMetric(bytes*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GB/s")
			})
		}
	}
}

// TestAttendQ8Pairs: two query heads of one KV head served together over
// a q8_0 cache (attendF32Acc with the two-head kernels) get the bits each gets
// alone, for llama.cpp's one-row arithmetic.
func TestAttendQ8Pairs(t *testing.T) {
	r := rand.New(rand.NewPCG(103, 104))
	for _, c := range []Config{
		{Heads: 8, KVHeads: 2, HeadDim: 64, HeadDimV: 64},
		{Heads: 6, KVHeads: 3, HeadDim: 128, HeadDimV: 64},
		{Heads: 3, KVHeads: 1, HeadDim: 32, HeadDimV: 96}, // an odd head out of the pairs
	} {
		ac := newAttnCase(t, r, c, 7, ggml.Q8_0, 4)
		s := newRunState(&c, len(ac.tokPos))
		j := &s.attn
		j.views, j.tokSeq, j.tokPos, j.scale, j.q = ac.views, ac.tokSeq, ac.tokPos, ac.scale, ac.q
		j.fastMin = math.MaxInt
		items := len(ac.tokPos) * c.Heads
		together := make([]float32, items*c.HeadDimV)
		j.out = together
		j.run(0, items)
		alone := make([]float32, items*c.HeadDimV)
		j.out = alone
		for i := 0; i < items; i++ {
			j.run(i, i+1)
		}
		if !slices.Equal(together, alone) {
			t.Errorf("%d heads, %d KV heads: heads served in pairs differ from alone", c.Heads, c.KVHeads)
		}
	}
}
