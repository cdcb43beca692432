package quant

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestQuantizersMatchPlainPorts holds every quantizer with a fast path to
// the plain port of its C reference, block by block, on adversarial rows.
func TestQuantizersMatchPlainPorts(t *testing.T) {
	cases := []struct {
		typ   ggml.Type
		plain func([]float32, []byte)
	}{
		{ggml.Q4_0, plainQuantizeRowQ4_0},
		{ggml.Q8_0, plainQuantizeRowQ8_0},
		{ggml.Q8_1, plainQuantizeRowQ8_1},
	}
	rows := adversarialRows(3000, 1)
	for _, c := range cases {
		tr, err := Lookup(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		n := 256 / tr.BlockSize * tr.BlockBytes
		got, want := make([]byte, n), make([]byte, n)
		for k, x := range rows {
			tr.Quantize(x, got)
			c.plain(x, want)
			if !bytes.Equal(got, want) {
				for b := 0; b < len(got); b += tr.BlockBytes {
					if !bytes.Equal(got[b:b+tr.BlockBytes], want[b:b+tr.BlockBytes]) {
						blk := b / tr.BlockBytes
						t.Fatalf("%v row %d block %d (x = %v):\n got %x\nwant %x", c.typ, k, blk,
							x[blk*tr.BlockSize:(blk+1)*tr.BlockSize], got[b:b+tr.BlockBytes], want[b:b+tr.BlockBytes])
					}
				}
			}
		}
	}
}

// roundSmall must be roundf for every |v| < 2^22: every float within 256
// units in the last place of each integer and half-integer up to 512 (where
// a wrong carry would show), a sweep through all of [0.25, 512) in steps
// of 13 units, random ones up to the bound; both signs.
func TestRoundSmallMatchesRoundf(t *testing.T) {
	check := func(v float32) {
		if got, want := roundSmall(v), plainRoundf(v); got != want {
			t.Fatalf("roundSmall(%v [%#08x]) = %d, want %d", v, math.Float32bits(v), got, want)
		}
		if got, want := roundSmall(-v), plainRoundf(-v); got != want {
			t.Fatalf("roundSmall(%v [%#08x]) = %d, want %d", -v, math.Float32bits(-v), got, want)
		}
	}
	for k := 0; k <= 1024; k++ {
		c := math.Float32bits(float32(k) / 2)
		for d := uint32(0); d <= 256; d++ {
			check(math.Float32frombits(c + d))
			if c >= d {
				check(math.Float32frombits(c - d))
			}
		}
	}
	for b := math.Float32bits(0.25); b < math.Float32bits(512); b += 13 {
		check(math.Float32frombits(b))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 1 << 20 {
		if v := math.Float32frombits(r.Uint32() & 0x7fffffff); v < 1<<22 {
			check(v)
		}
	}
	for _, v := range []float32{0, 0.49999997, 0.5, 1.5, 2.5, 1<<22 - 0.5, 1<<22 - 1.5} {
		check(v)
	}
}
