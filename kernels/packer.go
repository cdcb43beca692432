package kernels

import (
	"sync/atomic"
	"time"
)

// Packer makes the packed copies of a model's matrices on a goroutine of its
// own, so that loading a model stays a matter of milliseconds and the first
// forward pass does not stop to pack: a MatMul on a matrix the Packer has not
// reached yet multiplies the row-major data, with the same result bits.
type Packer struct {
	ms      []*Matrix
	onPack  func(*Matrix)
	pool    *Pool // whose jobs the packer gives way to
	stop    atomic.Bool
	done    chan struct{}
	elapsed time.Duration // set before done is closed
}

// PackInBackground starts packing ms, in order (put them in the order the
// forward pass uses them), on one goroutine. Matrices without a packed
// layout in the active implementation, nil entries and repeats are skipped.
// onPack, when not nil, is called on the packing goroutine with each matrix
// right after its packed copy is published: from then on MatMul no longer
// reads m.Data's packed rows, so the caller may release their memory.
//
// The packer gives way to p: it packs a few groups at a time and waits while
// p runs a job. A pool's threads usually take all the cores, and a packer
// running beside them would get its time slice by preempting a worker in the
// middle of a chunk, which stalls the whole job until the worker is back
// (milliseconds). So background packing uses the idle time between jobs;
// when the model is busy all the time, matrices are packed slowly and the
// products read the row-major data meanwhile.
func PackInBackground(p *Pool, ms []*Matrix, onPack func(*Matrix)) *Packer {
	pk := &Packer{pool: p, onPack: onPack, done: make(chan struct{})}
	seen := make(map[*Matrix]bool, len(ms))
	for _, m := range ms {
		if m == nil || seen[m] || m.packedKernels() == nil || m.pack.copy.Load() != nil {
			continue
		}
		seen[m] = true
		m.pack.background.Store(true) // before MatMul can see the matrix unpacked
		pk.ms = append(pk.ms, m)
	}
	go pk.run()
	return pk
}

// packStep is how many groups the packer packs between looks at the pool:
// tens of microseconds of work, so a job that starts meanwhile waits little.
const packStep = 16

func (pk *Packer) run() {
	start := time.Now()
	defer func() {
		pk.elapsed = time.Since(start)
		close(pk.done)
	}()
	stopped := false
	// Steps of packStep groups; before each, wait for the pool to be idle.
	polite := func(n int, fn func(lo, hi int)) {
		for lo := 0; lo < n; lo += packStep {
			for {
				if pk.stop.Load() {
					stopped = true
					return
				}
				if pk.pool == nil || !pk.pool.busy.Load() {
					break
				}
				time.Sleep(100 * time.Microsecond)
			}
			fn(lo, min(lo+packStep, n))
		}
	}
	for i, m := range pk.ms {
		if pk.stop.Load() {
			for _, rest := range pk.ms[i:] {
				rest.pack.background.Store(false) // back to packing on first use
			}
			return
		}
		k := m.packedKernels()
		if k == nil { // the implementation changed (tests): nothing to do
			m.pack.background.Store(false)
			continue
		}
		m.pack.mu.Lock()
		if m.pack.copy.Load() == nil {
			pc := m.packWith(k, polite)
			if stopped { // incomplete: drop it
				m.pack.mu.Unlock()
				m.pack.background.Store(false)
				continue
			}
			m.pack.copy.Store(pc)
		}
		m.pack.mu.Unlock()
		m.pack.background.Store(false)
		if pk.onPack != nil {
			pk.onPack(m)
		}
	}
}

// Wait blocks until every matrix is packed (or Stop ended the work) and
// returns how long the packing took.
func (pk *Packer) Wait() time.Duration {
	<-pk.done
	return pk.elapsed
}

// Done reports, without blocking, whether the packing has finished.
func (pk *Packer) Done() bool {
	select {
	case <-pk.done:
		return true
	default:
		return false
	}
}

// Stop ends the packing after the matrix in progress and waits for the
// goroutine; the matrices not reached are packed on first use as usual.
// The caller must stop a Packer before the matrices' memory goes away.
func (pk *Packer) Stop() {
	pk.stop.Store(true)
	<-pk.done
}
