package quant

import (
	"encoding/binary"

	"github.com/gollm/gollm/ggml"
)

// Q5_0 and Q5_1: blocks of 32 weights stored as 5-bit codes. The low four
// bits are packed as in Q4_x (byte j of qs: element j low nibble, element
// j+16 high nibble); the fifth bit of element k is bit k of the
// little-endian uint32 qh.
//
//	block_q5_0 (22 bytes): d fp16 | qh[4] | qs[16]          x = (q - 16) * d
//	block_q5_1 (24 bytes): d fp16 | m fp16 | qh[4] | qs[16] x = q * d + m

const (
	qk5       = 32
	q5_0Bytes = 2 + 4 + qk5/2
	q5_1Bytes = 4 + 4 + qk5/2
)

func init() {
	register(Traits{Type: ggml.Q5_0, Name: "Q5_0", BlockSize: qk5, BlockBytes: q5_0Bytes,
		Dequantize: DequantizeRowQ5_0, Quantize: QuantizeRowQ5_0, VecDotType: ggml.Q8_0})
	register(Traits{Type: ggml.Q5_1, Name: "Q5_1", BlockSize: qk5, BlockBytes: q5_1Bytes,
		Dequantize: DequantizeRowQ5_1, Quantize: QuantizeRowQ5_1, VecDotType: ggml.Q8_1})
}

// q5Codes unpacks byte j of qs and the matching qh bits into the 5-bit codes
// of elements j and j+16.
func q5Codes(q byte, qh uint32, j int) (lo, hi int32) {
	lo = int32(q&0x0f) | int32(qh>>j&1)<<4
	hi = int32(q>>4) | int32(qh>>(j+qk5/2)&1)<<4
	return lo, hi
}

// DequantizeRowQ5_0 decodes len(dst)/32 blocks (dequantize_row_q5_0).
// len(dst) must be a multiple of 32 and src must hold the blocks; it panics
// otherwise (use DequantizeRow for a checked call).
func DequantizeRowQ5_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/qk5; i++ {
		b := src[i*q5_0Bytes : (i+1)*q5_0Bytes]
		y := dst[i*qk5 : (i+1)*qk5]
		d := FP16ToFP32(binary.LittleEndian.Uint16(b))
		qh := binary.LittleEndian.Uint32(b[2:])
		qs := b[6 : 6+qk5/2]
		for j, q := range qs {
			lo, hi := q5Codes(q, qh, j)
			y[j] = float32(lo-16) * d
			y[j+qk5/2] = float32(hi-16) * d
		}
	}
}

// QuantizeRowQ5_0 is quantize_row_q5_0_ref: as Q4_0 with 32 levels,
// d = max/-16 and codes min(31, trunc(x/d + 16.5)). Same size contract as
// QuantizeRowQ4_0.
func QuantizeRowQ5_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk5; i++ {
		x := src[i*qk5 : (i+1)*qk5]
		b := dst[i*q5_0Bytes : (i+1)*q5_0Bytes]

		var amax, max float32
		for _, v := range x {
			if a := absF32(v); amax < a {
				amax, max = a, v
			}
		}
		d := max / -16
		var id float32
		if d != 0 {
			id = 1 / d
		}
		binary.LittleEndian.PutUint16(b, FP32ToFP16(d))

		var qh uint32
		qs := b[6 : 6+qk5/2]
		for j := range qs {
			// float32(...) before the add: no fused multiply-add, as in ggml.
			lo := clampCode(truncInt8(float32(x[j]*id)+16.5), 31)
			hi := clampCode(truncInt8(float32(x[j+qk5/2]*id)+16.5), 31)
			qs[j] = lo&0x0f | hi<<4
			qh |= uint32(lo>>4&1)<<j | uint32(hi>>4&1)<<(j+qk5/2)
		}
		binary.LittleEndian.PutUint32(b[2:], qh)
	}
}

// DequantizeRowQ5_1 decodes len(dst)/32 blocks (dequantize_row_q5_1), with
// the same size contract as DequantizeRowQ5_0.
func DequantizeRowQ5_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/qk5; i++ {
		b := src[i*q5_1Bytes : (i+1)*q5_1Bytes]
		y := dst[i*qk5 : (i+1)*qk5]
		d := FP16ToFP32(binary.LittleEndian.Uint16(b))
		m := FP16ToFP32(binary.LittleEndian.Uint16(b[2:]))
		qh := binary.LittleEndian.Uint32(b[4:])
		qs := b[8 : 8+qk5/2]
		for j, q := range qs {
			lo, hi := q5Codes(q, qh, j)
			y[j] = float32(float32(lo)*d) + m
			y[j+qk5/2] = float32(float32(hi)*d) + m
		}
	}
}

// QuantizeRowQ5_1 is quantize_row_q5_1_ref: d = (max-min)/31, m = min, codes
// trunc((x-min)/d + 0.5). Unlike Q4_1 the reference does not clamp to 31; it
// keeps the low five bits, which is what this does too. Same size contract as
// QuantizeRowQ4_0.
func QuantizeRowQ5_1(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk5; i++ {
		x := src[i*qk5 : (i+1)*qk5]
		b := dst[i*q5_1Bytes : (i+1)*q5_1Bytes]

		min, max := blockMinMax(x)
		d := (max - min) / 31
		var id float32
		if d != 0 {
			id = 1 / d
		}
		binary.LittleEndian.PutUint16(b, FP32ToFP16(d))
		binary.LittleEndian.PutUint16(b[2:], FP32ToFP16(min))

		var qh uint32
		qs := b[8 : 8+qk5/2]
		for j := range qs {
			lo := truncUint8(float32((x[j]-min)*id) + 0.5)
			hi := truncUint8(float32((x[j+qk5/2]-min)*id) + 0.5)
			qs[j] = lo&0x0f | hi<<4
			qh |= uint32(lo>>4&1)<<j | uint32(hi>>4&1)<<(j+qk5/2)
		}
		binary.LittleEndian.PutUint32(b[4:], qh)
	}
}
