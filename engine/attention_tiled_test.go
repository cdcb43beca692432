package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
)

// TestAttendTiled compares llama.cpp's tiled arithmetic (attendTiled) with
// that arithmetic read row by row (tiledReference, bit for bit) and with a
// float64 reference over a paged cache with shared blocks, several
// sequences in one pass, GQA groups of 1 to 12 (blocks of 64 down to 5
// tokens, query counts that are not multiples of 8), head sizes that are
// not multiples of 8, a sliding window and a soft-cap; and checks that a
// token's result does not depend on its pass or its block (llama.cpp's
// rows are independent of the rows sharing their tile).
func TestAttendTiled(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	shapes := []struct {
		heads, kvHeads, hd, hdv, block int
		typ                            ggml.Type
		window                         int
		softcap                        float32
	}{
		{32, 4, 64, 64, 16, ggml.F16, 0, 0},  // TinyLlama: blocks of 8 tokens
		{9, 3, 64, 64, 16, ggml.F16, 0, 0},   // SmolLM2: 21 tokens, 63 queries
		{4, 4, 128, 128, 32, ggml.F16, 0, 0}, // no GQA: blocks of 64 tokens
		{12, 1, 96, 96, 7, ggml.F16, 0, 0},   // GQA 12: blocks of 5
		{8, 2, 64, 64, 16, ggml.F16, 100, 0}, // a sliding window that cuts tiles
		{8, 2, 64, 64, 16, ggml.F16, 0, 30},  // gemma2's soft-cap
		{4, 2, 40, 72, 16, ggml.F32, 0, 0},
		{3, 3, 12, 16, 5, ggml.F16, 0, 0},
	}
	for _, sh := range shapes {
		c := Config{Heads: sh.heads, KVHeads: sh.kvHeads, HeadDim: sh.hd, HeadDimV: sh.hdv}
		name := fmt.Sprintf("h%d_kv%d_d%d_dv%d_b%d_%v_w%d_cap%v", sh.heads, sh.kvHeads, sh.hd, sh.hdv, sh.block, sh.typ, sh.window, sh.softcap)
		t.Run(name, func(t *testing.T) {
			ac := newAttnCase(t, r, c, sh.block, sh.typ, 2)
			ac.window, ac.softcap, ac.tiled = sh.window, sh.softcap, true
			got := ac.run(math.MaxInt, nil)
			ref := ac.reference()
			if e, at := ac.headErr(got, func(i int) float64 { return ref[i] }, 0); e > 1e-4 || math.IsNaN(e) {
				t.Errorf("tiled vs float64: %.3g at %s", e, at)
			}
			// llama.cpp's bits: its arithmetic row by row.
			want := ac.tiledReference()
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					n := c.Heads * c.HeadDimV
					t.Fatalf("token %d (pos %d) head %d element %d: %v, llama.cpp's tiled order %v",
						i/n, ac.tokPos[i/n], i%n/c.HeadDimV, i%c.HeadDimV, got[i], want[i])
				}
			}
			for _, per := range []int{1, 4, 10} {
				if split := ac.runBy(per, math.MaxInt, nil); !slices.Equal(split, got) {
					t.Errorf("passes of %d tokens and one pass differ", per)
				}
			}
		})
	}
}

// TestAttendTiledPool: split over a pool (blocks served by whichever
// worker claims their item, scratch slots claimed concurrently) the tiled
// arithmetic gives the single call's bits (run under -race by CI).
func TestAttendTiledPool(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	c := Config{Heads: 32, KVHeads: 4, HeadDim: 64, HeadDimV: 64}
	ac := newAttnCase(t, r, c, 16, ggml.F16, 2)
	ac.tiled = true
	want := ac.run(math.MaxInt, nil)
	for _, threads := range []int{2, 3, 8} {
		pool := kernels.NewPool(threads)
		for range 3 {
			if got := ac.run(math.MaxInt, pool); !slices.Equal(got, want) {
				t.Errorf("%d threads: results differ from one call", threads)
			}
		}
		pool.Close()
	}
}

// TestTiledFor: llama.cpp's choice of its tiled kernel (a pass of 64+
// tokens, an f16 or f32 cache, value heads a multiple of 8); under
// EvalBatch the choice by position instead.
func TestTiledFor(t *testing.T) {
	c := &Config{Heads: 4, KVHeads: 2, HeadDim: 64, HeadDimV: 64}
	odd := &Config{Heads: 4, KVHeads: 2, HeadDim: 64, HeadDimV: 36}
	v := func(t ggml.Type) []kvcache.View { return []kvcache.View{{Type: t}} }
	for _, tc := range []struct {
		c                  *Config
		ntok               int
		invariant          bool
		views              []kvcache.View
		wantTiled, wantPos bool
	}{
		{c, 64, false, v(ggml.F16), true, false},
		{c, 512, false, v(ggml.F32), true, false},
		{c, 63, false, v(ggml.F16), false, false},
		{c, 512, true, v(ggml.F16), false, true},
		{c, 1, true, v(ggml.F16), false, true},
		{c, 512, false, v(ggml.Q8_0), false, false},
		{c, 512, true, v(ggml.Q8_0), false, false},
		{odd, 512, false, v(ggml.F16), false, false},
	} {
		tiled, pos := tiledFor(tc.c, tc.ntok, tc.invariant, tc.views, tiledAttnMinTokens)
		if tiled != tc.wantTiled || pos != tc.wantPos {
			t.Errorf("tiledFor(dv %d, %d tokens, invariant %v, %v) = %v, %v, want %v, %v",
				tc.c.HeadDimV, tc.ntok, tc.invariant, tc.views[0].Type, tiled, pos, tc.wantTiled, tc.wantPos)
		}
	}
}

// TestAttendTiledByPosition: under EvalBatch's rule a query over at most
// tiledAttnMinPositions positions keeps llama.cpp's one-row arithmetic,
// one over at most fastAttnMinPositions takes the tiled one, and beyond
// the fast path, each with the bits it has alone, whatever else shares
// the pass.
func TestAttendTiledByPosition(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	c := Config{Heads: 8, KVHeads: 2, HeadDim: 64, HeadDimV: 64}
	ac := newAttnCase(t, r, c, 16, ggml.F16, 2)
	exact := ac.run(math.MaxInt, nil)
	fast := ac.run(0, nil)
	ac.tiled = true
	tiled := ac.run(math.MaxInt, nil)
	ac.tiled, ac.tiledPos = false, true
	n := c.Heads * c.HeadDimV
	kinds := map[string]int{}
	for _, per := range []int{len(ac.tokPos), 1, 4} {
		got := ac.runBy(per, fastAttnMinPositions, nil)
		for tk, p := range ac.tokPos {
			want, kind := exact, "exact"
			switch {
			case p+1 > fastAttnMinPositions:
				want, kind = fast, "fast"
			case p+1 > tiledAttnMinPositions:
				want, kind = tiled, "tiled"
			}
			kinds[kind]++
			if !slices.Equal(got[tk*n:(tk+1)*n], want[tk*n:(tk+1)*n]) {
				t.Errorf("passes of %d: token at %d positions: not the %s arithmetic's bits", per, p+1, kind)
			}
		}
	}
	if len(kinds) != 3 {
		t.Fatalf("the case covers %v, want all three paths", kinds)
	}
}

// TestAttendRowsExact: in a pass of fewer than 64 tokens outside
// EvalBatch, a token with another token of its sequence in the pass keeps
// llama.cpp's one-row arithmetic at every depth (its kernel for 2-63
// rows); a lone token (decode) takes the fast path past
// fastAttnMinPositions.
func TestAttendRowsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(97, 98))
	c := Config{Heads: 8, KVHeads: 2, HeadDim: 64, HeadDimV: 64}
	ac := newAttnCase(t, r, c, 16, ggml.F16, 2)
	exact := ac.run(math.MaxInt, nil)
	fast := ac.run(0, nil)
	ac.rowsExact = true
	n := c.Heads * c.HeadDimV
	lone := 0
	for _, per := range []int{len(ac.tokPos), 1, 4} {
		got := ac.runBy(per, fastAttnMinPositions, nil)
		for tk, p := range ac.tokPos {
			t0 := tk / per * per
			t1 := min(t0+per, len(ac.tokPos))
			pair := tk > t0 && ac.tokSeq[tk-1] == ac.tokSeq[tk] || tk+1 < t1 && ac.tokSeq[tk+1] == ac.tokSeq[tk]
			want, kind := exact, "one-row"
			if !pair && p+1 > fastAttnMinPositions {
				want, kind = fast, "fast"
				lone++
			}
			if !slices.Equal(got[tk*n:(tk+1)*n], want[tk*n:(tk+1)*n]) {
				t.Errorf("passes of %d: token at %d positions: not the %s arithmetic's bits", per, p+1, kind)
			}
		}
	}
	if lone == 0 {
		t.Fatal("no lone token past the threshold")
	}
}

// tiledReference is llama.cpp's tiled flash attention read row by row,
// keys in order (ggml-cpu's ggml_compute_forward_flash_attn_ext_tiled on
// x86 with AVX2): per query, tiles of 64 positions from position 0; a
// score is one float32 FMA chain over the head from +0, times the scale
// (soft-capped after); per tile the maximum over the keys the query sees
// (none: the tile is skipped), the running sum and accumulator multiplied
// by libm's expf(M_old - M_new) when it rises, weights v_expf(s - M)
// summed per 8 keys as ((p0+p4)+(p2+p6))+((p1+p5)+(p3+p7)) and in
// float64 over the groups, the accumulator one FMA chain over the tile's
// keys; the output the accumulator times 1/S.
func (ac *attnCase) tiledReference() []float32 {
	c := &ac.c
	group := c.Heads / c.KVHeads
	const tile = 64
	f32fma := func(a, b, x float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(x))) }
	out := make([]float32, len(ac.tokPos)*c.Heads*c.HeadDimV)
	scale := ac.scale
	if ac.softcap != 0 {
		scale = ac.scale / ac.softcap
	}
	for t, p := range ac.tokPos {
		v := &ac.views[ac.tokSeq[t]]
		lo := 0
		if ac.window > 0 {
			lo = max(p+1-ac.window, 0)
		}
		for h := 0; h < c.Heads; h++ {
			kvh := h / group
			q := ac.q[(t*c.Heads+h)*c.HeadDim:][:c.HeadDim]
			m, l := float32(math.Inf(-1)), float32(0)
			acc := make([]float32, c.HeadDimV)
			for t0 := 0; t0 <= p; t0 += tile {
				var sc [tile]float32
				tmax := float32(math.Inf(-1))
				for i := range sc {
					pos := t0 + i
					sc[i] = float32(math.Inf(-1))
					if pos < lo || pos > p {
						continue
					}
					k := decodeRow(v.Type, v.KRow(pos), c.KVDim())[kvh*c.HeadDim:][:c.HeadDim]
					var s float32
					for d := range q {
						s = f32fma(float32(k[d]), q[d], s)
					}
					s *= scale
					if ac.softcap != 0 {
						s = kernels.Tanhf(s) * ac.softcap
					}
					sc[i] = s
					if !(tmax > s) {
						tmax = s
					}
				}
				if tmax == float32(math.Inf(-1)) {
					continue
				}
				mNew := max(m, tmax)
				if mNew > m {
					ms := kernels.Expf(m - mNew)
					for d := range acc {
						acc[d] *= ms
					}
					l *= ms
				}
				m = mNew
				var sum float64
				for g := 0; g < tile; g += 8 {
					var w [8]float32
					for i := range w {
						if s := sc[g+i]; s != float32(math.Inf(-1)) {
							w[i] = kernels.VExpf(s - m)
						}
					}
					sum += float64(((w[0] + w[4]) + (w[2] + w[6])) + ((w[1] + w[5]) + (w[3] + w[7])))
					for i, wi := range w {
						if pos := t0 + g + i; wi != 0 && pos <= p {
							vr := decodeRow(v.Type, v.VRow(pos), c.VDim())[kvh*c.HeadDimV:][:c.HeadDimV]
							for d := range acc {
								acc[d] = f32fma(float32(vr[d]), wi, acc[d])
							}
						}
					}
				}
				l = float32(float64(l) + sum)
			}
			inv := float32(0)
			if l != 0 {
				inv = 1 / l
			}
			o := out[(t*c.Heads+h)*c.HeadDimV:][:c.HeadDimV]
			for d := range o {
				o[d] = acc[d] * inv
			}
		}
	}
	return out
}
