package quant

import (
	"math"

	"github.com/x448/float16"
)

// FP16ToFP32 converts an IEEE half (as stored in GGUF) to float32 exactly.
func FP16ToFP32(h uint16) float32 { return fp16Table[h] }

// FP32ToFP16 converts to IEEE half with round-to-nearest-even, as ggml's
// GGML_FP32_TO_FP16 (F16C's _cvtss_sh with rounding mode 0) does.
func FP32ToFP16(f float32) uint16 { return uint16(float16.Fromfloat32(f)) }

// BF16ToFP32 widens a bfloat16 exactly.
func BF16ToFP32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// FP32ToBF16 rounds to nearest even as ggml_compute_fp32_to_bf16 does: NaNs
// become quiet NaNs, everything else (including infinities) rounds.
func FP32ToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 64
	}
	return uint16((u + (0x7fff + (u>>16)&1)) >> 16)
}

// fp16Table holds every half value widened; 256 KiB, built once, and faster
// than bit twiddling in the generic dequantizers.
var fp16Table = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = float16.Float16(uint16(i)).Float32()
	}
	return &t
}()
