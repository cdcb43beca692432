//go:build !purego

package kernels

import "github.com/gollm/gollm/ggml"

func fillAVX2Tile(s *kernelSet) { s.vecDot2x4[ggml.Q8_0] = q8_0Tile2x4Asm }

// The 2x4 kernels read the tokens' block scales from their quad layout
// (Acts.x4), so they run only when Quantize builds it (actQuad).

//go:noescape
func q8_0Tile2x4AVX2(nb int, w *byte, wstride int, a *byte, astride int, ad *byte, out *float32, ostride int)

func q8_0Tile2x4Asm(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int) {
	nb := n / qk
	if nb == 0 {
		for t := 0; t < 4; t++ {
			clear(out[t*ostride : t*ostride+2])
		}
		return
	}
	_ = w[wstride+nb*q8_0Bytes-1]
	_ = a[3*astride+nb*q8_0Bytes-1]
	_ = aq[nb*q8_0QuadBytes-1]
	_ = out[3*ostride+1]
	q8_0Tile2x4AVX2(nb, &w[0], wstride, &a[0], astride, &aq[0], &out[0], ostride)
}
