package engine

import (
	"context"
	"fmt"

	"github.com/gollm/gollm/kvcache"
)

// Several sequences share one model: each has its own positions and KV
// blocks in the paged cache; forked sequences share their common prefix's
// blocks until they diverge. A forward pass may mix tokens of several
// sequences, so that one pass over the weights serves all of them.
//
// Every method below takes the model's lock (see Model).

// SeqID names a sequence of the model's KV cache.
type SeqID = kvcache.SeqID

// DefaultSeq is the sequence Eval and Generate use.
func (m *Model) DefaultSeq() SeqID {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seq
}

// NewSeq starts an empty sequence.
func (m *Model) NewSeq() SeqID {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cache.NewSeq()
}

// Fork starts a sequence that shares all of src's positions without copying
// them.
func (m *Model) Fork(src SeqID) (SeqID, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cache.Fork(src)
}

// FreeSeq releases a sequence's blocks.
func (m *Model) FreeSeq(seq SeqID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cache.Free(seq)
	if seq == m.seq {
		m.seqTokens = m.seqTokens[:0]
	}
}

// SeqLen is the number of positions stored for seq.
func (m *Model) SeqLen(seq SeqID) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cache.Len(seq)
}

// TruncateSeq keeps the first n positions of seq.
func (m *Model) TruncateSeq(seq SeqID, n int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.truncateSeq(seq, n)
}

func (m *Model) truncateSeq(seq SeqID, n int) error {
	if err := m.cache.Truncate(seq, n); err != nil {
		return err
	}
	if seq == m.seq && n < len(m.seqTokens) {
		m.seqTokens = m.seqTokens[:n]
	}
	return nil
}

// noteTokens records tokens appended to the default sequence, so that a
// later Generate with ReuseCache knows what the cache holds.
func (m *Model) noteTokens(seq SeqID, tokens ...int32) {
	if seq == m.seq {
		m.seqTokens = append(m.seqTokens, tokens...)
	}
}

// EvalSeq appends tokens to seq and returns the logits of the last one
// ([Vocab]) or, with all, of every token ([len(tokens)][Vocab]).
func (m *Model) EvalSeq(seq SeqID, tokens []int32, all bool) ([]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.evalSeq(context.Background(), seq, tokens, all)
}

// evalSeq is EvalSeq under the lock; ctx is checked between batches.
func (m *Model) evalSeq(ctx context.Context, seq SeqID, tokens []int32, all bool) ([]float32, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("engine: no tokens to evaluate")
	}
	if err := m.checkTokens(tokens); err != nil {
		return nil, err
	}
	n0 := m.cache.Len(seq)
	if n0+len(tokens) > m.ctx {
		return nil, fmt.Errorf("%w: %d tokens at position %d do not fit in a context of %d", ErrContextFull, len(tokens), n0, m.ctx)
	}
	phase := Decode
	if len(tokens) > 1 {
		phase = Prefill
	}
	var allLogits []float32
	if all {
		allLogits = make([]float32, len(tokens)*m.Config.Vocab)
	}
	var logits []float32
	s := m.state
	for i := 0; i < len(tokens); i += s.batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := tokens[i:min(i+s.batch, len(tokens))]
		m.Timers.phase = phase
		m.Timers.mark(-1, OpKVReserve)
		err := m.cache.Reserve(seq, len(part))
		m.Timers.stop()
		if err != nil {
			return nil, err
		}
		p := &s.pass
		*p = pass{tokens: part, pos: s.pos[:len(part)], seq: s.seq[:len(part)],
			seqs: append(s.seqs[:0], seq), maxPos: s.maxPos[:1], rows: s.rows[:0]}
		base := m.cache.Len(seq)
		for j := range part {
			p.pos[j], p.seq[j] = base+j, 0
		}
		p.maxPos[0] = base + len(part) - 1
		if all {
			for j := range part {
				p.rows = append(p.rows, j)
			}
		} else {
			p.rows = append(p.rows, len(part)-1)
		}
		logits = m.forward(phase, p)
		m.cache.Commit(seq, len(part))
		m.noteTokens(seq, part...)
		if all {
			copy(allLogits[i*m.Config.Vocab:], logits)
		}
	}
	if all {
		return allLogits, nil
	}
	return logits, nil
}

// DecodeSeqs appends one token to each of several distinct sequences in a
// single forward pass (one read of the weights for all of them) and returns
// their logits, [len(seqs)][Vocab], valid until the next call.
func (m *Model) DecodeSeqs(seqs []SeqID, tokens []int32) ([]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.decodeSeqs(seqs, tokens)
}

func (m *Model) decodeSeqs(seqs []SeqID, tokens []int32) ([]float32, error) {
	if len(seqs) != len(tokens) || len(seqs) == 0 {
		return nil, fmt.Errorf("engine: DecodeSeqs needs one token per sequence (%d sequences, %d tokens)", len(seqs), len(tokens))
	}
	s := m.state
	if len(seqs) > s.batch {
		return nil, fmt.Errorf("engine: %d sequences exceed the batch size %d", len(seqs), s.batch)
	}
	if err := m.checkTokens(tokens); err != nil {
		return nil, err
	}
	p := &s.pass
	*p = pass{tokens: tokens, pos: s.pos[:len(seqs)], seq: s.seq[:len(seqs)],
		seqs: s.seqs[:0], maxPos: s.maxPos[:len(seqs)], rows: s.rows[:0]}
	m.Timers.phase = Decode
	m.Timers.mark(-1, OpKVReserve) // until the stop below, or the deferred one on an error
	defer m.Timers.stop()
	for i, seq := range seqs {
		for _, prev := range seqs[:i] {
			if prev == seq {
				return nil, fmt.Errorf("engine: sequence %d appears twice in one DecodeSeqs call", seq)
			}
		}
		n := m.cache.Len(seq)
		if n+1 > m.ctx {
			return nil, fmt.Errorf("%w: sequence %d is full (%d tokens)", ErrContextFull, seq, m.ctx)
		}
		if err := m.cache.Reserve(seq, 1); err != nil {
			for _, done := range seqs[:i] {
				m.cache.Truncate(done, m.cache.Len(done)) // drop the reservations already made
			}
			return nil, err
		}
		p.seqs = append(p.seqs, seq)
		p.pos[i], p.seq[i], p.maxPos[i] = n, i, n
		p.rows = append(p.rows, i)
	}
	m.Timers.stop()
	logits := m.forward(Decode, p)
	for i, seq := range seqs {
		m.cache.Commit(seq, 1)
		m.noteTokens(seq, tokens[i])
	}
	return logits, nil
}

func (m *Model) checkTokens(tokens []int32) error {
	for _, id := range tokens {
		if id < 0 || int(id) >= m.Config.Vocab {
			return fmt.Errorf("engine: token id %d outside the vocabulary [0, %d)", id, m.Config.Vocab)
		}
	}
	return nil
}
