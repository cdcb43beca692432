package kernels

import (
	"math"

	"github.com/gollm/gollm/quant"
)

// The f16 vector helpers of llama.cpp's CPU flash-attention kernel. They are
// written to reproduce ggml's AVX2 arithmetic (lane layout, fused
// multiply-adds, reduction order), because on random-weight models every
// rounding difference in attention shows in the logits.

// DotF16F16 returns the dot product of two IEEE-half vectors of equal length
// as ggml_vec_dot_f16 computes it: blocks of 32 elements accumulate with
// FMAs into 4x8 float32 lanes, reduced pairwise; the tail is summed in
// float64.
func DotF16F16(x, y []uint16) float32 { return active.dotF16F16(x, y[:len(x)]) }

// MadF16 computes y += x*v on IEEE-half vectors, each element rounded back
// to half after a float32 fused multiply-add (ggml_vec_mad_f16).
func MadF16(y, x []uint16, v float32) { active.madF16(y, x[:len(y)], v) }

// ScaleF16 computes y *= v on an IEEE-half vector (ggml_vec_scale_f16).
func ScaleF16(y []uint16, v float32) { active.scaleF16(y, v) }

// F16ToF32 widens src into dst.
func F16ToF32(dst []float32, src []uint16) { active.f16ToF32(dst, src[:len(dst)]) }

// DotF16Rows sets out[i] = DotF16F16(q, k[i*stride:]) for every i <
// len(out): the scores of one query against consecutive cached key rows
// stride halves apart, in one call.
func DotF16Rows(out []float32, q, k []uint16, stride int) {
	if len(out) == 0 {
		return
	}
	_ = k[(len(out)-1)*stride+len(q)-1]
	active.dotF16Rows(out, q, k, stride)
}

// MadF16Rows applies, for i = 0, 1, ... len(vs)-1 in order, ScaleF16(acc,
// ms[i]) when ms[i] != 1 and then MadF16(acc, v[i*stride:], vs[i]): the
// online-softmax updates of flash attention for consecutive cached value
// rows, each step rounded to f16 as one call per row would.
func MadF16Rows(acc, v []uint16, stride int, ms, vs []float32) {
	if len(vs) == 0 {
		return
	}
	_ = ms[len(vs)-1]
	_ = v[(len(vs)-1)*stride+len(acc)-1]
	active.madF16Rows(acc, v, stride, ms, vs)
}

// DotF16Rows2 is DotF16Rows for two queries against the same rows (two
// query heads sharing a KV head), len(out1) == len(out2) rows.
func DotF16Rows2(out1, out2 []float32, q1, q2, k []uint16, stride int) {
	if len(out1) == 0 {
		return
	}
	out2 = out2[:len(out1)]
	q2 = q2[:len(q1)]
	_ = k[(len(out1)-1)*stride+len(q1)-1]
	active.dotF16Rows2(out1, out2, q1, q2, k, stride)
}

// MadF16Rows2 is MadF16Rows for two accumulators over the same value rows,
// each with its own factors.
func MadF16Rows2(acc1, acc2, v []uint16, stride int, ms1, vs1, ms2, vs2 []float32) {
	if len(vs1) == 0 {
		return
	}
	acc2 = acc2[:len(acc1)]
	ms1, ms2, vs2 = ms1[:len(vs1)], ms2[:len(vs1)], vs2[:len(vs1)]
	_ = v[(len(vs1)-1)*stride+len(acc1)-1]
	active.madF16Rows2(acc1, acc2, v, stride, ms1, vs1, ms2, vs2)
}

// MadF16Rows4 is MadF16Rows for four accumulators of equal length over the
// same value rows (four query heads of one KV head), each with its own
// factors; len(vs[0]) rows.
func MadF16Rows4(acc [4][]uint16, v []uint16, stride int, ms, vs [4][]float32) {
	rows, n := len(vs[0]), len(acc[0])
	if rows == 0 {
		return
	}
	for h := range acc {
		acc[h], ms[h], vs[h] = acc[h][:n], ms[h][:rows], vs[h][:rows]
	}
	_ = v[(rows-1)*stride+n-1]
	active.madRows4(acc, v, stride, ms, vs)
}

// madRows4 runs the set's four-head kernel, or its two-head one twice.
func (s *kernelSet) madRows4(acc [4][]uint16, v []uint16, stride int, ms, vs [4][]float32) {
	if s.madF16Rows4 != nil {
		s.madF16Rows4(acc, v, stride, ms, vs)
		return
	}
	s.madF16Rows2(acc[0], acc[1], v, stride, ms[0], vs[0], ms[1], vs[1])
	s.madF16Rows2(acc[2], acc[3], v, stride, ms[2], vs[2], ms[3], vs[3])
}

func dotF16Rows2Generic(out1, out2 []float32, q1, q2, k []uint16, stride int) {
	dotF16RowsGeneric(out1, q1, k, stride)
	dotF16RowsGeneric(out2, q2, k, stride)
}

func madF16Rows2Generic(acc1, acc2, v []uint16, stride int, ms1, vs1, ms2, vs2 []float32) {
	madF16RowsGeneric(acc1, v, stride, ms1, vs1)
	madF16RowsGeneric(acc2, v, stride, ms2, vs2)
}

// Expf returns glibc's expf(x) bit for bit (expf.go), the exponential
// llama.cpp's attention softmax uses.
func Expf(x float32) float32 { return expf32(x) }

// The generic (oracle) versions; SIMD sets may replace them (attn_amd64.go).

func dotF16RowsGeneric(out []float32, q, k []uint16, stride int) {
	for i := range out {
		out[i] = dotF16F16Generic(q, k[i*stride:i*stride+len(q)])
	}
}

func madF16RowsGeneric(acc, v []uint16, stride int, ms, vs []float32) {
	for i, w := range vs {
		if ms[i] != 1 {
			scaleF16Generic(acc, ms[i])
		}
		madF16Generic(acc, v[i*stride:i*stride+len(acc)], w)
	}
}

func dotF16F16Generic(x, y []uint16) float32 {
	y = y[:len(x)]
	n := len(x)
	np := n &^ 31
	var sumf float64
	if np > 0 {
		var acc [4][8]float32
		for i := 0; i < np; i += 32 {
			for j := 0; j < 4; j++ {
				for l := 0; l < 8; l++ {
					k := i + j*8 + l
					acc[j][l] = fma32(quant.FP16ToFP32(x[k]), quant.FP16ToFP32(y[k]), acc[j][l])
				}
			}
		}
		sumf = float64(reduce4x8(&acc))
	}
	for i := np; i < n; i++ {
		sumf += float64(quant.FP16ToFP32(x[i]) * quant.FP16ToFP32(y[i]))
	}
	return float32(sumf)
}

// reduce4x8 sums 4x8 lanes in the order of ggml's GGML_F32x8_REDUCE.
func reduce4x8(acc *[4][8]float32) float32 {
	for l := 0; l < 8; l++ {
		acc[0][l] += acc[2][l]
		acc[1][l] += acc[3][l]
	}
	for l := 0; l < 8; l++ {
		acc[0][l] += acc[1][l]
	}
	var t0 [4]float32
	for l := 0; l < 4; l++ {
		t0[l] = acc[0][l] + acc[0][l+4]
	}
	return (t0[0] + t0[1]) + (t0[2] + t0[3])
}

func madF16Generic(y, x []uint16, v float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] = quant.FP32ToFP16(fma32(quant.FP16ToFP32(x[i]), v, quant.FP16ToFP32(y[i])))
	}
}

func scaleF16Generic(y []uint16, v float32) {
	for i := range y {
		y[i] = quant.FP32ToFP16(quant.FP16ToFP32(y[i]) * v)
	}
}

func f16ToF32Generic(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = quant.FP16ToFP32(src[i])
	}
}

// fma32 is a float32 fused multiply-add. The product of two float32 is
// exact in float64, so only the final sum can round twice, which needs an
// exponent gap of ~30 bits: rare enough to ignore.
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }
