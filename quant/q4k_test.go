package quant

import (
	"testing"

	"github.com/gollm/gollm/ggml"
)

func TestDequantizeQ4_KHandBuilt(t *testing.T) {
	var b [q4kBytes]byte
	putHalf(t, b[0:], 1)    // d
	putHalf(t, b[2:], 0.25) // dmin
	var ls, lm [8]uint8
	for j := range ls {
		ls[j], lm[j] = uint8(j*9+5)%64, uint8(63-j*7)
	}
	putScaleMinK4(b[4:16], &ls, &lm)
	code := func(e int) int { return (e*11 + e/3) % 16 }
	for e := 0; e < 256; e++ {
		// value e: 64-value group c, nibble (low for the first 32) of byte r%32
		c, r := e/64, e%64
		b[16+32*c+r%32] |= uint8(code(e)) << (4 * (r / 32))
	}
	got := make([]float32, 256)
	DequantizeRowQ4_K(b[:], got)
	for e, g := range got {
		j := e / 32
		if want := float32(int(ls[j])*code(e)) - 0.25*float32(lm[j]); g != want {
			t.Fatalf("value %d: got %v, want %v", e, g, want)
		}
	}
}

// Values on the grid d*sc*q - dmin*m with codes spanning 0..15 in every
// sub-block, chosen so that d = 63/256/63 and dmin = 63/64/63 are exact
// halves, come back exactly.
func TestQuantizeQ4_KExactGrid(t *testing.T) {
	x := make([]float32, 256)
	for e := range x {
		x[e] = float32(e%16)*63/256 - 63.0/64
	}
	y := roundTripK(t, ggml.Q4_K, x)
	for e := range x {
		if x[e] != y[e] {
			t.Fatalf("value %d: %v -> %v", e, x[e], y[e])
		}
	}
}
