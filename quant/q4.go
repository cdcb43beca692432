package quant

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/ggml"
)

// Q4_0 and Q4_1: blocks of 32 weights stored as 4-bit codes. Byte j of qs
// holds element j in its low nibble and element j+16 in its high nibble.
//
//	block_q4_0 (18 bytes): d fp16 | qs[16]          x = (q - 8) * d
//	block_q4_1 (20 bytes): d fp16 | m fp16 | qs[16] x = q * d + m

const (
	qk4       = 32
	q4_0Bytes = 2 + qk4/2
	q4_1Bytes = 4 + qk4/2
)

func init() {
	register(Traits{Type: ggml.Q4_0, Name: "Q4_0", BlockSize: qk4, BlockBytes: q4_0Bytes,
		Dequantize: DequantizeRowQ4_0, Quantize: QuantizeRowQ4_0, VecDotType: ggml.Q8_0})
	register(Traits{Type: ggml.Q4_1, Name: "Q4_1", BlockSize: qk4, BlockBytes: q4_1Bytes,
		Dequantize: DequantizeRowQ4_1, Quantize: QuantizeRowQ4_1, VecDotType: ggml.Q8_1})
}

// DequantizeRowQ4_0 decodes len(dst)/32 blocks (dequantize_row_q4_0).
// len(dst) must be a multiple of 32 and src must hold the blocks; it panics
// otherwise (use DequantizeRow for a checked call).
func DequantizeRowQ4_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/qk4; i++ {
		b := src[i*q4_0Bytes : (i+1)*q4_0Bytes]
		y := dst[i*qk4 : (i+1)*qk4]
		d := FP16ToFP32(binary.LittleEndian.Uint16(b))
		qs := b[2 : 2+qk4/2]
		for j, q := range qs {
			y[j] = float32(int32(q&0x0f)-8) * d
			y[j+qk4/2] = float32(int32(q>>4)-8) * d
		}
	}
}

// QuantizeRowQ4_0 is quantize_row_q4_0_ref: d = max/-8 where max is the
// element of largest magnitude with its sign, so that element maps to code 0
// exactly and the opposite extreme clamps to 15. Codes are
// min(15, trunc(x/d + 8.5)). len(src) must be a multiple of 32 and dst must
// hold len(src)/32 blocks; it panics otherwise.
func QuantizeRowQ4_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk4; i++ {
		x := (*[qk4]float32)(src[i*qk4:])
		b := (*[q4_0Bytes]byte)(dst[i*q4_0Bytes:])
		ab, mb := absMax32(x)
		max := math.Float32frombits(mb)
		d := max / -8
		var id float32
		if d != 0 {
			id = 1 / d
		}
		if ab >= expInf || !finiteF32(id) {
			quantizeBlockQ4_0Plain(x, b)
			continue
		}
		binary.LittleEndian.PutUint16(b[:], FP32ToFP16(d))
		// Every x is finite and |x*id| <= amax*|id|, which is about 8 (at
		// most 12 when d is subnormal and rounded), so x*id + 8.5 is well
		// inside int32 and Go's conversion truncates exactly as C's does.
		// The explicit float32 conversions keep Go from fusing the
		// multiply and add (ggml's reference is compiled without FMA).
		for j := 0; j < qk4/2; j++ {
			lo := min(int32(float32(x[j]*id)+8.5), 15)
			hi := min(int32(float32(x[j+qk4/2]*id)+8.5), 15)
			b[2+j] = uint8(lo) | uint8(hi)<<4
		}
	}
}

// quantizeBlockQ4_0Plain is quantize_row_q4_0_ref for one block, written
// for every input (NaN, infinities, scales whose inverse overflows).
func quantizeBlockQ4_0Plain(x *[qk4]float32, b *[q4_0Bytes]byte) {
	var amax, max float32
	for _, v := range x {
		if a := absF32(v); amax < a {
			amax, max = a, v
		}
	}
	d := max / -8
	var id float32
	if d != 0 {
		id = 1 / d
	}
	binary.LittleEndian.PutUint16(b[:], FP32ToFP16(d))
	for j := 0; j < qk4/2; j++ {
		lo := clampCode(truncInt8(float32(x[j]*id)+8.5), 15)
		hi := clampCode(truncInt8(float32(x[j+qk4/2]*id)+8.5), 15)
		b[2+j] = lo | hi<<4
	}
}

// DequantizeRowQ4_1 decodes len(dst)/32 blocks (dequantize_row_q4_1), with
// the same size contract as DequantizeRowQ4_0.
func DequantizeRowQ4_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/qk4; i++ {
		b := src[i*q4_1Bytes : (i+1)*q4_1Bytes]
		y := dst[i*qk4 : (i+1)*qk4]
		d := FP16ToFP32(binary.LittleEndian.Uint16(b))
		m := FP16ToFP32(binary.LittleEndian.Uint16(b[2:]))
		qs := b[4 : 4+qk4/2]
		for j, q := range qs {
			y[j] = float32(float32(q&0x0f)*d) + m
			y[j+qk4/2] = float32(float32(q>>4)*d) + m
		}
	}
}

// QuantizeRowQ4_1 is quantize_row_q4_1_ref: d = (max-min)/15, m = min, codes
// min(15, trunc((x-min)/d + 0.5)). Same size contract as QuantizeRowQ4_0.
func QuantizeRowQ4_1(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk4; i++ {
		x := src[i*qk4 : (i+1)*qk4]
		b := dst[i*q4_1Bytes : (i+1)*q4_1Bytes]

		min, max := blockMinMax(x)
		d := (max - min) / 15
		var id float32
		if d != 0 {
			id = 1 / d
		}
		binary.LittleEndian.PutUint16(b, FP32ToFP16(d))
		binary.LittleEndian.PutUint16(b[2:], FP32ToFP16(min))

		qs := b[4 : 4+qk4/2]
		for j := range qs {
			lo := clampCode(truncInt8(float32((x[j]-min)*id)+0.5), 15)
			hi := clampCode(truncInt8(float32((x[j+qk4/2]-min)*id)+0.5), 15)
			qs[j] = lo | hi<<4
		}
	}
}

// clampCode is `uint8_t q = MIN(max, (int8_t)...)`: the comparison is signed,
// the result is then reinterpreted as unsigned (only NaN inputs ever make it
// negative).
func clampCode(q int8, max int8) uint8 {
	if q > max {
		q = max
	}
	return uint8(q)
}

// blockMinMax scans as the _1 reference quantizers do, starting from
// ±FLT_MAX, so NaNs are skipped just as in C.
func blockMinMax(x []float32) (min, max float32) {
	min, max = 3.4028234663852886e+38, -3.4028234663852886e+38
	for _, v := range x {
		if v < min {
			min = v
		}
		if v > max {
			max = v
		}
	}
	return min, max
}
