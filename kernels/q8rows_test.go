package kernels

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestQ8RowsExact checks every set's conversion of Q5_0 rows to Q8_0 rows
// against the generic one, and that the converted rows give the Q5_0
// products to the bit (the premise of prefill's conversion).
func TestQ8RowsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, nb := range []int{1, 2, 7, 64} {
		cols := nb * qk
		w := randomWeights(r, ggml.Q5_0, cols, 0.05, 0)
		want := make([]byte, nb*q8_0Bytes)
		q5_0RowAsQ8_0Generic(want, w)
		x := randFloats(r, cols, 1)
		a := make([]byte, nb*q8_0Bytes)
		quantizeActQ8_0(x, a)
		if got, ref := vecDotQ8_0Q8_0Generic(cols, want, a), vecDotQ5_0Q8_0Generic(cols, w, a); got != ref {
			t.Fatalf("%d blocks: Q8_0 product of the converted row %v, Q5_0 product %v", nb, got, ref)
		}
		for _, s := range implementations {
			f := s.q8Rows[ggml.Q5_0]
			if !s.available || f == nil {
				continue
			}
			got := make([]byte, nb*q8_0Bytes+3)
			f(got[:nb*q8_0Bytes], w)
			if !bytes.Equal(got[:nb*q8_0Bytes], want) {
				t.Errorf("%s, %d blocks: converted row differs from the generic one", s.name, nb)
			}
			if !bytes.Equal(got[nb*q8_0Bytes:], []byte{0, 0, 0}) {
				t.Errorf("%s, %d blocks: wrote past the row", s.name, nb)
			}
		}
	}
}

// TestQ8RowsConcurrent runs Q5_0 prefill MatMuls (converted rows, per-thread
// buffers of the pool) from several goroutines on one pool at once: each
// result must equal the serial one (run under -race in CI).
func TestQ8RowsConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	const rows, cols, ntok = 40, 8 * qk, 16
	m, err := NewMatrix(ggml.Q5_0, rows, cols, randomWeights(r, ggml.Q5_0, rows*cols, 0.05, 0))
	if err != nil {
		t.Fatal(err)
	}
	x := randFloats(r, ntok*cols, 1)
	want := make([]float32, rows*ntok)
	sc := NewScratch(cols, ntok)
	var serial *Pool
	serial.MatMul(want, m, sc.Quantize(serial, ggml.Q5_0, x, ntok, cols))
	p := NewPool(2)
	defer p.Close()
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		go func() {
			s := NewScratch(cols, ntok)
			out := make([]float32, rows*ntok)
			for it := 0; it < 20; it++ {
				p.MatMul(out, m, s.Quantize(p, ggml.Q5_0, x, ntok, cols))
				for i := range out {
					if out[i] != want[i] {
						errs <- "concurrent MatMul differs from the serial one"
						return
					}
				}
			}
			errs <- ""
		}()
	}
	for g := 0; g < 4; g++ {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}
