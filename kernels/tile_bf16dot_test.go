package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestBF16DotDenormals checks that MatMul stays exact on BF16 batches the
// VDPBF16PS tiles would get wrong (they take denormal inputs as zero and
// flush denormal sums): a token of denormal activations, and tiny tokens
// against tiny weights whose products are denormal. bf16DotSafe must turn
// those batches away, and let ordinary ones through.
func TestBF16DotDenormals(t *testing.T) {
	defer SetImpl(active.name)
	p := NewPool(2)
	defer p.Close()
	r := rand.New(rand.NewPCG(7, 8))
	const rows, cols, ntok = 16, 64, 8
	tested := 0
	for _, s := range simdSets(t) {
		tp := s.tileRewrite[ggml.BF16]
		if tp == nil || tp.usable == nil {
			continue
		}
		tested++
		if err := SetImpl(s.name); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name      string
			wScale    float32
			tok0Scale float32 // token 0's activations (the others ~1)
			safe      bool
		}{
			{"ordinary", 0.05, 1, true},
			{"denormal token", 0.05, 1e-39, false},
			{"denormal products", 1e-20, 1e-22, false},
		} {
			w := randomWeights(r, ggml.BF16, rows*cols, c.wScale, 0)
			m, err := NewMatrix(ggml.BF16, rows, cols, w)
			if err != nil {
				t.Fatal(err)
			}
			x := randFloats(r, ntok*cols, 1)
			for i := range cols {
				x[i] *= c.tok0Scale
			}
			sc := NewScratch(cols, ntok)
			a := sc.Quantize(p, ggml.BF16, x, ntok, cols)
			if got := tp.usable(m, a); got != c.safe {
				t.Fatalf("%s %s: bf16DotSafe = %v, want %v", s.name, c.name, got, c.safe)
			}
			out := make([]float32, ntok*rows)
			p.MatMul(out, m, a)
			for tok := range ntok {
				for row := range rows {
					want := vecDotBF16BF16Generic(cols, m.Row(row), a.Row(tok))
					if got := out[tok*rows+row]; math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("%s %s: out[token %d, row %d] = %g, generic %g", s.name, c.name, tok, row, got, want)
					}
				}
			}
		}
	}
	if tested == 0 {
		t.Skip("no set on this CPU has the VDPBF16PS tiles")
	}
}

// TestBF16MinExp checks the exponent scan on the cases bf16DotSafe
// depends on.
func TestBF16MinExp(t *testing.T) {
	le := func(v ...uint16) []byte {
		b := make([]byte, 2*len(v))
		for i, u := range v {
			b[2*i], b[2*i+1] = byte(u), byte(u>>8)
		}
		return b
	}
	for _, c := range []struct {
		data []byte
		want int
	}{
		{le(), 255},
		{le(0, 0x8000), 255},              // zeros of both signs
		{le(0x3f80, 0xbf80), 127},         // 1, -1
		{le(0x3f80, 0x0001, 0x4000), 0},   // a denormal
		{le(0x4000, 0x8080, 0x3f80), 1},   // -2^-126
		{le(0x7f80, 0x3c00, 0x4100), 120}, // inf, 2^-7, 8
	} {
		if got := bf16MinExp(c.data); got != c.want {
			t.Errorf("bf16MinExp(% x) = %d, want %d", c.data, got, c.want)
		}
	}
}
