package gguf_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"
)

// Open maps a file and reads its metadata and tensor table; tensor bytes
// are slices of the mapping. (The file is written first, to have one.)
func Example() {
	dir, err := os.MkdirTemp("", "gguf-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.gguf")
	writeExample(path)

	f, err := gguf.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Println("architecture:", f.Architecture())
	fmt.Println("context:", f.Uint("llama.context_length", 0))
	tokens, _ := f.Strings("tokenizer.ggml.tokens")
	fmt.Println("tokens:", tokens)
	for _, kv := range f.KV {
		fmt.Printf("%s (%s) = %s\n", kv.Key, kv.Value.Type, kv.Value) // String cuts long values; FullString does not
	}
	t, _ := f.Tensor("output_norm.weight")
	data := f.TensorData(t)
	fmt.Println(t.Name, t.Type, t.Dims, len(data), "bytes, first", math.Float32frombits(binary.LittleEndian.Uint32(data)))
	// Output:
	// architecture: llama
	// context: 2048
	// tokens: [<unk> <s> </s> a b c]
	// general.architecture (string) = "llama"
	// llama.context_length (uint32) = 2048
	// tokenizer.ggml.tokens (array) = [6]string{"<unk>", "<s>", "</s>", "a", ...}
	// output_norm.weight F32 [4] 16 bytes, first 1.5
}

// writeExample writes a small GGUF file: three metadata keys and one tensor.
func writeExample(path string) {
	w := gguf.NewWriter()
	for _, kv := range []struct {
		key string
		val any
	}{
		{"general.architecture", "llama"},
		{"llama.context_length", uint32(2048)}, // GGUF types are explicit: uint32, not int
		{"tokenizer.ggml.tokens", []string{"<unk>", "<s>", "</s>", "a", "b", "c"}},
	} {
		if err := w.Set(kv.key, kv.val); err != nil {
			log.Fatal(err)
		}
	}
	data := make([]byte, 16)
	for i := range 4 {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(1.5))
	}
	if err := w.AddTensor("output_norm.weight", ggml.F32, []uint64{4}, data); err != nil {
		log.Fatal(err)
	}
	if err := w.WriteFile(path); err != nil {
		log.Fatal(err)
	}
}
