// Package kernels holds the numeric inner loops of inference: dot products
// and matrix-vector/matrix-matrix products for every (weight type, activation
// type) pair ggml uses, the activation quantizers, the elementwise ops of a
// llama forward pass (RMSNorm, RoPE, softmax, SwiGLU, f16 KV helpers) and a
// persistent worker pool.
//
// Every kernel has a generic Go implementation (the oracle, always compiled)
// and may have faster ones (AVX2+FMA assembly on amd64). The implementation
// is chosen once at init from the CPU features; Impl names it. The purego
// build tag forces the generic code everywhere.
//
// Numerics follow ggml-cpu: weights of Q4_0/Q5_0/Q8_0 multiply activations
// quantized to Q8_0, Q4_1/Q5_1 to Q8_1, the K-quants to Q8_K, F16 to F16 and
// BF16 to BF16; integer block sums are exact and scaled in float32. The
// generic kernels fix the float order (llama.cpp's where it is known); every
// SIMD kernel, including the four-row (decode) and four-token (prefill)
// micro-kernels, reproduces that order bit for bit, so the purego and SIMD
// builds give identical results (exact_test.go, impl_test.go).
//
// Implementations are registered in impl.go ("generic", always) and
// impl_amd64.go, in order: "avx2" (AVX2+FMA+F16C; the fill functions of
// vecdot_amd64.go and its siblings), then "avx512vnni" (vnni_amd64.go and
// others: the AVX2 set with VPDPBUSD/VPDPWSSD on 256-bit vectors
// and the sixteen extra vector registers of AVX-512) when the CPU has
// AVX512-VNNI and VL. Each registered set starts as a copy of the generic
// (or AVX2) one, so a kernel without assembly falls back. One more set,
// "avx512bf16", is opt-in (never picked by default, SetImpl only): BF16 on
// VDPBF16PS in that instruction's float order, which is llama.cpp's on
// AVX512-BF16 CPUs but not the order of the golden logits; its generic
// twin is genericBF16Pairs (vecdot_bf16.go, kernelSet.twin). So is
// "avx2-q8sums": the AVX2 set with Q8_0 matrices packed and summed per block
// exactly (ggml's scalar order, not its AVX2 lane order), 1.7x the Q8_0
// prefill on an AVX2-only CPU; twin genericQ8_0Sums (vecdot_q8_0_sums.go).
// Benchmarks report
// process CPU time next to wall time: on a shared machine it is the steadier
// measure.
//
// MatMul picks, per weight type and batch, the fastest kernel shape the
// active set has: packed weights (packed.go: eight rows interleaved, packed
// once on first use or by Pool.Prepare; Q4_0 and Q4_K) against activations
// in a four-token "quad" layout built by Scratch.Quantize; register tiles of
// 2 or 4 rows x 4 tokens (Q8_0, Q5_0, F16, BF16), 8 or 4 tokens per row
// (K-quants), 4 rows per token (decode). Every shape computes each output in its type's
// single-row float order (TestMatMulBitExact).
//
// Preconditions on slice lengths and shapes are programmer errors, checked
// where cheap and reported by panics that name the kernel (as the built-in
// copy and indexing do); data-dependent problems (an unsupported tensor type,
// a wrong data size) are returned as errors by the constructors.
package kernels
