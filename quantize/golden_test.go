package quantize

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/gguf"

	"github.com/gollm/gollm/internal/shared"
)

// compareFiles checks got against llama-quantize's want: metadata keys,
// order and values, tensor names, order, types, shapes, offsets and bytes,
// and finally the whole file.
// With sameData false only the layout is compared (for references made from
// a source that is not shipped).
func compareFiles(t *testing.T, gotPath, wantPath string, sameData bool) {
	t.Helper()
	got, err := gguf.Open(gotPath)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	want, err := gguf.Open(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	if len(got.KV) != len(want.KV) {
		t.Errorf("%d metadata keys, want %d", len(got.KV), len(want.KV))
	}
	for i := range min(len(got.KV), len(want.KV)) {
		g, w := got.KV[i], want.KV[i]
		if g.Key != w.Key || !g.Value.Equal(w.Value) {
			t.Errorf("KV %d: %s = %v, want %s = %v", i, g.Key, g.Value, w.Key, w.Value)
		}
	}
	if len(got.Tensors) != len(want.Tensors) {
		t.Fatalf("%d tensors, want %d", len(got.Tensors), len(want.Tensors))
	}
	for i := range got.Tensors {
		g, w := &got.Tensors[i], &want.Tensors[i]
		if g.Name != w.Name || g.Type != w.Type || g.Offset != w.Offset || !equalDims(g.Dims, w.Dims) {
			t.Errorf("tensor %d: %s %v %v @%d, want %s %v %v @%d", i, g.Name, g.Dims, g.Type, g.Offset, w.Name, w.Dims, w.Type, w.Offset)
			continue
		}
		gd, wd := got.TensorData(g), want.TensorData(w)
		if sameData && !bytes.Equal(gd, wd) {
			t.Errorf("tensor %s (%v): bytes differ at %d of %d", g.Name, g.Type, firstDiff(gd, wd), len(wd))
		}
	}
	if !sameData {
		return
	}
	gb, err := os.ReadFile(gotPath)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gb, wb) {
		t.Errorf("files differ at byte %d (sizes %d, %d)", firstDiff(gb, wb), len(gb), len(wb))
	}
}

func equalDims(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestMatchesLlamaQuantize converts the F32/F16 test models and compares
// the results with what llama-quantize made from the same inputs.
func TestMatchesLlamaQuantize(t *testing.T) {
	models := shared.Dir(t, "models")
	type job struct {
		in, want, typ string
		sameData      bool // the reference was made from this very input
	}
	var jobs []job
	for _, typ := range []string{"F16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K"} {
		jobs = append(jobs, job{"tiny-F32.gguf", "tiny-" + typ + ".gguf", typ, true})
	}
	jobs = append(jobs,
		// rows of 64 and 172 elements: Q4_K -> Q5_0, Q6_K -> Q8_0, and
		// ffn_down falls through to F16
		job{"stories260K.gguf", "stories260K-Q4_K_M.gguf", "Q4_K_M", true},
		// Tied embeddings (qwen2: token_embd takes output's Q6_K), biases,
		// q/k norms (qwen3). llama.cpp made these references from F32
		// weights that are not shipped (the F16 files are rounded copies),
		// so only types, shapes, order, offsets and metadata can match.
		job{"tiny-qwen2-F16.gguf", "tiny-qwen2-Q4_K_M.gguf", "Q4_K_M", false},
		job{"tiny-qwen2-F16.gguf", "tiny-qwen2-Q8_0.gguf", "Q8_0", false},
		job{"tiny-qwen3-F16.gguf", "tiny-qwen3-Q4_K_M.gguf", "Q4_K_M", false},
		job{"tiny-qwen3-F16.gguf", "tiny-qwen3-Q8_0.gguf", "Q8_0", false},
	)
	for _, j := range jobs {
		t.Run(j.want, func(t *testing.T) {
			want := filepath.Join(models, j.want)
			if _, err := os.Stat(want); err != nil {
				t.Skipf("%s absent", want)
			}
			ft, err := ParseFileType(j.typ)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.gguf")
			p, err := QuantizeFile(context.Background(), filepath.Join(models, j.in), out, ft, Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(out); err != nil || p.BytesAfter > uint64(fi.Size()) {
				t.Errorf("plan says %d tensor bytes, file has %v (%v)", p.BytesAfter, fi.Size(), err)
			}
			compareFiles(t, out, want, j.sameData)
		})
	}
}
