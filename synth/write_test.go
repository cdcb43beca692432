package synth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestWriteCancel: cancelling mid-write returns context.Canceled and leaves
// nothing behind.
func TestWriteCancel(t *testing.T) {
	shape, err := Lookup("tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last, total int64
	opt := Options{FileType: "Q8_0", Threads: 2, Progress: func(done, all int64) {
		if done <= last || done > all {
			t.Errorf("progress %d of %d after %d", done, all, last)
		}
		last, total = done, all
		cancel()
	}}
	err = WriteContext(ctx, filepath.Join(dir, "m.gguf"), shape, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if last == 0 || last >= total {
		t.Errorf("cancelled after %d of %d bytes, want partway", last, total)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("%s left behind", e.Name())
	}
}

// TestEnsureCleansCache: Ensure writes into CacheDir and removes the
// temporary files killed writers left there, but not those of live ones.
func TestEnsureCleansCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // Linux and other Unix
	t.Setenv("HOME", cache)           // macOS: ~/Library/Caches
	t.Setenv("LocalAppData", cache)   // Windows
	dir := CacheDir()
	if rel, err := filepath.Rel(cache, dir); err != nil || !filepath.IsLocal(rel) {
		t.Skipf("cache dir %s is not under the test's %s", dir, cache)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	if err := child.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	dead := filepath.Join(dir, fmt.Sprintf("big-Q4_0-seed1-v2.gguf.%d.tmp", child.Process.Pid))
	legacy := filepath.Join(dir, "big-Q8_0-seed1-v2.gguf.tmp")
	live := filepath.Join(dir, fmt.Sprintf("big-F16-seed1-v2.gguf.%d.tmp", os.Getppid()))
	for _, p := range []string{dead, legacy, live} {
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shape, _ := Lookup("tiny")
	path, created, err := EnsureContext(t.Context(), shape, Options{FileType: "Q8_0", Threads: 2})
	if err != nil || !created || filepath.Dir(path) != dir {
		t.Fatalf("EnsureContext: %s %v %v", path, created, err)
	}
	for _, p := range []string{dead, legacy} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s not removed", filepath.Base(p))
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live writer's file was removed: %v", err)
	}
	if _, created, err := EnsureContext(t.Context(), shape, Options{FileType: "Q8_0", Threads: 2}); err != nil || created {
		t.Errorf("second EnsureContext: created %v, %v; want the cached file", created, err)
	}
}
