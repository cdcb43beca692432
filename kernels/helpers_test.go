package kernels

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

// weightTypes are the weight types with a matmul kernel.
var weightTypes = []ggml.Type{
	ggml.Q4_0, ggml.Q4_1, ggml.Q5_0, ggml.Q5_1, ggml.Q8_0,
	ggml.Q2_K, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K,
	ggml.F16, ggml.BF16, ggml.F32,
}

func blockSize(t ggml.Type) int { l, _ := ggml.LayoutOf(t); return l.BlockSize }

func rowBytes(t ggml.Type, n int) int {
	rb, err := ggml.RowBytes(t, int64(n))
	if err != nil {
		panic(err)
	}
	return int(rb)
}

func randFloats(r *rand.Rand, n int, scale float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64()) * scale
	}
	return x
}

// quantizeRow encodes x as t with quant's reference quantizer.
func quantizeRow(t testing.TB, typ ggml.Type, x []float32) []byte {
	t.Helper()
	dst := make([]byte, rowBytes(typ, len(x)))
	if err := quant.QuantizeRow(typ, x, dst); err != nil {
		t.Fatalf("quantize %v: %v", typ, err)
	}
	return dst
}

func dequantizeRow(t *testing.T, typ ggml.Type, b []byte, n int) []float32 {
	t.Helper()
	y := make([]float32, n)
	if err := quant.DequantizeRow(typ, b, y); err != nil {
		t.Fatalf("dequantize %v: %v", typ, err)
	}
	return y
}

// scaleOffsets lists the byte offsets of the fp16 scale fields in a block.
var scaleOffsets = map[ggml.Type][]int{
	ggml.Q4_0: {0}, ggml.Q4_1: {0, 2}, ggml.Q5_0: {0}, ggml.Q5_1: {0, 2}, ggml.Q8_0: {0},
	ggml.Q2_K: {80, 82}, ggml.Q3_K: {108}, ggml.Q4_K: {0, 2}, ggml.Q5_K: {0, 2}, ggml.Q6_K: {208},
}

// randomWeights returns n elements of raw random blocks of type t: every
// quant bit pattern is possible; fp16 scale fields are drawn from
// [scale/4, scale) with random signs (so no NaN/Inf sneaks in); float types
// get normal values of that scale. zeroEvery > 0 zeroes every k-th block.
func randomWeights(r *rand.Rand, typ ggml.Type, n int, scale float32, zeroEvery int) []byte {
	rb := rowBytes(typ, n)
	b := make([]byte, rb)
	switch typ {
	case ggml.F32:
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(r.NormFloat64())*scale))
		}
		return b
	case ggml.F16:
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint16(b[2*i:], quant.FP32ToFP16(float32(r.NormFloat64())*scale))
		}
		return b
	case ggml.BF16:
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint16(b[2*i:], quant.FP32ToBF16(float32(r.NormFloat64())*scale))
		}
		return b
	}
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	l, _ := ggml.LayoutOf(typ)
	for blk := 0; blk < n/l.BlockSize; blk++ {
		block := b[blk*l.BlockBytes : (blk+1)*l.BlockBytes]
		if zeroEvery > 0 && blk%zeroEvery == zeroEvery-1 {
			clear(block)
			continue
		}
		for _, off := range scaleOffsets[typ] {
			s := scale * (0.25 + 0.75*r.Float32())
			if r.IntN(2) == 0 {
				s = -s
			}
			binary.LittleEndian.PutUint16(block[off:], quant.FP32ToFP16(s))
		}
	}
	return b
}

// refDot returns the float64 dot product of the dequantized rows and the sum
// of the absolute products (the scale of the rounding error).
func refDot(t *testing.T, wt ggml.Type, w []byte, at ggml.Type, a []byte, n int) (dot, abs float64) {
	t.Helper()
	x := dequantizeRow(t, wt, w, n)
	y := dequantizeRow(t, at, a, n)
	for i := range x {
		p := float64(x[i]) * float64(y[i])
		dot += p
		abs += math.Abs(p)
	}
	return dot, abs
}

// dotTolerance bounds |kernel - refDot|: float32 rounding of the block sums,
// plus for the _1 types the fp16 rounding of Q8_1's s = d*sum (ggml uses the
// unrounded d there, the dequantized activation the fp16 one).
func dotTolerance(wt ggml.Type, w []byte, a []byte, n int, abs float64) float64 {
	tol := 4e-6*abs + 1e-30
	if wt == ggml.Q4_1 || wt == ggml.Q5_1 {
		wb := rowBytes(wt, 32)
		for blk := 0; blk < n/32; blk++ {
			m := float64(quant.FP16ToFP32(binary.LittleEndian.Uint16(w[blk*wb+2:])))
			s := float64(quant.FP16ToFP32(binary.LittleEndian.Uint16(a[blk*36+2:])))
			d := float64(quant.FP16ToFP32(binary.LittleEndian.Uint16(a[blk*36:])))
			// |s| and the activation sum with fp16 d differ by up to
			// 2^-11 relative each.
			tol += math.Abs(m) * (math.Abs(s) + d*127*32) * 1.5e-3
		}
	}
	return tol
}

func putHalf(b []byte, f float32) { binary.LittleEndian.PutUint16(b, quant.FP32ToFP16(f)) }
func putF32(b []byte, f float32)  { binary.LittleEndian.PutUint32(b, math.Float32bits(f)) }

var implFlag = flag.String("impl", "", "run the benchmarks (and tests that use the active set) on this kernel implementation instead of the best available, e.g. -impl avx2")

func TestMain(m *testing.M) {
	flag.Parse()
	if *implFlag != "" {
		if err := SetImpl(*implFlag); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// twinOf is the generic set s reproduces bit for bit (kernelSet.twin).
func twinOf(s *kernelSet) *kernelSet {
	if s.twin != nil {
		return s.twin
	}
	return genericSet
}
