package kernels

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/ggml"
)

// The BF16 order of the opt-in avx512bf16 set (impl_amd64.go): rows a
// multiple of 32 long in the order of the AVX512-BF16 instruction
// VDPBF16PS, which llama.cpp's tinyBLAS uses on CPUs that have it
// (tinyBLAS<32, __m512, __m512bh>): sixteen float32 lanes; per group of 32
// elements, lane l takes elements 2l and 2l+1 as two fused multiply-adds,
// the odd element first; denormal inputs count as zero and denormal
// results are flushed to zero (the instruction's fixed DAZ/FTZ; all three
// checked on an AMD Zen4); then _mm512_reduce_add_ps (the two halves
// added, then ggml's 8-lane horizontal sum). The instruction does in one
// step what float32 FMAs need two for, so prefill runs at twice the FMA
// rate. Other lengths keep dotFloatOrder, as llama.cpp's tinyBLAS needs
// whole groups of 32.
//
// It is not the default order: the golden logits (llama.cpp's AVX2 build)
// multiply BF16 in tinyBLAS's 8-lane order, and on the random-weight test
// models this order lands 1e-3 to 3e-3 of max|logit| away from them (BF16
// rounding of the activations turns last-bit differences into BF16 steps).
// genericBF16Pairs is the generic twin the avx512bf16 set reproduces.
var genericBF16Pairs = func() *kernelSet {
	s := *genericSet
	s.name = "generic-bf16pairs"
	s.vecDot[ggml.BF16] = vecDotBF16PairsGeneric
	s.vecDot1[ggml.BF16] = nil
	return &s
}()

// vecDotBF16PairsGeneric is dotBF16Pairs for whole groups of 32, the
// generic BF16 kernel otherwise.
func vecDotBF16PairsGeneric(n int, w, a []byte) float32 {
	if n%32 == 0 && n > 0 {
		return dotBF16Pairs(n, w, a)
	}
	return vecDotBF16BF16Generic(n, w, a)
}

// daz returns x, or a zero of its sign if x is denormal.
func daz(x float32) float32 {
	if b := math.Float32bits(x); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return x
}

// bf16Pair widens the two bfloat16 values of a little-endian 32-bit word
// (even element in the low half), with denormals as zero.
func bf16Pair(u uint32) (even, odd float32) {
	return daz(math.Float32frombits(u << 16)), daz(math.Float32frombits(u & 0xffff0000))
}

// dotBF16Pairs is the VDPBF16PS order for n a positive multiple of 32.
func dotBF16Pairs(n int, w, a []byte) float32 {
	var acc [16]float32
	_, _ = w[2*n-1], a[2*n-1]
	for i := 0; i < 2*n; i += 64 {
		for l := 0; l < 16; l++ {
			we, wo := bf16Pair(binary.LittleEndian.Uint32(w[i+4*l:]))
			ae, ao := bf16Pair(binary.LittleEndian.Uint32(a[i+4*l:]))
			acc[l] = daz(fma32(wo, ao, acc[l]))
			acc[l] = daz(fma32(we, ae, acc[l]))
		}
	}
	return reduce16(&acc)
}

// reduce16 is _mm512_reduce_add_ps: the upper eight lanes added to the
// lower eight, then the 8-lane sum of tinyBLAS's hsum.
func reduce16(acc *[16]float32) float32 {
	var t [8]float32
	for l := range t {
		t[l] = acc[l] + acc[l+8]
	}
	return hsum8(&t)
}
