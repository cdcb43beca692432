package bench

import (
	"runtime"
	"sync"
	"time"

	"github.com/klauspost/cpuid/v2"
)

// ReadBandwidth returns the machine's sustained read bandwidth in bytes per
// second, measured once per process with MeasureReadBandwidth on a buffer
// several times the last-level cache and every logical CPU reading.
func ReadBandwidth() float64 {
	bwOnce.Do(func() {
		bwValue = MeasureReadBandwidth(bandwidthBufferBytes(), runtime.NumCPU(), 3)
	})
	return bwValue
}

var (
	bwOnce  sync.Once
	bwValue float64
)

// bandwidthBufferBytes is large enough that the read streams from DRAM:
// 4x the last-level cache (some server parts have 100+ MiB of L3), at
// least 256 MiB, at most 1 GiB.
func bandwidthBufferBytes() int64 {
	llc := int64(max(cpuid.CPU.Cache.L3, cpuid.CPU.Cache.L2, 0))
	return min(max(4*llc, 256<<20), 1<<30)
}

// readSink keeps the compiler from dropping the reads.
var readSink uint64

// MeasureReadBandwidth fills a buffer of size bytes, then times `passes`
// parallel reads of it by `threads` goroutines and returns the best pass in
// bytes per second. Each goroutine reads its slice as four interleaved
// sequential streams, as the four-row decode kernels walk weight rows: one
// stream per core leaves the memory system idle between misses and reads
// about a third less on a machine without an eager hardware prefetcher.
func MeasureReadBandwidth(size int64, threads, passes int) float64 {
	threads = max(threads, 1)
	passes = max(passes, 1)
	n := int(size / 8)
	n -= n % (readStreams * 8 * threads)
	if n <= 0 {
		return 0
	}
	buf := make([]uint64, n)
	// Write every page: untouched pages all map the shared zero page, and
	// reading them would measure the cache.
	for i := range buf {
		buf[i] = uint64(i)
	}
	chunk := n / threads
	sums := make([]uint64, threads*8) // one cache line per goroutine
	var best time.Duration
	for p := 0; p < passes; p++ {
		var wg sync.WaitGroup
		start := time.Now()
		for t := 0; t < threads; t++ {
			wg.Add(1)
			go func(t int) {
				defer wg.Done()
				sums[t*8] = sumStreams(buf[t*chunk : (t+1)*chunk])
			}(t)
		}
		wg.Wait()
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	var s uint64
	for t := 0; t < threads; t++ {
		s += sums[t*8]
	}
	readSink = s
	return float64(n*8) / best.Seconds()
}

// readStreams is the number of sequential streams each reader interleaves
// (4 read ~50% faster than 1 on the 2-core Xeon VM gollm is developed on;
// 8 were slower again).
const readStreams = 4

// sumStreams adds the words of b (a multiple of 8*readStreams long), read
// as readStreams sequential streams advancing one cache line at a time.
func sumStreams(b []uint64) uint64 {
	n := len(b) / readStreams
	s0, s1, s2, s3 := b[:n], b[n:2*n], b[2*n:3*n], b[3*n:4*n]
	var a0, a1, a2, a3 uint64
	for i := 0; i+8 <= n; i += 8 {
		p0, p1, p2, p3 := s0[i:i+8], s1[i:i+8], s2[i:i+8], s3[i:i+8]
		a0 += p0[0] + p0[1] + p0[2] + p0[3] + p0[4] + p0[5] + p0[6] + p0[7]
		a1 += p1[0] + p1[1] + p1[2] + p1[3] + p1[4] + p1[5] + p1[6] + p1[7]
		a2 += p2[0] + p2[1] + p2[2] + p2[3] + p2[4] + p2[5] + p2[6] + p2[7]
		a3 += p3[0] + p3[1] + p3[2] + p3[3] + p3[4] + p3[5] + p3[6] + p3[7]
	}
	return a0 + a1 + a2 + a3
}
