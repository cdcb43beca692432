//go:build unix

package gguf

import (
	"os"

	"golang.org/x/sys/unix"
)

// releasePages drops the whole pages of mapping[lo:hi] from the resident
// set (MADV_DONTNEED: on a shared file mapping the next touch re-reads the
// page from the file). Partial pages at either end stay: their other bytes
// may belong to tensors still in use.
func releasePages(mapping []byte, lo, hi int) {
	ps := os.Getpagesize()
	lo = (lo + ps - 1) / ps * ps
	hi = hi / ps * ps
	if hi <= lo {
		return
	}
	_ = unix.Madvise(mapping[lo:hi], unix.MADV_DONTNEED) // advice only: an error changes nothing
}
