package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm/gollm/internal/shared"
)

// runIn runs the CLI with a private cache directory.
func runIn(t *testing.T, cache string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gollmBin(t), args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "HOME="+cache, "LocalAppData="+cache)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// TestCacheCLI: bench --synthetic says where it caches its model, cache ls
// lists it (and leftovers of killed runs, marked), cache rm removes them.
func TestCacheCLI(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "gollm", "synth")
	if stdout, stderr, code := runIn(t, cache, "cache", "ls"); code != 0 || !strings.Contains(stdout, "no cached files") {
		t.Fatalf("empty cache ls: exit %d, %q %q", code, stdout, stderr)
	}
	_, stderr, code := runIn(t, cache, "bench", "--synthetic", "tiny", "--type", "Q8_0", "-p", "0", "-n", "1", "-r", "1", "-t", "1", "--mem-bw", "10")
	if code != 0 || !strings.Contains(stderr, filepath.Join(dir, "tiny-Q8_0-seed1-v2.gguf")) {
		t.Fatalf("bench --synthetic: exit %d, stderr %q; want the cache path", code, stderr)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("this OS caches elsewhere: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x-Q4_0-seed1-v2.gguf.tmp"), make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runIn(t, cache, "cache", "ls")
	if code != 0 || !strings.Contains(stdout, dir) || !strings.Contains(stdout, "tiny-Q8_0-seed1-v2.gguf") ||
		!strings.Contains(stdout, "3.0 MiB  x-Q4_0-seed1-v2.gguf.tmp  (partial: left by an interrupted run)") ||
		!strings.Contains(stdout, "2 files") {
		t.Errorf("cache ls: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, stderr, code := runIn(t, cache, "cache", "rm", "nothing-*"); code != 1 || !strings.Contains(stderr, "nothing-*") {
		t.Errorf("rm of no match: exit %d, %q", code, stderr)
	}
	for _, args := range [][]string{{"cache", "rm"}, {"cache", "rm", "--all", "x"}, {"cache", "rm", "../x"}, {"cache"}, {"cache", "foo"}} {
		if _, stderr, code := runIn(t, cache, args...); code != 2 {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, stderr)
		}
	}
	stdout, stderr, code = runIn(t, cache, "cache", "rm", "x-*")
	if code != 0 || !strings.Contains(stdout, "removed x-Q4_0-seed1-v2.gguf.tmp (3.0 MiB)") {
		t.Errorf("cache rm x-*: exit %d, %q %q", code, stdout, stderr)
	}
	stdout, stderr, code = runIn(t, cache, "cache", "rm", "--all")
	if code != 0 || !strings.Contains(stdout, "1 file removed") {
		t.Errorf("cache rm --all: exit %d, %q %q", code, stdout, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files left after rm --all", len(entries))
	}
}

// TestKilledWriterCleaned: a synth killed mid-write leaves its temporary
// file (nothing can run on SIGKILL); the next command writing the same path
// removes it.
func TestKilledWriterCleaned(t *testing.T) {
	models := shared.Dir(t, "models")
	dir := t.TempDir()
	out := filepath.Join(dir, "m.gguf")
	cmd := exec.Command(gollmBin(t), "synth", "--preset", "tinyllama-1.1b", "--type", "Q4_0", "-t", "1", "-o", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tmp := fmt.Sprintf("%s.%d.tmp", out, cmd.Process.Pid)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(tmp); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s never appeared", tmp)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the killed writer's file is gone already: %v", err)
	}
	_, stderr, code := run(t, "quantize", "--tensor-type", "ffn_down=f16", filepath.Join(models, "stories260K.gguf"), out, "Q8_0")
	if code != 0 {
		t.Fatalf("quantize: exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "m.gguf" {
		for _, e := range entries {
			t.Errorf("directory holds %s, want only m.gguf", e.Name())
		}
	}
}
