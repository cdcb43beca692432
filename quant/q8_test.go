package quant

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestDequantizeQ8_0(t *testing.T) {
	b := make([]byte, 34)
	b[0], b[1] = 0x00, 0x34 // d = 0.25
	for j := 0; j < 32; j++ {
		b[2+j] = byte(int8(j*8 - 128))
	}
	got := make([]float32, 32)
	DequantizeRowQ8_0(b, got)
	for j, v := range got {
		if want := float32(j*8-128) * 0.25; v != want {
			t.Errorf("elem %d = %v, want %v", j, v, want)
		}
	}
}

// roundfBlock has amax 127 (d = 1 exactly) and halves that roundf sends away
// from zero where banker's rounding would not.
var roundfBlock = []float32{127, 2.5, -2.5, 0.5, -0.5, 1.5, 0.49, -126.5}

func TestQuantizeQ8_0RoundsHalfAway(t *testing.T) {
	x := make([]float32, 32)
	copy(x, roundfBlock)
	want := make([]byte, 34)
	want[0], want[1] = 0x00, 0x3c
	copy(want[2:], []byte{127, 3, 0xfd, 1, 0xff, 2, 0, 0x81}) // -3, -1, -127 as int8
	got := make([]byte, 34)
	QuantizeRowQ8_0(x, got)
	if !bytes.Equal(got, want) {
		t.Errorf("\n got % x\nwant % x", got, want)
	}

	// A scale that fp16 cannot hold: d = 1/127 is stored rounded
	// (0x2008 = 0.0078773..., the nearest half), while codes use the exact
	// float32 scale, so 1 still maps to 127.
	for i := range x {
		x[i] = 0
	}
	x[5] = -1
	QuantizeRowQ8_0(x, got)
	if d := binary.LittleEndian.Uint16(got); d != 0x2008 {
		t.Errorf("d = %#04x, want 0x2008", d)
	}
	if q := int8(got[2+5]); q != -127 {
		t.Errorf("q = %d, want -127", q)
	}
}

func TestQuantizeQ8_1Sum(t *testing.T) {
	x := make([]float32, 64)
	copy(x, roundfBlock)
	// Second block: 0.5 * (k - 16) => amax 8 (k = 0: -8) => d = 8/127 (fp16
	// 0x2c08 after rounding), codes round(127*(k-16)/16).
	for k := 0; k < 32; k++ {
		x[32+k] = 0.5 * float32(k-16)
	}
	got := make([]byte, 72)
	QuantizeRowQ8_1(x, got)

	// Block 0: d = 1, sum = 127+3-3+1-1+2+0-127 = 2 => s = 2 (0x4000).
	wantHead := []byte{0x00, 0x3c, 0x00, 0x40, 127, 3, 0xfd, 1, 0xff, 2, 0, 0x81}
	if !bytes.Equal(got[:len(wantHead)], wantHead) {
		t.Errorf("block 0:\n got % x\nwant % x", got[:len(wantHead)], wantHead)
	}

	// Block 1: codes are odd-symmetric around k = 16 except for k = 0 (-127),
	// so sum = -127 and s = fp16(-127 * 8/127) = -8 (0xc800), computed from
	// the float32 d, not the stored fp16 one.
	b := got[36:]
	if d := binary.LittleEndian.Uint16(b); d != 0x2c08 {
		t.Errorf("block 1 d = %#04x, want 0x2c08", d)
	}
	if s := binary.LittleEndian.Uint16(b[2:]); s != 0xc800 {
		t.Errorf("block 1 s = %#04x, want 0xc800", s)
	}
	if q := int8(b[4+8]); q != -64 { // 127*(-8)/16 = -63.5 -> -64
		t.Errorf("block 1 q[8] = %d, want -64", q)
	}

	// Q8_1 decodes like Q8_0 and ignores s.
	y := make([]float32, 64)
	DequantizeRowQ8_1(got, y)
	if y[0] != 127 || y[2] != -3 {
		t.Errorf("dequantized %v", y[:8])
	}
}
