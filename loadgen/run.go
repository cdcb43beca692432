package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Level is one point of a sweep: how requests arrive.
type Level struct {
	// Concurrency caps the requests in flight (0: no cap, open loop only).
	// With no RequestRate it is a closed loop: Concurrency clients, each
	// sending its next request as soon as the last one ends.
	Concurrency int
	// RequestRate is the open-loop arrival rate in requests/s (0 or +Inf:
	// closed loop).
	RequestRate float64
	// Burstiness is the gamma shape of the arrival gaps (0 or 1: Poisson).
	Burstiness float64
}

// Open reports whether requests arrive at a finite rate.
func (l Level) Open() bool { return l.RequestRate > 0 && !math.IsInf(l.RequestRate, 1) }

// String names the level in tables: "c=8", "rate=4/s", "rate=4/s c<=8".
func (l Level) String() string {
	if !l.Open() {
		return fmt.Sprintf("c=%d", l.Concurrency)
	}
	s := fmt.Sprintf("rate=%g/s", l.RequestRate)
	if l.Burstiness > 0 && l.Burstiness != 1 {
		s += fmt.Sprintf(" b=%g", l.Burstiness)
	}
	if l.Concurrency > 0 {
		s += fmt.Sprintf(" c<=%d", l.Concurrency)
	}
	return s
}

// Config is a run's workload and measuring rules, shared by its levels.
type Config struct {
	Target   *Target
	Workload Workload
	// NumPrompts measured requests per level (0: four times the level's
	// concurrency); with Duration > 0 the level instead sends requests until
	// Duration has passed (the ones in flight then are waited for and
	// counted).
	NumPrompts int
	Duration   time.Duration
	// Warmup requests are sent before each level's measured ones, at the
	// level's concurrency, and left out of every figure.
	Warmup int
	Seed   uint64
	// Progress, when set, is called after each request ends (serially,
	// never concurrently with itself).
	Progress func(Progress)
}

// Progress is the state of the level being run.
type Progress struct {
	Level        Level
	Warmup       bool // the warm-up phase
	Done, Failed int
	Total        int // requests planned (0: until the duration ends)
	OutputTokens int
	Elapsed      time.Duration
}

// ErrConfig marks an unusable run configuration.
var ErrConfig = errors.New("loadgen: bad configuration")

// Runner runs levels one after another. Every request of a Runner gets its
// own workload index, so no prompt is sent twice (a server's prefix cache
// cannot turn a later level's prompts into hits). A Runner is not safe for
// concurrent use: run its levels one at a time.
type Runner struct {
	cfg    Config
	next   int // the next workload index
	levels int
}

// NewRunner checks cfg.
func NewRunner(cfg Config) (*Runner, error) {
	switch {
	case cfg.Target == nil || cfg.Workload == nil:
		return nil, fmt.Errorf("%w: no target or workload", ErrConfig)
	case cfg.NumPrompts < 0:
		return nil, fmt.Errorf("%w: %d prompts", ErrConfig, cfg.NumPrompts)
	case cfg.Warmup < 0:
		return nil, fmt.Errorf("%w: negative warm-up count", ErrConfig)
	}
	return &Runner{cfg: cfg}, nil
}

// LevelResult is a level's measured requests, in order of sending.
type LevelResult struct {
	Level    Level
	Requests []RequestResult
}

// Run runs one level: the warm-up, then the measured requests. It returns
// an error only for a bad level or a cancelled ctx; failed requests are in
// the result.
func (r *Runner) Run(ctx context.Context, lv Level) (*LevelResult, error) {
	if !lv.Open() && lv.Concurrency < 1 {
		return nil, fmt.Errorf("%w: a closed loop needs a concurrency of at least 1", ErrConfig)
	}
	if lv.Concurrency < 0 || lv.RequestRate < 0 || lv.Burstiness < 0 {
		return nil, fmt.Errorf("%w: negative concurrency, rate or burstiness", ErrConfig)
	}
	n := r.cfg.NumPrompts
	if n == 0 && r.cfg.Duration <= 0 {
		if lv.Concurrency < 1 {
			return nil, fmt.Errorf("%w: an open loop without a concurrency cap needs a number of prompts or a duration", ErrConfig)
		}
		n = 4 * lv.Concurrency
	}
	r.levels++
	if r.cfg.Warmup > 0 {
		wl := Level{Concurrency: r.cfg.Warmup}
		if lv.Concurrency > 0 {
			wl.Concurrency = min(lv.Concurrency, r.cfg.Warmup)
		}
		if _, err := r.phase(ctx, wl, lv, r.cfg.Warmup, 0, true); err != nil {
			return nil, err
		}
	}
	reqs, err := r.phase(ctx, lv, lv, n, r.cfg.Duration, false)
	if err != nil {
		return nil, err
	}
	return &LevelResult{Level: lv, Requests: reqs}, nil
}

// phase sends n requests (or requests for d) arriving as lv says, and
// returns them sorted by send time. shown is the level progress reports name.
func (r *Runner) phase(ctx context.Context, lv, shown Level, n int, d time.Duration, warm bool) ([]RequestResult, error) {
	var prompts []Prompt
	if d <= 0 {
		// Build the prompts before the clock starts: tokenizing is not the
		// server's time.
		prompts = make([]Prompt, n)
		for i := range prompts {
			prompts[i] = r.cfg.Workload.Prompt(r.next + i)
		}
		r.next += n
	}
	if hc := r.cfg.Target.HTTP; hc != nil {
		// Connections left idle since the last phase may have been closed
		// by the server; start the phase with fresh ones.
		hc.CloseIdleConnections()
	}
	var sem chan struct{}
	if lv.Concurrency > 0 {
		sem = make(chan struct{}, lv.Concurrency)
	}
	arr := NewArrivals(lv.RequestRate, lv.Burstiness, r.cfg.Seed+uint64(r.levels)*7919)

	var (
		mu      sync.Mutex
		results []RequestResult
		prog    = Progress{Level: shown, Warmup: warm, Total: n}
		wg      sync.WaitGroup
	)
	if d > 0 {
		prog.Total = 0
	}
	start := time.Now()
	nextAt := start
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
loop:
	for i := 0; ; i++ {
		if d <= 0 && i == n {
			break
		}
		if d > 0 && time.Since(start) >= d {
			break
		}
		if arr.Open() {
			nextAt = nextAt.Add(arr.Next())
			if wait := time.Until(nextAt); wait > 0 {
				timer.Reset(wait)
				select {
				case <-timer.C:
				case <-ctx.Done():
					break loop
				}
			}
		}
		if sem != nil {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				break loop
			}
		}
		if d > 0 && time.Since(start) >= d {
			if sem != nil {
				<-sem
			}
			break
		}
		var p Prompt
		if prompts != nil {
			p = prompts[i]
		} else {
			p = r.cfg.Workload.Prompt(r.next)
			r.next++
		}
		wg.Go(func() {
			res := r.cfg.Target.Do(ctx, p)
			if sem != nil {
				<-sem
			}
			mu.Lock()
			defer mu.Unlock()
			results = append(results, res)
			prog.Done++
			if !res.OK() {
				prog.Failed++
			}
			prog.OutputTokens += res.OutputTokens
			prog.Elapsed = time.Since(start)
			if r.cfg.Progress != nil {
				r.cfg.Progress(prog)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("loadgen: run interrupted: %w", err)
	}
	slices.SortFunc(results, func(a, b RequestResult) int { return a.Start.Compare(b.Start) })
	return results, nil
}
