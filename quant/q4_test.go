package quant

import (
	"bytes"
	"testing"
)

// Hand-built blocks with values worked out from ggml's definitions, so these
// fail if the nibble order, the -8 offset or the scale position is wrong.

func TestDequantizeQ4_0NibbleOrder(t *testing.T) {
	b := make([]byte, 18)
	b[0], b[1] = 0x00, 0x3c // d = 1.0 in fp16
	for j := 0; j < 16; j++ {
		b[2+j] = byte(j) | byte(15-j)<<4 // low nibble: element j; high: element j+16
	}
	got := make([]float32, 32)
	DequantizeRowQ4_0(b, got)
	for j := 0; j < 16; j++ {
		if want := float32(j - 8); got[j] != want {
			t.Errorf("elem %d = %v, want %v", j, got[j], want)
		}
		if want := float32(7 - j); got[16+j] != want {
			t.Errorf("elem %d = %v, want %v", 16+j, got[16+j], want)
		}
	}
}

func TestDequantizeQ4_1(t *testing.T) {
	b := make([]byte, 20)
	b[0], b[1] = 0x00, 0x38 // d = 0.5
	b[2], b[3] = 0x00, 0xbc // m = -1
	for j := 0; j < 16; j++ {
		b[4+j] = byte(j) | 3<<4
	}
	got := make([]float32, 32)
	DequantizeRowQ4_1(b, got)
	for j := 0; j < 16; j++ {
		if want := float32(j)*0.5 - 1; got[j] != want {
			t.Errorf("elem %d = %v, want %v", j, got[j], want)
		}
		if got[16+j] != 0.5 {
			t.Errorf("elem %d = %v, want 0.5", 16+j, got[16+j])
		}
	}
}

func TestQuantizeQ4_0KnownBlocks(t *testing.T) {
	cases := []struct {
		name string
		x    func(k int) float32
		want []byte
	}{
		{
			// max by magnitude is -8 => d = -8/-8 = 1; codes trunc(x+8.5) = x+8.
			name: "ramp",
			x:    func(k int) float32 { return float32(k%16 - 8) },
			want: append([]byte{0x00, 0x3c}, seqBytes(16, func(j int) byte { return byte(j) | byte(j)<<4 })...),
		},
		{
			// a positive extreme gives a negative d: +8 -> code 0, zeros -> code 8.
			name: "positive max",
			x: func(k int) float32 {
				if k == 0 {
					return 8
				}
				return 0
			},
			want: append([]byte{0x00, 0xbc, 0x80}, bytes.Repeat([]byte{0x88}, 15)...),
		},
		{
			// -8 sets d = 1, so +8 would be code 16: clamped to 15 (value 7).
			name: "clamp",
			x: func(k int) float32 {
				switch k {
				case 0:
					return -8
				case 17:
					return 8
				case 2:
					return 0.6 // 9.1 -> code 9
				}
				return 0.49 // trunc(8.99) = 8: truncation, not rounding
			},
			want: append([]byte{0x00, 0x3c, 0x80, 0xf8, 0x89}, bytes.Repeat([]byte{0x88}, 13)...),
		},
		{
			// d = 0 / -8 is -0 in IEEE arithmetic, so ggml stores fp16 -0.
			name: "zero",
			x:    func(int) float32 { return 0 },
			want: append([]byte{0x00, 0x80}, bytes.Repeat([]byte{0x88}, 16)...),
		},
	}
	for _, c := range cases {
		x := seqF32(32, c.x)
		got := make([]byte, 18)
		QuantizeRowQ4_0(x, got)
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s:\n got % x\nwant % x", c.name, got, c.want)
		}
	}
}

func TestQuantizeQ4_1KnownBlocks(t *testing.T) {
	// min 2, max 17 => d = 1, m = 2 (0x4000), codes k%16.
	x := seqF32(32, func(k int) float32 { return float32(2 + k%16) })
	want := append([]byte{0x00, 0x3c, 0x00, 0x40}, seqBytes(16, func(j int) byte { return byte(j) | byte(j)<<4 })...)
	got := make([]byte, 20)
	QuantizeRowQ4_1(x, got)
	if !bytes.Equal(got, want) {
		t.Errorf("ramp:\n got % x\nwant % x", got, want)
	}

	// A constant block has d = 0: every code 0 and the value lives in m.
	x = seqF32(32, func(int) float32 { return -3 })
	want = append([]byte{0x00, 0x00, 0x00, 0xc2}, make([]byte, 16)...)
	QuantizeRowQ4_1(x, got)
	if !bytes.Equal(got, want) {
		t.Errorf("constant:\n got % x\nwant % x", got, want)
	}
}

func seqF32(n int, f func(int) float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func seqBytes(n int, f func(int) byte) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}
