package gguf

import (
	"bytes"
	"github.com/gollm/gollm/internal/shared"
	"os"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// FuzzOpen feeds arbitrary bytes to Parse. It must never panic or allocate
// beyond what the input backs; when it accepts a file, every accessor must
// work and the Writer must reproduce the same metadata and tensor bytes.
func FuzzOpen(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		exercise(t, file)
		checkRewrite(t, file)
	})
}

// checkRewrite copies file through the Writer and parses it back.
func checkRewrite(t *testing.T, file *File) {
	if file.Alignment > 1<<16 {
		return // valid, but the rewrite would pad with up to 2 GiB of zeros
	}
	w := NewWriter()
	for _, kv := range file.KV {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			return // readable but not writable: empty key, non-uint32 alignment
		}
	}
	for i := range file.Tensors {
		ti := &file.Tensors[i]
		if err := w.AddTensor(ti.Name, ti.Type, ti.Dims, file.TensorData(ti)); err != nil {
			t.Fatalf("tensor %q accepted by Parse, refused by the writer: %v", ti.Name, err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	again, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatalf("rewritten file does not parse: %v", err)
	}
	if len(again.KV) != len(file.KV) || len(again.Tensors) != len(file.Tensors) {
		t.Fatalf("rewrite has %d kv %d tensors, want %d %d", len(again.KV), len(again.Tensors), len(file.KV), len(file.Tensors))
	}
	for i, kv := range file.KV {
		if again.KV[i].Key != kv.Key || !again.KV[i].Value.Equal(kv.Value) {
			t.Fatalf("kv %q changed: %s -> %s", kv.Key, kv.Value, again.KV[i].Value)
		}
	}
	for i := range file.Tensors {
		if !bytes.Equal(file.TensorData(&file.Tensors[i]), again.TensorData(&again.Tensors[i])) {
			t.Fatalf("tensor %q data changed", file.Tensors[i].Name)
		}
	}
}

// fuzzSeeds returns small valid files from the Writer plus the shared models
// under 2 MB (none when ../shared is absent).
func fuzzSeeds(tb testing.TB) [][]byte {
	seeds := [][]byte{smallFile(tb)}

	w := NewWriter()
	w.Set("general.architecture", "gpt2")
	w.Set("tokenizer.ggml.tokens", []string{"a", "b", "<|endoftext|>"})
	w.Set("tokenizer.ggml.scores", []float32{0, -1, -2})
	seeds = append(seeds, writeBytes(tb, w))

	w = NewWriter()
	w.Set("general.alignment", uint32(64))
	inner, _ := ValueOf([]int64{-1, 1})
	nested, _ := ValueOf([]Value{inner, inner})
	w.Set("nested", []Value{nested})
	w.AddTensor("q", ggml.Q4_0, []uint64{32, 2}, make([]byte, 36))
	w.AddTensor("empty", ggml.F16, []uint64{8, 0}, nil)
	w.AddTensor("k", ggml.Q4_K, []uint64{256}, make([]byte, 144))
	seeds = append(seeds, writeBytes(tb, w))

	if dir := shared.Path("models"); dir != "" {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.gguf"))
		for _, p := range paths {
			if st, err := os.Stat(p); err != nil || st.Size() >= 2<<20 {
				continue
			}
			if b, err := os.ReadFile(p); err == nil {
				seeds = append(seeds, b)
			}
		}
	}
	return seeds
}
