package kernels

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/quant"
)

// The block layouts of ggml's quantized types and the decoding helpers the
// generic kernels share. The generic (pure Go) row dot products, one per
// weight type, live in vecdot_q4_0.go, vecdot_lanes.go, vecdot_repack.go
// and vecdot_float.go: each takes n (elements, a multiple of the block
// size), one weight row w and one activation row a already quantized to
// the weight's vec-dot type, and returns the dot product with ggml's
// arithmetic: an exact integer sum per block (or per sub-block for the
// K-quants), scaled in float32.

// Block sizes in bytes, as in ggml's block_* structs.
const (
	q4_0Bytes = 18  // d f16, qs[16]
	q4_1Bytes = 20  // d f16, m f16, qs[16]
	q5_0Bytes = 22  // d f16, qh[4], qs[16]
	q5_1Bytes = 24  // d f16, m f16, qh[4], qs[16]
	q8_0Bytes = 34  // d f16, qs[32] int8
	q8_1Bytes = 36  // d f16, s f16 (= d * sum(qs)), qs[32] int8
	q2_KBytes = 84  // scales[16], qs[64], d f16, dmin f16
	q3_KBytes = 110 // hmask[32], qs[64], scales[12], d f16
	q4_KBytes = 144 // d f16, dmin f16, scales[12], qs[128]
	q5_KBytes = 176 // d f16, dmin f16, scales[12], qh[32], qs[128]
	q6_KBytes = 210 // ql[128], qh[64], scales[16] int8, d f16
	q8_KBytes = 292 // d f32, qs[256] int8, bsums[16] int16
	qk        = 32
	qkK       = 256
)

func f16at(b []byte, off int) float32 {
	return quant.FP16ToFP32(binary.LittleEndian.Uint16(b[off:]))
}

func f32at(b []byte, off int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b[off:]))
}

// q8KBsum returns bsums[j] of a Q8_K block (sum of its quants 16j..16j+15).
func q8KBsum(y []byte, j int) int32 {
	return int32(int16(binary.LittleEndian.Uint16(y[260+2*j:])))
}

// unpackQ3KScales decodes the sixteen 6-bit scales of a Q3_K block (12
// bytes: low nibbles in bytes 0-7, high 2-bit pairs in bytes 8-11) as ggml
// does, without the -32 offset.
func unpackQ3KScales(b []byte, out *[16]int8) {
	a0 := binary.LittleEndian.Uint32(b[0:])
	a1 := binary.LittleEndian.Uint32(b[4:])
	t := binary.LittleEndian.Uint32(b[8:])
	const m1, m2 = 0x03030303, 0x0f0f0f0f
	words := [4]uint32{
		a0&m2 | (t>>0&m1)<<4,
		a1&m2 | (t>>2&m1)<<4,
		a0>>4&m2 | (t>>4&m1)<<4,
		a1>>4&m2 | (t>>6&m1)<<4,
	}
	for k, v := range words {
		for j := 0; j < 4; j++ {
			out[4*k+j] = int8(v >> (8 * j))
		}
	}
}

// scaleMinK4 decodes scale and min j (0..7) of a Q4_K/Q5_K block from its 12
// packed scale bytes (ggml's get_scale_min_k4).
func scaleMinK4(j int, q []byte) (d, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&0x0F | (q[j-4]>>6)<<4, q[j+4]>>4 | (q[j]>>6)<<4
}
