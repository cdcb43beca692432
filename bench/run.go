package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gollm/gollm/engine"
)

// RunConfig controls Run.
type RunConfig struct {
	Reps int    // counted repetitions (after one uncounted warm-up); <= 0: 5
	Seed uint64 // token ids are drawn from a PCG seeded with this
	// TimersOverhead also runs every repetition with the model's timers
	// toggled, to report how much having them on costs.
	TimersOverhead bool
	// Progress, if set, is called after every run (the warm-up included).
	Progress func()
}

// Measurement is what the repetitions of one test measured.
type Measurement struct {
	Test    Test
	Samples []time.Duration // one per counted repetition: the timed part
	TTFT    []time.Duration // per repetition, tests with a prompt: the prompt's forward passes
	ITL     []time.Duration // every decode step of every repetition
	// Ops accumulates the op timers over the timed parts of the counted
	// repetitions (nil when the model's timers are off).
	Ops *Snapshot
	// TimersOverheadPct is the median timed-part time with timers on over
	// the one with them off, minus 1, in percent (set with
	// RunConfig.TimersOverhead).
	TimersOverheadPct *float64
}

// Runs is the number of Progress calls Run makes for t under cfg.
func (cfg RunConfig) Runs(t Test) int {
	n := 1 + cfg.reps()
	if cfg.TimersOverhead {
		n += cfg.reps()
	}
	return n
}

func (cfg RunConfig) reps() int {
	if cfg.Reps <= 0 {
		return 5
	}
	return cfg.Reps
}

// Run measures test t on m: one uncounted warm-up, then cfg.Reps counted
// repetitions. Each run empties the cache, evaluates NDepth random tokens
// (untimed), then times:
//   - pp: one Eval of NPrompt random tokens (in passes of the model's batch);
//   - tg: NGen single-token Evals of random ids (no sampling), after one
//     untimed token when there is no depth, as llama-bench times generation;
//   - pp+tg: the prompt, then the NGen single-token Evals, as one span.
//
// The model's timers stay as they are (m.Timers.Enabled) for the counted
// runs; with cfg.TimersOverhead each repetition also runs with them
// toggled, the order alternating so drift does not favour either.
func Run(m *engine.Model, t Test, cfg RunConfig) (*Measurement, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if need := t.Context(); need > m.ContextSize() {
		return nil, fmt.Errorf("bench: %s needs a context of %d tokens, the model was loaded with %d", t.Name(), need, m.ContextSize())
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(t.NPrompt)<<40^uint64(t.NGen)<<20^uint64(t.NDepth)))
	ids := func(n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(rng.IntN(m.Config.Vocab))
		}
		return out
	}
	r := &runner{m: m, t: t, depth: ids(t.NDepth), prompt: ids(t.NPrompt), gen: ids(t.NGen + 1)}
	r.itl = make([]time.Duration, 0, t.NGen)

	timersOn := m.Timers.Enabled
	defer func() { m.Timers.Enabled = timersOn }()
	progress := func() {
		if cfg.Progress != nil {
			cfg.Progress()
		}
	}

	meas := &Measurement{Test: t}
	if timersOn {
		meas.Ops = NewSnapshot(m.Timers.Layers())
	}
	if _, err := r.once(); err != nil { // warm-up: page the weights in, settle the caches
		return nil, err
	}
	progress()
	var on, off []time.Duration
	for rep := 0; rep < cfg.reps(); rep++ {
		toggledFirst := cfg.TimersOverhead && rep%2 == 1
		if toggledFirst {
			if err := r.toggled(&on, &off, timersOn); err != nil {
				return nil, err
			}
			progress()
		}
		m.Timers.Enabled = timersOn
		s, err := r.once()
		if err != nil {
			return nil, err
		}
		meas.Samples = append(meas.Samples, s.total)
		if t.NPrompt > 0 {
			meas.TTFT = append(meas.TTFT, s.ttft)
		}
		meas.ITL = append(meas.ITL, r.itl...)
		if timersOn {
			meas.Ops.Add(TakeSnapshot(m.Timers))
			on = append(on, s.total)
		} else {
			off = append(off, s.total)
		}
		progress()
		if cfg.TimersOverhead && !toggledFirst {
			if err := r.toggled(&on, &off, timersOn); err != nil {
				return nil, err
			}
			progress()
		}
	}
	if cfg.TimersOverhead {
		v := (Median(durs(on))/Median(durs(off)) - 1) * 100
		meas.TimersOverheadPct = &v
	}
	return meas, nil
}

// runner holds one test's token ids and the per-run scratch.
type runner struct {
	m                  *engine.Model
	t                  Test
	depth, prompt, gen []int32
	itl                []time.Duration
}

type sample struct{ total, ttft time.Duration }

// toggled runs once with the timers flipped from their configured state and
// files the time under on or off.
func (r *runner) toggled(on, off *[]time.Duration, timersOn bool) error {
	r.m.Timers.Enabled = !timersOn
	s, err := r.once()
	r.m.Timers.Enabled = timersOn
	if err != nil {
		return err
	}
	if timersOn {
		*off = append(*off, s.total)
	} else {
		*on = append(*on, s.total)
	}
	return nil
}

// once is one run; the op timers are reset where the timed part starts, so
// afterwards they hold that part only.
func (r *runner) once() (sample, error) {
	m, t := r.m, r.t
	m.Reset()
	r.itl = r.itl[:0]
	if t.NDepth > 0 {
		if _, err := m.Eval(r.depth, false); err != nil {
			return sample{}, err
		}
	}
	gen := r.gen
	if t.IsGen() && t.NDepth == 0 {
		// Decode steps attend to at least one cached position, as after a
		// prompt; the first token is not timed.
		if _, err := m.Eval(gen[:1], false); err != nil {
			return sample{}, err
		}
		gen = gen[1:]
	}
	m.Timers.Reset()
	var s sample
	start := time.Now()
	last := start
	if t.NPrompt > 0 {
		if _, err := m.Eval(r.prompt, false); err != nil {
			return sample{}, err
		}
		last = time.Now()
		s.ttft = last.Sub(start)
	}
	for i := 0; i < t.NGen; i++ {
		if _, err := m.Eval(gen[i:i+1], false); err != nil {
			return sample{}, err
		}
		now := time.Now()
		r.itl = append(r.itl, now.Sub(last))
		last = now
	}
	s.total = last.Sub(start)
	return s, nil
}

func durs(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d)
	}
	return out
}
