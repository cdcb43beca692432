package bench

import (
	"runtime"

	"github.com/gollm/gollm/kernels"
	"sync"
	"time"

	"github.com/klauspost/cpuid/v2"
)

// ReadBandwidth returns the machine's sustained read bandwidth in bytes per
// second, measured once per process with MeasureReadBandwidth on a buffer
// several times the last-level cache and every logical CPU reading.
func ReadBandwidth() float64 {
	bwOnce.Do(func() {
		bwValue = MeasureReadBandwidth(bandwidthBufferBytes(), runtime.NumCPU(), readPasses)
	})
	return bwValue
}

// readPasses is the number of timed reads of the buffer; the best counts.
// The host's bandwidth moves by 20-30% from second to second on a shared
// VM, so a few more passes (each well under 0.1 s) make the figure steadier.
const readPasses = 8

var (
	bwOnce  sync.Once
	bwValue float64
)

// bandwidthBufferBytes is large enough that the read streams from DRAM:
// 4x the last-level cache (some server parts have 100+ MiB of L3), at
// least 256 MiB, at most 1 GiB.
func bandwidthBufferBytes() int64 {
	return min(ProbeMinBytes(), 1<<30)
}

// readSink keeps the compiler from dropping the reads.
var readSink uint64

// MeasureReadBandwidth fills a buffer of size bytes, then times `passes`
// parallel reads of it by `threads` goroutines and returns the best pass in
// bytes per second. Each goroutine reads its slice with kernels.ReadStreams:
// four sequential streams a quarter apart with the decode kernels' software
// prefetch, the access pattern of decode itself, so that the BW % column
// compares decode with what this machine's memory gives that pattern (one
// plain stream per core reads a third less or worse on the reference VM).
// It is ProbeReadBandwidth on that buffer (0 when a goroutine's slice would
// be under probeMinPart).
func MeasureReadBandwidth(size int64, threads, passes int) float64 {
	threads = max(threads, 1)
	chunk := int(size) / threads / 256 * 256
	if chunk <= 0 {
		return 0
	}
	buf := make([]byte, chunk*threads)
	// Write every page: untouched pages all map the shared zero page, and
	// reading them would measure the cache.
	for i := 0; i < len(buf); i += 8 {
		buf[i] = byte(i >> 3)
	}
	return ProbeReadBandwidth([][]byte{buf}, threads, passes)
}

// probeMinPart is the smallest share of a region a probe reads: smaller
// ones (norms, biases) are skipped, neither read nor counted.
const probeMinPart = 64 << 10

// ProbeMinBytes is the least memory ProbeReadBandwidth should be given for
// its figure to be DRAM's rather than the caches': bandwidthBufferBytes'
// lower bound (4x the last-level cache, at least 256 MiB).
func ProbeMinBytes() int64 {
	llc := int64(max(cpuid.CPU.Cache.L3, cpuid.CPU.Cache.L2, 0))
	return max(4*llc, 256<<20)
}

// ProbeReadBandwidth is MeasureReadBandwidth on memory the caller already
// holds (a model's weights: no buffer to allocate or fill, so it can run
// between a test's repetitions without raising the peak RSS). Each of
// threads goroutines reads its share of every region (kernels.ReadStreams);
// the best of passes counts, in bytes per second. Regions are only read.
func ProbeReadBandwidth(regions [][]byte, threads, passes int) float64 {
	threads = max(threads, 1)
	passes = max(passes, 1)
	parts := make([][][]byte, threads)
	var total int64
	for _, r := range regions {
		share := len(r) / threads / 256 * 256
		if share < probeMinPart {
			continue
		}
		for t := 0; t < threads; t++ {
			parts[t] = append(parts[t], r[t*share:(t+1)*share])
		}
		total += int64(share * threads)
	}
	if total == 0 {
		return 0
	}
	sums := make([]uint64, threads*8) // one cache line per goroutine
	var best time.Duration
	for p := 0; p < passes; p++ {
		var wg sync.WaitGroup
		start := time.Now()
		for t := 0; t < threads; t++ {
			wg.Add(1)
			go func(t int) {
				defer wg.Done()
				for _, b := range parts[t] {
					sums[t*8] += kernels.ReadStreams(b)
				}
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
	return float64(total) / best.Seconds()
}
