package loadgen

import (
	"context"
	"math"
	"net/http"
	"testing"
	"time"
)

// The gaps have mean 1/rate and squared coefficient of variation
// 1/burstiness (Poisson at 1). The RNG is seeded, so the draws, and this
// test's outcome, are fixed; the bounds are several standard errors wide.
func TestArrivalsRateAndBurstiness(t *testing.T) {
	const n = 20000
	for _, c := range []struct{ rate, burst float64 }{{10, 1}, {4, 0.5}, {50, 4}} {
		a := NewArrivals(c.rate, c.burst, 42)
		var sum, sq float64
		for range n {
			g := a.Next().Seconds()
			sum += g
			sq += g * g
		}
		mean := sum / n
		cv2 := (sq/n - mean*mean) / (mean * mean)
		if math.Abs(mean*c.rate-1) > 0.03 {
			t.Errorf("rate %g burst %g: mean gap %v, want %v", c.rate, c.burst, mean, 1/c.rate)
		}
		if math.Abs(cv2*c.burst-1) > 0.08 {
			t.Errorf("rate %g burst %g: CV^2 %v, want %v", c.rate, c.burst, cv2, 1/c.burst)
		}
	}
	if g := NewArrivals(0, 1, 1).Next(); g != 0 {
		t.Errorf("closed loop gap %v", g)
	}
	a, b := NewArrivals(3, 1, 7), NewArrivals(3, 1, 7)
	for range 10 {
		if a.Next() != b.Next() {
			t.Fatal("same seed, different gaps")
		}
	}
}

func newRunner(t *testing.T, fs *fakeServer, cfg Config) *Runner {
	t.Helper()
	cfg.Target = target(fs)
	if cfg.Workload == nil {
		w, err := NewRandom(FixedVocab{}, 8, 0, 0, 4, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Workload = w
	}
	r, err := NewRunner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A closed loop keeps exactly the level's concurrency in flight, and the
// warm-up requests (scripted slow here) are sent first and not counted.
func TestRunClosedLoopWarmupExcluded(t *testing.T) {
	fs := newFakeServer(t, func(n int) fakeScript {
		if n < 3 {
			return steady(7, time.Millisecond, time.Millisecond) // warm-up: 7 tokens
		}
		return steady(2, 20*time.Millisecond, time.Millisecond)
	})
	var last Progress
	r := newRunner(t, fs, Config{Warmup: 3, NumPrompts: 12, Progress: func(p Progress) { last = p }})
	res, err := r.Run(context.Background(), Level{Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := fs.count.Load(); got != 15 {
		t.Errorf("server saw %d requests, want 3 warm-up + 12", got)
	}
	if len(res.Requests) != 12 {
		t.Fatalf("%d measured requests, want 12", len(res.Requests))
	}
	s := Summarize(res, SLO{}, 0)
	if s.Completed != 12 || s.TotalOutputTokens != 12*2 {
		t.Errorf("completed %d with %d tokens, want 12 x 2: a warm-up request (7 tokens) was counted", s.Completed, s.TotalOutputTokens)
	}
	if m := fs.maxIn.Load(); m > 4 || m < 2 {
		t.Errorf("server saw %d requests at once, want up to 4", m)
	}
	if s.MaxConcurrentRequests > 4 {
		t.Errorf("client counted %d in flight", s.MaxConcurrentRequests)
	}
	if last.Done != 12 || last.Warmup || last.Total != 12 {
		t.Errorf("last progress %+v", last)
	}
	// No prompt is sent twice: every request got its own index.
	seen := map[string]bool{}
	for _, b := range fs.bodies {
		p := b["prompt"].(string)
		if seen[p] {
			t.Errorf("prompt sent twice: %q", p)
		}
		seen[p] = true
	}
	// The next level gets fresh prompts too, and 4 x concurrency by default.
	r.cfg.NumPrompts = 0
	res2, err := r.Run(context.Background(), Level{Concurrency: 2})
	if err != nil || len(res2.Requests) != 8 {
		t.Fatalf("default count: %d requests, %v", len(res2.Requests), err)
	}
	for _, b := range fs.bodies[15:] {
		if seen[b["prompt"].(string)] {
			t.Error("a prompt of the first level was sent again")
		}
	}
}

// A server that stalls some requests and answers 500 and 429 to others in
// the middle of the run: the run finishes, every failure is counted by
// kind, the rest are measured.
func TestRunSurvivesFailingServer(t *testing.T) {
	fs := newFakeServer(t, func(n int) fakeScript {
		switch n {
		case 3, 7:
			return fakeScript{status: http.StatusInternalServerError}
		case 5:
			return fakeScript{status: http.StatusTooManyRequests}
		case 9:
			s := steady(3, 0, 0)
			s.stall = true
			return s
		case 11:
			s := steady(3, 0, 0)
			s.breakAfter = 1
			return s
		}
		return steady(3, 5*time.Millisecond, time.Millisecond)
	})
	r := newRunner(t, fs, Config{NumPrompts: 16})
	r.cfg.Target.Timeout = 1500 * time.Millisecond
	start := time.Now()
	res, err := r.Run(context.Background(), Level{Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 8*time.Second {
		t.Errorf("run took %v with a 1.5s request timeout", time.Since(start))
	}
	s := Summarize(res, SLO{}, 0)
	want := map[string]int{"http_500": 2, "http_429": 1, ErrKindTimeout: 1, ErrKindBroken: 1}
	if s.Completed != 11 || s.Failed != 5 {
		t.Errorf("completed %d failed %d, want 11 and 5", s.Completed, s.Failed)
	}
	for k, v := range want {
		if s.Errors[k] != v {
			t.Errorf("errors %v, want %v", s.Errors, want)
			break
		}
	}
	if s.TotalOutputTokens != 33 {
		t.Errorf("output tokens %d, want 11 x 3 (failures count none)", s.TotalOutputTokens)
	}
}

// An open loop sends at the seeded schedule's times (not waiting for
// answers), and --max-concurrency caps it.
func TestRunOpenLoopFollowsSchedule(t *testing.T) {
	fs := newFakeServer(t, func(int) fakeScript { return steady(2, 30*time.Millisecond, time.Millisecond) })
	const n, rate = 40, 100.0
	r := newRunner(t, fs, Config{NumPrompts: n, Seed: 5})
	t0 := time.Now()
	res, err := r.Run(context.Background(), Level{RequestRate: rate, Burstiness: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The same draws the runner made (its first level's seed): request i is
	// never sent before its scheduled time (the phase starts after t0), and
	// the last one not long after its own.
	a := NewArrivals(rate, 1, 5+7919)
	var sched time.Duration
	for i := range n {
		sched += a.Next()
		if got := res.Requests[i].Start.Sub(t0); got < sched {
			t.Fatalf("request %d sent at %v, scheduled at %v", i, got, sched)
		}
	}
	if got := res.Requests[n-1].Start.Sub(t0); got > sched+2*time.Second {
		t.Errorf("last request sent at %v, scheduled at %v", got, sched)
	}
	if fs.maxIn.Load() < 2 {
		t.Errorf("open loop never overlapped requests (max in flight %d)", fs.maxIn.Load())
	}
	fs2 := newFakeServer(t, func(int) fakeScript { return steady(2, 30*time.Millisecond, time.Millisecond) })
	r2 := newRunner(t, fs2, Config{NumPrompts: 20, Seed: 5})
	if _, err := r2.Run(context.Background(), Level{RequestRate: 1000, Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	if m := fs2.maxIn.Load(); m > 2 {
		t.Errorf("max-concurrency 2, server saw %d", m)
	}
}

// With a duration, requests are sent until it ends and no later.
func TestRunDuration(t *testing.T) {
	fs := newFakeServer(t, func(int) fakeScript { return steady(2, 20*time.Millisecond, time.Millisecond) })
	const d = 300 * time.Millisecond
	r := newRunner(t, fs, Config{Duration: d})
	res, err := r.Run(context.Background(), Level{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Requests) < 4 {
		t.Fatalf("%d requests in %v", len(res.Requests), d)
	}
	for _, q := range res.Requests {
		// Sent only while the duration lasts (the slack: a goroutine's
		// start on a loaded machine).
		if q.Start.Sub(res.Requests[0].Start) > d+time.Second {
			t.Errorf("a request was sent %v after the start", q.Start.Sub(res.Requests[0].Start))
		}
	}
}

func TestRunBadConfig(t *testing.T) {
	if _, err := NewRunner(Config{}); err == nil {
		t.Error("empty config accepted")
	}
	fs := newFakeServer(t, nil)
	r := newRunner(t, fs, Config{NumPrompts: 1})
	if _, err := r.Run(context.Background(), Level{}); err == nil {
		t.Error("closed loop at concurrency 0 accepted")
	}
	r.cfg.NumPrompts = 0
	if _, err := r.Run(context.Background(), Level{RequestRate: 3}); err == nil {
		t.Error("uncapped open loop without a count accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.cfg.NumPrompts = 2
	if _, err := r.Run(ctx, Level{Concurrency: 1}); err == nil {
		t.Error("cancelled run returned no error")
	}
}
