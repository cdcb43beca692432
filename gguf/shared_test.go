package gguf

import (
	"bytes"
	"github.com/gollm/gollm/internal/shared"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/gollm/gollm/ggml"
)

// Facts about ../shared read with an independent reader (a short Python
// script written from the GGUF spec), not with this package.
var sharedFacts = map[string]struct {
	arch          string
	nKV, nTensors int
	tokens        int
	dataOffset    uint64
}{
	"models/llama-2-tiny-random.gguf":         {"llama", 18, 12, 32000, 724416},
	"models/stories260K.gguf":                 {"llama", 19, 48, 512, 14176},
	"models/stories260K-Q4_K_M.gguf":          {"llama", 21, 48, 512, 14240},
	"models/stories260K-Q8_0-ffndownF16.gguf": {"llama", 21, 48, 512, 14240},
	"models/tiny-F32.gguf":                    {"llama", 22, 39, 512, 13760},
	"models/tiny-F16.gguf":                    {"llama", 23, 39, 512, 13792},
	"models/tiny-Q4_0.gguf":                   {"llama", 23, 39, 512, 13792},
	"models/tiny-Q6_K.gguf":                   {"llama", 23, 39, 512, 13792},
	"models/tiny-qwen2-Q4_K_M.gguf":           {"qwen2", 23, 50, 512, 14336},
	"models/tiny-qwen3-Q8_0.gguf":             {"qwen3", 23, 46, 512, 14208},
	"vocab/ggml-vocab-deepseek-coder.gguf":    {"llama", 25, 0, 32256, 1156096},
	"vocab/ggml-vocab-falcon.gguf":            {"falcon", 18, 0, 65024, 2287744},
	"vocab/ggml-vocab-gpt-2.gguf":             {"gpt2", 16, 0, 50257, 1766816},
	"vocab/ggml-vocab-llama-bpe.gguf":         {"llama", 21, 0, 128256, 7818208},
	"vocab/ggml-vocab-llama-spm.gguf":         {"llama", 22, 0, 32000, 723872},
	"vocab/ggml-vocab-phi-3.gguf":             {"phi3", 26, 0, 32064, 726048},
	"vocab/ggml-vocab-qwen2.gguf":             {"qwen2", 20, 0, 151936, 5928416},
}

// sharedFiles lists every .gguf file in ../shared/models and ../shared/vocab.
func sharedFiles(t testing.TB) []string {
	var out []string
	for _, sub := range []string{"models", "vocab"} {
		m, _ := filepath.Glob(filepath.Join(shared.Dir(t, sub), "*.gguf"))
		out = append(out, m...)
	}
	return out
}

func TestOpenShared(t *testing.T) {
	files := sharedFiles(t)
	checked := 0
	for _, path := range files {
		rel := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		f, err := Open(path)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		exercise(t, f)
		if f.Architecture() == "" {
			t.Errorf("%s: no architecture", rel)
		}
		if fact, ok := sharedFacts[rel]; ok {
			checked++
			tokens, _ := f.Strings("tokenizer.ggml.tokens")
			if f.Architecture() != fact.arch || len(f.KV) != fact.nKV || len(f.Tensors) != fact.nTensors ||
				len(tokens) != fact.tokens || f.DataOffset != fact.dataOffset || f.Version != 3 || f.Alignment != 32 {
				t.Errorf("%s: arch %q, %d kv, %d tensors, %d tokens, data at %d; want %+v",
					rel, f.Architecture(), len(f.KV), len(f.Tensors), len(tokens), f.DataOffset, fact)
			}
		}
		if err := f.Close(); err != nil {
			t.Errorf("%s: close: %v", rel, err)
		}
		if f.Close() != nil || f.TensorData(&TensorInfo{Size: 1}) != nil {
			t.Errorf("%s: second Close or TensorData after Close misbehaves", rel)
		}
	}
	if checked < len(sharedFacts) {
		t.Errorf("checked facts of %d files, want %d", checked, len(sharedFacts))
	}
}

func TestStories260K(t *testing.T) {
	f, err := Open(filepath.Join(shared.Dir(t, "models"), "stories260K.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for key, want := range map[string]uint64{
		"llama.embedding_length": 64, "llama.feed_forward_length": 172, "llama.attention.head_count": 8,
		"llama.attention.head_count_kv": 4, "llama.block_count": 5, "llama.context_length": 2048,
		"tokenizer.ggml.bos_token_id": 1, "tokenizer.ggml.seperator_token_id": 4294967295,
	} {
		if got := f.Uint(key, 0); got != want {
			t.Errorf("%s = %d, want %d", key, got, want)
		}
	}
	if eps := f.Float("llama.attention.layer_norm_rms_epsilon", 0); float32(eps) != 1e-5 {
		t.Errorf("rms epsilon %g", eps)
	}
	tokens, _ := f.Strings("tokenizer.ggml.tokens")
	if len(tokens) != 512 || !slices.Equal(tokens[:4], []string{"<unk>", "<s>", "</s>", "<0x00>"}) {
		t.Errorf("tokens %q", tokens[:4])
	}
	types, ok := f.Int32s("tokenizer.ggml.token_type")
	if !ok || len(types) != 512 || !slices.Equal(types[:3], []int32{2, 3, 3}) {
		t.Errorf("token types %v", types[:3])
	}
	if scores, ok := f.Float32s("tokenizer.ggml.scores"); !ok || len(scores) != 512 {
		t.Errorf("scores: %d, %v", len(scores), ok)
	}
	emb, ok := f.Tensor("token_embd.weight")
	if !ok || !slices.Equal(emb.Dims, []uint64{64, 512}) || emb.Type != ggml.F32 || emb.Offset != 0 || emb.Size != 64*512*4 {
		t.Fatalf("token_embd.weight = %+v", emb)
	}
	last, _ := f.Tensor("blk.4.ffn_norm.weight")
	if last.Offset != 1170944 || f.DataOffset+last.Offset+last.Size != f.Size {
		t.Errorf("blk.4.ffn_norm.weight at %d", last.Offset)
	}
	for name, want := range map[string][]float32{
		"token_embd.weight":  {-0.29474878311157227, 0.5618956089019775, 0.1754225343465805, 0.34057360887527466},
		"output_norm.weight": {2.4583089351654053, 1.3673226833343506, 1.7504382133483887, 1.1078318357467651},
	} {
		ti, _ := f.Tensor(name)
		d := f.TensorData(ti)
		for i, w := range want {
			if got := math.Float32frombits(uint32(d[4*i]) | uint32(d[4*i+1])<<8 | uint32(d[4*i+2])<<16 | uint32(d[4*i+3])<<24); got != w {
				t.Errorf("%s[%d] = %g, want %g", name, i, got, w)
			}
		}
	}
	mixed, err := Open(filepath.Join(shared.Dir(t, "models"), "stories260K-Q8_0-ffndownF16.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer mixed.Close()
	if d, _ := mixed.Tensor("blk.0.ffn_down.weight"); d.Type != ggml.F16 || d.Size != 172*64*2 {
		t.Errorf("ffn_down = %+v", d)
	}
	if q, _ := mixed.Tensor("blk.0.attn_q.weight"); q.Type != ggml.Q8_0 || q.Size != 64/32*34*64 {
		t.Errorf("attn_q = %+v", q)
	}
}

// TestTensorDataAliasesMapping proves Open does not copy tensor data: the
// slice TensorData returns is the mapping itself.
func TestTensorDataAliasesMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.gguf")
	w := NewWriter()
	w.AddTensor("x", ggml.I8, []uint64{64}, bytes.Repeat([]byte{7}, 64))
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x, _ := f.Tensor("x")
	d := f.TensorData(x)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(f.data)))
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(d))); p != base+uintptr(f.DataOffset+x.Offset) {
		t.Errorf("tensor data at %#x, mapping at %#x + %d", p, base, f.DataOffset+x.Offset)
	}
	if cap(d) != len(d) {
		t.Errorf("cap %d lets append run into the next tensor", cap(d))
	}

	// Parse aliases its buffer the same way.
	buf, _ := os.ReadFile(path)
	pf, err := Parse(buf)
	if err != nil {
		t.Fatal(err)
	}
	buf[pf.DataOffset+x.Offset] = 99
	if pf.TensorData(x)[0] != 99 {
		t.Error("Parse copied the tensor data")
	}
	// Metadata does not alias: it survives the buffer being overwritten.
	w2 := NewWriter()
	w2.Set("s", "hello")
	w2.Set("a", []string{"x", "y"})
	buf2 := writeBytes(t, w2)
	pf2, _ := Parse(buf2)
	clear(buf2)
	if a, _ := pf2.Strings("a"); pf2.String("s", "") != "hello" || !slices.Equal(a, []string{"x", "y"}) {
		t.Error("metadata aliases the buffer")
	}
}

// TestRewriteShared copies every KV and tensor of the shared models through
// the Writer. Parse must give back identical metadata and tensor bytes, and
// for files llama.cpp wrote (all models here) the bytes must be identical:
// the writer's layout is llama.cpp's.
func TestRewriteShared(t *testing.T) {
	for _, path := range sharedFiles(t) {
		name := filepath.Base(path)
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(orig)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w := NewWriter()
		for _, kv := range f.KV {
			if err := w.Set(kv.Key, kv.Value); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		for i := range f.Tensors {
			ti := &f.Tensors[i]
			if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, f.TensorData(ti)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		out := writeBytes(t, w)
		g, err := Parse(out)
		if err != nil {
			t.Fatalf("%s: re-parse: %v", name, err)
		}
		if len(g.KV) != len(f.KV) || len(g.Tensors) != len(f.Tensors) {
			t.Fatalf("%s: %d kv %d tensors, want %d %d", name, len(g.KV), len(g.Tensors), len(f.KV), len(f.Tensors))
		}
		for i, kv := range f.KV {
			if g.KV[i].Key != kv.Key || !g.KV[i].Value.Equal(kv.Value) {
				t.Errorf("%s: kv %d %q differs", name, i, kv.Key)
			}
		}
		for i := range f.Tensors {
			a, b := &f.Tensors[i], &g.Tensors[i]
			if a.Name != b.Name || a.Type != b.Type || !slices.Equal(a.Dims, b.Dims) || !bytes.Equal(f.TensorData(a), g.TensorData(b)) {
				t.Errorf("%s: tensor %q differs", name, a.Name)
			}
		}
		switch {
		case strings.HasPrefix(name, "ggml-vocab-"):
			// Written without the final padding: the rewrite only adds it.
			if !bytes.Equal(out[:len(orig)], orig) || len(out) != int(alignUp(uint64(len(orig)), 32)) {
				t.Errorf("%s: rewrite differs beyond the final padding", name)
			}
		case !bytes.Equal(out, orig):
			t.Errorf("%s: rewrite is not byte-identical (%d vs %d bytes)", name, len(out), len(orig))
		}
	}
}
