package quant

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/ggml"
)

// Q8_K block (ggml block_q8_K), 292 bytes for 256 values: value = d*qs[i].
// It exists for activations: the K-quant dot products pair with it, and
// bsums lets them fold in the mins of Q2_K/Q4_K/Q5_K without a second pass.
const (
	q8kD     = 0   // float32 scale
	q8kQs    = 4   // [256]int8
	q8kBsums = 260 // [16]int16 little endian: sum of each 16 consecutive qs
	q8kBytes = 292
)

func init() {
	register(Traits{
		Type: ggml.Q8_K, Name: "Q8_K", BlockSize: qkK, BlockBytes: q8kBytes,
		Dequantize: DequantizeRowQ8_K, Quantize: QuantizeRowQ8_K, VecDotType: ggml.Q8_K,
	})
}

// DequantizeRowQ8_K is ggml's dequantize_row_q8_K: value = d*qs, bsums unused.
func DequantizeRowQ8_K(src []byte, dst []float32) {
	nb := blockCount(len(dst), len(src), q8kBytes)
	for i := 0; i < nb; i++ {
		b := (*[q8kBytes]byte)(src[i*q8kBytes:])
		y := (*[qkK]float32)(dst[i*qkK:])
		d := math.Float32frombits(binary.LittleEndian.Uint32(b[q8kD:]))
		for j := range y {
			y[j] = d * float32(int8(b[q8kQs+j]))
		}
	}
}

// QuantizeRowQ8_K is quantize_row_q8_K_ref: per 256 values, the scale maps
// the value of largest magnitude to -127 (qs = nearest(-127/max * x), capped
// at 127), d = max/-127 as a float32, and bsums holds the sum of each 16
// consecutive quants. len(src) must be a multiple of 256 and dst must hold
// len(src)/256 blocks of 292 bytes; only whole blocks present in both are
// written. An all-zero block gets d = 0 and zero quants and sums (ggml leaves
// its bsums untouched there; zero is what any consumer expects).
func QuantizeRowQ8_K(src []float32, dst []byte) {
	nb := blockCount(len(src), len(dst), q8kBytes)
	for i := 0; i < nb; i++ {
		x := (*[qkK]float32)(src[i*qkK:])
		b := (*[q8kBytes]byte)(dst[i*q8kBytes:])
		var max, amax float32
		for _, v := range x {
			if ax := abs32(v); ax > amax {
				amax = ax
				max = v
			}
		}
		if amax == 0 {
			clear(b[:])
			continue
		}
		iscale := -127 / max
		qs := b[q8kQs : q8kQs+qkK]
		for j, v := range x {
			qs[j] = uint8(int8(min(127, nearestInt(iscale*v))))
		}
		for j := 0; j < 16; j++ {
			sum := 0
			for _, q := range qs[16*j : 16*j+16] {
				sum += int(int8(q))
			}
			binary.LittleEndian.PutUint16(b[q8kBsums+2*j:], uint16(int16(sum)))
		}
		binary.LittleEndian.PutUint32(b[q8kD:], math.Float32bits(1/iscale))
	}
}
