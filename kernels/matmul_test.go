package kernels

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

// TestMatMul checks MatMul against a naive loop over rows and tokens of the
// dequantized float64 dot product, for decode and prefill batch sizes, odd
// row counts and several thread counts.
func TestMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pools := map[int]*Pool{1: NewPool(1), 2: NewPool(2), 3: NewPool(3)}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	types := weightTypes
	if testing.Short() {
		types = []ggml.Type{ggml.Q4_0, ggml.Q4_K, ggml.F16}
	}
	for _, wt := range types {
		at := vecDotType[wt]
		cols := max(blockSize(wt), blockSize(at)) * 2
		if cols < 64 {
			cols = 96
		}
		for _, rows := range []int{1, 17, 67} {
			wdata := randomWeights(r, wt, rows*cols, 0.05, 5)
			m, err := NewMatrix(wt, rows, cols, wdata)
			if err != nil {
				t.Fatal(err)
			}
			for _, ntok := range []int{1, 2, 3, 7, 16, 33} {
				x := randFloats(r, ntok*cols, 1)
				// Expected values, from dequantized rows.
				want := make([]float64, ntok*rows)
				tol := make([]float64, ntok*rows)
				arow := rowBytes(at, cols)
				qa := quantizeRow(t, at, x[:ntok*cols]) // rows are whole blocks, so one call quantizes all tokens
				for tok := 0; tok < ntok; tok++ {
					for row := 0; row < rows; row++ {
						wr := m.Row(row)
						ar := qa[tok*arow : (tok+1)*arow]
						d, abs := refDot(t, wt, wr, at, ar, cols)
						want[tok*rows+row] = d
						tol[tok*rows+row] = dotTolerance(wt, wr, ar, cols, abs)
					}
				}
				for threads, p := range pools {
					s := NewScratch(cols, ntok)
					a := s.Quantize(p, wt, x, ntok, cols)
					if a.Type != at || a.NTok != ntok || a.Cols != cols {
						t.Fatalf("Quantize returned %v %dx%d", a.Type, a.NTok, a.Cols)
					}
					if at != ggml.F32 && !bytes.Equal(a.Data, qa) {
						t.Fatalf("%v: Scratch.Quantize differs from the reference quantizer", at)
					}
					out := make([]float32, ntok*rows+1)
					out[ntok*rows] = 12345 // guard
					p.MatMul(out, m, a)
					if out[ntok*rows] != 12345 {
						t.Fatal("MatMul wrote past its output")
					}
					for i, w := range want {
						if math.Abs(float64(out[i])-w) > tol[i] {
							t.Fatalf("%v rows=%d ntok=%d threads=%d: out[%d] = %v, want %v (±%g)",
								wt, rows, ntok, threads, i, out[i], w, tol[i])
						}
					}
				}
			}
		}
	}
}

func TestNewMatrixErrors(t *testing.T) {
	if _, err := NewMatrix(ggml.IQ2_XXS, 1, 256, make([]byte, 66)); !errors.Is(err, quant.ErrUnsupportedType) {
		t.Errorf("IQ2_XXS: err = %v, want ErrUnsupportedType", err)
	}
	if _, err := NewMatrix(ggml.Q4_0, 2, 32, make([]byte, 35)); !errors.Is(err, ggml.ErrBadShape) {
		t.Errorf("short data: err = %v, want ErrBadShape", err)
	}
	if _, err := NewMatrix(ggml.Q4_0, 2, 33, make([]byte, 36)); !errors.Is(err, ggml.ErrBadShape) {
		t.Errorf("partial block: err = %v, want ErrBadShape", err)
	}
	if _, err := NewMatrix(ggml.Q4_K, 0, 256, nil); !errors.Is(err, ggml.ErrBadShape) {
		t.Errorf("zero rows: err = %v, want ErrBadShape", err)
	}
	if _, err := NewMatrix(ggml.Q4_K, 3, 256, make([]byte, 3*144)); err != nil {
		t.Errorf("valid matrix: %v", err)
	}
}

// TestSteadyStateZeroAllocs checks that Quantize and MatMul allocate nothing
// once the scratch buffers exist.
func TestSteadyStateZeroAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := NewPool(2)
	defer p.Close()
	for _, wt := range []ggml.Type{ggml.Q4_0, ggml.Q4_1, ggml.Q4_K, ggml.F16, ggml.F32} {
		const rows, cols, ntok = 64, 512, 8
		m, err := NewMatrix(wt, rows, cols, randomWeights(r, wt, rows*cols, 0.05, 0))
		if err != nil {
			t.Fatal(err)
		}
		s := NewScratch(cols, ntok)
		x := randFloats(r, ntok*cols, 1)
		out := make([]float32, rows*ntok)
		for _, n := range []int{1, ntok} {
			s.Quantize(p, wt, x, n, cols) // first use allocates
			allocs := testing.AllocsPerRun(50, func() {
				a := s.Quantize(p, wt, x, n, cols)
				p.MatMul(out, m, a)
			})
			if allocs != 0 {
				t.Errorf("%v ntok=%d: %v allocations per Quantize+MatMul", wt, n, allocs)
			}
		}
	}
}

// matmulShapes are TinyLlama-1.1B's: q/o, gate/up, down, lm head.
var matmulShapes = []struct{ rows, cols int }{
	{2048, 2048}, {5632, 2048}, {2048, 5632}, {32000, 2048},
}

func BenchmarkMatMul(b *testing.B) {
	p := NewPool(0)
	defer p.Close()
	r := rand.New(rand.NewPCG(7, 8))
	for _, wt := range []ggml.Type{ggml.Q4_0, ggml.Q4_1, ggml.Q5_0, ggml.Q5_1, ggml.Q8_0, ggml.Q2_K, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.F16, ggml.BF16} {
		for _, sh := range matmulShapes {
			data := randomWeights(r, wt, sh.rows*sh.cols, 0.05, 0)
			m, err := NewMatrix(wt, sh.rows, sh.cols, data)
			if err != nil {
				b.Fatal(err)
			}
			for _, ntok := range []int{1, 64} {
				if sh.rows == 32000 && ntok > 1 {
					continue // the lm head runs for the last position only
				}
				p.Prepare(m)
				b.Run(fmt.Sprintf("%s/%v/%dx%d/ntok=%d", Impl(), wt, sh.rows, sh.cols, ntok), func(b *testing.B) {
					s := NewScratch(sh.cols, ntok)
					x := randFloats(r, ntok*sh.cols, 1)
					out := make([]float32, sh.rows*ntok)
					a := s.Quantize(p, wt, x, ntok, sh.cols)
					b.SetBytes(int64(len(data)))
					b.ReportAllocs()
					c0 := processCPU()
					for b.Loop() {
						p.MatMul(out, m, a)
					}
					reportCPU(b, c0)
				})
			}
		}
	}
}

// reportCPU adds the process CPU time per op since c0 (all threads) and,
// as cpu-GB/s, the weight bytes per CPU-second: on a loaded machine these
// are steadier than the wall-clock figures.
func reportCPU(b *testing.B, c0 int64) {
	c := processCPU() - c0
	if c <= 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(c)/float64(b.N), "cpu-ns/op")
}

// BenchmarkMatMulStream measures decode from DRAM: it cycles through 160 MiB
// or more of weights (beyond the 105 MiB L3 of the reference machine), one
// 5632x2048 matrix per op, as a real model's decode streams its layers.
func BenchmarkMatMulStream(b *testing.B) {
	p := NewPool(0)
	defer p.Close()
	r := rand.New(rand.NewPCG(9, 10))
	const rows, cols = 5632, 2048
	for _, wt := range []ggml.Type{ggml.Q4_0, ggml.Q4_1, ggml.Q5_0, ggml.Q5_1, ggml.Q8_0, ggml.Q2_K, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.F16, ggml.BF16} {
		rb := rowBytes(wt, cols)
		per := rows * rb
		count := (160<<20)/per + 1
		// One random matrix, copied: the contents do not matter for speed.
		proto := randomWeights(r, wt, rows*cols, 0.05, 0)
		ms := make([]*Matrix, count)
		for i := range ms {
			m, err := NewMatrix(wt, rows, cols, append([]byte(nil), proto...))
			if err != nil {
				b.Fatal(err)
			}
			ms[i] = m
		}
		p.Prepare(ms...) // pack now, not in the timed loop
		for _, ntok := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/%v/%dMiB/tok%d", Impl(), wt, count*per>>20, ntok), func(b *testing.B) {
				s := NewScratch(cols, ntok)
				a := s.Quantize(p, wt, randFloats(r, ntok*cols, 1), ntok, cols)
				out := make([]float32, ntok*rows)
				b.SetBytes(int64(per))
				c0 := processCPU()
				i := 0
				for b.Loop() {
					p.MatMul(out, ms[i], a)
					if i++; i == len(ms) {
						i = 0
					}
				}
				reportCPU(b, c0)
			})
		}
	}
}
