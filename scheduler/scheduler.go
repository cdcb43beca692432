// Package scheduler serves many generation requests on one model with
// iteration-level (continuous) batching: each step is one forward pass
// (engine.Model.EvalBatch) holding the next token of every decoding
// sequence plus prompt chunks of newer ones, up to a token budget, so a
// long prompt never stalls running streams for more than a step. Requests
// join at the next step and leave the moment they finish. Admission is by
// free KV blocks; when blocks run out mid-generation the youngest sequence
// is preempted by recompute (its blocks freed, resumed later with the same
// output). Full KV blocks are kept in a prefix cache (kvcache.PrefixCache)
// after their request ends, so prompts that begin alike skip that prefill.
//
// Results do not depend on what else runs: the engine's passes are
// batch-invariant, so a request's logits are the same bits alone, among
// others, chunked or from the prefix cache, and with temperature 0 or a
// seed its tokens are too.
//
// # Concurrency
//
// The scheduler owns the model: after New, only its goroutine calls the
// model (until Close returns). Submit, Load, OpTimes and the Stream methods are
// safe from any goroutine; a Stream is written without waiting for its
// reader.
package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/kvcache"
	"github.com/gollm/gollm/sampler"
)

// Errors callers branch on.
var (
	ErrQueueFull     = errors.New("scheduler: queue full")
	ErrClosed        = errors.New("scheduler: shutting down")
	ErrPromptTooLong = errors.New("scheduler: prompt longer than the context")
	ErrBadRequest    = errors.New("scheduler: bad request")
)

// Config tunes a Scheduler. Zero fields take defaults.
type Config struct {
	MaxRunning    int // sequences in flight (prefilling or decoding) at once; default 16
	BatchTokens   int // tokens per forward pass; default and maximum: the model's batch capacity
	MaxQueue      int // requests waiting for admission before Submit refuses; default 256
	NoPrefixCache bool
	Observer      Observer // step-level events (metrics); nil: none
}

// Observer receives step-level events on the scheduler goroutine; it must
// not block.
type Observer interface {
	Step(StepStats)
	Preempted()
	PrefixQuery(queried, hit int) // prompt tokens looked up and found in the prefix cache
}

// StepStats describe one forward pass.
type StepStats struct {
	Seqs, Tokens, PromptTokens, DecodeTokens int
	Forward                                  time.Duration // inside EvalBatch
	Total                                    time.Duration // the whole step
}

// Scheduler runs requests on one model; see the package documentation.
type Scheduler struct {
	model       *engine.Model
	cfg         Config
	cache       *kvcache.Cache
	prefix      *kvcache.PrefixCache
	blockLen    int
	batchTokens int
	eog         []int32

	submit   chan *job
	quit     chan struct{}
	loopDone chan struct{}
	closing  sync.Once
	draining atomic.Bool
	queued   atomic.Int64 // submitted, not yet admitted nor finished

	// Owned by the loop goroutine.
	waiting, running []*job
	entries          []engine.BatchEntry
	stepJobs         []*job
	matchBuf         []kvcache.BlockID

	// Snapshots for other goroutines.
	nRunning, nWaiting atomic.Int64
	kvUsage            atomic.Uint64 // float64 bits
	opMu               sync.Mutex
	ops                [engine.NumPhases][engine.NumOps]time.Duration
}

// New starts a scheduler on m; from now on only the scheduler calls m.
func New(m *engine.Model, cfg Config) (*Scheduler, error) {
	if cfg.MaxRunning <= 0 {
		cfg.MaxRunning = 16
	}
	if cfg.MaxQueue <= 0 {
		cfg.MaxQueue = 256
	}
	capacity := m.BatchCapacity()
	if cfg.BatchTokens <= 0 || cfg.BatchTokens > capacity {
		cfg.BatchTokens = capacity
	}
	if cfg.MaxRunning > cfg.BatchTokens {
		return nil, fmt.Errorf("scheduler: %d running sequences need at least as many batch tokens, have %d", cfg.MaxRunning, cfg.BatchTokens)
	}
	cache := m.KVCache()
	if _, _, total := cache.Blocks(); total*cache.Config().BlockLen < m.ContextSize() {
		return nil, fmt.Errorf("scheduler: the KV cache holds %d positions, less than one context of %d", total*cache.Config().BlockLen, m.ContextSize())
	}
	m.Reset()
	s := &Scheduler{
		model: m, cfg: cfg, cache: cache,
		blockLen:    cache.Config().BlockLen,
		batchTokens: cfg.BatchTokens,
		eog:         m.Tokenizer.EOGTokens(),
		submit:      make(chan *job, cfg.MaxQueue),
		quit:        make(chan struct{}),
		loopDone:    make(chan struct{}),
	}
	if !cfg.NoPrefixCache {
		s.prefix = kvcache.NewPrefixCache(cache)
	}
	go s.loop()
	return s, nil
}

// Submit queues a request; its output arrives on the returned Stream.
// Cancelling ctx cancels the request (its KV blocks are free within one
// step). It fails at once with ErrQueueFull, ErrClosed, ErrPromptTooLong
// or ErrBadRequest.
func (s *Scheduler) Submit(ctx context.Context, req Request) (*Stream, error) {
	if s.draining.Load() {
		return nil, ErrClosed
	}
	if err := s.check(&req); err != nil {
		return nil, err
	}
	smp, err := sampler.New(req.Sampling, s.model.Config.Vocab)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if s.queued.Add(1) > int64(s.cfg.MaxQueue) {
		s.queued.Add(-1)
		return nil, ErrQueueFull
	}
	j := &job{req: req, ctx: ctx, out: newStream(), smp: smp,
		hist:  append(make([]int32, 0, len(req.Prompt)+max(req.MaxTokens, 16)), req.Prompt...),
		dec:   s.model.Tokenizer.NewStreamDecoder(),
		stops: sampler.NewStopMatcher(req.Stop)}
	for _, id := range req.Prompt {
		smp.Accept(id)
	}
	if req.IgnoreEOS {
		j.masked = make([]float32, s.model.Config.Vocab)
	}
	j.stats.PromptTokens, j.stats.Arrival = len(req.Prompt), time.Now()
	s.submit <- j // room: queued <= MaxQueue = cap
	return j.out, nil
}

func (s *Scheduler) check(req *Request) error {
	n, ctxLen := len(req.Prompt), s.model.ContextSize()
	switch {
	case n == 0:
		return fmt.Errorf("%w: the prompt is empty", ErrBadRequest)
	case n >= ctxLen:
		return fmt.Errorf("%w: %d prompt tokens, the context holds %d", ErrPromptTooLong, n, ctxLen)
	case req.TopLogprobs < 0 || req.TopLogprobs > 20:
		return fmt.Errorf("%w: top_logprobs %d outside [0, 20]", ErrBadRequest, req.TopLogprobs)
	}
	vocab := int32(s.model.Config.Vocab)
	for _, id := range req.Prompt {
		if id < 0 || id >= vocab {
			return fmt.Errorf("%w: token id %d outside the vocabulary [0, %d)", ErrBadRequest, id, vocab)
		}
	}
	return nil
}

// Drain makes Submit refuse new requests (ErrClosed); those already
// accepted run to completion.
func (s *Scheduler) Drain() { s.draining.Store(true) }

// Close cancels every request still queued or running (their streams end
// with ErrClosed), stops the scheduler goroutine and waits for it; the
// model is the caller's again.
func (s *Scheduler) Close() {
	s.Drain()
	s.closing.Do(func() { close(s.quit) })
	<-s.loopDone
}

// Load is a snapshot of the scheduler's load.
type Load struct {
	Running, Waiting int
	KVUsage          float64 // fraction of KV blocks held by sequences (cached but unused blocks count as free)
}

// Load returns the load as of the last step.
func (s *Scheduler) Load() Load {
	return Load{Running: int(s.nRunning.Load()), Waiting: int(s.nWaiting.Load()),
		KVUsage: math.Float64frombits(s.kvUsage.Load())}
}

// OpTimes returns the engine's time per (phase, op) summed over layers
// since start (zero unless the model's timers are enabled).
func (s *Scheduler) OpTimes() [engine.NumPhases][engine.NumOps]time.Duration {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	return s.ops
}

func (s *Scheduler) loop() {
	defer close(s.loopDone)
	for {
		if len(s.waiting)+len(s.running) == 0 {
			s.publish()
			select {
			case j := <-s.submit:
				s.waiting = append(s.waiting, j)
			case <-s.quit:
				s.shutdown()
				return
			}
		}
		for more := true; more; {
			select {
			case j := <-s.submit:
				s.waiting = append(s.waiting, j)
			case <-s.quit:
				s.shutdown()
				return
			default:
				more = false
			}
		}
		s.step()
	}
}

// shutdown ends every request with ErrClosed.
func (s *Scheduler) shutdown() {
	for more := true; more; {
		select {
		case j := <-s.submit:
			s.waiting = append(s.waiting, j)
		default:
			more = false
		}
	}
	for _, j := range append(s.running, s.waiting...) {
		s.finish(j, "", ErrClosed, false)
	}
	s.running, s.waiting = nil, nil
	if s.prefix != nil {
		s.prefix.Clear()
	}
	s.publish()
}
