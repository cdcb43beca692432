package engine

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gollm/gollm/synth"
)

// rssBytes reads the resident set size of this process from /proc.
func rssBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// TestMemoryIndependentOfContext: loading with -c 8192 costs (almost) the
// same memory as -c 512 until tokens are processed, because KV blocks are
// taken on demand. The heap is measured in-process (RSS of a test binary
// is dominated by the runtime); the bound is 5%.
func TestMemoryIndependentOfContext(t *testing.T) {
	shape, _ := synth.Lookup("smollm2-135m")
	path := filepath.Join(t.TempDir(), "smollm.gguf")
	if testing.Short() {
		shape, _ = synth.Lookup("tiny")
	}
	if err := synth.Write(path, shape, synth.Options{FileType: "Q8_0", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	// Two collections around each reading, and the smaller of two loads:
	// garbage the package's earlier tests left (freed over two cycles, or
	// by their goroutines still finishing) must not count for either size
	// (under go test ./... it once moved a reading by 8 MB).
	settle := func(ms *runtime.MemStats) {
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(ms)
	}
	heapAfterLoad := func(ctx int) int64 {
		best := int64(math.MaxInt64)
		for range 2 {
			var before, after runtime.MemStats
			settle(&before)
			m, err := Load(path, Options{Threads: 1, Context: ctx})
			if err != nil {
				t.Fatal(err)
			}
			settle(&after)
			best = min(best, int64(after.HeapInuse)-int64(before.HeapInuse))
			m.Close()
		}
		return best
	}
	small := heapAfterLoad(512)
	large := heapAfterLoad(8192)
	st, _ := os.Stat(path)
	// Compare against what a process holds for the model: its heap plus the
	// weights it maps (which a run touches in full).
	base := small + st.Size()
	if diff := large - small; float64(diff) > 0.05*float64(base) {
		t.Errorf("-c 8192 takes %d more bytes than -c 512 after load (%.1f%% of %d)", diff, 100*float64(diff)/float64(base), base)
	} else {
		t.Logf("-c 512: %d B heap, -c 8192: %d B heap (+%.2f%% of heap + weights); RSS now %d MB", small, large, 100*float64(diff)/float64(base), rssBytes(t)>>20)
	}
}
