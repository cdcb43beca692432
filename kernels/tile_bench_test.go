package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// BenchmarkTiles times the active set's prefill tiles (8x4, 4x4 and 2x4,
// whichever it has) on rows and tokens that stay in L1/L2: the kernel's
// own speed, without the matmul's scheduling or DRAM. ns-pair-block is
// the time per weight block and token pair: compare it with the
// instruction count per pair (multiply it by the clock for cycles).
func BenchmarkTiles(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	s := active
	for _, wt := range weightTypes {
		at := vecDotType[wt]
		qp := s.actQuad[at]
		for _, tile := range []struct {
			name string
			rows int
			f    vecDot2x4Func
		}{{"8x4", 8, s.vecDot8x4[wt]}, {"4x4", 4, s.vecDot4x4[wt]}, {"2x4", 2, s.vecDot2x4[wt]}} {
			if tile.f == nil {
				continue
			}
			bs := max(blockSize(wt), blockSize(at))
			nb := max(64*qk/bs, 1) // 2048 elements: rows of TinyLlama's width
			n := nb * bs
			wrow, arow := rowBytes(wt, n), rowBytes(at, n)
			w := make([]byte, tile.rows*wrow)
			for k := 0; k < tile.rows; k++ {
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
			var aq []byte
			if qp != nil {
				aq = make([]byte, nb*qp.blockBytes)
				qp.pack(aq, a, arow, 4)
			}
			out := make([]float32, 4*tile.rows)
			b.Run(fmt.Sprintf("%s/%v/%s", s.name, wt, tile.name), func(b *testing.B) {
				for b.Loop() {
					tile.f(n, w, wrow, a, arow, aq, out, tile.rows)
				}
				pairs := float64(b.N) * float64(tile.rows*4*nb)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pairs, "ns-pair-block")
			})
		}
	}
}
