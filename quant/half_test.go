package quant

import (
	"math"
	"testing"
)

func TestFP16RoundTripAllValues(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := FP16ToFP32(h)
		if f != f { // NaN payloads need not survive
			continue
		}
		if got := FP32ToFP16(f); got != h {
			t.Fatalf("fp16 %#04x -> %v -> %#04x", h, f, got)
		}
	}
}

func TestFP32ToFP16RoundsToNearestEven(t *testing.T) {
	// 1 + 2^-11 is exactly half way between 1 and the next half (1 + 2^-10):
	// ties go to the even mantissa, i.e. down to 1.
	if got := FP32ToFP16(1 + 1.0/2048); got != 0x3c00 {
		t.Errorf("tie rounded to %#04x, want 0x3c00", got)
	}
	if got := FP32ToFP16(1 + 3.0/2048); got != 0x3c02 {
		t.Errorf("tie rounded to %#04x, want 0x3c02", got)
	}
}

func TestBF16(t *testing.T) {
	if got := FP32ToBF16(1); got != 0x3f80 {
		t.Errorf("bf16(1) = %#04x", got)
	}
	// 1 + 2^-8 ties between 1 and 1+2^-7: even wins (1).
	if got := FP32ToBF16(1 + 1.0/256); got != 0x3f80 {
		t.Errorf("bf16 tie = %#04x", got)
	}
	if got := FP32ToBF16(float32(math.NaN())); BF16ToFP32(got) == BF16ToFP32(got) {
		t.Errorf("NaN lost: %#04x", got)
	}
	if BF16ToFP32(0x4049) != math.Float32frombits(0x40490000) {
		t.Error("bf16 widen")
	}
}
