package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// interruptWriter starts gollm with a private cache folder, waits until its
// temporary file (PATH.PID.tmp in dir) exists, sends SIGINT and returns its
// stderr and exit status.
func interruptWriter(t *testing.T, cache, dir, path string, args ...string) (stderr string, code int) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	cmd := exec.Command(gollmBin(t), args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "HOME="+cache)
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, cmd.Process.Pid)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(tmp); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s never appeared; stderr: %s", tmp, e.String())
		}
	}
	cmd.Process.Signal(os.Interrupt)
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return e.String(), code
}

// TestCLIInterruptWrites: Ctrl-C during synth and during bench --synthetic's
// first write stops the write, exits 130 and leaves no file behind.
func TestCLIInterruptWrites(t *testing.T) {
	cache := t.TempDir()
	dir := t.TempDir()
	out := filepath.Join(dir, "m.gguf")
	stderr, code := interruptWriter(t, cache, dir, out, "synth", "--preset", "tinyllama-1.1b", "--type", "Q4_0", "-t", "1", "-o", out)
	if code != 130 || !strings.Contains(stderr, "interrupted: "+out+" not written") {
		t.Errorf("synth: exit %d, stderr %q; want 130 and the interruption", code, stderr)
	}
	assertNoFiles(t, dir)

	synthDir := filepath.Join(cache, "gollm", "synth")
	model := filepath.Join(synthDir, "tinyllama-1.1b-Q4_0-seed1-v2.gguf")
	stderr, code = interruptWriter(t, cache, synthDir, model, "bench", "--synthetic", "tinyllama-1.1b", "--type", "Q4_0", "-p", "0", "-n", "1", "-r", "1", "-t", "1")
	if code != 130 {
		t.Errorf("bench --synthetic: exit %d, stderr %q; want 130", code, stderr)
	}
	assertNoFiles(t, synthDir)
}

func assertNoFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("%s left in %s", e.Name(), dir)
	}
}
