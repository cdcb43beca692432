//go:build !linux

package tokenizer

import "time"

// measure returns the wall time of f (no per-thread CPU clock here).
func measure(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
