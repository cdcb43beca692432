package tmpfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// deadPid returns the id of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("needs a Unix shell")
	}
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	pid := cmd.Process.Pid
	if alive(pid) {
		t.Skipf("pid %d was reused already", pid)
	}
	return pid
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestClean(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "model.gguf")
	dead := fmt.Sprintf("%s.%d.tmp", out, deadPid(t))
	legacy := out + ".tmp"
	mine := Name(out)
	live := fmt.Sprintf("%s.%d.tmp", out, os.Getppid()) // the go tool or shell: alive
	other := filepath.Join(dir, "other.gguf.99999999.tmp")
	keep := []string{mine, live, other, out, filepath.Join(dir, "model.gguf.x.tmp")}
	for _, p := range append([]string{dead, legacy}, keep...) {
		touch(t, p)
	}
	removed := Clean(out)
	slices.Sort(removed)
	if want := []string{dead, legacy}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, p := range keep {
		if !exists(p) {
			t.Errorf("%s removed", p)
		}
	}
}

func TestCleanDir(t *testing.T) {
	dir := t.TempDir()
	dead := filepath.Join(dir, fmt.Sprintf("a-Q4_0.gguf.%d.tmp", deadPid(t)))
	legacy := filepath.Join(dir, "b-Q8_0.gguf.tmp")
	mine := Name(filepath.Join(dir, "c.gguf"))
	live := filepath.Join(dir, fmt.Sprintf("d.gguf.%d.tmp", os.Getppid()))
	model := filepath.Join(dir, "e.gguf")
	for _, p := range []string{dead, legacy, mine, live, model} {
		touch(t, p)
	}
	removed, err := CleanDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{dead, legacy}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, p := range []string{mine, live, model} {
		if !exists(p) {
			t.Errorf("%s removed", p)
		}
	}
	if r, err := CleanDir(filepath.Join(dir, "absent")); err != nil || r != nil {
		t.Errorf("absent dir: %v, %v", r, err)
	}
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.gguf")
	dead := fmt.Sprintf("%s.%d.tmp", out, deadPid(t))
	touch(t, dead)
	f, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Name() != Name(out) || exists(dead) {
		t.Errorf("Create: file %s, stale file kept: %v", f.Name(), exists(dead))
	}
}

func TestStatus(t *testing.T) {
	dead := deadPid(t)
	for _, c := range []struct {
		name           string
		temp, leftover bool
		pid            int
	}{
		{"m.gguf", false, false, 0},
		{"m.gguf.tmp", true, true, 0},
		{fmt.Sprintf("m.gguf.%d.tmp", dead), true, true, dead},
		{filepath.Base(Name("m.gguf")), true, false, os.Getpid()},
	} {
		temp, leftover, pid := Status(c.name)
		if temp != c.temp || leftover != c.leftover || pid != c.pid {
			t.Errorf("Status(%s) = %v %v %d, want %v %v %d", c.name, temp, leftover, pid, c.temp, c.leftover, c.pid)
		}
	}
}
