package kvcache

import (
	"testing"

	"github.com/gollm/gollm/ggml"
)

// tinyllama-1.1b: 22 layers, 4 kv heads x 64.
var benchCfg = Config{Layers: 22, KVDim: 256, VDim: 256, BlockLen: 16, MaxPositions: 4096}

// BenchmarkPut stores one position of one layer (what a decode step does
// Layers times per sequence).
func BenchmarkPut(b *testing.B) {
	for _, typ := range []ggml.Type{ggml.F16, ggml.Q8_0, ggml.F32} {
		b.Run(typ.String(), func(b *testing.B) {
			cfg := benchCfg
			cfg.Type = typ
			c := mustNew(b, cfg)
			s := c.NewSeq()
			if err := c.Reserve(s, 2048); err != nil {
				b.Fatal(err)
			}
			k, v := make([]float32, 256), make([]float32, 256)
			for i := range k {
				k[i], v[i] = float32(i)/7, -float32(i)/3
			}
			b.SetBytes(2 * 256 * 4)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c.Put(i%22, s, i%2048, k, v)
			}
		})
	}
}

// BenchmarkView lists the blocks of a 2048-position sequence for one layer.
func BenchmarkView(b *testing.B) {
	cfg := benchCfg
	cfg.Type = ggml.F16
	c := mustNew(b, cfg)
	s := c.NewSeq()
	if err := c.Reserve(s, 2048); err != nil {
		b.Fatal(err)
	}
	c.Commit(s, 2048)
	var v View
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.View(i%22, s, 2048, &v)
	}
}
