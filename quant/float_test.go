package quant

import (
	"bytes"
	"math"
	"testing"
)

func TestFloatRowsKnownValues(t *testing.T) {
	f16 := []byte{0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00, 0x00, 0x80, 0x00, 0x7c}
	want := []float32{1, -2, 65504, 1.0 / (1 << 24), float32(math.Copysign(0, -1)), float32(math.Inf(1))}
	got := make([]float32, len(want))
	DequantizeRowF16(f16, got)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("f16[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// Back again, plus two rounding cases: 65520 is the tie between 65504
	// and the (infinite) next step, 1+2^-11 the tie between 1 and 1+2^-10;
	// both go to the even neighbour.
	src := append(want, 65520, 1+1.0/2048)
	out := make([]byte, 2*len(src))
	QuantizeRowF16(src, out)
	if wantB := append(f16, 0x00, 0x7c, 0x00, 0x3c); !bytes.Equal(out, wantB) {
		t.Errorf("f16 quantize:\n got % x\nwant % x", out, wantB)
	}

	bf := []byte{0x80, 0x3f, 0x49, 0x40, 0x80, 0xbf}
	bwant := []float32{1, math.Float32frombits(0x40490000), -1}
	bgot := make([]float32, 3)
	DequantizeRowBF16(bf, bgot)
	for i := range bwant {
		if bgot[i] != bwant[i] {
			t.Errorf("bf16[%d] = %v, want %v", i, bgot[i], bwant[i])
		}
	}
	bout := make([]byte, 6)
	QuantizeRowBF16([]float32{1, math.Float32frombits(0x40490fdb), -1}, bout) // pi rounds down to 0x4049
	if !bytes.Equal(bout, bf) {
		t.Errorf("bf16 quantize: got % x, want % x", bout, bf)
	}

	// F32 is a little-endian copy, NaN payloads included.
	fsrc := []float32{1, math.Float32frombits(0x7fc01234), -0.0}
	fb := make([]byte, 12)
	QuantizeRowF32(fsrc, fb)
	if !bytes.Equal(fb[:4], []byte{0x00, 0x00, 0x80, 0x3f}) {
		t.Errorf("f32 bytes % x", fb[:4])
	}
	fback := make([]float32, 3)
	DequantizeRowF32(fb, fback)
	for i := range fsrc {
		if math.Float32bits(fback[i]) != math.Float32bits(fsrc[i]) {
			t.Errorf("f32[%d] bits %#x, want %#x", i, math.Float32bits(fback[i]), math.Float32bits(fsrc[i]))
		}
	}
}
