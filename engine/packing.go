package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/gollm/gollm/kernels"
)

// Weight packing. The fast kernels read some weight types (Q4_0, Q4_K, ...)
// in a row-interleaved copy (kernels/packed.go), about one copy of those
// weights. When the copy is made decides what the user waits for:
//
//   - PackAtLoad (default): Load packs with all threads before it returns,
//     as llama.cpp repacks in its model load; load time grows by about one
//     pass over those weights and every token runs at full speed.
//   - PackBackground: Load returns at once and a goroutine packs the
//     matrices in forward order in the pool's idle time (it never competes
//     with a running job, see kernels.PackInBackground); until a matrix is
//     packed its products read the mapped row-major data, with the same
//     bits. Good for a server that loads and then waits for requests.
//   - PackLazy: each matrix is packed by the first product that needs it,
//     so the first forward pass pays for all of them.
//
// In the first two modes the mapped pages a packed copy replaces are
// released, so the process does not hold those weights twice.
const (
	PackAtLoad     = "load"
	PackBackground = "background"
	PackLazy       = "lazy"
)

// ParsePackMode checks a pack mode name (load, background, lazy).
func ParsePackMode(s string) (string, error) {
	switch strings.ToLower(s) {
	case "", PackAtLoad:
		return PackAtLoad, nil
	case PackBackground:
		return PackBackground, nil
	case PackLazy:
		return PackLazy, nil
	}
	return "", fmt.Errorf("engine: unknown pack mode %q (have %s, %s, %s)", s, PackAtLoad, PackBackground, PackLazy)
}

// startPacking applies the pack mode at the end of Load.
func (m *Model) startPacking(mode string) {
	ms := m.Weights.forwardOrder()
	switch mode {
	case PackAtLoad:
		// One matrix at a time, releasing each one's mapped pages as soon
		// as it is packed: the peak memory then holds one matrix twice, not
		// the whole model.
		start := time.Now()
		for _, mat := range ms {
			m.pool.Prepare(mat)
			m.releasePacked(mat)
		}
		m.packTime = time.Since(start)
	case PackBackground:
		m.packer = kernels.PackInBackground(m.pool, ms, m.releasePacked)
	}
}

// releasePacked drops the mapped pages a packed copy replaces, except for
// the token embeddings, whose rows the embedding lookup keeps reading.
func (m *Model) releasePacked(mat *kernels.Matrix) {
	if mat == m.Weights.TokEmbd {
		return
	}
	m.File.Release(mat.ReplacedData())
}

// WaitPacked blocks until the background packing (if any) has finished and
// returns how long packing took (0 when nothing was packed up front).
// Benchmarks call it so that their first timed run does not share the
// cores with the packer.
func (m *Model) WaitPacked() time.Duration {
	if m.packer != nil {
		m.packTime = m.packer.Wait()
	}
	return m.packTime
}

// stopPacking ends background packing before the mapping goes away.
func (m *Model) stopPacking() {
	if m.packer != nil {
		m.packer.Stop()
	}
}

// PackStatus reports whether the weights' packed copies are complete and,
// if so, how long making them took (background packing overlaps the first
// tokens; PackAtLoad's time is part of LoadTime; PackLazy reports 0).
func (m *Model) PackStatus() (done bool, took time.Duration) {
	if m.packer == nil {
		return true, m.packTime
	}
	if !m.packer.Done() {
		return false, 0
	}
	return true, m.packer.Wait()
}
