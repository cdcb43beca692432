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
