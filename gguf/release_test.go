package gguf

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestRelease: releasing a tensor's pages of a mapped file leaves its
// contents readable and unchanged; on a parsed buffer it changes nothing.
func TestRelease(t *testing.T) {
	big := make([]byte, 3<<20) // several pages, so whole pages get released
	for i := range big {
		big[i] = byte(i*7 + i>>12)
	}
	w := NewWriter()
	if err := w.Set("general.architecture", "llama"); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("a", ggml.F32, []uint64{uint64(len(big) / 4)}, big); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("b", ggml.F32, []uint64{3}, big[:12]); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.gguf")
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ti, _ := f.Tensor("a")
	a := f.TensorData(ti)
	if !bytes.Equal(a, big) {
		t.Fatal("tensor a differs before Release")
	}
	f.Release(a)
	f.Release(a[5:4097]) // partial pages: kept
	f.Release(big)       // not part of the file: ignored
	if !bytes.Equal(a, big) {
		t.Fatal("tensor a differs after Release")
	}
	tb, _ := f.Tensor("b")
	if !bytes.Equal(f.TensorData(tb), big[:12]) {
		t.Fatal("tensor b differs after releasing a")
	}

	// A parsed buffer is the caller's memory: Release must not touch it.
	buf := writeBytes(t, w)
	pf, err := Parse(buf)
	if err != nil {
		t.Fatal(err)
	}
	pa := pf.TensorData(ti)
	pf.Release(pa)
	if !bytes.Equal(pa, big) {
		t.Fatal("Release changed a parsed buffer")
	}
}
