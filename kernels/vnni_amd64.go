//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

// fillVNNI adds the avx512vnni set's own kernels to its copy of the AVX2
// set: byte dot products on VPDPBUSD (AVX512-VNNI, 256-bit vectors through
// AVX512-VL), which does in one instruction what AVX2 does in three, and
// kernels that need the sixteen extra vector registers. Results are the
// same bits.
func fillVNNI(s *kernelSet) {
	s.actQuad[ggml.Q8_0] = q8_0QuadTok
	s.packed[ggml.Q4_0] = &packedKernels{
		groupBlockBytes: q4_0GroupBytes, pack: packQ4_0Group, act: q8_0QuadTok,
		gemv: q4_0x8GemvVNNIAsm, gemv4: q4_0x8Gemv4VNNIAsm, gemm4: q4_0x8Gemm4VNNIAsm, gemm: q4_0x8GemmVNNIAsm,
	}
	s.actQuad[ggml.Q8_K] = q8_KQuadTok
	s.packed[ggml.Q4_K] = &packedKernels{
		groupBlockBytes: q4_KGroupBytes, pack: packQ4_KGroupTok, act: q8_KQuadTok,
		gemv: q4_Kx8GemvVNNIAsm, gemvTok: q4_Kx8GemvTokVNNIAsm, gemv4: q4_Kx8Gemv4VNNIAsm, gemm: q4_Kx8GemmVNNIAsm,
		// AVX2 instructions, not measured on an AVX-512 machine yet: they
		// replace padding a lone token of a batch-invariant pass to a
		// quad (the cost of four tokens through the gemm).
		gemvQ: q4_Kx8TokGemvQAsm, gemv4Q: q4_Kx8TokGemv4QAsm,
	}
	s.vecDot8[ggml.Q6_K] = q6_KQ8_Kx8VNNIAsm
	s.vecDot4[ggml.Q2_K] = vecDotQ2_KQ8_Kx4VNNIAsm
	s.vecDotR4[ggml.Q5_1] = vecDotQ5_1Q8_1r4VNNIAsm
	s.dotF16Rows2 = dotF16Rows2VNNIAsm
	s.madF16Rows2 = madF16Rows2VNNIAsm
	s.vecDot2x4[ggml.Q8_0], s.vecDot2x4[ggml.Q5_0] = nil, nil // (the AVX2 tiles read q8_0Quad)
	s.vecDot2x4Q[ggml.Q8_0], s.vecDot2x4Q[ggml.Q5_0] = nil, nil
	// Its Q8_0 4 x 4 tile takes row tiles outer too (AMD Zen4, MatMul
	// 5632x2048 x 512 tokens 45-47 -> 43 ms, 2048x5632 41.5-42 -> 41 ms);
	// the Q5_0 one keeps quads outer (not measured: Q5_0 prefill runs the
	// packed kernels).
	s.tilesOuter[ggml.Q8_0], s.tilesOuter[ggml.Q5_0] = true, false
	s.vecDot2x4[ggml.Q4_1] = q4_1Tile2x4VNNIAsm
	s.vecDot2x4[ggml.Q5_1] = q5_1Tile2x4VNNIAsm
	s.tileRewrite[ggml.Q8_0] = nil // (the AVX2 widened rows' tile)
	s.tileRewrite[ggml.BF16] = nil // (the AVX2 interleaved rows' tile; fillBF16Dot below)
	s.vecDot4x4[ggml.Q8_0] = q8_0Tile4x4VNNIAsm
	s.vecDot4x4Few[ggml.Q8_0] = q8_0Tile4x4VNNIPFAsm
	s.vecDot4x4[ggml.Q5_0] = q5_0Tile4x4VNNIAsm
	s.q8Rows[ggml.Q5_0] = nil // its own VNNI tile (the conversion is measured on AVX2 only)
	// Packed Q5_0 on VNNI kernels (the AVX2 packed kernels read
	// q8_0Quad, not this set's quads), where the rows' tiles and kernels
	// ran before: on an Intel Xeon BenchmarkMatMulStream tok1 15-18 ->
	// 24-28 GB/s (avx512vnni 17.5 -> 25.3), BenchmarkMatMul ntok=64
	// 5632x2048 11.5 -> 8.8 ms.
	s.packed[ggml.Q5_0] = &packedKernels{
		groupBlockBytes: q5_0GroupBytes, pack: packQ5_0Group, act: q8_0QuadTok,
		gemv: q5_0x8GemvVNNIAsm, gemv4: q5_0x8Gemv4VNNIAsm, gemm: q5_0x8GemmVNNIAsm,
	}
	// The AVX2 packed Q3_K and Q5_K kernels read q8_KQuad, which Quantize
	// builds besides this set's q8_KQuadTok.
	s.actQuadB[ggml.Q8_K] = q8_KQuad
	s.actQuad[ggml.F16] = halfQuadF16
	s.actQuad[ggml.BF16] = halfQuadBF16
	s.vecDot4x4[ggml.F16], s.vecDot4x4Few[ggml.F16] = f16Tile4x4F32Asm, f16Tile4x4F32PfAsm
	s.vecDot4x4[ggml.BF16] = bf16Tile4x4F32Asm
	s.vecDot1R4[ggml.F16] = f16VecR4Asm
	s.vecDot1R4[ggml.BF16] = bf16VecR4Asm
	// The AVX-512 four-row kernels above instead of the AVX2 ones that
	// read the token widened to float32.
	s.vecDot1R4F32[ggml.F16], s.vecDot1R4F32[ggml.BF16] = nil, nil
	fillBF16Dot(s, bf16DotTiles4) // tile_bf16dot_amd64.go
}

// fillZMM gives the avx512zmm set (the avx512vnni set's copy) its kernels
// on 512-bit registers: 8 x 4 tiles that hold two tokens per register
// (F16, BF16, Q8_0, Q5_0), the packed Q4_0, Q4_K and Q5_0 gemms over two
// groups at once (Q5_0: TinyLlama pp256 88 -> 120 tok/s on an Intel Xeon), the Q3_K, Q4_K, Q5_K and Q5_0 decode kernels over two pairs of groups
// and the Q6_K one over two pairs of rows, the same bits as the 256-bit
// kernels they replace (Intel Xeon, BenchmarkMatMulStream tok1: Q3_K
// 19 -> 28, Q5_K 19.5 -> 22.5 GB/s before their prefetch, Q6_K 33.6 ->
// 38.5). Where the vector units are
// 512 bits wide they do the work in about half the instructions (Zen5
// EPYC, TinyLlama pp512 against llama.cpp: Q4_0 1.04x -> 1.63x, Q8_0
// 0.97x -> 1.42x, Q5_0 1.09x -> 1.43x, Q4_K_M 1.35x -> 1.77x, F16 0.60x
// -> 0.94x, BF16 0.41x -> 0.67x). (A Q4_0 decode kernel on groups in
// pairs measured no faster, 44.5 -> 45.3 GB/s: bandwidth-bound.)
func fillZMM(s *kernelSet) {
	s.vecDot8x4[ggml.F16] = f16Tile8x4AVX512Asm
	s.vecDot8x4[ggml.BF16] = bf16Tile8x4AVX512Asm
	s.tileRewrite[ggml.F16] = f16PairTiles
	s.tileRewrite[ggml.BF16] = bf16PairTiles
	fillBF16Dot(s, bf16DotTiles8)
	s.vecDot8x4[ggml.Q8_0], s.vecDot8x4Few[ggml.Q8_0] = q8_0Tile8x4VNNIAsm, q8_0Tile8x4VNNIPFAsm
	s.tilesOuter[ggml.Q8_0] = false // (the order it was measured in, Zen5)
	s.vecDot8x4[ggml.Q5_0] = q5_0Tile8x4VNNIAsm
	pk := *s.packed[ggml.Q4_0]
	pk.gemm2 = q4_0x8Gemm2VNNIAsm
	s.packed[ggml.Q4_0] = &pk
	pk50 := *s.packed[ggml.Q5_0]
	pk50.gemm2 = q5_0x8Gemm2VNNIAsm
	pk50.gemv4 = q5_0x8Gemv4ZMMVNNIAsm
	s.packed[ggml.Q5_0] = &pk50
	pk4 := *s.packed[ggml.Q4_K]
	pk4.gemv4 = q4_Kx8Gemv4ZMMVNNIAsm
	pk4.gemm2 = q4_Kx8Gemm2VNNIAsm
	s.packed[ggml.Q4_K] = &pk4
	pk5 := *s.packed[ggml.Q5_K]
	pk5.gemv4 = q5_Kx8Gemv4ZMMAsm
	s.packed[ggml.Q5_K] = &pk5
	pk3 := *s.packed[ggml.Q3_K]
	pk3.gemv4 = q3_Kx8Gemv4ZMMAsm
	s.packed[ggml.Q3_K] = &pk3
	s.vecDotR4[ggml.Q6_K] = vecDotQ6_KQ8_Kr4ZMMAsm
	s.vecDotR4[ggml.Q2_K] = vecDotQ2_KQ8_Kr4ZMMAsm
	s.vecDot2x4[ggml.Q2_K] = q2_KTile2x4ZMMAsm
	s.vecDotR4[ggml.Q4_1] = vecDotQ4_1Q8_1r4ZMMAsm
	s.vecDotR4[ggml.Q5_1] = vecDotQ5_1Q8_1r4ZMMAsm
	s.vecDot2x4[ggml.Q4_1] = q4_1Tile2x4ZMMAsm
	s.vecDot2x4[ggml.Q5_1] = q5_1Tile2x4ZMMAsm
}

//go:noescape
func q4_Kx8Gemm2VNNI(nb int, w *byte, gbytes int, a *byte, out *float32, ostride int)

// q4_Kx8Gemm2VNNIAsm is q4_Kx8GemmVNNIAsm on two adjacent groups for a
// whole quad (packed_q4_k_vnni_amd64.s).
func q4_Kx8Gemm2VNNIAsm(nb int, w, a []byte, out []float32, ostride int) {
	gemm2Call(q4_Kx8Gemm2VNNI, q4_KGroupBytes, q8_KQuadTokBytes, nb, w, a, out, ostride)
}

// gemm2Call runs a two-group gemm kernel (groups of groupBytes per block
// column, quads of actBytes) after checking the slices' lengths.
func gemm2Call(kern func(nb int, w *byte, gbytes int, a *byte, out *float32, ostride int),
	groupBytes, actBytes, nb int, w, a []byte, out []float32, ostride int) {
	_ = out[3*ostride+2*packRows-1]
	if nb == 0 {
		for t := 0; t < 4; t++ {
			clear(out[t*ostride : t*ostride+2*packRows])
		}
		return
	}
	_ = w[2*nb*groupBytes-1]
	_ = a[nb*actBytes-1]
	kern(nb, &w[0], nb*groupBytes, &a[0], &out[0], ostride)
}

//go:noescape
func q4_Kx8Gemv4ZMMVNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q4_Kx8Gemv4ZMMVNNIPF(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

// q4_Kx8Gemv4ZMMVNNIAsm is q4_Kx8Gemv4VNNIAsm with the four groups in two
// 512-bit pairs (packed_q4_k_vnni_amd64.s): decode's Q4_K kernel, with
// software prefetch where streamPrefetch says so.
func q4_Kx8Gemv4ZMMVNNIAsm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	gemv4Call(q4_Kx8Gemv4ZMMVNNI, q4_Kx8Gemv4ZMMVNNIPF, q4_KGroupBytes, q8_KQuadTokBytes, nb, w, gstride, a, out, ostride)
}

//go:noescape
func q4_0x8GemvVNNI(nb int, w, a *byte, out *float32)

//go:noescape
func q4_0x8Gemv4VNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q4_0x8Gemv4VNNIPF(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

// q4_0x8Gemv4VNNIAsm is decode's Q4_0 kernel in the AVX-512 sets, with
// software prefetch where streamPrefetch says so.
func q4_0x8Gemv4VNNIAsm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	gemv4Call(q4_0x8Gemv4VNNI, q4_0x8Gemv4VNNIPF, q4_0GroupBytes, q8_0QuadTokBytes, nb, w, gstride, a, out, ostride)
}

//go:noescape
func q4_0x8Gemm2VNNI(nb int, w *byte, gbytes int, a *byte, out *float32, ostride int)

func q4_0x8Gemm2VNNIAsm(nb int, w, a []byte, out []float32, ostride int) {
	gemm2Call(q4_0x8Gemm2VNNI, q4_0GroupBytes, q8_0QuadTokBytes, nb, w, a, out, ostride)
}

//go:noescape
func q4_0x8GemmVNNI(nb int, w, a *byte, out *float32, ostride, ntok int)

func q4_0x8GemvVNNIAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	q4_0x8GemvVNNI(packedArgs(nb, q4_0GroupBytes, q8_0QuadTokBytes, w, a, out, packRows))
}

//go:noescape
func q4_0x8Gemm4VNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride, gout int)

func q4_0x8Gemm4VNNIAsm(nb int, w []byte, gstride int, a []byte, out []float32, ostride, gout int) {
	if gstride < nb*q4_0GroupBytes || ostride < packRows || gout < packRows {
		panic("kernels: four-group gemm with overlapping groups or outputs")
	}
	_ = out[3*gout+3*ostride+packRows-1]
	if nb == 0 {
		for g := 0; g < 4; g++ {
			clearGemmOut(out[g*gout:], ostride, 4)
		}
		return
	}
	_ = w[3*gstride+nb*q4_0GroupBytes-1]
	_ = a[nb*q8_0QuadTokBytes-1]
	q4_0x8Gemm4VNNI(nb, &w[0], gstride, &a[0], &out[0], ostride, gout)
}

func q4_0x8GemmVNNIAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q4_0GroupBytes, q8_0QuadTokBytes, w, a, out, packRows)
	q4_0x8GemmVNNI(nb, pw, pa, po, ostride, ntok)
}

//go:noescape
func q8_0Tile4x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

func q8_0Tile4x4VNNIAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	q8_0Tile4x4Call(q8_0Tile4x4VNNI, n, w, wstride, aq, out, ostride)
}

// q8_0Tile4x4Call checks a Q8_0 4 x 4 tile's operands (n values per row,
// the tokens' quad aq) and runs kern on them.
func q8_0Tile4x4Call(kern func(nb int, w *byte, wstride int, a *byte, out *float32, ostride int),
	n int, w []byte, wstride int, aq []byte, out []float32, ostride int) {
	nb := n / qk
	if nb == 0 {
		for t := 0; t < 4; t++ {
			clear(out[t*ostride : t*ostride+4])
		}
		return
	}
	_ = w[3*wstride+nb*q8_0Bytes-1]
	_ = aq[nb*q8_0QuadTokBytes-1]
	_ = out[3*ostride+3]
	kern(nb, &w[0], wstride, &aq[0], &out[0], ostride)
}

//go:noescape
func q8_0Tile4x4VNNIPF(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// q8_0Tile4x4VNNIPFAsm is q8_0Tile4x4VNNIAsm prefetching the next tile's
// rows (vecDot4x4Few).
func q8_0Tile4x4VNNIPFAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	q8_0Tile4x4Call(q8_0Tile4x4VNNIPF, n, w, wstride, aq, out, ostride)
}

//go:noescape
func q8_0Tile8x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// q8_0Tile8x4VNNIAsm is the 512-bit Q8_0 prefill tile
// (tile_q8_0_zmm_vnni_amd64.s): 8 rows x the 4 tokens of the quad aq.
func q8_0Tile8x4VNNIAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile8x4Q8Quad(q8_0Tile8x4VNNI, q8_0Bytes, n, w, wstride, aq, out, ostride)
}

//go:noescape
func q8_0Tile8x4VNNIPF(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// q8_0Tile8x4VNNIPFAsm is q8_0Tile8x4VNNIAsm prefetching the next tile's
// rows (vecDot8x4Few).
func q8_0Tile8x4VNNIPFAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile8x4Q8Quad(q8_0Tile8x4VNNIPF, q8_0Bytes, n, w, wstride, aq, out, ostride)
}

// tile8x4Q8Quad runs an 8 x 4 tile kernel of blockBytes-byte weight blocks
// against the q8_0QuadTok quad aq (n elements per row).
func tile8x4Q8Quad(kern func(nb int, w *byte, wstride int, a *byte, out *float32, ostride int),
	blockBytes, n int, w []byte, wstride int, aq []byte, out []float32, ostride int) {
	nb := n / qk
	_ = out[3*ostride+7]
	if nb == 0 {
		for t := 0; t < 4; t++ {
			clear(out[t*ostride : t*ostride+8])
		}
		return
	}
	_ = w[7*wstride+nb*blockBytes-1]
	_ = aq[nb*q8_0QuadTokBytes-1]
	kern(nb, &w[0], wstride, &aq[0], &out[0], ostride)
}

//go:noescape
func q5_0Tile8x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// q5_0Tile8x4VNNIAsm is the 512-bit Q5_0 prefill tile
// (tile_q5_0_vnni_amd64.s): 8 rows x the 4 tokens of the quad aq.
func q5_0Tile8x4VNNIAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile8x4Q8Quad(q5_0Tile8x4VNNI, q5_0Bytes, n, w, wstride, aq, out, ostride)
}

//go:noescape
func q4_Kx8GemvVNNI(nb int, w, a, aq *byte, out *float32)

//go:noescape
func q4_Kx8GemmVNNI(nb int, w, a *byte, out *float32, ostride, ntok int)

func q4_Kx8GemvVNNIAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	nb, pw, pa, po := packedArgs(nb, q4_KGroupBytes, q8_KQuadTokBytes, w, a, out, packRows)
	q4_Kx8GemvVNNI(nb, pw, pa, pa, po)
}

// q4_Kx8GemvTokVNNIAsm is q4_Kx8GemvVNNIAsm on token tok of the quad (a
// tokenwise matrix's tokens in the one-token order).
func q4_Kx8GemvTokVNNIAsm(nb int, w, a []byte, tok int, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	nb, pw, _, po := packedArgs(nb, q4_KGroupBytes, q8_KQuadTokBytes, w, a, out, packRows)
	q4_Kx8GemvVNNI(nb, pw, &a[4*tok], &a[256*tok], po)
}

//go:noescape
func q4_Kx8Gemv4VNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

func q4_Kx8Gemv4VNNIAsm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	q4_Kx8Gemv4VNNI(gemv4Args(nb, q4_KGroupBytes, q8_KQuadTokBytes, w, gstride, a, out, ostride))
}

// q4_Kx8GemmVNNIAsm runs a whole quad through the gemm and the tokens of a
// partial quad through the gemv (llama.cpp's orders, see q4_Kx8GemmAsm);
// token t's scale and sums sit 4t bytes into their slots of the
// q8_KQuadTok layout, its quants 256t bytes into the block column.
func q4_Kx8GemmVNNIAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q4_KGroupBytes, q8_KQuadTokBytes, w, a, out, packRows)
	if ntok == 4 {
		q4_Kx8GemmVNNI(nb, pw, pa, po, ostride, ntok)
		return
	}
	for t := 0; t < ntok; t++ {
		q4_Kx8GemvVNNI(nb, pw, &a[4*t], &a[256*t], &out[t*ostride])
	}
}

//go:noescape
func q6_KQ8_Kx8VNNI(nb int, w, a *byte, stride int, out *float32, ostride int)

func q6_KQ8_Kx8VNNIAsm(n int, w, a []byte, stride int, out []float32, ostride int) {
	nb := n / qkK
	if nb == 0 {
		for k := 0; k < 8; k++ {
			out[k*ostride] = 0
		}
		return
	}
	_ = w[nb*q6_KBytes-1]
	_ = a[7*stride+nb*q8_KBytes-1]
	_ = out[7*ostride]
	q6_KQ8_Kx8VNNI(nb, &w[0], &a[0], stride, &out[0], ostride)
}

//go:noescape
func dotF16Rows2VNNI(q1, q2, k *uint16, stride, rows int, out1, out2 *float32)

//go:noescape
func madF16Rows2VNNI(acc1, acc2, v *uint16, stride, rows int, ms1, vs1, ms2, vs2 *float32)

func dotF16Rows2VNNIAsm(out1, out2 []float32, q1, q2, k []uint16, stride int) {
	if len(q1) != 64 {
		avx2Set.dotF16Rows2(out1, out2, q1, q2, k, stride)
		return
	}
	dotF16Rows2VNNI(&q1[0], &q2[0], &k[0], 2*stride, len(out1), &out1[0], &out2[0])
}

func madF16Rows2VNNIAsm(acc1, acc2, v []uint16, stride int, ms1, vs1, ms2, vs2 []float32) {
	if len(acc1) != 64 {
		avx2Set.madF16Rows2(acc1, acc2, v, stride, ms1, vs1, ms2, vs2)
		return
	}
	madF16Rows2VNNI(&acc1[0], &acc2[0], &v[0], 2*stride, len(vs1), &ms1[0], &vs1[0], &ms2[0], &vs2[0])
}

//go:noescape
func q5_0Tile4x4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// q5_0Tile4x4VNNIAsm is the Q5_0 prefill tile (tile_q5_0_vnni_amd64.s): 4
// rows x 4 tokens against the tokens' quad aq, like q8_0Tile4x4VNNIAsm.
func q5_0Tile4x4VNNIAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	nb := n / qk
	if nb == 0 {
		for t := 0; t < 4; t++ {
			clear(out[t*ostride : t*ostride+4])
		}
		return
	}
	_ = w[3*wstride+nb*q5_0Bytes-1]
	_ = aq[nb*q8_0QuadTokBytes-1]
	_ = out[3*ostride+3]
	q5_0Tile4x4VNNI(nb, &w[0], wstride, &aq[0], &out[0], ostride)
}

//go:noescape
func q5_0x8GemvVNNI(nb int, w, a *byte, out *float32)

//go:noescape
func q5_0x8Gemv4VNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q5_0x8GemmVNNI(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q5_0x8Gemm2VNNI(nb int, w *byte, gbytes int, a *byte, out *float32, ostride int)

// q5_0x8Gemm2VNNIAsm is q5_0x8GemmVNNIAsm on two adjacent groups for a
// whole quad, on 512-bit vectors (the avx512zmm set's; packed_q5_0_vnni_amd64.s).
func q5_0x8Gemm2VNNIAsm(nb int, w, a []byte, out []float32, ostride int) {
	gemm2Call(q5_0x8Gemm2VNNI, q5_0GroupBytes, q8_0QuadTokBytes, nb, w, a, out, ostride)
}

//go:noescape
func q5_0x8Gemv4ZMMVNNI(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q5_0x8Gemv4ZMMVNNIPF(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

// q5_0x8Gemv4ZMMVNNIAsm is q5_0x8Gemv4VNNIAsm with the four groups in two
// 512-bit pairs (packed_q5_0_vnni_amd64.s): the avx512zmm set's Q5_0
// decode kernel, with software prefetch where streamPrefetch says so.
func q5_0x8Gemv4ZMMVNNIAsm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	gemv4Call(q5_0x8Gemv4ZMMVNNI, q5_0x8Gemv4ZMMVNNIPF, q5_0GroupBytes, q8_0QuadTokBytes, nb, w, gstride, a, out, ostride)
}

// q5_0x8GemvVNNIAsm, q5_0x8Gemv4VNNIAsm and q5_0x8GemmVNNIAsm are the
// avx512vnni set's packed Q5_0 kernels (packed_q5_0_vnni_amd64.s): the
// AVX2 packed layout (packQ5_0Group) against this set's quads.
func q5_0x8GemvVNNIAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	q5_0x8GemvVNNI(packedArgs(nb, q5_0GroupBytes, q8_0QuadTokBytes, w, a, out, packRows))
}

func q5_0x8Gemv4VNNIAsm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	q5_0x8Gemv4VNNI(gemv4Args(nb, q5_0GroupBytes, q8_0QuadTokBytes, w, gstride, a, out, ostride))
}

// q5_0x8GemmVNNIAsm computes all four tokens of the quad whatever ntok
// (the missing ones are zero blocks) and stores the first ntok; one
// token takes the gemv.
func q5_0x8GemmVNNIAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q5_0GroupBytes, q8_0QuadTokBytes, w, a, out, packRows)
	if ntok == 1 {
		q5_0x8GemvVNNI(nb, pw, pa, po)
		return
	}
	q5_0x8GemmVNNI(nb, pw, pa, po, ostride, ntok)
}

//go:noescape
func vecDotQ6_KQ8_Kr4ZMMVNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// vecDotQ6_KQ8_Kr4ZMMAsm is vecDotQ6_KQ8_Kr4Asm with two rows per 512-bit
// register (kquants_rows_zmm_amd64.s): the avx512zmm set's Q6_K decode kernel.
func vecDotQ6_KQ8_Kr4ZMMAsm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ6_KQ8_Kr4ZMMVNNI, qkK, q6_KBytes, q8_KBytes, n, w, wstride, a, out, ostride)
}

//go:noescape
func vecDotQ2_KQ8_Kr4ZMMVNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// vecDotQ2_KQ8_Kr4ZMMAsm is vecDotQ2_KQ8_Kr4Asm with two rows per 512-bit
// register (kquants_rows_zmm_amd64.s): the avx512zmm set's Q2_K decode
// kernel.
func vecDotQ2_KQ8_Kr4ZMMAsm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ2_KQ8_Kr4ZMMVNNI, qkK, q2_KBytes, q8_KBytes, n, w, wstride, a, out, ostride)
}

//go:noescape
func q2_KTile2x4ZMMVNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

// q2_KTile2x4ZMMAsm is the avx512zmm set's Q2_K prefill tile: two rows by
// four tokens in one 512-bit register per token (kquants_rows_zmm_amd64.s),
// each token in the single-row order. It reads the token rows only (aq
// may be nil).
func q2_KTile2x4ZMMAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4CallBlocks(q2_KTile2x4ZMMVNNI, qkK, q2_KBytes, q8_KBytes, 0, n, w, wstride, a, astride, aq, out, ostride)
}

//go:noescape
func vecDotQ4_1Q8_1r4ZMMVNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

//go:noescape
func vecDotQ5_1Q8_1r4ZMMVNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// vecDotQ4_1Q8_1r4ZMMAsm and vecDotQ5_1Q8_1r4ZMMAsm are the four-row Q4_1
// and Q5_1 kernels with two rows per 512-bit register
// (q4_1_q5_1_zmm_amd64.s): the avx512zmm set's decode kernels of those
// types, which have no packed layout.
func vecDotQ4_1Q8_1r4ZMMAsm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ4_1Q8_1r4ZMMVNNI, qk, q4_1Bytes, q8_1Bytes, n, w, wstride, a, out, ostride)
}

func vecDotQ5_1Q8_1r4ZMMAsm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ5_1Q8_1r4ZMMVNNI, qk, q5_1Bytes, q8_1Bytes, n, w, wstride, a, out, ostride)
}

//go:noescape
func q4_1Tile2x4ZMMVNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

//go:noescape
func q5_1Tile2x4ZMMVNNI(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

// q4_1Tile2x4ZMMAsm and q5_1Tile2x4ZMMAsm are the avx512zmm set's Q4_1 and
// Q5_1 prefill tiles (q4_1_q5_1_zmm_amd64.s): the avx512vnni ones with the
// pair of rows in one 512-bit register per token, reading the same token
// rows and q8_1QuadScales quad.
func q4_1Tile2x4ZMMAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4Call(q4_1Tile2x4ZMMVNNI, q4_1Bytes, q8_1Bytes, q8_1QuadScalesBytes, n, w, wstride, a, astride, aq, out, ostride)
}

func q5_1Tile2x4ZMMAsm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	tile2x4Call(q5_1Tile2x4ZMMVNNI, q5_1Bytes, q8_1Bytes, q8_1QuadScalesBytes, n, w, wstride, a, astride, aq, out, ostride)
}

//go:noescape
func vecDotQ2_KQ8_Kx4VNNI(nb int, w, a *byte, stride int, out *float32, ostride int)

// vecDotQ2_KQ8_Kx4VNNIAsm is vecDotQ2_KQ8_Kx4Asm with VPDPWSSD
// (kquants_amd64.s): the AVX-512 sets' Q2_K prefill where no tile serves
// (the avx512vnni set's whole prefill, the zmm tiles' leftover rows).
func vecDotQ2_KQ8_Kx4VNNIAsm(n int, w, a []byte, stride int, out []float32, ostride int) {
	if n < qkK {
		for k := 0; k < 4; k++ {
			out[k*ostride] = 0
		}
		return
	}
	vecDotQ2_KQ8_Kx4VNNI(x4Args(n, qkK, q2_KBytes, q8_KBytes, w, a, stride, out, ostride))
}

//go:noescape
func vecDotQ5_1Q8_1r4VNNI(nb int, w *byte, wstride int, a *byte, out *float32, ostride int)

// vecDotQ5_1Q8_1r4VNNIAsm is the avx512vnni set's four-row Q5_1 kernel
// (vecdot_amd64.s: the AVX2 one with VPDPBUSD and the high bits through a
// mask register); the zmm set takes its own.
func vecDotQ5_1Q8_1r4VNNIAsm(n int, w []byte, wstride int, a []byte, out []float32, ostride int) {
	r4Call(vecDotQ5_1Q8_1r4VNNI, qk, q5_1Bytes, q8_1Bytes, n, w, wstride, a, out, ostride)
}
