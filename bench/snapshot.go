package bench

import (
	"time"

	"github.com/gollm/gollm/engine"
)

// Snapshot is a copy of the engine's timers: time per (phase, layer, op) and
// tokens per phase. Row Layers of each phase is the non-layer row
// (embedding, output_norm, lm_head, sampling).
type Snapshot struct {
	Layers int
	Time   [engine.NumPhases][][engine.NumOps]time.Duration
	Tokens [engine.NumPhases]int64
}

// NewSnapshot returns an empty snapshot for a model of the given layers.
func NewSnapshot(layers int) *Snapshot {
	s := &Snapshot{Layers: layers}
	for p := range s.Time {
		s.Time[p] = make([][engine.NumOps]time.Duration, layers+1)
	}
	return s
}

// TakeSnapshot copies t's counters.
func TakeSnapshot(t *engine.Timers) *Snapshot {
	s := NewSnapshot(t.Layers())
	for p := engine.Phase(0); p < engine.NumPhases; p++ {
		for l := 0; l <= s.Layers; l++ {
			layer := l
			if l == s.Layers {
				layer = -1
			}
			for op := engine.Op(0); op < engine.NumOps; op++ {
				s.Time[p][l][op] = t.Get(p, layer, op)
			}
		}
		s.Tokens[p] = t.Tokens(p)
	}
	return s
}

// Add accumulates o into s (same layer count).
func (s *Snapshot) Add(o *Snapshot) {
	for p := range s.Time {
		for l := range s.Time[p] {
			for op := range s.Time[p][l] {
				s.Time[p][l][op] += o.Time[p][l][op]
			}
		}
		s.Tokens[p] += o.Tokens[p]
	}
}

// Op is the time of op in phase p, summed over the layers for a layer op.
func (s *Snapshot) Op(p engine.Phase, op engine.Op) time.Duration {
	if !op.LayerOp() {
		return s.Time[p][s.Layers][op]
	}
	var d time.Duration
	for l := 0; l < s.Layers; l++ {
		d += s.Time[p][l][op]
	}
	return d
}

// Layer is the time of every op of layer l in phase p; l = -1 is the
// non-layer row.
func (s *Snapshot) Layer(p engine.Phase, l int) time.Duration {
	if l < 0 {
		l = s.Layers
	}
	var d time.Duration
	for _, t := range s.Time[p][l] {
		d += t
	}
	return d
}

// Total is the time of every op in phase p.
func (s *Snapshot) Total(p engine.Phase) time.Duration {
	var d time.Duration
	for l := 0; l <= s.Layers; l++ {
		d += s.Layer(p, l)
	}
	return d
}
