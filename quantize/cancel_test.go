package quantize

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/internal/shared"
)

// TestCancel: cancelling mid-write returns context.Canceled and leaves
// neither the output nor a temporary file.
func TestCancel(t *testing.T) {
	models := shared.Dir(t, "models")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.gguf")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	calls := 0
	opt := Options{Threads: 2, Progress: func(done, total int64) {
		calls++
		if calls == 2 {
			cancel()
		}
	}}
	_, err := QuantizeFile(ctx, filepath.Join(models, "tiny-F32.gguf"), out, MostlyQ4_K_M, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("%s left behind", e.Name())
	}
}

// TestStaleTempRemoved: the temporary files of killed runs (one named with
// the pid of a process that has exited, one with the pid-less name of older
// versions) are removed by the next run that writes the same output.
func TestStaleTempRemoved(t *testing.T) {
	models := shared.Dir(t, "models")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.gguf")
	child := exec.Command(os.Args[0], "-test.run=^$")
	if err := child.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	stale := []string{fmt.Sprintf("%s.%d.tmp", out, child.Process.Pid), out + ".tmp"}
	for _, p := range stale {
		if err := os.WriteFile(p, make([]byte, 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := QuantizeFile(t.Context(), filepath.Join(models, "stories260K.gguf"), out, MostlyQ4_K_M, Options{Threads: 2}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "out.gguf" {
		for _, e := range entries {
			t.Errorf("directory holds %s, want only out.gguf", e.Name())
		}
	}
}
