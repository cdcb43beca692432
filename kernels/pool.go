package kernels

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/cpuid/v2"
)

// Pool is a set of persistent worker goroutines that run data-parallel loops.
// The goroutine calling For works too, so a pool of T threads starts T-1
// workers. Workers spin briefly after a job (so the next one, usually a few
// microseconds away in a forward pass, starts without a wake-up) and then
// park; a call allocates nothing and creates no goroutine or channel.
//
// For and MatMul may be called from any goroutine. While one call runs, a
// concurrent or nested call (For from inside fn) does not wait for the
// workers: it runs its whole range on its own goroutine. Nesting is thus safe
// but not parallel.
type Pool struct {
	threads int

	// busy is held by the call that owns the workers.
	busy atomic.Bool

	// state packs the job id (high 32 bits), a closed bit (bit 31: the job
	// accepts no more workers) and the number of workers inside the job
	// (low 31 bits). Workers join with a CAS that checks the id and the
	// closed bit, so a late worker can never run a chunk of a job it did
	// not join, and the job's fields below are stable while active > 0.
	state atomic.Uint64
	next  atomic.Int64 // first index of the current job not yet taken

	// The current job, written by the owner before it publishes the id.
	fn        func(lo, hi int)
	labels    context.Context // pprof labels for the workers, from SetLabels
	jobLabels context.Context // the labels of the current job, read by workers
	n         int
	grain     int // chunks start and end at multiples of grain (but n)
	minChunk  int

	workers []*poolWorker
	quit    atomic.Bool
	wg      sync.WaitGroup

	// MatMulN's jobs, unit offsets and chunk function (see matmul.go).
	mmN     [maxFused]matmulJob
	mmOff   [maxFused + 1]int
	mmCount int
	mmNFn   func(lo, hi int)

	// MatMul's job, with its chunk function built once (see matmul.go).
	mm   matmulJob
	mmFn func(lo, hi int)

	// rowBufs are the threads' scratch for converted weight rows.
	rowBufs rowBufs
}

// rowBufs hands out scratch buffers, one per concurrent claimer (a
// MatMul chunk), grown on demand and kept: steady state allocates nothing.
type rowBufs struct {
	busy atomic.Uint64 // bit i: bufs[i] is claimed
	bufs [64][]byte
}

// claim returns a free buffer of at least n bytes and its slot; with every
// slot taken it waits for one.
func (b *rowBufs) claim(n int) (int, []byte) {
	i := ClaimSlot(&b.busy)
	if cap(b.bufs[i]) < n {
		b.bufs[i] = make([]byte, n) // only the claimer touches slot i
	}
	return i, b.bufs[i][:n]
}

// ClaimSlot claims a free slot of a 64-slot set whose bit i in busy is set
// while slot i is taken, and returns i; with every slot taken it waits
// for one (ReleaseSlot). For per-thread scratch claimed by whichever
// goroutine runs a pool chunk.
func ClaimSlot(busy *atomic.Uint64) int {
	for {
		m := busy.Load()
		if m == math.MaxUint64 {
			runtime.Gosched()
			continue
		}
		i := bits.TrailingZeros64(^m)
		if busy.CompareAndSwap(m, m|1<<i) {
			return i
		}
	}
}

// ReleaseSlot frees slot i of busy.
func ReleaseSlot(busy *atomic.Uint64, i int) { busy.And(^(uint64(1) << i)) }

func (b *rowBufs) release(i int) { ReleaseSlot(&b.busy, i) }

const (
	closedBit = 1 << 31
	activeOne = 1
	idShift   = 32
	// Chunks are guided: each grab takes 1/(guideDiv*threads) of what is
	// left, at least 1/(minChunksPerThread*threads) of the whole job, so
	// threads start on large chunks (few atomic grabs) and finish on small
	// ones. A thread delayed by the OS (the machine may be shared) or
	// slowed by memory then costs the others at most one small chunk of
	// waiting; decode is memory-bound and cannot afford idle threads.
	// At 8 smallest chunks per thread the caller of a TinyLlama decode
	// waited 12-17 us per job for the worker's last chunk (a 2048 x 5632
	// Q4_0 matrix's sixteenth streams ~30 us on one core), ~8% of a token;
	// at 32 it waits 2-5 us, and decode (Q4_0, Q8_0, Q6_K, Llama-2-7B
	// Q4_K_M) and Q4_0 prefill ran 2-4% faster (Intel Xeon; the four
	// streams a chunk's kernels read restart more often, ~9 KiB each for
	// TinyLlama's smallest matrices).
	guideDiv           = 2
	minChunksPerThread = 32
	// spinFor is how long a worker polls for the next job before parking.
	spinFor = 200 * time.Microsecond
)

type poolWorker struct {
	labels   context.Context // the pprof labels last set on this worker
	sleeping atomic.Bool
	wake     chan struct{} // buffered 1: one token per park
	_        [64]byte      // keep workers' flags on separate cache lines
}

// NewPool starts a pool of the given number of threads (including the
// caller). threads <= 0 means the number of physical cores (or
// runtime.NumCPU when that is unknown).
func NewPool(threads int) *Pool {
	if threads <= 0 {
		threads = cpuid.CPU.PhysicalCores
		if threads <= 0 {
			threads = runtime.NumCPU()
		}
	}
	p := &Pool{threads: threads}
	p.mmFn = p.matmulChunk
	p.mmNFn = p.matmulNChunk
	for i := 1; i < threads; i++ {
		w := &poolWorker{wake: make(chan struct{}, 1)}
		p.workers = append(p.workers, w)
		p.wg.Add(1)
		go p.work(w, 0) // job ids start at 0: a slow-starting worker misses nothing
	}
	return p
}

// Threads returns the number of threads, including the caller.
func (p *Pool) Threads() int { return p.threads }

// Close stops the workers and waits for them. The pool must be idle; For
// after Close runs on the caller alone.
func (p *Pool) Close() {
	if p == nil || p.quit.Swap(true) {
		return
	}
	for !p.busy.CompareAndSwap(false, true) {
		runtime.Gosched()
	}
	// A new id with the closed bit set: workers see the change, notice quit
	// and exit without joining.
	id := p.state.Load()>>idShift + 1
	p.state.Store(id<<idShift | closedBit)
	p.wakeAll()
	p.wg.Wait()
	p.workers = nil
	p.threads = 1
}

// For calls fn on contiguous, disjoint sub-ranges covering [0, n), in
// parallel, and returns when all calls have returned. fn may be called
// several times per thread and from several goroutines at once. If fn is a
// func value built once (a method value or closure stored by the caller), For
// allocates nothing.
func (p *Pool) For(n int, fn func(lo, hi int)) { p.ForGrain(n, 1, fn) }

// ForGrain is For with every sub-range but the last starting and ending
// at a multiple of grain (>= 1): items that run better together (the
// query heads of one KV head) stay in one call.
func (p *Pool) ForGrain(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if p == nil || p.threads <= 1 || n <= grain || !p.busy.CompareAndSwap(false, true) {
		fn(0, n)
		return
	}
	p.runGrain(n, grain, fn)
	p.busy.Store(false)
}

// run executes a job; the caller holds busy.
func (p *Pool) run(n int, fn func(lo, hi int)) { p.runGrain(n, 1, fn) }

// runGrain executes a job in chunks of whole grains; the caller holds busy.
func (p *Pool) runGrain(n, grain int, fn func(lo, hi int)) {
	if len(p.workers) == 0 {
		fn(0, n)
		return
	}
	p.fn, p.n, p.grain = fn, n, max(grain, 1)
	p.jobLabels = p.labels
	p.minChunk = max(1, n/(minChunksPerThread*p.threads))
	p.next.Store(0)
	id := p.state.Load()>>idShift + 1
	p.state.Store(id << idShift) // publish: open, no workers yet
	p.wakeAll()

	p.runChunks()

	// Close the job to new workers, then wait for those inside.
	for {
		s := p.state.Load()
		if p.state.CompareAndSwap(s, s|closedBit) {
			break
		}
	}
	for spins := 0; p.state.Load()&(closedBit-1) != 0; spins++ {
		if spins < 1<<14 {
			cpuRelax() // a worker finishing its last chunk: microseconds
		} else {
			runtime.Gosched() // a worker descheduled by the OS
		}
	}
	p.fn = nil
}

// runChunks grabs and runs chunks of the current job until none are left.
func (p *Pool) runChunks() {
	div := int64(guideDiv * p.threads)
	n, minChunk := int64(p.n), int64(p.minChunk)
	for {
		lo := p.next.Load()
		if lo >= n {
			return
		}
		hi := lo + max((n-lo)/div, minChunk)
		if g := int64(p.grain); g > 1 {
			hi = (hi + g - 1) / g * g
		}
		hi = min(hi, n)
		if !p.next.CompareAndSwap(lo, hi) {
			continue
		}
		p.fn(int(lo), int(hi))
	}
}

func (p *Pool) wakeAll() {
	for _, w := range p.workers {
		if w.sleeping.CompareAndSwap(true, false) {
			w.wake <- struct{}{}
		}
	}
}

// work is a worker's loop: wait for a new job id, join it if still open,
// run chunks, leave.
func (p *Pool) work(w *poolWorker, seen uint64) {
	defer p.wg.Done()
	for {
		s := p.waitJob(w, seen)
		seen = s >> idShift
		if p.quit.Load() {
			return
		}
		// Join unless the owner already closed the job.
		for s&closedBit == 0 {
			if p.state.CompareAndSwap(s, s+activeOne) {
				if l := p.jobLabels; l != w.labels {
					// Profiles attribute the worker's samples to the caller's
					// phase/layer/op; set only when they change.
					pprof.SetGoroutineLabels(l)
					w.labels = l
				}
				p.runChunks()
				p.state.Add(^uint64(0)) // leave: active - 1
				break
			}
			s = p.state.Load()
			if s>>idShift != seen {
				break // a newer job; waitJob returns it at once
			}
		}
	}
}

// waitJob spins, then parks, until the job id differs from seen, and returns
// the state it saw. The spin polls with the CPU's pause hint rather than
// runtime.Gosched: with nothing else to run, Gosched is a trip through the
// scheduler and its locks on every poll (15% of decode CPU in a profile).
func (p *Pool) waitJob(w *poolWorker, seen uint64) uint64 {
	start := time.Time{}
	for i := 0; ; i++ {
		if s := p.state.Load(); s>>idShift != seen {
			return s
		}
		cpuRelax()
		if i&255 != 255 {
			continue
		}
		if start.IsZero() {
			start = time.Now()
			continue
		}
		if time.Since(start) < spinFor {
			continue
		}
		// Park. Announce it, then re-check so that a job published in
		// between is not missed; whoever clears the flag owes the token.
		w.sleeping.Store(true)
		if s := p.state.Load(); s>>idShift != seen {
			if !w.sleeping.CompareAndSwap(true, false) {
				<-w.wake // the publisher took the flag and sends a token
			}
			return s
		}
		<-w.wake
		start = time.Time{}
	}
}

// SetLabels makes the workers carry the pprof labels of ctx while they run
// the caller's next jobs (the engine passes its phase/layer/op labels), so
// that `go tool pprof -tagfocus` sees the work done inside the pool too.
// Call it from the goroutine that calls For/MatMul, between jobs. A nil
// ctx leaves the workers' labels as they are.
func (p *Pool) SetLabels(ctx context.Context) {
	if p != nil && ctx != nil {
		p.labels = ctx
	}
}
