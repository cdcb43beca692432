package engine

import (
	"errors"
	"fmt"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
)

// A mixed batch is what a serving scheduler runs each step: one forward
// pass over the decode tokens of many sequences and chunks of other
// sequences' prompts, so that one read of the weights serves them all.

// BatchEntry is one sequence's share of a mixed forward pass.
type BatchEntry struct {
	Seq    SeqID
	Tokens []int32 // appended at the sequence's current length (a prompt chunk, or one decode token)
	Logits bool    // return the logits of the entry's last token
}

// ErrBatchTooLarge is returned when a batch holds more tokens than one
// forward pass takes (see BatchCapacity).
var ErrBatchTooLarge = errors.New("engine: batch larger than a forward pass")

// BatchCapacity is the most tokens one EvalBatch call takes: the batch size
// given at load, rounded down to the batch quantum (see EvalBatch).
func (m *Model) BatchCapacity() int {
	q := m.batchQuantum()
	return m.state.batch / q * q
}

// KVCache returns the model's paged KV cache, for callers that manage
// sequences and shared blocks themselves (a serving scheduler's prefix
// cache). The cache has no lock of its own: its user must be the model's
// only user (one goroutine, as the scheduler is), never concurrent with
// the model's methods.
func (m *Model) KVCache() *kvcache.Cache { return m.cache }

// EvalBatch runs one forward pass over every entry's tokens: each entry's
// tokens are appended to its sequence (positions reserved and committed as
// EvalSeq does), and the logits of the last token of each entry with
// Logits set are returned in entry order, [rows][Vocab], valid until the
// next call on the model. A sequence appears at most once per batch. It
// takes the model's lock like the other methods that run the model.
//
// On an error (bad token, full context, a full cache: kvcache.ErrCacheFull,
// too many tokens: ErrBatchTooLarge) no sequence changes. It allocates
// nothing once the logits buffer has grown to the rows asked for.
//
// Results are batch-invariant: a token's logits have the same bits whatever
// else shares its pass. The attention arithmetic depends only on the
// token's position; the matmul kernels compute each token in its type's
// single-row order except for weight types whose order follows the pass
// size (one token vs several for F16/F32, whole groups of four tokens for
// Q4_K: llama.cpp's orders). The pass runs under a uniform order
// (kernels.Scratch.SetUniformOrder): every token takes the multi-token
// order whatever the pass size. Where the kernels cannot do that at speed
// (kernels.UniformOrder false: Q4_K on a set without one-token kernels in
// its four-token order; none today) the pass is padded
// with copies of its last token to a multiple of the type's quantum, so
// every token is in a whole quad; a mixture-of-experts layer pads each
// expert's group of tokens the same way. (Padding a lone decode token to
// a quad cost a served Q4_K_M model 1.6x its decode time; padding to two
// for an F32 router doubled a mixture of experts' expert work.)
func (m *Model) EvalBatch(entries []BatchEntry) ([]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.state
	if len(entries) == 0 {
		return nil, fmt.Errorf("engine: EvalBatch of no entries")
	}
	ntok := 0
	for i, e := range entries {
		if len(e.Tokens) == 0 {
			return nil, fmt.Errorf("engine: batch entry %d (sequence %d) has no tokens", i, e.Seq)
		}
		if err := m.checkTokens(e.Tokens); err != nil {
			return nil, err
		}
		for _, prev := range entries[:i] {
			if prev.Seq == e.Seq {
				return nil, fmt.Errorf("engine: sequence %d appears twice in one batch", e.Seq)
			}
		}
		if err := m.cache.Reserve(e.Seq, 0); err != nil { // a live sequence?
			return nil, err
		}
		if n := m.cache.Len(e.Seq); n+len(e.Tokens) > m.ctx {
			return nil, fmt.Errorf("%w: %d tokens at position %d of sequence %d do not fit in a context of %d",
				ErrContextFull, len(e.Tokens), n, e.Seq, m.ctx)
		}
		ntok += len(e.Tokens)
	}
	q := m.batchQuantum()
	padded := (ntok + q - 1) / q * q
	if padded > s.batch {
		return nil, fmt.Errorf("%w: %d tokens (a pass takes %d)", ErrBatchTooLarge, ntok, m.BatchCapacity())
	}

	phase := Decode
	if ntok > len(entries) {
		phase = Prefill
	}
	m.Timers.phase = phase
	m.Timers.mark(-1, OpKVReserve)
	for i, e := range entries {
		if err := m.cache.Reserve(e.Seq, len(e.Tokens)); err != nil {
			for _, done := range entries[:i] {
				m.cache.Truncate(done.Seq, m.cache.Len(done.Seq)) // drop the reservations made
			}
			m.Timers.stop()
			return nil, err
		}
	}
	m.Timers.stop()

	p := &s.pass
	*p = pass{tokens: s.batchTokens[:0], pos: s.pos[:0], seq: s.seq[:0],
		seqs: s.seqs[:0], maxPos: s.maxPos[:len(entries)], rows: s.rows[:0]}
	for i, e := range entries {
		base := m.cache.Len(e.Seq)
		p.seqs = append(p.seqs, e.Seq)
		for j, id := range e.Tokens {
			p.tokens = append(p.tokens, id)
			p.pos = append(p.pos, base+j)
			p.seq = append(p.seq, i)
		}
		p.maxPos[i] = base + len(e.Tokens) - 1
		if e.Logits {
			p.rows = append(p.rows, len(p.tokens)-1)
		}
	}
	// Padding: the last token again (same sequence and position: its K
	// and V are written twice with the same bits; its logits are unused).
	for len(p.tokens) < padded {
		last := len(p.tokens) - 1
		p.tokens = append(p.tokens, p.tokens[last])
		p.pos = append(p.pos, p.pos[last])
		p.seq = append(p.seq, p.seq[last])
	}
	want := len(p.rows)
	for len(p.rows)%q != 0 {
		p.rows = append(p.rows, p.rows[len(p.rows)-1])
	}
	s.invariant = true
	s.scratch.SetUniformOrder(true)
	logits := m.forward(phase, p)
	s.scratch.SetUniformOrder(false)
	s.invariant = false
	for _, e := range entries {
		m.cache.Commit(e.Seq, len(e.Tokens))
	}
	return logits[:want*m.Config.Vocab], nil
}

// batchQuantum is the token count a batch-invariant pass is padded to a
// multiple of (see EvalBatch), computed once.
func (m *Model) batchQuantum() int {
	s := m.state
	if s.quantum > 0 {
		return s.quantum
	}
	q := 1
	for _, w := range m.Weights.forwardOrder() {
		q = max(q, orderQuantum(w.Type))
	}
	s.quantum = q
	return q
}

// orderQuantum is the pass size whose multiples give every token of a
// matmul with weights of type t the same float order under a uniform
// order: 1 where kernels.UniformOrder holds, else whole quads (Q4_K's
// four-token order, vecDotQuad).
func orderQuantum(t ggml.Type) int {
	if kernels.UniformOrder(t) {
		return 1
	}
	return 4
}
