//go:build linux

package kernels

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// mapAllocMin is the size from which packed copies get their own mapping.
const mapAllocMin = 4 << 20

// allocPacked returns n zeroed bytes for a packed copy owned by owner. Large
// copies get an anonymous mapping of their own, unmapped when owner becomes
// unreachable (no garbage collection of gigabytes), and where the system
// refuses one they come from the heap.
//
// The mapping is not advised to use transparent huge pages: with the
// kernel's usual defrag setting (madvise) an advised mapping compacts
// memory on its page faults, and on a machine whose memory had been in use
// for a while that made loading a Llama-2-7B Q4_K_M file take 3.7-6.2 s
// instead of 1.3-1.7 s, while decode and prefill ran the same with 4 KiB
// pages (Intel Xeon, alternating runs: TinyLlama Q4_K_M tg64 40.6 / 39.9 /
// 41.3 with huge pages, 41.8 / 41.6 / 40.0 without; Llama-2-7B tg16 6.86 /
// 6.99 and 6.84 / 6.72; pp512 189.0 / 197.3 and 202.5 / 198.1).
func allocPacked(owner *packedCopy, n int) []byte {
	if n < mapAllocMin {
		return make([]byte, n)
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, n)
	}
	runtime.AddCleanup(owner, func(b []byte) { _ = unix.Munmap(b) }, b)
	return b
}
