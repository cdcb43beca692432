package quant

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestQuantizeRowQ8_KRamp(t *testing.T) {
	x := make([]float32, 512)
	for j := range x {
		x[j] = float32(j%256 - 128) // block max by magnitude: -128
	}
	x[256+255] = 200 // second block: positive max
	b := make([]byte, 2*q8kBytes)
	QuantizeRowQ8_K(x, b)
	for blk := 0; blk < 2; blk++ {
		xb, bb := x[256*blk:256*blk+256], b[q8kBytes*blk:]
		max := float32(-128)
		if blk == 1 {
			max = 200
		}
		iscale := -127 / max
		if d := math.Float32frombits(binary.LittleEndian.Uint32(bb)); d != 1/iscale {
			t.Fatalf("block %d: d = %v, want %v", blk, d, 1/iscale)
		}
		for g := 0; g < 16; g++ {
			sum := 0
			for j := 16 * g; j < 16*g+16; j++ {
				want := int(math.RoundToEven(float64(iscale * xb[j])))
				if got := int(int8(bb[4+j])); got != want {
					t.Fatalf("block %d quant %d: got %d, want %d", blk, j, got, want)
				}
				sum += want
			}
			if got := int(int16(binary.LittleEndian.Uint16(bb[260+2*g:]))); got != sum {
				t.Fatalf("block %d bsums[%d] = %d, want %d", blk, g, got, sum)
			}
		}
	}
	// The value of largest magnitude maps to -127 (ggml scales by -127/max).
	if q := int8(b[4]); q != -127 {
		t.Fatalf("extreme value quantized to %d, want -127", q)
	}
}

func TestDequantizeRowQ8_K(t *testing.T) {
	var b [q8kBytes]byte
	binary.LittleEndian.PutUint32(b[:], math.Float32bits(0.75))
	for j := 0; j < 256; j++ {
		b[4+j] = uint8(int8(j - 128))
	}
	y := make([]float32, 256)
	DequantizeRowQ8_K(b[:], y)
	for j, v := range y {
		if want := 0.75 * float32(j-128); v != want {
			t.Fatalf("value %d: got %v, want %v", j, v, want)
		}
	}
}
