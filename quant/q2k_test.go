package quant

import (
	"testing"

	"github.com/gollm/gollm/ggml"
)

// Hand-built block: every sub-block j has scale j and min 15-j, codes follow
// a fixed pattern; the expected values come from the format definition
// (d*scale*q - dmin*min), not from the decoder.
func TestDequantizeQ2_KHandBuilt(t *testing.T) {
	var b [q2kBytes]byte
	putHalf(t, b[80:], 1)   // d
	putHalf(t, b[82:], 0.5) // dmin
	for j := 0; j < 16; j++ {
		b[j] = uint8(j) | uint8(15-j)<<4
	}
	code := func(e int) int { return (e*7 + e/5) % 4 }
	for e := 0; e < 256; e++ {
		// value e: 128-value half n, bit pair r/32 of byte r%32 of that half
		n, r := e/128, e%128
		b[16+32*n+r%32] |= uint8(code(e)) << (2 * (r / 32))
	}
	got := make([]float32, 256)
	DequantizeRowQ2_K(b[:], got)
	for e, g := range got {
		j := e / 16
		if want := float32(j*code(e)) - 0.5*float32(15-j); g != want {
			t.Fatalf("value %d: got %v, want %v", e, g, want)
		}
	}
}

// With one sub-block at twice the range of the others, the codes must
// reach the full 0..3 range there and the scale nibbles must order as the
// sub-block ranges do.
func TestQuantizeQ2_KScalesFollowRange(t *testing.T) {
	x := genBlocks("uniform", 1, 1, 4)
	for i := 48; i < 64; i++ {
		x[i] *= 2
	}
	_, b := quantizeK(t, ggml.Q2_K, x)
	big := b[3] & 0xF
	if big != 15 {
		t.Fatalf("widest sub-block got scale code %d, want the maximum 15", big)
	}
	for j := 0; j < 16; j++ {
		if j != 3 && b[j]&0xF >= big {
			t.Fatalf("sub-block %d scale %d >= widest sub-block's %d", j, b[j]&0xF, big)
		}
	}
}
