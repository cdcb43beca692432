package kvcache

import (
	"unsafe"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
)

// encodeRow stores src (one position's K or V) into dst in storage type t.
// The roundings are the ones llama.cpp applies when it copies K and V into
// its cache on x86, so that attention sees the same stored values.
func encodeRow(t ggml.Type, dst []byte, src []float32) {
	switch t {
	case ggml.F16:
		// vcvtps2ph with round-to-nearest-even, as ggml's FP32_TO_FP16.
		kernels.F32ToF16(asU16(dst), src)
	case ggml.Q8_0:
		// ggml's x86 quantize_row_q8_0, which llama.cpp's set_rows runs
		// for a q8_0 cache (the activation quantizer of package kernels).
		kernels.QuantizeRowQ8_0(dst, src)
	default:
		copy(asF32(dst), src)
	}
}

// asU16 reinterprets b (2-byte aligned: storage is allocated as uint64s and
// every row offset is even for F16) as halves.
func asU16(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// asF32 reinterprets b (4-byte aligned for F32 storage) as float32s.
func asF32(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}
