package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gollm/gollm/ggml"
)

// TestPrefillBigUnits checks that prefill with large activations, which
// takes units of more rows (prefillRowUnit), gives the bits of rowTile
// units: the half-precision tiles (F16, BF16), the Q8_0 tile and a
// multi-token row kernel's type (Q6_K); then the half-precision pair
// tiles' own rule (rewriteBigQuads) under the default bigActBytes.
func TestPrefillBigUnits(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	r := rand.New(rand.NewPCG(61, 62))
	defer func(b int) { bigActBytes = b }(bigActBytes)
	bigActBytes = 16 << 10
	// Not whole tiles, quads or units; rows enough for units of more than
	// rowTile rows after rounding to 8-row tiles (517/16 = 32 rows).
	const rows, cols, ntok = 517, 512, 62
	for _, wt := range []ggml.Type{ggml.F16, ggml.BF16, ggml.Q8_0, ggml.Q6_K} {
		m, err := NewMatrix(wt, rows, cols, randomWeights(r, wt, rows*cols, 0.05, 0))
		if err != nil {
			t.Fatal(err)
		}
		s := NewScratch(cols, ntok)
		a := s.Quantize(p, wt, randFloats(r, ntok*cols, 1), ntok, cols)
		if len(a.Data)+len(a.x4) <= bigActBytes || prefillRowUnit(p, rows, len(a.Data)+len(a.x4)) <= rowTile {
			t.Fatalf("%v: %d bytes of activations do not take the big units", wt, len(a.Data)+len(a.x4))
		}
		big := make([]float32, rows*ntok)
		p.MatMul(big, m, a)
		bigActBytes = math.MaxInt // every unit rowTile rows
		small := make([]float32, rows*ntok)
		p.MatMul(small, m, a)
		bigActBytes = 16 << 10
		for i := range big {
			if math.Float32bits(big[i]) != math.Float32bits(small[i]) {
				t.Fatalf("%v: out[token %d, row %d] = %v with big units, %v with small", wt, i/rows, i%rows, big[i], small[i])
			}
		}
	}
	// The half-precision pair tiles take big units from rewriteBigQuads of
	// float32 quads whatever bigActBytes (where the set has them).
	bigActBytes = 8 << 20
	const rowsQ, ntokQ = rows, 520 // quads of 520 x 512 x 4 bytes: over 1 MiB
	if prefillRowUnit(p, rowsQ, bigActBytes+1)/8*8 <= rowTile {
		t.Fatal("the pair tiles' test matrix does not take big units")
	}
	for _, wt := range []ggml.Type{ggml.F16, ggml.BF16} {
		m, err := NewMatrix(wt, rowsQ, cols, randomWeights(r, wt, rowsQ*cols, 0.05, 0))
		if err != nil {
			t.Fatal(err)
		}
		s := NewScratch(cols, ntokQ)
		a := s.Quantize(p, wt, randFloats(r, ntokQ*cols, 1), ntokQ, cols)
		big := make([]float32, rowsQ*ntokQ)
		p.MatMul(big, m, a)
		bigActBytes = math.MaxInt
		small := make([]float32, rowsQ*ntokQ)
		p.MatMul(small, m, a)
		bigActBytes = 8 << 20
		for i := range big {
			if math.Float32bits(big[i]) != math.Float32bits(small[i]) {
				t.Fatalf("%v pairs: out[token %d, row %d] = %v with big units, %v with small", wt, i/rowsQ, i%rowsQ, big[i], small[i])
			}
		}
	}
}

// BenchmarkMatMulPrefill times 512-token prefill matmuls of the
// row-by-row (unpacked) types with the unit size prefillRowUnit picks and
// with rowTile units, the two alternating call by call so that both see
// the same moments of a shared machine (sequential runs of a VM's
// benchmarks differ by more than these effects): ms/op-big and
// ms/op-small are the mean times, ratio their quotient. Where the
// activations are under bigActBytes (Q8_0 at 2048 columns) both runs take
// the same units, and the ratio shows the method's noise.
func BenchmarkMatMulPrefill(b *testing.B) {
	p := NewPool(0)
	defer p.Close()
	r := rand.New(rand.NewPCG(63, 64))
	const ntok = 512
	for _, wt := range []ggml.Type{ggml.F16, ggml.BF16, ggml.Q8_0} {
		for _, sh := range []struct{ rows, cols int }{{5632, 2048}, {2048, 5632}} {
			m, err := NewMatrix(wt, sh.rows, sh.cols, randomWeights(r, wt, sh.rows*sh.cols, 0.05, 0))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%v/%dx%d/ntok=%d", Impl(), wt, sh.rows, sh.cols, ntok), func(b *testing.B) {
				s := NewScratch(sh.cols, ntok)
				a := s.Quantize(p, wt, randFloats(r, ntok*sh.cols, 1), ntok, sh.cols)
				out := make([]float32, sh.rows*ntok)
				var spent [2]time.Duration
				chosen := bigActBytes
				i := 0
				for b.Loop() {
					for k := range 2 {
						v := (i + k) % 2 // 0: the chosen units, 1: rowTile ones
						bigActBytes = chosen
						if v == 1 {
							bigActBytes = math.MaxInt
						}
						t0 := time.Now()
						p.MatMul(out, m, a)
						spent[v] += time.Since(t0)
					}
					i++
				}
				bigActBytes = chosen
				n := float64(b.N)
				b.ReportMetric(float64(spent[0].Milliseconds())/n, "ms/op-big")
				b.ReportMetric(float64(spent[1].Milliseconds())/n, "ms/op-small")
				b.ReportMetric(float64(spent[0])/float64(spent[1]), "ratio")
			})
		}
	}
}
