package synth

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/quantize"
)

// TestMixMatchesQuantize: a synthetic Q4_K_M model has, tensor by tensor,
// the types gollm quantize (llama-quantize's rules) gives its F32 twin.
func TestMixMatchesQuantize(t *testing.T) {
	dir := t.TempDir()
	shape, _ := Lookup("tiny")
	f32, q := filepath.Join(dir, "f32.gguf"), filepath.Join(dir, "q.gguf")
	if err := Write(f32, shape, Options{FileType: "F32", Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := Write(q, shape, Options{FileType: "Q4_K_M", Seed: 3}); err != nil {
		t.Fatal(err)
	}
	requant := filepath.Join(dir, "requant.gguf")
	if _, err := quantize.QuantizeFile(context.Background(), f32, requant, quantize.MostlyQ4_K_M, quantize.Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	a, err := gguf.Open(q)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := gguf.Open(requant)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, ti := range a.Tensors {
		tb, ok := b.Tensor(ti.Name)
		if !ok || tb.Type != ti.Type {
			t.Errorf("%s: synthetic %v, quantized %v", ti.Name, ti.Type, tb.Type)
		}
		// Same seed, same values: the bytes must agree too.
		if ok && string(a.TensorData(&ti)) != string(b.TensorData(tb)) {
			t.Errorf("%s: bytes differ from quantizing the F32 twin", ti.Name)
		}
	}
}
