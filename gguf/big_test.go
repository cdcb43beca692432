package gguf

import (
	"bytes"
	"github.com/gollm/gollm/internal/shared"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gollm/gollm/ggml"
)

// TestOpenBigFile streams a 1 GiB model to disk through the Writer and
// checks that opening it is O(metadata): fast, and without the heap growing
// by the weights. Opt-in: it writes 1 GiB.
func TestOpenBigFile(t *testing.T) {
	if testing.Short() || os.Getenv("GOLLM_BIG") == "" {
		t.Skip("set GOLLM_BIG=1 (without -short) to write and open a 1 GiB file")
	}
	const (
		nTensors = 16
		rowLen   = 4096
		rows     = 4096 // 4096*4096 F32 = 64 MiB per tensor, 1 GiB in all
	)
	path := filepath.Join(t.TempDir(), "big.gguf")
	w := NewWriter()
	w.Set("general.architecture", "llama")
	for i := range nTensors {
		fill := byte(i + 1)
		err := w.AddTensorFunc("blk."+string(rune('a'+i))+".weight", ggml.F32, []uint64{rowLen, rows}, func(out io.Writer) error {
			chunk := bytes.Repeat([]byte{fill}, 1<<20)
			for range rowLen * rows * 4 >> 20 {
				if _, err := out.Write(chunk); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote 1 GiB in %v", time.Since(start))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start = time.Now()
	f, err := Open(path)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runtime.ReadMemStats(&after)
	t.Logf("opened %d bytes in %v, heap grew %d bytes", f.Size, elapsed, int64(after.HeapAlloc)-int64(before.HeapAlloc))
	if elapsed > 500*time.Millisecond {
		t.Errorf("Open took %v for a 1 GiB file", elapsed)
	}
	if grew := int64(after.TotalAlloc - before.TotalAlloc); grew > 1<<20 {
		t.Errorf("Open allocated %d bytes: it copies weights", grew)
	}
	last := &f.Tensors[nTensors-1]
	d := f.TensorData(last)
	if uint64(len(d)) != rowLen*rows*4 || d[0] != nTensors || d[len(d)-1] != nTensors {
		t.Errorf("last tensor: %d bytes, ends %d %d", len(d), d[0], d[len(d)-1])
	}
}

func BenchmarkOpen(b *testing.B) {
	for _, name := range []string{"models/stories260K.gguf", "vocab/ggml-vocab-qwen2.gguf"} {
		dir, file := filepath.Split(name)
		path := filepath.Join(shared.Dir(b, filepath.Clean(dir)), file)
		b.Run(file, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
