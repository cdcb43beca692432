package quant

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/ggml"
)

// The float formats: one element per "block". ggml's CPU backend computes
// F16 and BF16 dot products against activations converted to the same type
// (its vec_dot_type for F16 is F16, for BF16 is BF16), so the table says so.

func init() {
	register(Traits{Type: ggml.F32, Name: "F32", BlockSize: 1, BlockBytes: 4,
		Dequantize: DequantizeRowF32, Quantize: QuantizeRowF32, VecDotType: ggml.F32})
	register(Traits{Type: ggml.F16, Name: "F16", BlockSize: 1, BlockBytes: 2,
		Dequantize: DequantizeRowF16, Quantize: QuantizeRowF16, VecDotType: ggml.F16})
	register(Traits{Type: ggml.BF16, Name: "BF16", BlockSize: 1, BlockBytes: 2,
		Dequantize: DequantizeRowBF16, Quantize: QuantizeRowBF16, VecDotType: ggml.BF16})
}

// DequantizeRowF32 decodes little-endian float32 values; src holds
// 4*len(dst) bytes.
func DequantizeRowF32(src []byte, dst []float32) {
	src = src[:4*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

// QuantizeRowF32 stores src as little-endian float32; dst holds 4*len(src)
// bytes.
func QuantizeRowF32(src []float32, dst []byte) {
	dst = dst[:4*len(src)]
	for i, v := range src {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
	}
}

// DequantizeRowF16 widens IEEE halves exactly; src holds 2*len(dst) bytes.
// Four halves are read as one word, with the table held in a local so the
// loop does not reload it after every store.
func DequantizeRowF16(src []byte, dst []float32) {
	src = src[:2*len(dst)]
	t := fp16Table
	for len(dst) >= 4 && len(src) >= 8 {
		v := binary.LittleEndian.Uint64(src)
		d := (*[4]float32)(dst)
		d[0] = t[uint16(v)]
		d[1] = t[uint16(v>>16)]
		d[2] = t[uint16(v>>32)]
		d[3] = t[uint16(v>>48)]
		src, dst = src[8:], dst[4:]
	}
	for i := range dst {
		dst[i] = t[binary.LittleEndian.Uint16(src[2*i:])]
	}
}

// QuantizeRowF16 rounds to IEEE halves to nearest even, as
// ggml_fp32_to_fp16_row (what llama-quantize calls for F16) does.
func QuantizeRowF16(src []float32, dst []byte) {
	dst = dst[:2*len(src)]
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], FP32ToFP16(v))
	}
}

// DequantizeRowBF16 widens bfloat16 values exactly; src holds 2*len(dst)
// bytes.
func DequantizeRowBF16(src []byte, dst []float32) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = BF16ToFP32(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

// QuantizeRowBF16 rounds to bfloat16 to nearest even, as
// ggml_fp32_to_bf16_row_ref does.
func QuantizeRowBF16(src []float32, dst []byte) {
	dst = dst[:2*len(src)]
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], FP32ToBF16(v))
	}
}
