//go:build !purego

package kernels

import (
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"

	"github.com/gollm/gollm/ggml"
)

// The x86 implementation sets, built here in one place and in order: each
// set starts as a copy of the one before it (registerImplFrom), so the
// AVX2 set is complete before the AVX-512 set copies it. The files that
// hold the kernels provide the fill functions named below.
var (
	// "avx2": AVX2 integer dot products, FMA accumulation, F16C
	// conversions.
	avx2Set = registerImpl("avx2", cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C, func(s *kernelSet) {
		fillAVX2VecDot(s)              // vecdot_amd64.go
		fillAVX2Tile(s)                // tile_amd64.go
		fillAVX2Packed(s)              // packed_amd64.go
		fillAVX2Quantize(s)            // quantize_amd64.go
		fillAVX2Float(s)               // vecdot_float_amd64.go
		fillAVX2Half(s)                // vecdot_half_amd64.go
		fillAVX2Attn(s)                // attn_amd64.go
		fillAVX2AttnFast(s)            // attn_fast_amd64.go
		fillAVX2AttnTiled(s)           // attn_tiled_amd64.go
		fillAVX2AttnDirect(s)          // attn_direct_amd64.go
		fillAVX2AttnQ8(s)              // attn_q8_amd64.go
		s.expfN = expfNAsm             // expf_amd64.go
		s.swiglu = swigluAsm           // silu_amd64.go
		s.geglu = gegluAsm             // gelu_amd64.go
		fillAVX2Rope(s)                // rope_amd64.go
		s.readStreams = readStreamsAsm // stream_amd64.go
		if hasKSearchAVX2 {
			s.kSearch = kSearchAVX2 // kquant_search_amd64.go
		}
	})

	// "avx2-q8sums": the AVX2 set with Q8_0 matrices in packed groups and
	// block sums (packed_q8_0_amd64.go, vecdot_q8_0_sums.go): Q8_0 prefill
	// 1.7x as fast on an AVX2-only CPU. Opt-in (--kernels avx2-q8sums):
	// not llama.cpp's order for Q8_0, and one random-weight golden file
	// lands past the quantized tolerance (see vecdot_q8_0_sums.go).
	avx2Q8Sums = registerOptIn(registerImplFrom(avx2Set, "avx2-q8sums", true, fillAVX2Q8_0Sums))

	// "avx512vnni": the AVX2 set with VPDPBUSD and the AVX-512 registers
	// (vnni_amd64.go), chosen when the CPU has AVX512-VNNI, VL and BW.
	vnniSet = registerImplFrom(avx2Set, "avx512vnni",
		cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512BW,
		func(s *kernelSet) {
			fillVNNI(s)             // vnni_amd64.go
			fillAVX512AttnFast(s)   // attn_fast_amd64.go
			fillAVX512AttnDirect(s) // attn_direct_amd64.go
		})

	// "avx512zmm": the avx512vnni set with its prefill tiles and most of
	// its decode kernels on 512-bit registers (fillZMM, vnni_amd64.go).
	// An AMD Zen4 (halfWidth512) runs a 512-bit instruction as two
	// 256-bit halves, so there some 512-bit tiles lose to the 256-bit
	// ones they replace (their shuffles cost twice): the set keeps the
	// avx512vnni set's for those types. It is the default on every CPU
	// with AVX-512 VNNI: on a Zen4 it measured faster than avx512vnni
	// where it differs (BenchmarkMatMul 2048x2048 ntok=1 CPU time 0.52x
	// for Q5_0 to 0.88x for Q6_K, parity for Q4_0 and BF16; 5632x2048
	// ntok=64 Q4_0 0.81x, Q5_0 0.77x, Q4_K 0.93x, BF16 0.95x).
	zmmSet = registerImplFrom(vnniSet, "avx512zmm", true, func(s *kernelSet) {
		fillZMM(s)                           // vnni_amd64.go
		fillZMMAttnTiled(s)                  // attn_tiled_amd64.go
		s.madF16Rows4 = madF16Rows4AVX512Asm // attn_f16_x4_amd64.go
		s.expfN = expfNAsm512                // expf_amd64.go
		if halfWidth512 {
			keepTiles(s, vnniSet, halfWidthTileTypes...)
		}
	})

	// "avx512bf16": the avx512vnni set with BF16 on VDPBF16PS in that
	// instruction's natural order (vecdot_bf16.go, llama.cpp's zen4
	// build), decode included. Opt-in (--kernels avx512bf16): its BF16
	// results differ from the other sets' (the golden logits follow
	// those; their prefill takes VDPBF16PS in the golden order where the
	// CPU has it, tile_bf16dot.go).
	bf16Set = registerOptIn(registerImplFrom(vnniSet, "avx512bf16", cpu.X86.HasAVX512BF16, fillAVX512BF16))
)

// halfWidth512 reports a CPU that splits 512-bit instructions into two
// 256-bit halves (AMD Zen4).
var halfWidth512 = cpuid.CPU.VendorID == cpuid.AMD && cpuid.CPU.Family == 0x19

// halfWidthTileTypes are the types whose 512-bit prefill tiles ran slower
// than the 256-bit ones on a Zen4 (BenchmarkMatMul 5632x2048 ntok=64, CPU
// time avx512zmm / avx512vnni: F16 1.13, Q8_0 1.12, Q4_1 1.11).
var halfWidthTileTypes = []ggml.Type{ggml.F16, ggml.Q8_0, ggml.Q4_1}

// keepTiles gives s the prefill tiles of from for the types ts, and their
// order (tilesOuter).
func keepTiles(s, from *kernelSet, ts ...ggml.Type) {
	for _, t := range ts {
		s.tilesOuter[t] = from.tilesOuter[t]
		s.vecDot2x4[t], s.vecDot2x4Q[t] = from.vecDot2x4[t], from.vecDot2x4Q[t]
		s.vecDot3x4[t], s.vecDot3x4Few[t] = from.vecDot3x4[t], from.vecDot3x4Few[t]
		s.vecDot4x4[t], s.vecDot4x4Few[t] = from.vecDot4x4[t], from.vecDot4x4Few[t]
		s.vecDot8x4[t], s.vecDot8x4Few[t] = from.vecDot8x4[t], from.vecDot8x4Few[t]
		s.tileRewrite[t] = from.tileRewrite[t]
	}
}
