//go:build !purego

package kernels

// One-token kernels in Q4_K's four-token order on the avx512vnni set's
// packed layout (packed_q4_k_tok_amd64.s; AVX2 instructions, so the tests
// run them on any AVX2 machine).

//go:noescape
func q4_Kx8TokGemvQAVX2(nb int, w, a *byte, tok int, out *float32)

//go:noescape
func q4_Kx8TokGemv4QAVX2(nb int, w *byte, gstride int, a *byte, tok int, out *float32, ostride int)

func q4_Kx8TokGemvQAsm(nb int, w, a []byte, tok int, out []float32) {
	if nb == 0 {
		clear(out[:packRows])
		return
	}
	checkTok(tok)
	nb, pw, pa, po := packedArgs(nb, q4_KGroupBytes, q8_KQuadTokBytes, w, a, out, packRows)
	q4_Kx8TokGemvQAVX2(nb, pw, pa, tok, po)
}

func q4_Kx8TokGemv4QAsm(nb int, w []byte, gstride int, a []byte, tok int, out []float32, ostride int) {
	if nb == 0 {
		clearGemv4Out(out, ostride)
		return
	}
	checkTok(tok)
	nb, pw, gs, pa, po, os := gemv4Args(nb, q4_KGroupBytes, q8_KQuadTokBytes, w, gstride, a, out, ostride)
	q4_Kx8TokGemv4QAVX2(nb, pw, gs, pa, tok, po, os)
}

// checkTok checks that tok names a token of a quad (a panic here is a
// programmer error).
func checkTok(tok int) {
	if tok < 0 || tok > 3 {
		panic("kernels: token index outside a quad")
	}
}
