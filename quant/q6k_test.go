package quant

import (
	"testing"

	"github.com/gollm/gollm/ggml"
)

func TestDequantizeQ6_KHandBuilt(t *testing.T) {
	var b [q6kBytes]byte
	putHalf(t, b[208:], 0.125)
	var sc [16]int8
	for j := range sc {
		sc[j] = int8(j*19 - 128)
		b[192+j] = uint8(sc[j])
	}
	code := func(e int) int { return (e*23 + e/4) % 64 } // value code-32
	for e := 0; e < 256; e++ {
		// value e: 128-value half n, quarter k = r/32, lane l = r%32.
		// low nibble: byte 64n + l + 32*(k&1), nibble k>>1; high 2 bits:
		// bits 2k of byte 32n + l of qh.
		n, r := e/128, e%128
		k, l := r/32, r%32
		q := code(e)
		b[64*n+l+32*(k&1)] |= uint8(q&0xF) << (4 * (k >> 1))
		b[128+32*n+l] |= uint8(q>>4) << (2 * k)
	}
	got := make([]float32, 256)
	DequantizeRowQ6_K(b[:], got)
	for e, g := range got {
		if want := 0.125 * float32(int(sc[e/16])*(code(e)-32)); g != want {
			t.Fatalf("value %d: got %v, want %v", e, g, want)
		}
	}
}

// Every sub-block holds the levels -8..7 times 1/8: the largest magnitude
// (-1) sets scale code -128 and d = -1/4096, both exact, so the values come
// back exactly.
func TestQuantizeQ6_KExactGrid(t *testing.T) {
	x := make([]float32, 256)
	for e := range x {
		x[e] = float32(e%16-8) / 8
	}
	y := roundTripK(t, ggml.Q6_K, x)
	for e := range x {
		if x[e] != y[e] {
			t.Fatalf("value %d: %v -> %v", e, x[e], y[e])
		}
	}
}
