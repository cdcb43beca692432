package quant

import (
	"bytes"
	"testing"
)

func TestDequantizeQ5_0HighBits(t *testing.T) {
	b := make([]byte, 22)
	b[0], b[1] = 0x00, 0x40 // d = 2
	// qh bit k is the fifth bit of element k: set it for elements 0 and 16
	// (byte 0 and byte 2 of the little-endian word) and 31.
	b[2], b[3], b[4], b[5] = 0x01, 0x00, 0x01, 0x80
	for j := 0; j < 16; j++ {
		b[6+j] = byte(j) | byte(15-j)<<4
	}
	got := make([]float32, 32)
	DequantizeRowQ5_0(b, got)
	want := map[int]float32{
		0:  (16 + 0 - 16) * 2, // high bit set, low nibble 0
		1:  (1 - 16) * 2,
		15: (15 - 16) * 2,
		16: (16 + 15 - 16) * 2, // high nibble of byte 0 is 15
		17: (14 - 16) * 2,
		30: (1 - 16) * 2,
		31: (16 + 0 - 16) * 2, // high nibble of byte 15 is 0, bit 31 set
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("elem %d = %v, want %v", k, got[k], w)
		}
	}
}

func TestDequantizeQ5_1(t *testing.T) {
	b := make([]byte, 24)
	b[0], b[1] = 0x00, 0x34 // d = 0.25
	b[2], b[3] = 0x00, 0x49 // m = 10
	b[4], b[7] = 0x02, 0x40 // qh bits 1 and 30
	for j := 0; j < 16; j++ {
		b[8+j] = 0x53
	}
	got := make([]float32, 32)
	DequantizeRowQ5_1(b, got)
	for k, v := range got {
		code := 3
		if k >= 16 {
			code = 5
		}
		if k == 1 || k == 30 {
			code += 16
		}
		if want := float32(code)*0.25 + 10; v != want {
			t.Errorf("elem %d = %v, want %v", k, v, want)
		}
	}
}

func TestQuantizeQ5KnownBlocks(t *testing.T) {
	nibbles := seqBytes(16, func(j int) byte { return byte(j) | byte(j)<<4 })

	// Q5_0: -16 is the extreme => d = 1, codes trunc(x + 16.5) = k; codes
	// 16..31 (elements 16..31) carry the fifth bit.
	x := seqF32(32, func(k int) float32 { return float32(k - 16) })
	want := append([]byte{0x00, 0x3c, 0x00, 0x00, 0xff, 0xff}, nibbles...)
	got := make([]byte, 22)
	QuantizeRowQ5_0(x, got)
	if !bytes.Equal(got, want) {
		t.Errorf("q5_0 ramp:\n got % x\nwant % x", got, want)
	}

	// +16 alone: d = -1, so +16 -> code 0 and zeros -> code 16 (fifth bit set
	// everywhere but element 0).
	x = seqF32(32, func(k int) float32 {
		if k == 0 {
			return 16
		}
		return 0
	})
	want = append([]byte{0x00, 0xbc, 0xfe, 0xff, 0xff, 0xff}, make([]byte, 16)...)
	QuantizeRowQ5_0(x, got)
	if !bytes.Equal(got, want) {
		t.Errorf("q5_0 positive max:\n got % x\nwant % x", got, want)
	}

	// Q5_1: min 1, max 16.5 => d = 0.5 (0x3800), m = 1 (0x3c00), codes k.
	x = seqF32(32, func(k int) float32 { return 1 + 0.5*float32(k) })
	want = append([]byte{0x00, 0x38, 0x00, 0x3c, 0x00, 0x00, 0xff, 0xff}, nibbles...)
	got = make([]byte, 24)
	QuantizeRowQ5_1(x, got)
	if !bytes.Equal(got, want) {
		t.Errorf("q5_1 ramp:\n got % x\nwant % x", got, want)
	}
}
