package tokenizer

import (
	"runtime"
	"syscall"
	"time"
)

// measure runs f on a locked OS thread and returns the CPU time that thread
// spent: unlike wall time it does not grow when other processes load the
// machine.
func measure(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rusageThread = 1 // RUSAGE_THREAD
	var a, b syscall.Rusage
	if syscall.Getrusage(rusageThread, &a) != nil {
		start := time.Now()
		f()
		return time.Since(start)
	}
	f()
	if syscall.Getrusage(rusageThread, &b) != nil {
		return 0
	}
	return time.Duration(b.Utime.Nano() + b.Stime.Nano() - a.Utime.Nano() - a.Stime.Nano())
}
