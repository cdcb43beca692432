package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

func BenchmarkZZTile(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, nq := range []int{24, 32, 64} {
		for _, dim := range []int{64, 128} {
			qt := randFloats(r, dim*nq, 1)
			k := randFloats(r, 64*dim, 1)
			v := randFloats(r, 64*dim, 1)
			s := make([]float32, 64*nq)
			acc := make([]float32, dim*nq)
			m, l, ms := make([]float32, nq), make([]float32, nq), make([]float32, nq)
			first, last := make([]int32, nq), make([]int32, nq)
			for q := range last {
				last[q] = 63
			}
			b.Run(fmt.Sprintf("nq=%d/dim=%d", nq, dim), func(b *testing.B) {
				var tq, ts, tv time.Duration
				for b.Loop() {
					t0 := time.Now()
					AttnTileQK(s, qt, nq, k, dim, 64, dim, 0.125)
					t1 := time.Now()
					AttnTileSoftmax(s, nq, 64, first, last, m, l, ms)
					t2 := time.Now()
					AttnTileAccV(acc, nq, s, v, dim, 64, dim, ms)
					t3 := time.Now()
					tq += t1.Sub(t0)
					ts += t2.Sub(t1)
					tv += t3.Sub(t2)
				}
				pairs := float64(b.N) * float64(nq) * 64
				b.ReportMetric(float64(tq.Nanoseconds())/pairs, "qk-ns/pair")
				b.ReportMetric(float64(ts.Nanoseconds())/pairs, "sm-ns/pair")
				b.ReportMetric(float64(tv.Nanoseconds())/pairs, "v-ns/pair")
			})
		}
	}
}
