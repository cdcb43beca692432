package engine

import (
	"unsafe"

	"github.com/gollm/gollm/quant"
)

// bytesAsF32 reinterprets a little-endian float32 row stored as bytes (KV
// cache rows are 4-byte aligned).
func bytesAsF32(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// dequantQ8_0 decodes whole Q8_0 blocks of src into dst.
func dequantQ8_0(src []byte, dst []float32) { quant.DequantizeRowQ8_0(src, dst) }
