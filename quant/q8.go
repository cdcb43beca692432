package quant

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/ggml"
)

// Q8_0 and Q8_1: blocks of 32 signed bytes with an fp16 scale. Q8_0 is both a
// weight format and the activation format paired with Q4_0/Q5_0/Q8_0
// weights; Q8_1 is the activation format for Q4_1/Q5_1, whose extra
// s = d * sum(qs) lets the dot product fold in the weights' offset m with one
// multiply per block.
//
//	block_q8_0 (34 bytes): d fp16 | qs[32] int8          x = q * d
//	block_q8_1 (36 bytes): d fp16 | s fp16 | qs[32] int8  x = q * d

const (
	qk8       = 32
	q8_0Bytes = 2 + qk8
	q8_1Bytes = 4 + qk8
)

func init() {
	register(Traits{Type: ggml.Q8_0, Name: "Q8_0", BlockSize: qk8, BlockBytes: q8_0Bytes,
		Dequantize: DequantizeRowQ8_0, Quantize: QuantizeRowQ8_0, VecDotType: ggml.Q8_0})
	register(Traits{Type: ggml.Q8_1, Name: "Q8_1", BlockSize: qk8, BlockBytes: q8_1Bytes,
		Dequantize: DequantizeRowQ8_1, Quantize: QuantizeRowQ8_1, VecDotType: ggml.Q8_1})
}

// DequantizeRowQ8_0 decodes len(dst)/32 blocks (dequantize_row_q8_0).
// len(dst) must be a multiple of 32 and src must hold the blocks; it panics
// otherwise (use DequantizeRow for a checked call).
func DequantizeRowQ8_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/qk8; i++ {
		b := src[i*q8_0Bytes : (i+1)*q8_0Bytes]
		y := dst[i*qk8 : (i+1)*qk8]
		d := FP16ToFP32(binary.LittleEndian.Uint16(b))
		for j, q := range b[2 : 2+qk8] {
			y[j] = float32(int8(q)) * d
		}
	}
}

// q8Scale is the shared first half of the Q8 reference quantizers:
// d = amax/127 and its inverse (0 for an all-zero block). The comparison
// mirrors C's MAX(amax, fabsf(v)), so a NaN poisons amax the same way.
func q8Scale(x []float32) (d, id float32) {
	var amax float32
	for _, v := range x {
		if a := absF32(v); !(amax > a) {
			amax = a
		}
	}
	d = amax / 127
	if d != 0 {
		id = 1 / d
	}
	return d, id
}

// QuantizeRowQ8_0 is quantize_row_q8_0_ref: d = amax/127, q = roundf(x/d)
// (half away from zero). The kernels use it to quantize activations for
// Q4_0/Q5_0/Q8_0 weights. len(src) must be a multiple of 32 and dst must
// hold len(src)/32 blocks; it panics otherwise.
func QuantizeRowQ8_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk8; i++ {
		x := (*[qk8]float32)(src[i*qk8:])
		b := (*[q8_0Bytes]byte)(dst[i*q8_0Bytes:])
		d, id, fast := q8ScaleFast(x)
		binary.LittleEndian.PutUint16(b[:], FP32ToFP16(d))
		if !fast {
			for j, v := range x {
				b[2+j] = byte(roundInt8(v * id))
			}
			continue
		}
		for j, v := range x {
			b[2+j] = byte(roundSmall(float32(v * id)))
		}
	}
}

// q8ScaleFast is q8Scale through the integer scan (see absMaxBits); fast
// reports that every x is finite and id too, so that |x*id| <= amax*|id|
// stays below 200 (127 times at most 1.5 when d is subnormal) and
// roundSmall applies. Otherwise d and id come from q8Scale.
func q8ScaleFast(x *[qk8]float32) (d, id float32, fast bool) {
	ab := absMaxBits(x)
	if ab >= expInf {
		d, id = q8Scale(x[:])
		return d, id, false
	}
	d = math.Float32frombits(ab) / 127
	if d != 0 {
		id = 1 / d
	}
	return d, id, finiteF32(id)
}

// DequantizeRowQ8_1 decodes len(dst)/32 blocks as q*d (s is only a dot
// product aid). ggml itself has no Q8_1 dequantizer; this is for tests and
// inspection. Same size contract as DequantizeRowQ8_0.
func DequantizeRowQ8_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/qk8; i++ {
		b := src[i*q8_1Bytes : (i+1)*q8_1Bytes]
		y := dst[i*qk8 : (i+1)*qk8]
		d := FP16ToFP32(binary.LittleEndian.Uint16(b))
		for j, q := range b[4 : 4+qk8] {
			y[j] = float32(int8(q)) * d
		}
	}
}

// QuantizeRowQ8_1 is quantize_row_q8_1_ref: as Q8_0, plus
// s = fp16(float(sum of the int8 codes) * d), with d the unrounded float32
// scale (not its fp16 value). The kernels use it to quantize activations for
// Q4_1/Q5_1 weights. Same size contract as QuantizeRowQ8_0.
func QuantizeRowQ8_1(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk8; i++ {
		x := (*[qk8]float32)(src[i*qk8:])
		b := (*[q8_1Bytes]byte)(dst[i*q8_1Bytes:])
		d, id, fast := q8ScaleFast(x)
		binary.LittleEndian.PutUint16(b[:], FP32ToFP16(d))
		var sum int32
		if fast {
			for j, v := range x {
				q := roundSmall(float32(v * id))
				b[4+j] = byte(q)
				sum += int32(q)
			}
		} else {
			for j, v := range x {
				q := roundInt8(v * id)
				b[4+j] = byte(q)
				sum += int32(q)
			}
		}
		binary.LittleEndian.PutUint16(b[2:], FP32ToFP16(float32(sum)*d))
	}
}
