package kernels

import "github.com/gollm/gollm/ggml"

// Q8_0 in block sums: the order of the opt-in avx2-q8sums set's packed Q8_0
// kernels (packed_q8_0_amd64.go).
//
// llama.cpp's AVX2 build multiplies Q8_0 in tinyBLAS's lane order
// (vecdot_lanes.go): per block, eight int32 lanes of four products each,
// converted and scaled into eight float accumulators. On AVX2 without
// VNNI that costs a conversion and a multiply-add per four products, and
// its prefill tile ran at llama.cpp's speed and no faster (an AMD EPYC
// Zen3; the measurements are in tile_amd64.s). Rows packed eight to a
// group (as Q4_0, packed.go) leave each row's exact block sum in one lane,
// and then the conversion and the scaling are one per block and eight
// rows: ggml's scalar reference order,
//
//	sum += float(s) * (d_w * d_a)   (s: the block's exact integer sum)
//
// the order the Q4_0 kernels already compute. On an AMD EPYC Zen3 (2
// threads) TinyLlama Q8_0 prefill ran 1.69x as fast (pp512 40.9 -> 69.0
// tok/s, 1.73x llama.cpp), decode 1.04x, four and eight sequences decoded
// together 1.53x and 1.56x.
//
// It is not llama.cpp's AVX2 order, so it is opt-in (--kernels
// avx2-q8sums), as avx512bf16 is: the logits of Q8_0 matrices move off
// llama.cpp's last bits, and the next layer's activation quantization
// turns some of those into whole steps. The trained stories260K Q8_0 model
// stays within the quantized tolerance (0.6% of max|logit|, greedy output
// unchanged), but the random-weight tiny-Q8_0.p3 golden file, whose logits
// are nearly tied, lands at 2.6% with 8 of 10 argmaxes (TestQ8SumsSet).
// VecDot (the q8_0 KV cache) keeps the lane order. Every batch size and
// every path of the set computes this one order, so a token's logits do
// not depend on its batch.

// vecDotQ8_0Q8_0SumsGeneric is Q8_0 x Q8_0 in block sums.
func vecDotQ8_0Q8_0SumsGeneric(n int, w, a []byte) float32 {
	var sum float32
	for i := 0; i < n/qk; i++ {
		x := w[i*q8_0Bytes : (i+1)*q8_0Bytes]
		y := a[i*q8_0Bytes : (i+1)*q8_0Bytes]
		var s int32
		for j := 2; j < q8_0Bytes; j++ {
			s += int32(int8(x[j])) * int32(int8(y[j]))
		}
		// (The conversion keeps the compiler from fusing the multiply
		// and the add, as the kernels do not.)
		sum += float32(float32(s) * (f16at(x, 0) * f16at(y, 0)))
	}
	return sum
}

// genericQ8_0Sums is the generic twin of the sets that multiply Q8_0 in
// block sums (the AVX2 set): the generic set with that Q8_0 kernel, and
// VecDot's in the lane order.
var genericQ8_0Sums = func() *kernelSet {
	s := *genericSet
	s.name = "generic-q8_0sums"
	s.vecDot[ggml.Q8_0] = vecDotQ8_0Q8_0SumsGeneric
	s.rowDot[ggml.Q8_0] = vecDotQ8_0Q8_0Generic
	return &s
}()
