//go:build !purego

package kernels

// readStreamsAVX2 sums the four quarters of 4*q bytes at p (q a positive
// multiple of 64) as readStreamsGeneric does, one cache line of each per
// step, prefetching 1 KiB ahead in each as the four-stream decode kernels
// do.
//
//go:noescape
func readStreamsAVX2(p *byte, q int) uint64

func readStreamsAsm(b []byte, q int) uint64 {
	if q <= 0 || q%64 != 0 {
		panic("kernels: readStreams of a bad quarter size")
	}
	_ = b[4*q-1]
	return readStreamsAVX2(&b[0], q)
}
