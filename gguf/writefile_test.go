package gguf

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestWriteFileCancel: cancelling mid-write stops at the next write and
// leaves nothing in the directory.
func TestWriteFileCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := NewWriter()
	chunk := make([]byte, 1<<20)
	writes := 0
	err := w.AddTensorFunc("t", ggml.F32, []uint64{16 << 20}, func(out io.Writer) error {
		for range 64 {
			if writes == 3 {
				cancel()
			}
			writes++
			if _, err := out.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.gguf")
	if err := w.WriteFileContext(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if writes > 6 {
		t.Errorf("%d writes after the cancellation, want it noticed within about 1 MiB", writes-3)
	}
	assertEmpty(t, dir)
	// an already cancelled context writes nothing at all
	if err := w.WriteFileContext(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	assertEmpty(t, dir)
}

// TestWriteFileCleansLeftovers: the temporary file a killed writer left
// (here the pid-less name of earlier versions) goes at the next write.
func TestWriteFileCleansLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.gguf")
	if err := os.WriteFile(path+".tmp", make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	w := NewWriter()
	if err := w.AddTensor("t", ggml.F32, []uint64{4}, make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "x.gguf" {
		t.Errorf("directory holds %v, want only x.gguf", entries)
	}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left behind", e.Name())
	}
}
