package quant

import (
	"testing"

	"github.com/gollm/gollm/ggml"
)

func TestDequantizeQ5_KHandBuilt(t *testing.T) {
	var b [q5kBytes]byte
	putHalf(t, b[0:], 0.5) // d
	putHalf(t, b[2:], 2)   // dmin
	var ls, lm [8]uint8
	for j := range ls {
		ls[j], lm[j] = uint8(63-j*5), uint8(j*17+1)%64
	}
	putScaleMinK4(b[4:16], &ls, &lm)
	code := func(e int) int { return (e*13 + e/9) % 32 }
	for e := 0; e < 256; e++ {
		c, r := e/64, e%64
		q := code(e)
		b[48+32*c+r%32] |= uint8(q&0xF) << (4 * (r / 32))
		if q&16 != 0 {
			b[16+r%32] |= 1 << (2*c + r/32) // qh: bit 2c (first 32) or 2c+1 of byte r%32
		}
	}
	got := make([]float32, 256)
	DequantizeRowQ5_K(b[:], got)
	for e, g := range got {
		j := e / 32
		if want := 0.5*float32(int(ls[j])*code(e)) - 2*float32(lm[j]); g != want {
			t.Fatalf("value %d: got %v, want %v", e, g, want)
		}
	}
}

func TestQuantizeQ5_KExactGrid(t *testing.T) {
	x := make([]float32, 256)
	for e := range x {
		x[e] = float32(e%32)*63/256 - 63.0/64
	}
	y := roundTripK(t, ggml.Q5_K, x)
	for e := range x {
		if x[e] != y[e] {
			t.Fatalf("value %d: %v -> %v", e, x[e], y[e])
		}
	}
}
