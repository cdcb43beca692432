//go:build linux

package kernels

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// hugeAllocMin is the size from which packed copies get their own mapping:
// below it a huge page would be mostly empty.
const hugeAllocMin = 4 << 20

// allocPacked returns n zeroed bytes for a packed copy owned by owner. Large
// copies get an anonymous mapping advised to use transparent huge pages: a
// decode step streams every packed weight once, and with 2 MiB pages that
// stream crosses 512 times fewer page boundaries (TLB misses) and making the
// copy takes 512 times fewer page faults. The mapping is unmapped when owner
// becomes unreachable. Where the system refuses, it falls back to the heap.
func allocPacked(owner *packedCopy, n int) []byte {
	if n < hugeAllocMin {
		return make([]byte, n)
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, n)
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE) // advice: without THP the mapping still works
	runtime.AddCleanup(owner, func(b []byte) { _ = unix.Munmap(b) }, b)
	return b
}
