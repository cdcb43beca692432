// Package tmpfile names the temporary files gollm writes big outputs to
// before renaming them into place, and removes the ones that processes
// killed mid-write (SIGKILL, a second Ctrl-C, a crash) left behind.
//
// A temporary file for PATH is PATH.PID.tmp, PID being the writing
// process's id, so that a later run can tell a file still being written (its
// writer is alive) from a leftover (its writer is gone) without locks. A pid
// reused by an unrelated process only delays the cleanup until that process
// ends. PATH.tmp, the name gollm used before, has no pid and counts as a
// leftover. The pid is only meaningful on the machine that wrote the file,
// so do not share one output directory between machines.
package tmpfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const suffix = ".tmp"

// Name returns the temporary file name for path in this process.
func Name(path string) string {
	return fmt.Sprintf("%s.%d%s", path, os.Getpid(), suffix)
}

// Create removes path's stale temporary files (see Clean) and creates this
// process's, truncating any it had.
func Create(path string) (*os.File, error) {
	Clean(path)
	return os.OpenFile(Name(path), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}

// writer returns the pid in a temporary file name base+".PID.tmp" or
// base+".tmp" (0: no pid), and whether name is one at all.
func writer(name, base string) (pid int, ok bool) {
	rest, ok := strings.CutPrefix(name, base)
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, suffix)
	if !ok {
		return 0, false
	}
	if rest == "" {
		return 0, true // legacy name, no pid
	}
	digits, ok := strings.CutPrefix(rest, ".")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != digits {
		return 0, false
	}
	return pid, true
}

// stale reports whether a temporary file written by pid is a leftover.
func stale(pid int) bool {
	return pid == 0 || (pid != os.Getpid() && !alive(pid))
}

// Clean removes the temporary files of path whose writer is no longer
// running and returns their names. Errors are ignored: a file that cannot
// be removed is retried by the next run.
func Clean(path string) []string {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	return clean(dir, func(name string) (int, bool) { return writer(name, base) })
}

// CleanDir removes every stale temporary file in dir (a directory whose
// files only gollm writes, such as its cache): names ending in .PID.tmp
// whose writer is not running, and names ending in .tmp without a pid.
func CleanDir(dir string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return clean(dir, anyWriter), nil
}

// anyWriter is writer for a name of unknown base: NAME.PID.tmp, or a
// pid-less NAME.tmp.
func anyWriter(name string) (pid int, ok bool) {
	stem, ok := strings.CutSuffix(name, suffix)
	if !ok {
		return 0, false
	}
	if i := strings.LastIndexByte(stem, '.'); i >= 0 {
		if pid, ok := writer(name, stem[:i]); ok {
			return pid, true
		}
	}
	return 0, true
}

// Status tells whether the file name (a base name, as in a directory
// listing) is a temporary file, and if so whether it is a leftover
// (CleanDir would remove it) and which process writes it (0: unknown).
func Status(name string) (temp, leftover bool, pid int) {
	pid, temp = anyWriter(name)
	if !temp {
		return false, false, 0
	}
	return true, stale(pid), pid
}

func clean(dir string, match func(name string) (pid int, ok bool)) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		pid, ok := match(e.Name())
		if !ok || !stale(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
