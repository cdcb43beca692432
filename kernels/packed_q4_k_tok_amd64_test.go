//go:build !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestQ4KTokGemvQ runs the avx512vnni set's one-token Q4_K kernels in the
// four-token order (AVX2 instructions) on any AVX2 machine, against the
// generic four-token order, bit for bit: block column counts from 0 up,
// each token of quads of one to four tokens, four groups at unaligned
// offsets with gaps, nothing written around the outputs. (On an AVX-512
// machine TestMatMulBitExact runs them through MatMul as well.)
func TestQ4KTokGemvQ(t *testing.T) {
	if !avx2Set.available {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(71, 72))
	for _, nb := range []int{0, 1, 2, 5} {
		cols := max(nb, 1) * qkK
		gb := nb * q4_KGroupBytes
		gstride := gb + 7
		wRow := rowBytes(ggml.Q4_K, cols)
		rows := make([][]byte, 4)
		buf := make([]byte, 1+3*gstride+max(gb, 1))
		w := buf[1:]
		for g := range rows {
			rows[g] = randomWeights(r, ggml.Q4_K, packRows*cols, []float32{0.05, 300, 1e-3, 7}[g], 7)
			if nb > 0 {
				packQ4_KGroupTok(w[g*gstride:g*gstride+gb], rows[g], wRow)
			}
		}
		for n := 1; n <= 4; n++ {
			arow := rowBytes(ggml.Q8_K, cols)
			a := make([]byte, n*arow)
			genericSet.quantize[ggml.Q8_K](randFloats(r, n*cols, []float32{1, 1e-3, 40, 2}[n-1]), a)
			ax := make([]byte, 5+max(nb, 1)*q8_KQuadTokBytes)[5:]
			packQ8_KQuadTok(ax, a, arow, n)
			ax = ax[:nb*q8_KQuadTokBytes]
			for tok := 0; tok < n; tok++ {
				want := make([]float32, 4*packRows)
				for g := 0; g < 4; g++ {
					for row := 0; row < packRows; row++ {
						wr := rows[g][row*wRow : (row+1)*wRow]
						if nb > 0 {
							want[g*packRows+row] = vecDotQ4_KQ8_KQuadGeneric(nb*qkK, wr, a[tok*arow:(tok+1)*arow])
						}
					}
				}
				got := make([]float32, packRows+2)
				for g := 0; g < 4; g++ {
					for i := range got {
						got[i] = -1
					}
					q4_Kx8TokGemvQAsm(nb, w[g*gstride:g*gstride+gb], ax, tok, got[1:1+packRows])
					if got[0] != -1 || got[packRows+1] != -1 {
						t.Fatalf("nb=%d tok %d/%d: gemvQ wrote outside its outputs", nb, tok, n)
					}
					for row := 0; row < packRows; row++ {
						if math.Float32bits(got[1+row]) != math.Float32bits(want[g*packRows+row]) {
							t.Fatalf("nb=%d tok %d/%d group %d row %d: gemvQ %v, generic %v", nb, tok, n, g, row, got[1+row], want[g*packRows+row])
						}
					}
				}
				const ostride = packRows + 3
				got4 := make([]float32, 2+3*ostride+packRows)
				for i := range got4 {
					got4[i] = -1
				}
				q4_Kx8TokGemv4QAsm(nb, w[:3*gstride+gb], gstride, ax, tok, got4[1:1+3*ostride+packRows], ostride)
				for i, v := range got4 {
					g, rr := (i-1)/ostride, (i-1)%ostride
					if i < 1 || g >= 4 || rr >= packRows {
						if v != -1 {
							t.Fatalf("nb=%d tok %d/%d: gemv4Q wrote got[%d] outside its outputs", nb, tok, n, i)
						}
						continue
					}
					if math.Float32bits(v) != math.Float32bits(want[g*packRows+rr]) {
						t.Fatalf("nb=%d tok %d/%d group %d row %d: gemv4Q %v, generic %v", nb, tok, n, g, rr, v, want[g*packRows+rr])
					}
				}
			}
		}
	}
}
