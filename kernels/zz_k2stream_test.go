package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// scratch benchmark (not committed): single-thread packed gemv streaming from DRAM
func BenchmarkK2Stream(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, wt := range []ggml.Type{ggml.Q4_0, ggml.Q4_K} {
		k := active.packed[wt]
		cols := 2048
		nb := cols / blockElems(wt)
		gb := nb * k.groupBlockBytes
		groups := (256 << 20) / gb
		data := make([]byte, groups*gb)
		for i := 0; i < len(data); i += 4096 {
			data[i] = byte(r.Uint32())
		}
		a := make([]byte, nb*k.act.blockBytes)
		out := make([]float32, 8)
		b.Run(wt.String(), func(b *testing.B) {
			b.SetBytes(int64(gb))
			g := 0
			c0 := processCPU()
			for b.Loop() {
				k.gemv(nb, data[g*gb:(g+1)*gb], a, out)
				if g++; g == groups {
					g = 0
				}
			}
			reportCPU(b, c0)
		})
	}
}

func BenchmarkK2StreamR4(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, wt := range []ggml.Type{ggml.Q8_0, ggml.Q6_K} {
		cols := 2048
		rb := rowBytes(wt, cols)
		rows := (256 << 20) / rb
		data := make([]byte, rows*rb)
		for i := 0; i < len(data); i += 4096 {
			data[i] = byte(r.Uint32())
		}
		at := vecDotType[wt]
		a := make([]byte, rowBytes(at, cols))
		out := make([]float32, 8)
		f4 := active.vecDotR4[wt]
		f1 := active.vecDot[wt]
		b.Run(wt.String(), func(b *testing.B) {
			b.SetBytes(int64(4 * rb))
			g := 0
			c0 := processCPU()
			for b.Loop() {
				if f4 != nil {
					f4(cols, data[g*rb:(g+4)*rb], rb, a, out)
				} else {
					for k := 0; k < 4; k++ {
						out[k] = f1(cols, data[(g+k)*rb:(g+k+1)*rb], a)
					}
				}
				if g += 4; g+4 > rows {
					g = 0
				}
			}
			reportCPU(b, c0)
		})
	}
}
