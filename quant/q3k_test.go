package quant

import (
	"testing"

	"github.com/gollm/gollm/ggml"
)

// q3kPackScales packs 16 6-bit scales the way ggml's block_q3_K stores them.
func q3kPackScales(s *[16]uint8) [12]byte {
	var p [12]byte
	for j, v := range s {
		if j < 8 {
			p[j] |= v & 0xF
		} else {
			p[j-8] |= (v & 0xF) << 4
		}
		p[8+j%4] |= (v >> 4) << (2 * (j / 4))
	}
	return p
}

func TestDequantizeQ3_KHandBuilt(t *testing.T) {
	var b [q3kBytes]byte
	putHalf(t, b[108:], 0.25)
	var s [16]uint8
	for j := range s {
		s[j] = uint8((j*13 + 7) % 64) // stored scale; effective scale s-32
	}
	sc := q3kPackScales(&s)
	copy(b[96:], sc[:])
	code := func(e int) int { return (e*5 + e/7) % 8 } // 3-bit code, value code-4
	for e := 0; e < 256; e++ {
		c := code(e)
		n, r := e/128, e%128
		b[32+32*n+r%32] |= uint8(c&3) << (2 * (r / 32))
		if c&4 != 0 {
			b[e%32] |= 1 << (e / 32) // hmask: bit e/32 of byte e%32
		}
	}
	got := make([]float32, 256)
	DequantizeRowQ3_K(b[:], got)
	for e, g := range got {
		want := 0.25 * float32((int(s[e/16])-32)*(code(e)-4))
		if g != want {
			t.Fatalf("value %d: got %v, want %v", e, g, want)
		}
	}
	for j := range s {
		if got, want := q3kScale(sc[:], j), int8(s[j])-32; got != want {
			t.Errorf("q3kScale(%d) = %d, want %d", j, got, want)
		}
	}
}

// A block whose values are exactly d*(scale)*(q-4) for representable
// parameters: the reference quantizer recovers them with zero error.
func TestQuantizeQ3_KExactGrid(t *testing.T) {
	x := make([]float32, 256)
	for e := range x {
		// every sub-block uses levels -4..3 times 1/8, with both extremes
		x[e] = float32(e%8-4) / 8
	}
	y := roundTripK(t, ggml.Q3_K, x)
	for e := range x {
		if x[e] != y[e] {
			t.Fatalf("value %d: %v -> %v", e, x[e], y[e])
		}
	}
}
