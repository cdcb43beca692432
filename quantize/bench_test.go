package quantize

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/quant"
)

// writeSyntheticLlama writes a random-weight F16 llama model of the given
// shape (norms F32, as converters write them). Weights are N(0, 0.02)
// values drawn from a pool, so generating 1.1B of them stays cheap.
func writeSyntheticLlama(tb testing.TB, path string, dim, layers, ffn, vocab, heads, kvHeads uint64) {
	tb.Helper()
	const poolLen = 1 << 24
	r := rand.New(rand.NewPCG(1, 2))
	pool := make([]byte, 2*poolLen)
	for i := 0; i < poolLen; i++ {
		h := quant.FP32ToFP16(float32(r.NormFloat64() * 0.02))
		pool[2*i], pool[2*i+1] = byte(h), byte(h>>8)
	}
	ones := make([]byte, 4*dim)
	for i := uint64(0); i < dim; i++ {
		copy(ones[4*i:], []byte{0, 0, 0x80, 0x3f}) // 1.0f
	}
	w := gguf.NewWriter()
	for _, kv := range []struct {
		k string
		v any
	}{
		{"general.architecture", "llama"}, {"general.name", "synthetic"}, {"general.file_type", uint32(MostlyF16)},
		{"llama.block_count", uint32(layers)}, {"llama.embedding_length", uint32(dim)},
		{"llama.feed_forward_length", uint32(ffn)}, {"llama.attention.head_count", uint32(heads)},
		{"llama.attention.head_count_kv", uint32(kvHeads)},
	} {
		if err := w.Set(kv.k, kv.v); err != nil {
			tb.Fatal(err)
		}
	}
	off := 0
	add := func(name string, dims ...uint64) {
		if len(dims) == 1 {
			if err := w.AddTensor(name, ggml.F32, dims, ones); err != nil {
				tb.Fatal(err)
			}
			return
		}
		n := int(dims[0] * dims[1] * 2)
		start := off
		off = (off + 4099*2) % len(pool) // a different stretch for each tensor
		err := w.AddTensorFunc(name, ggml.F16, dims, func(out io.Writer) error {
			for p := start; n > 0; p = 0 {
				k := min(n, len(pool)-p)
				if _, err := out.Write(pool[p : p+k]); err != nil {
					return err
				}
				n -= k
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	kv := kvHeads * (dim / heads)
	add("token_embd.weight", dim, vocab)
	for l := uint64(0); l < layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		add(p+"attn_norm.weight", dim)
		add(p+"attn_q.weight", dim, dim)
		add(p+"attn_k.weight", dim, kv)
		add(p+"attn_v.weight", dim, kv)
		add(p+"attn_output.weight", dim, dim)
		add(p+"ffn_norm.weight", dim)
		add(p+"ffn_gate.weight", dim, ffn)
		add(p+"ffn_up.weight", dim, ffn)
		add(p+"ffn_down.weight", ffn, dim)
	}
	add("output_norm.weight", dim)
	add("output.weight", dim, vocab)
	if err := w.WriteFile(path); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkTinyLlama quantizes an F16 model of TinyLlama-1.1B's shape with
// 2 threads, end to end (file in, file out). llama-quantize takes 7.4 s
// (Q4_0), 10 s (Q8_0) and 59.6 s (Q4_K_M) for this on the project machine.
// Set GOLLM_BIG=1 to run it: it writes a 2.2 GB temporary file.
func BenchmarkTinyLlama(b *testing.B) {
	if os.Getenv("GOLLM_BIG") != "1" {
		b.Skip("set GOLLM_BIG=1 to quantize a 1.1B-parameter synthetic model")
	}
	dir := b.TempDir()
	in := filepath.Join(dir, "tinyllama-f16.gguf")
	writeSyntheticLlama(b, in, 2048, 22, 5632, 32000, 32, 4)
	f, err := gguf.Open(in)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for _, ft := range []FileType{MostlyQ4_0, MostlyQ8_0, MostlyQ4_K_M} {
		b.Run(ft.String(), func(b *testing.B) {
			out := filepath.Join(dir, "out.gguf")
			var p *Plan
			for b.Loop() {
				start, cpu0 := time.Now(), cpuSeconds()
				p, err = Run(context.Background(), f, out, ft, Options{Threads: 2})
				if err != nil {
					b.Fatal(err)
				}
				// CPU seconds too: on a shared machine they say more than
				// the wall clock (ideal wall time is about cpu-s / 2).
				b.ReportMetric(time.Since(start).Seconds(), "s")
				b.ReportMetric(cpuSeconds()-cpu0, "cpu-s")
			}
			b.SetBytes(int64(p.BytesBefore))
			os.Remove(out)
		})
	}
}
