package scheduler

import (
	"fmt"
	"math"
	"time"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/kvcache"
)

// step runs one iteration: drop cancelled requests, admit waiting ones,
// plan the pass (preempting if blocks run short), run it, sample.
func (s *Scheduler) step() {
	start := time.Now()
	s.reap()
	s.admit(start)
	s.plan()
	if len(s.entries) == 0 {
		s.publish()
		return
	}
	fwd := time.Now()
	logits, err := s.model.EvalBatch(s.entries)
	fwdTime := time.Since(fwd)
	now := time.Now()
	if err != nil {
		// Planning keeps batches valid, so this is an engine failure: the
		// requests of this pass end with it, the others carry on.
		for _, j := range s.stepJobs {
			s.finish(j, "", fmt.Errorf("scheduler: forward pass: %w", err), false)
		}
	} else {
		vocab := s.model.Config.Vocab
		for _, j := range s.stepJobs {
			j.kv += j.chunk
			s.share(j)
			if j.logitRw >= 0 {
				s.sample(j, logits[j.logitRw*vocab:(j.logitRw+1)*vocab], now)
			}
		}
	}
	live := s.running[:0]
	for _, j := range s.running {
		if !j.done {
			live = append(live, j)
		}
	}
	clear(s.running[len(live):])
	s.running = live
	if o := s.cfg.Observer; o != nil {
		st := StepStats{Seqs: len(s.entries), Forward: fwdTime}
		for _, e := range s.entries {
			st.Tokens += len(e.Tokens)
			if len(e.Tokens) == 1 {
				st.DecodeTokens++
			} else {
				st.PromptTokens += len(e.Tokens)
			}
		}
		st.Total = time.Since(start)
		o.Step(st)
	}
	s.publish()
}

// reap ends the requests whose context is done.
func (s *Scheduler) reap() {
	for _, list := range [][]*job{s.waiting, s.running} {
		for _, j := range list {
			if err := j.ctx.Err(); err != nil {
				s.finish(j, "", err, false)
			}
		}
	}
	s.waiting = dropDone(s.waiting)
	s.running = dropDone(s.running)
}

func dropDone(js []*job) []*job {
	out := js[:0]
	for _, j := range js {
		if !j.done {
			out = append(out, j)
		}
	}
	clear(js[len(out):])
	return out
}

// admit moves waiting requests (oldest first) into the running set while
// there is room and the KV cache can hold their tokens, adopting the
// cached blocks of their prefix.
func (s *Scheduler) admit(now time.Time) {
	avail := -1
	for len(s.waiting) > 0 && len(s.running) < s.cfg.MaxRunning {
		j := s.waiting[0]
		var matched []kvcache.BlockID
		if s.prefix != nil {
			// Never the last token: its logits are needed.
			j.hashes = s.prefix.HashBlocks(j.hashes, j.hist[:len(j.hist)-1])
			matched = s.prefix.Match(s.matchBuf[:0], j.hist, j.hashes)
			s.matchBuf = matched
		}
		if avail < 0 {
			avail = s.cache.FreeBlocks()
			if s.prefix != nil {
				avail += s.prefix.Evictable()
			}
		}
		need := s.blocksFor(len(j.hist)) - len(matched)
		for _, b := range matched {
			if s.cache.Refs(b) == 1 {
				need++ // an evictable block this request would pin
			}
		}
		if need > avail {
			if len(s.running) == 0 {
				_, _, total := s.cache.Blocks()
				s.finish(j, "", fmt.Errorf("%w: %d tokens need %d KV blocks, the cache has %d", kvcache.ErrCacheFull, len(j.hist), s.blocksFor(len(j.hist)), total), false)
				s.waiting = s.waiting[1:]
				continue
			}
			return
		}
		avail -= need
		j.seq = s.cache.NewSeq()
		j.hasSeq = true
		if err := s.cache.AppendBlocks(j.seq, matched); err != nil {
			s.finish(j, "", fmt.Errorf("scheduler: adopting cached blocks: %w", err), false)
			s.waiting = s.waiting[1:]
			continue
		}
		j.kv, j.shared = len(matched)*s.blockLen, len(matched)
		if !j.started {
			j.started = true
			j.stats.Scheduled = now
			j.stats.CachedTokens = j.kv
			s.queued.Add(-1)
			if o := s.cfg.Observer; o != nil && s.prefix != nil {
				o.PrefixQuery(len(j.req.Prompt), j.kv)
			}
		}
		s.running = append(s.running, j)
		s.waiting = s.waiting[1:]
	}
}

// plan fills s.entries: one token of every decoding sequence, then prompt
// chunks in admission order up to the token budget. When the cache lacks
// the blocks the pass needs, unused cached prefixes are evicted, then the
// youngest running requests preempted, until it fits.
func (s *Scheduler) plan() {
	for {
		s.entries, s.stepJobs = s.entries[:0], s.stepJobs[:0]
		budget := s.batchTokens
		for pass := 0; pass < 2; pass++ {
			for _, j := range s.running {
				decode := j.remaining() == 1
				if (pass == 0) != decode || budget == 0 {
					continue
				}
				n := min(j.remaining(), budget)
				budget -= n
				j.chunk, j.logitRw = n, -1
				s.stepJobs = append(s.stepJobs, j)
			}
		}
		need := 0
		for _, j := range s.stepJobs {
			need += s.blocksFor(j.kv+j.chunk) - s.blocksFor(j.kv)
		}
		if need > s.cache.FreeBlocks() && s.prefix != nil {
			s.prefix.Evict(need)
		}
		if need <= s.cache.FreeBlocks() || len(s.running) == 0 {
			break
		}
		s.preempt(s.running[len(s.running)-1])
	}
	rows := 0
	for _, j := range s.stepJobs {
		e := engine.BatchEntry{Seq: j.seq, Tokens: j.hist[j.kv : j.kv+j.chunk]}
		if j.kv+j.chunk == len(j.hist) {
			e.Logits, j.logitRw = true, rows
			rows++
		}
		s.entries = append(s.entries, e)
	}
}

// preempt frees a running request's sequence and puts it at the head of
// the queue; it resumes by recomputing its tokens (prompt and generated
// so far), from the prefix cache where its blocks survive.
func (s *Scheduler) preempt(j *job) {
	s.cache.Free(j.seq)
	j.hasSeq, j.kv, j.shared = false, 0, 0
	j.stats.Preemptions++
	for i, r := range s.running {
		if r == j {
			s.running = append(s.running[:i], s.running[i+1:]...)
			break
		}
	}
	s.waiting = append([]*job{j}, s.waiting...)
	if o := s.cfg.Observer; o != nil {
		o.Preempted()
	}
}

// share registers the request's newly completed full blocks in the prefix
// cache.
func (s *Scheduler) share(j *job) {
	if s.prefix == nil {
		return
	}
	full := j.kv / s.blockLen
	if len(j.hashes) < full {
		j.hashes = s.prefix.HashBlocks(j.hashes, j.hist[:full*s.blockLen])
	}
	if full > j.shared {
		if err := s.prefix.Insert(j.seq, j.hist, j.hashes[:full], j.shared); err == nil {
			j.shared = full
		}
	}
}

// finish ends a request: its text held back is flushed (flush: it ended
// on an end-of-generation token or its length, not a stop string or an
// error), its sequence freed, its stream closed.
func (s *Scheduler) finish(j *job, reason string, err error, flush bool) {
	if j.done {
		return
	}
	j.done = true
	text := ""
	if flush {
		out, _ := j.stops.Push(j.dec.Flush())
		text = out + j.stops.Flush()
	}
	j.stats.End = time.Now()
	if j.hasSeq {
		s.cache.Free(j.seq)
		j.hasSeq = false
	}
	if !j.started {
		s.queued.Add(-1)
	}
	j.out.finish(text, reason, err, j.stats)
}

func (s *Scheduler) blocksFor(n int) int { return (n + s.blockLen - 1) / s.blockLen }

// publish updates the snapshots other goroutines read.
func (s *Scheduler) publish() {
	s.nRunning.Store(int64(len(s.running)))
	s.nWaiting.Store(int64(len(s.waiting) + len(s.submit)))
	used, _, total := s.cache.Blocks()
	if s.prefix != nil {
		used -= s.prefix.Evictable()
	}
	s.kvUsage.Store(math.Float64bits(float64(used) / float64(max(total, 1))))
	if t := s.model.Timers; t.Enabled {
		s.opMu.Lock()
		for p := engine.Phase(0); p < engine.NumPhases; p++ {
			for op := engine.Op(0); op < engine.NumOps; op++ {
				var d time.Duration
				if op.LayerOp() {
					for l := 0; l < t.Layers(); l++ {
						d += t.Get(p, l, op)
					}
				} else {
					d = t.Get(p, -1, op)
				}
				s.ops[p][op] = d
			}
		}
		s.opMu.Unlock()
	}
}
