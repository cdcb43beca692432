package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// BenchmarkTiles times the active set's prefill tiles (8x4, 4x4, 3x4, 2x4
// and those over rewritten rows, "rewrite") on rows of 2048 elements and
// four tokens that stay in L1/L2: the kernel's own speed, without the
// matmul's scheduling, the rewrite or DRAM. ns-pair-block is the time per
// weight block (one element for F16 and BF16) and token: times the clock,
// the cycles a pair and block, to compare with the tile's instructions.
func BenchmarkTiles(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	s := active
	for _, wt := range weightTypes {
		at := vecDotType[wt]
		type tile struct {
			name string
			rows int
			f    vecDot2x4Func
			tp   *tileRewrite
		}
		tiles := []tile{{"8x4", 8, s.vecDot8x4[wt], nil}, {"4x4", 4, s.vecDot4x4[wt], nil},
			{"3x4", 3, s.vecDot3x4[wt], nil}, {"2x4", 2, s.vecDot2x4[wt], nil}}
		for tp := s.tileRewrite[wt]; tp != nil; tp = tp.fallback {
			tiles = append(tiles, tile{fmt.Sprintf("rewrite%dx4", tp.rows), tp.rows, tp.tile, tp})
		}
		for _, tl := range tiles {
			if tl.f == nil {
				continue
			}
			bs := max(blockSize(wt), blockSize(at))
			nb := max(64*qk/bs, 1) // 2048 elements: rows of TinyLlama's width
			n := nb * bs
			wrow, arow := rowBytes(wt, n), rowBytes(at, n)
			w := make([]byte, tl.rows*wrow)
			for k := 0; k < tl.rows; k++ {
				row := randomWeights(r, wt, n, 0.05, 0)
				if wt == ggml.Q8_0 {
					clampQ8(row)
				}
				copy(w[k*wrow:], row)
			}
			a := make([]byte, 4*arow)
			for k := 0; k < 4; k++ {
				copy(a[k*arow:], quantizeRow(b, at, randFloats(r, n, 1)))
			}
			quad, wstride := s.actQuad[at], wrow
			if tl.tp != nil {
				if tl.tp.act != nil {
					quad = tl.tp.act
				}
				wstride = tl.tp.rowScale * wrow
				pw := make([]byte, tl.rows*wstride)
				tl.tp.pack(pw, w, wrow)
				w = pw
			}
			var aq []byte
			if quad != nil {
				aq = make([]byte, n/blockSize(at)*quad.blockBytes)
				quad.pack(aq, a, arow, 4)
			}
			out := make([]float32, 4*tl.rows)
			b.Run(fmt.Sprintf("%s/%v/%s", s.name, wt, tl.name), func(b *testing.B) {
				for b.Loop() {
					tl.f(n, w, wstride, a, arow, aq, out, tl.rows)
				}
				pairs := float64(b.N) * float64(tl.rows*4*nb)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pairs, "ns-pair-block")
			})
		}
	}
}
