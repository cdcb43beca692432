package kernels

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestPoolCoversRange runs many small and large loops and checks every index
// is visited exactly once per call.
func TestPoolCoversRange(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 5} {
		p := NewPool(threads)
		if p.Threads() != threads {
			t.Fatalf("Threads() = %d, want %d", p.Threads(), threads)
		}
		hits := make([]atomic.Int32, 1000)
		fn := func(lo, hi int) {
			if lo >= hi {
				t.Errorf("empty chunk [%d,%d)", lo, hi)
			}
			for i := lo; i < hi; i++ {
				hits[i].Add(1)
			}
		}
		for iter := 0; iter < 3000; iter++ {
			n := iter % 37
			if iter%100 == 0 {
				n = 1000
			}
			p.For(n, fn)
			for i := 0; i < n; i++ {
				if h := hits[i].Swap(0); h != 1 {
					t.Fatalf("threads %d, n %d: index %d visited %d times", threads, n, i, h)
				}
			}
		}
		p.Close()
		p.Close() // idempotent
		// After Close the pool still works, serially.
		p.For(10, fn)
		for i := 0; i < 10; i++ {
			if hits[i].Swap(0) != 1 {
				t.Fatal("For after Close missed an index")
			}
		}
	}
}

// TestPoolForGrain checks that ForGrain covers the range once in chunks
// that start and end at multiples of the grain, but for the range's end.
func TestPoolForGrain(t *testing.T) {
	for _, threads := range []int{1, 2, 3} {
		p := NewPool(threads)
		hits := make([]atomic.Int32, 700)
		for iter := 0; iter < 2000; iter++ {
			n, grain := iter%97, 1+iter%5
			if iter%50 == 0 {
				n = 700
			}
			p.ForGrain(n, grain, func(lo, hi int) {
				if lo >= hi || lo%grain != 0 || (hi%grain != 0 && hi != n) {
					t.Errorf("threads %d, n %d, grain %d: chunk [%d,%d)", threads, n, grain, lo, hi)
				}
				for i := lo; i < hi; i++ {
					hits[i].Add(1)
				}
			})
			for i := 0; i < n; i++ {
				if h := hits[i].Swap(0); h != 1 {
					t.Fatalf("threads %d, n %d, grain %d: index %d visited %d times", threads, n, grain, i, h)
				}
			}
		}
		p.Close()
	}
}

// TestPoolUsesWorkers checks that a loop really runs on more than one
// goroutine when it is long enough.
func TestPoolUsesWorkers(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	var concurrent, peak atomic.Int32
	fn := func(lo, hi int) {
		c := concurrent.Add(1)
		for {
			old := peak.Load()
			if c <= old || peak.CompareAndSwap(old, c) {
				break
			}
		}
		// Busy-wait a little so the chunks overlap in time.
		for i := 0; i < 200000; i++ {
			if peak.Load() > 1 {
				break
			}
		}
		concurrent.Add(-1)
	}
	for i := 0; i < 50 && peak.Load() < 2; i++ {
		p.For(8, fn)
	}
	if peak.Load() < 2 {
		t.Fatal("no two chunks ever ran at the same time")
	}
}

// TestPoolNestedAndConcurrent checks that For from inside fn and For from
// several goroutines at once complete with the right coverage.
func TestPoolNestedAndConcurrent(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	var total atomic.Int64
	inner := func(lo, hi int) { total.Add(int64(hi - lo)) }
	outer := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p.For(10, inner) // nested: runs inline
		}
	}
	p.For(20, outer)
	if got := total.Load(); got != 200 {
		t.Fatalf("nested: %d inner indices, want 200", got)
	}
	total.Store(0)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				p.For(7, inner)
			}
		}()
	}
	wg.Wait()
	if got := total.Load(); got != 4*500*7 {
		t.Fatalf("concurrent: %d indices, want %d", got, 4*500*7)
	}
}

func TestPoolForZeroAllocs(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	var sink atomic.Int64
	fn := func(lo, hi int) { sink.Add(int64(hi - lo)) }
	if a := testing.AllocsPerRun(1000, func() { p.For(64, fn) }); a != 0 {
		t.Fatalf("For allocates %v times per call", a)
	}
}

func BenchmarkPoolFor(b *testing.B) {
	p := NewPool(2)
	defer p.Close()
	var sink atomic.Int64
	fn := func(lo, hi int) { sink.Add(int64(hi - lo)) }
	b.ReportAllocs()
	for b.Loop() {
		p.For(64, fn)
	}
}
