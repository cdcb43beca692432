package kernels

import "encoding/binary"

// ReadStreams reads b as decode reads weights, to measure the memory read
// bandwidth the kernels can reach: four sequential streams, one per
// quarter of b, advanced together one cache line at a time, with the
// decode kernels' software prefetch on SIMD builds. It returns the
// wrapping sum of the little-endian 64-bit words read, so that the reads
// cannot be dropped; the bytes past the last whole cache line of each
// quarter are not read.
func ReadStreams(b []byte) uint64 {
	q := len(b) / 4 / 64 * 64
	if q == 0 {
		return 0
	}
	return active.readStreams(b[:4*q], q)
}

// readStreamsGeneric is the portable loop: per step, one cache line
// (eight words) of each quarter.
func readStreamsGeneric(b []byte, q int) uint64 {
	var sum [4]uint64
	for i := 0; i < q; i += 64 {
		for k := range sum {
			line := b[k*q+i : k*q+i+64]
			for w := 0; w < 64; w += 8 {
				sum[k] += binary.LittleEndian.Uint64(line[w:])
			}
		}
	}
	return sum[0] + sum[1] + sum[2] + sum[3]
}
