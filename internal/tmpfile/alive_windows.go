//go:build windows

package tmpfile

import "os"

// alive reports whether a process with this id exists: FindProcess opens
// it and fails when there is none.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
