//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

// The AVX2 packed kernels (packed_amd64.s) and their layouts.
func fillAVX2Packed(s *kernelSet) {
	s.actQuad[ggml.Q8_0] = q8_0Quad
	s.packed[ggml.Q4_0] = &packedKernels{
		groupBlockBytes: q4_0GroupBytes, pack: packQ4_0Group, act: q8_0Quad,
		gemv: q4_0x8GemvAsm, gemv4: q4_0x8Gemv4Asm, gemm: q4_0x8GemmAsm,
	}
	s.packed[ggml.Q5_0] = &packedKernels{
		groupBlockBytes: q5_0GroupBytes, pack: packQ5_0Group, act: q8_0Quad,
		gemv: q5_0x8GemvAsm, gemv4: q5_0x8Gemv4Asm, gemm: q5_0x8GemmAsm,
	}
	s.actQuad[ggml.Q8_K] = q8_KQuad
	s.packed[ggml.Q3_K] = &packedKernels{
		groupBlockBytes: q3_KGroupBytes, pack: packQ3_KGroup, act: q8_KQuad,
		gemv: q3_Kx8GemvAsm, gemv4: q3_Kx8Gemv4Asm, gemm: q3_Kx8GemmAsm,
	}
	s.packed[ggml.Q4_K] = &packedKernels{
		groupBlockBytes: q4_KGroupBytes, pack: packQ4_KGroup, act: q8_KQuad,
		gemv: q4_Kx8GemvAsm, gemv4: q4_Kx8Gemv4Asm, gemm: q4_Kx8GemmAsm,
		fewTokens: 3,
		gemvQ:     q4_Kx8GemvQAsm, gemv4Q: q4_Kx8Gemv4QAsm, gemv4Qx2: q4_Kx8Gemv4Qx2Asm, gemmQ: q4_Kx8GemmQAsm,
	}
	s.packed[ggml.Q5_K] = &packedKernels{
		groupBlockBytes: q5_KGroupBytes, pack: packQ5_KGroup, act: q8_KQuad,
		gemv: q5_Kx8GemvAsm, gemv4: q5_Kx8Gemv4Asm, gemm: q5_Kx8GemmAsm,
	}
}

//go:noescape
func q4_0x8GemvAVX2(nb int, w, a *byte, out *float32)

//go:noescape
func q4_0x8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q4_0x8Gemm3AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

//go:noescape
func q4_0x8Gemm2AVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

// packedArgs checks that w holds nb block columns of a group, a of a quad and
// out n outputs (a panic here is a programmer error, as an index out of
// range).
func packedArgs(nb, wb, ab int, w, a []byte, out []float32, n int) (int, *byte, *byte, *float32) {
	_ = w[nb*wb-1]
	_ = a[nb*ab-1]
	_ = out[n-1]
	return nb, &w[0], &a[0], &out[0]
}

func q4_0x8GemvAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	q4_0x8GemvAVX2(packedArgs(nb, q4_0GroupBytes, q8_0QuadBytes, w, a, out, packRows))
}

//go:noescape
func q4_0x8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q4_0x8Gemv4PfAVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

// q4_0x8Gemv4Asm is decode's Q4_0 kernel, with software prefetch where
// streamPrefetch says so.
func q4_0x8Gemv4Asm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	gemv4Call(q4_0x8Gemv4AVX2, q4_0x8Gemv4PfAVX2, q4_0GroupBytes, q8_0QuadBytes, nb, w, gstride, a, out, ostride)
}

// gemv4Args checks that w holds four groups of nb block columns gstride
// bytes apart, a the quad blocks and out four runs of packRows outputs
// ostride apart.
func gemv4Args(nb, gb, ab int, w []byte, gstride int, a []byte, out []float32, ostride int) (int, *byte, int, *byte, *float32, int) {
	if gstride < nb*gb || ostride < packRows {
		panic("kernels: four-group gemv with overlapping groups or outputs")
	}
	_ = w[3*gstride+nb*gb-1]
	_ = a[nb*ab-1]
	_ = out[3*ostride+packRows-1]
	return nb, &w[0], gstride, &a[0], &out[0], ostride
}

// gemv4Call runs a four-group gemv kernel that comes in two forms: pf,
// with software prefetch, where streamPrefetch says so, else plain (groups
// of groupBytes and activation quads of actBytes per block column).
func gemv4Call(plain, pf func(nb int, w *byte, gstride int, a *byte, out *float32, ostride int),
	groupBytes, actBytes, nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	k := plain
	if streamPrefetch {
		k = pf
	}
	k(gemv4Args(nb, groupBytes, actBytes, w, gstride, a, out, ostride))
}

func clearGemv4Out(out []float32, ostride int) {
	for k := 0; k < 4; k++ {
		clear(out[k*ostride : k*ostride+packRows])
	}
}

func q4_0x8GemmAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q4_0GroupBytes, q8_0QuadBytes, w, a, out, packRows)
	// (Two gemvs instead of the two-token gemm ran --parallel 2 at 0.77x.)
	gemmByTokens(ntok, nb, pw, pa, po, ostride, q4_0x8GemvAVX2, q4_0x8Gemm2AVX2, q4_0x8Gemm3AVX2, q4_0x8GemmAVX2)
}

// gemmByTokens multiplies a packed group with the first ntok tokens of a
// quad. The AVX2 packed gemms of Q4_0, Q5_0, Q3_K and Q5_K come in two-,
// three- and four-token variants, and one token takes the gemv: the
// four-token gemm computes all four tokens whatever ntok (in L1 one gemv
// costs 0.35-0.5 of it, BenchmarkPacked, Zen3), and two gemvs unpack each
// piece twice. Same bits: every token of a gemm takes the gemv's steps,
// and the quad layouts put token t's fields 4t bytes into their slots.
// (Q4_K's gemm takes whole quads only; its few-token batches run gemv4 per
// token, packedKernels.fewTokens.) On an AMD EPYC Zen3, TinyLlama,
// alternating builds (medians of 2-4 runs), the variants against the
// four-token gemm and the gemvs before them: Q4_0 --parallel 2/3/6
// 52.3/69.5/75.0 -> 59.3/77.8/90.4 tok/s, Q5_0 2/3/6 28.4/32.3/39.0 ->
// 35.3/41.4/47.0, Q3_K_M 2/3/7 36.5/51.4/66.8 -> 38.9/57.3/71.9, Q5_K_M
// 2/3/6/7 26.4/38.0/54.5/61.5 -> 29.9/40.9/59.7/67.3. Gemvs for the one
// or two tokens after a quad had taken, 5632x2048 from DRAM: Q4_0 5 tokens
// 0.78-0.83 -> 0.53-0.62 ms, Q5_0 1.6 -> 1.23, Q3_K 1.15-1.25 -> 0.76-0.84,
// Q5_K 1.17-1.28 -> 0.86-0.92. (Q3_K's kernels take the quad's sums too:
// its wrapper has its own switch.)
func gemmByTokens(ntok, nb int, w, a *byte, out *float32, ostride int,
	gemv func(nb int, w, a *byte, out *float32), gemm2, gemm3, gemm4 func(nb int, w, a *byte, out *float32, ostride, ntok int)) {
	switch ntok {
	case 1:
		gemv(nb, w, a, out)
	case 2:
		gemm2(nb, w, a, out, ostride, ntok)
	case 3:
		gemm3(nb, w, a, out, ostride, ntok)
	default:
		gemm4(nb, w, a, out, ostride, ntok)
	}
}

// checkGemmOut checks that out holds ntok (1..4) runs of packRows outputs,
// ostride apart.
func checkGemmOut(out []float32, ostride, ntok int) {
	if ntok < 1 || ntok > 4 || ostride < packRows {
		panic("kernels: packed gemm of a bad token count or output stride")
	}
	_ = out[(ntok-1)*ostride+packRows-1]
}

func clearGemmOut(out []float32, ostride, ntok int) {
	for t := 0; t < ntok; t++ {
		clear(out[t*ostride : t*ostride+packRows])
	}
}

//go:noescape
func q4_Kx8GemvAVX2(nb int, w, a *byte, out *float32)

//go:noescape
func q4_Kx8GemmAVX2(nb int, w, a *byte, out *float32, ostride, ntok int)

func q4_Kx8GemvAsm(nb int, w, a []byte, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	q4_Kx8GemvAVX2(packedArgs(nb, q4_KGroupBytes, q8_KQuadBytes, w, a, out, packRows))
}

//go:noescape
func q4_Kx8Gemv4AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

//go:noescape
func q4_Kx8Gemv4PfAVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

// q4_Kx8Gemv4Asm runs the four-group gemv, prefetching where
// streamPrefetch says so.
func q4_Kx8Gemv4Asm(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
	gemv4Call(q4_Kx8Gemv4AVX2, q4_Kx8Gemv4PfAVX2, q4_KGroupBytes, q8_KQuadBytes, nb, w, gstride, a, out, ostride)
}

//go:noescape
func q4_Kx8GemvQAVX2(nb int, w, a *byte, out *float32)

//go:noescape
func q4_Kx8Gemv4QAVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride int)

// The one-token kernels read token tok of a quad at its fields' offset
// 4tok, as if it were token 0 (the quad's capacity covers the bytes).
func q4_Kx8GemvQAsm(nb int, w, a []byte, tok int, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	checkTok(tok)
	q4_Kx8GemvQAVX2(packedArgs(nb, q4_KGroupBytes, q8_KQuadBytes, w, a[4*tok:4*tok+nb*q8_KQuadBytes], out, packRows))
}

func q4_Kx8Gemv4QAsm(nb int, w []byte, gstride int, a []byte, tok int, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	checkTok(tok)
	q4_Kx8Gemv4QAVX2(gemv4Args(nb, q4_KGroupBytes, q8_KQuadBytes, w, gstride, a[4*tok:4*tok+nb*q8_KQuadBytes], out, ostride))
}

//go:noescape
func q4_Kx8Gemv4Qx2AVX2(nb int, w *byte, gstride int, a *byte, out *float32, ostride, tstride int)

func q4_Kx8Gemv4Qx2Asm(nb int, w []byte, gstride int, a []byte, tok int, out []float32, ostride, tstride int) {
	if tok < 0 || tok > 2 || tstride < 3*ostride+packRows {
		panic("kernels: two-token gemv of a bad token or overlapping outputs")
	}
	_ = out[tstride+3*ostride+packRows-1]
	if nb == 0 {
		clearGemv4Out(out, ostride)
		clearGemv4Out(out[tstride:], ostride)
		return
	}
	nb, pw, gs, pa, po, os := gemv4Args(nb, q4_KGroupBytes, q8_KQuadBytes, w, gstride, a[4*tok:4*tok+nb*q8_KQuadBytes], out, ostride)
	q4_Kx8Gemv4Qx2AVX2(nb, pw, gs, pa, po, os, tstride)
}

// q4_Kx8GemmQAsm runs the quad through the gemm whatever ntok (a partial
// quad's missing tokens are zero blocks), storing the first ntok.
func q4_Kx8GemmQAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q4_KGroupBytes, q8_KQuadBytes, w, a, out, packRows)
	q4_Kx8GemmAVX2(nb, pw, pa, po, ostride, ntok)
}

// q4_Kx8GemmAsm runs a whole quad through the gemm (llama.cpp's four-token
// order) and the tokens of a partial quad (the last ntok%4 of a batch)
// through the gemv, as llama.cpp does: token t's fields sit 4t bytes into
// each slot of the quad layout, so the gemv reads it from a[4t:].
func q4_Kx8GemmAsm(nb int, w, a []byte, out []float32, ostride, ntok int) {
	checkGemmOut(out, ostride, ntok)
	if nb == 0 {
		clearGemmOut(out, ostride, ntok)
		return
	}
	nb, pw, pa, po := packedArgs(nb, q4_KGroupBytes, q8_KQuadBytes, w, a, out, packRows)
	if ntok == 4 {
		q4_Kx8GemmAVX2(nb, pw, pa, po, ostride, ntok)
		return
	}
	for t := 0; t < ntok; t++ {
		q4_Kx8GemvAVX2(nb, pw, &a[4*t], &out[t*ostride])
	}
}
