package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/gollm/gollm/engine"
)

// RunConfig controls Run.
type RunConfig struct {
	Reps int    // counted repetitions (after one uncounted warm-up); <= 0: 5
	Seed uint64 // token ids are drawn from a PCG seeded with this
	// TimersOverhead adds, for tests that generate, Reps runs whose decode
	// steps alternate between timers on and off, to report what having
	// them on costs.
	TimersOverhead bool
	// Progress, if set, is called after every run (the warm-up included).
	Progress func()
	// ProbeBandwidth measures, for tests that generate, the memory read
	// bandwidth before the first counted repetition and after each, by
	// reading the model's weights (ProbeReadBandwidth; models smaller than
	// ProbeMinBytes are not probed). On a shared VM the bandwidth moves by
	// 20-30% within a minute: a BW % against a figure taken in the same
	// seconds as the test says more than one against a figure taken once.
	ProbeBandwidth bool
}

// probeMinBytes is ProbeMinBytes (a variable for the tests, whose models
// are smaller).
var probeMinBytes = ProbeMinBytes

// probePasses is the number of reads of the weights per probe (the best
// counts): two, each a fraction of a second for the models worth probing.
const probePasses = 2

// Measurement is what the repetitions of one test measured.
type Measurement struct {
	Test    Test
	Samples []time.Duration // one per counted repetition: the timed part
	TTFT    []time.Duration // per repetition, tests with a prompt: the prompt's forward passes
	ITL     []time.Duration // every decode step of every counted repetition
	// Ops accumulates the op timers over the timed parts of the counted
	// repetitions (nil when the model's timers are off).
	Ops *Snapshot
	// TimersOverheadPct is the median decode step with timers on over the
	// median step with them off, minus 1, in percent (set with
	// RunConfig.TimersOverhead for tests that generate).
	TimersOverheadPct *float64
	// MemReadGBs holds the bandwidth probes (GB/s) taken beside the
	// counted repetitions (RunConfig.ProbeBandwidth).
	MemReadGBs []float64
}

// Runs is the number of Progress calls Run makes for t under cfg.
func (cfg RunConfig) Runs(t Test) int {
	n := 1 + cfg.reps()
	if cfg.overhead(t) {
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

func (cfg RunConfig) overhead(t Test) bool { return cfg.TimersOverhead && t.NGen > 0 }

// Run measures test t on m: one uncounted warm-up, then cfg.Reps counted
// repetitions. Each run empties the cache, evaluates NDepth random tokens
// (untimed), then times:
//   - pp: one Eval of NPrompt random tokens (in passes of the model's batch);
//   - tg: NGen single-token Evals of random ids (no sampling), after one
//     untimed token when there is no depth, as llama-bench times generation;
//   - pp+tg: the prompt, then the NGen single-token Evals, as one span.
//
// The counted runs keep the model's timers as they are (m.Timers.Enabled).
// The overhead runs switch them on and off at every decode step, so that
// a noisy neighbour or a clock-speed change weighs on both halves alike.
//
// Cancelling ctx stops the run within one forward pass (a batch of the
// prompt or one decode step); Run then returns an error wrapping ctx.Err()
// and no measurement: a test counts only once all its repetitions ran.
func Run(ctx context.Context, m *engine.Model, t Test, cfg RunConfig) (*Measurement, error) {
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
	r := &runner{ctx: ctx, m: m, t: t, depth: ids(t.NDepth), prompt: ids(t.NPrompt), gen: ids((t.NGen + 1) * t.Seqs()),
		itl: make([]time.Duration, 0, t.NGen), timersOn: m.Timers.Enabled,
		seqs: make([]engine.SeqID, t.Seqs()), step: make([]int32, t.Seqs())}
	defer func() { m.Timers.Enabled = r.timersOn }()
	progress := func() {
		if cfg.Progress != nil {
			cfg.Progress()
		}
	}

	meas := &Measurement{Test: t}
	if r.timersOn {
		meas.Ops = NewSnapshot(m.Timers.Layers())
	}
	if _, err := r.once(); err != nil { // warm-up: page the weights in, settle the caches
		return nil, err
	}
	progress()
	var weights [][]byte
	if cfg.ProbeBandwidth && t.IsGen() {
		weights = m.WeightMemory()
		var total int64
		for _, w := range weights {
			total += int64(len(w))
		}
		if total < probeMinBytes() {
			weights = nil
		}
	}
	probe := func() {
		if weights != nil && ctx.Err() == nil {
			meas.MemReadGBs = append(meas.MemReadGBs, ProbeReadBandwidth(weights, runtime.NumCPU(), probePasses)/1e9)
		}
	}
	probe()
	for rep := 0; rep < cfg.reps(); rep++ {
		s, err := r.once()
		if err != nil {
			return nil, err
		}
		probe()
		meas.Samples = append(meas.Samples, s.total)
		if t.NPrompt > 0 {
			meas.TTFT = append(meas.TTFT, s.ttft)
		}
		meas.ITL = append(meas.ITL, r.itl...)
		if meas.Ops != nil {
			meas.Ops.Add(TakeSnapshot(m.Timers))
		}
		progress()
	}
	if cfg.overhead(t) {
		var on, off []time.Duration
		for rep := 0; rep < cfg.reps(); rep++ {
			r.alternate = 1 + rep%2 // which parity is on changes every run
			_, err := r.once()
			r.alternate = 0
			if err != nil {
				return nil, err
			}
			for i, d := range r.itl {
				if r.stepTimers(rep%2, i) {
					on = append(on, d)
				} else {
					off = append(off, d)
				}
			}
			progress()
		}
		if len(on) > 0 && len(off) > 0 {
			v := (Median(durs(on))/Median(durs(off)) - 1) * 100
			meas.TimersOverheadPct = &v
		}
	}
	return meas, nil
}

// runner holds one test's token ids and the per-run scratch.
type runner struct {
	ctx                context.Context
	m                  *engine.Model
	t                  Test
	depth, prompt, gen []int32
	itl                []time.Duration // the last run's decode step times
	timersOn           bool            // the model's configured timer state
	alternate          int             // 0: timers as configured; 1 or 2: overhead run, see stepTimers
	seqs               []engine.SeqID  // parallel runs: the sequences decoded together
	step               []int32         // parallel runs: one token per sequence
}

// stepTimers is whether decode step i of an overhead run of parity p (0 or
// 1) runs with timers on: even steps for p = 0, odd ones for p = 1.
func (r *runner) stepTimers(p, i int) bool { return i%2 == p }

type sample struct{ total, ttft time.Duration }

// once is one run; the op timers are reset where the timed part starts, so
// afterwards they hold that part only.
func (r *runner) once() (sample, error) {
	m, t := r.m, r.t
	if err := r.ctx.Err(); err != nil {
		return sample{}, fmt.Errorf("bench: %s: %w", t.Name(), err)
	}
	m.Reset()
	r.itl = r.itl[:0]
	if t.NDepth > 0 {
		if err := r.eval(r.depth); err != nil {
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
	if t.Seqs() > 1 {
		if err := r.forkSeqs(); err != nil {
			return sample{}, err
		}
	}
	m.Timers.Reset()
	var s sample
	start := time.Now()
	last := start
	if t.NPrompt > 0 {
		if err := r.eval(r.prompt); err != nil {
			return sample{}, err
		}
		last = time.Now()
		s.ttft = last.Sub(start)
	}
	for i := 0; i < t.NGen; i++ {
		if r.alternate > 0 {
			m.Timers.Enabled = r.stepTimers(r.alternate-1, i)
		}
		if err := r.ctx.Err(); err != nil {
			m.Timers.Enabled = r.timersOn
			return sample{}, fmt.Errorf("bench: %s: %w", t.Name(), err)
		}
		if err := r.decode(gen, i); err != nil {
			return sample{}, err
		}
		now := time.Now()
		r.itl = append(r.itl, now.Sub(last))
		last = now
	}
	m.Timers.Enabled = r.timersOn
	s.total = last.Sub(start)
	return s, nil
}

// eval runs tokens through the default sequence one batch per Eval (the
// passes Eval itself would make), checking the context between them.
func (r *runner) eval(tokens []int32) error {
	step := max(1, r.m.BatchSize())
	for len(tokens) > 0 {
		if err := r.ctx.Err(); err != nil {
			return fmt.Errorf("bench: %s: %w", r.t.Name(), err)
		}
		n := min(step, len(tokens))
		if len(tokens) == step+1 {
			// One Eval for the last two passes: a lone last token on its
			// own would count as a decode step in the op timers.
			n = len(tokens)
		}
		if _, err := r.m.Eval(tokens[:n], false); err != nil {
			return err
		}
		tokens = tokens[n:]
	}
	return nil
}

func durs(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d)
	}
	return out
}

// forkSeqs gives every parallel sequence the context built so far in the
// default sequence (the depth and the untimed first token), shared by
// copy-on-write forks as parallel completions of one prompt would be.
func (r *runner) forkSeqs() error {
	r.seqs[0] = r.m.DefaultSeq()
	for i := 1; i < len(r.seqs); i++ {
		s, err := r.m.Fork(r.seqs[0])
		if err != nil {
			return err
		}
		r.seqs[i] = s
	}
	return nil
}

// decode runs decode step i: one token of the default sequence, or one
// token of each parallel sequence in a single pass.
func (r *runner) decode(gen []int32, i int) error {
	if len(r.seqs) <= 1 || r.t.Seqs() <= 1 {
		_, err := r.m.Eval(gen[i:i+1], false)
		return err
	}
	n := len(r.seqs)
	for j := range r.step {
		r.step[j] = gen[(i*n+j)%len(gen)]
	}
	_, err := r.m.DecodeSeqs(r.seqs, r.step)
	return err
}
