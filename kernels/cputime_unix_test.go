//go:build unix

package kernels

import "syscall"

// processCPU returns the user+system CPU time of the process in ns. On a
// shared machine it is a steadier cost measure than wall time: it does not
// count time other processes take from us.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
