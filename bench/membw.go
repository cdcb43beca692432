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
// parallel reads of it by `threads` goroutines (each summing a contiguous
// slice, as a decode step streams weight rows) and returns the best pass in
// bytes per second. Decode reads weights much like this, so the share of
// this figure a model reaches says how close decode is to the memory limit.
func MeasureReadBandwidth(size int64, threads, passes int) float64 {
	threads = max(threads, 1)
	passes = max(passes, 1)
	n := int(size / 8)
	n -= n % (8 * threads)
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
				sums[t*8] = sumWords(buf[t*chunk : (t+1)*chunk])
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

// sumWords adds the words with eight independent accumulators, so the loop
// is bound by loads rather than by one add chain.
func sumWords(b []uint64) uint64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 uint64
	for len(b) >= 8 {
		a0 += b[0]
		a1 += b[1]
		a2 += b[2]
		a3 += b[3]
		a4 += b[4]
		a5 += b[5]
		a6 += b[6]
		a7 += b[7]
		b = b[8:]
	}
	for _, v := range b {
		a0 += v
	}
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
}
