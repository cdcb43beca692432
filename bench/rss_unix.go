//go:build linux || freebsd || netbsd || openbsd || dragonfly

package bench

import "syscall"

// PeakRSS is the process's peak resident set size in bytes (0 if unknown).
// Mapped weight pages count once touched.
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024 // KiB on these systems
}
