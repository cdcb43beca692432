//go:build unix

package gguf

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gollm/gollm/ggml"
)

// TestWriteFileSpecial: a named pipe (like /dev/null) is written to, not
// replaced by a regular file renamed over it.
func TestWriteFileSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	w := NewWriter()
	if err := w.AddTensor("t", ggml.F32, []uint64{4}, make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := w.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	if err := w.WriteFile(fifo); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if !bytes.Equal(b, want.Bytes()) {
			t.Errorf("read %d bytes from the pipe, want %d", len(b), want.Len())
		}
	case <-time.After(10 * time.Second):
		os.Remove(fifo)
		t.Fatal("nothing written to the pipe within 10 s")
	}
	fi, err := os.Lstat(fifo)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want only the pipe", len(entries))
	}
}
