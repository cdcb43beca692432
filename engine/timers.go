package engine

import (
	"context"
	"runtime/pprof"
	"strconv"
	"time"
)

// Op names a timed step of the forward pass or the generation loop.
type Op int

const (
	OpEmbedding Op = iota
	OpAttnNorm
	OpQKV
	OpRope
	OpAttention
	OpAttnOut
	OpFFNNorm
	OpFFNUpGate
	OpFFNAct
	OpFFNDown
	OpOutputNorm
	OpLMHead
	OpSampling
	// OpKVReserve is reserving KV-cache blocks before a pass: allocating
	// storage on first use and copying shared (forked) blocks on write. It
	// runs outside the forward pass, so without it that time would be
	// missing from the per-op sums.
	OpKVReserve
	NumOps
)

var opNames = [NumOps]string{"embedding", "attn_norm", "qkv", "rope", "attention", "attn_out",
	"ffn_norm", "ffn_up_gate", "ffn_act", "ffn_down", "output_norm", "lm_head", "sampling", "kv_reserve"}

func (o Op) String() string { return opNames[o] }

// LayerOp reports whether o runs inside a transformer block (as opposed to
// once per forward pass).
func (o Op) LayerOp() bool { return o >= OpAttnNorm && o <= OpFFNDown }

// Phase separates prompt processing from token-by-token generation.
type Phase int

const (
	Prefill Phase = iota
	Decode
	NumPhases
)

func (p Phase) String() string { return [...]string{"prefill", "decode"}[p] }

// Timers accumulates elapsed monotonic time per (phase, layer, op) into
// arrays sized at load; recording allocates nothing. Row `layers` holds the
// ops outside the blocks (embedding, output_norm, lm_head, sampling).
//
// Each mark ends the running op and starts the next, so the per-op sums add
// up to the whole forward pass with nothing falling between ops.
//
// The model's calls write the timers under the model's lock; read them (or
// Reset them) between calls, not while another goroutine runs the model.
type Timers struct {
	Enabled bool
	layers  int
	ns      [NumPhases][]int64 // [(layers+1)*NumOps]
	tokens  [NumPhases]int64   // tokens processed per phase
	phase   Phase
	cur     int       // index of the running op, -1 when none
	last    time.Time // when the running op started

	labels     bool
	poolLabels func(context.Context)        // hands the labels to the worker pool
	labelCtxs  [NumPhases][]context.Context // pprof label sets, built once
}

func newTimers(layers int) *Timers {
	t := &Timers{layers: layers, cur: -1} // no op running: a first mark outside a pass charges nothing
	for p := range t.ns {
		t.ns[p] = make([]int64, (layers+1)*int(NumOps))
	}
	return t
}

// EnableLabels makes every lap also set pprof goroutine labels
// phase/layer/op for the work that follows, so that
// `go tool pprof -tagfocus=op=ffn_down` works. Label sets are precomputed.
func (t *Timers) EnableLabels() {
	t.labels = true
	for p := Phase(0); p < NumPhases; p++ {
		t.labelCtxs[p] = make([]context.Context, (t.layers+1)*int(NumOps))
		for l := 0; l <= t.layers; l++ {
			layer := strconv.Itoa(l)
			if l == t.layers {
				layer = "none"
			}
			for o := Op(0); o < NumOps; o++ {
				t.labelCtxs[p][l*int(NumOps)+int(o)] = pprof.WithLabels(context.Background(),
					pprof.Labels("phase", p.String(), "layer", layer, "op", o.String()))
			}
		}
	}
}

// begin starts a pass of ntok tokens in phase p.
func (t *Timers) begin(p Phase, ntok int) {
	t.phase = p
	t.tokens[p] += int64(ntok)
	t.cur = -1
}

// mark ends the running op, charging it the time since it started, and
// starts op of layer (-1 for the ops outside the blocks).
func (t *Timers) mark(layer int, op Op) {
	idx := t.index(layer, op)
	if t.Enabled {
		now := time.Now()
		if t.cur >= 0 {
			t.ns[t.phase][t.cur] += int64(now.Sub(t.last))
		}
		t.last = now
	}
	t.cur = idx
	if t.labels {
		pprof.SetGoroutineLabels(t.labelCtxs[t.phase][idx])
		if t.poolLabels != nil {
			t.poolLabels(t.labelCtxs[t.phase][idx])
		}
	}
}

// stop ends the running op.
func (t *Timers) stop() {
	if t.Enabled && t.cur >= 0 {
		t.ns[t.phase][t.cur] += int64(time.Since(t.last))
	}
	t.cur = -1
	if t.labels {
		pprof.SetGoroutineLabels(context.Background())
	}
}

func (t *Timers) index(layer int, op Op) int {
	if layer < 0 {
		layer = t.layers
	}
	return layer*int(NumOps) + int(op)
}

// Reset zeroes every counter.
func (t *Timers) Reset() {
	for p := range t.ns {
		clear(t.ns[p])
		t.tokens[p] = 0
	}
}

// Get returns the accumulated time of (phase, layer, op); layer -1 means the
// non-layer row.
func (t *Timers) Get(p Phase, layer int, op Op) time.Duration {
	return time.Duration(t.ns[p][t.index(layer, op)])
}

// Tokens returns the tokens processed in phase p since the last Reset.
func (t *Timers) Tokens(p Phase) int64 { return t.tokens[p] }

// Layers returns the number of transformer blocks timed.
func (t *Timers) Layers() int { return t.layers }
