package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gollm/gollm/bench"
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/synth"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type benchFlags struct {
	models    []string
	synthetic string
	types     string
	synthSeed uint64
	prompts   []string
	gens      []string
	pgs       []string
	depths    []string
	load      benchModelFlags
	reps      int
	output    string
	noTimers  bool
	overhead  bool
	memBW     float64
	seed      uint64
	parallel  int
	prof      profileFlags
	cmd       *cobra.Command
	warned    map[string]bool // models already warned about
}

func benchCmd() *cobra.Command {
	f := benchFlags{warned: map[string]bool{}}
	cmd := &cobra.Command{
		Use:   "bench -m FILE [-m FILE...] | --synthetic NAME [--type Q4_0,Q8_0]",
		Short: "Measure prompt processing and generation speed (llama-bench style), compare files",
		Long: `Measure tokens per second like llama-bench: pp tests time a prompt's forward
passes, tg tests time single-token decode steps (random token ids, no
sampling), pp+tg tests both in one span; -d puts that many untimed tokens in
the context first. Each test runs once uncounted, then -r times.

Lists are comma-separated or repeated flags: models, test sizes, and the
model options -t, -b/-ub, --kv-type (-ctk/-ctv) and --kv-block, each
combination of which is loaded in turn, a column of the table showing the
option that varies. -ngl, -fa and -mmp are accepted as llama-bench takes
them, and change nothing on the CPU. -pg P,N is accepted as in llama-bench
(same as --pg P,N). Ctrl-C prints the tests already finished, marked
partial.

  gollm bench --synthetic tinyllama-1.1b --type Q4_0,Q8_0,Q4_K_M -p 64 -n 32 -r 3
  gollm bench -m a.gguf -m b.gguf -p 512 -n 128 -o json
  gollm bench -m a.gguf -ctk f16,q8_0 -ub 256,512 -t 1,2`,
		Args: cobra.ArbitraryArgs, // the values of -pg (see tests) or one model file
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd.Context(), &f, args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.cmd = cmd
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.models, "model", "m", nil, "GGUF model file (repeatable or comma list; one positional argument also works); the first is the speedup baseline")
	fl.StringVar(&f.synthetic, "synthetic", "", "benchmark a random-weight model of this shape: "+strings.Join(synth.Names(), ", "))
	fl.StringVar(&f.types, "type", "Q4_0", "with --synthetic: quantization types, comma list (e.g. Q8_0,Q4_0,Q4_K_M)")
	fl.Uint64Var(&f.synthSeed, "synth-seed", 1, "with --synthetic: weight RNG seed")
	fl.StringArrayVarP(&f.prompts, "n-prompt", "p", []string{"512"}, "prompt sizes of pp tests (0: none)")
	fl.StringArrayVarP(&f.gens, "n-gen", "n", []string{"128"}, "generated tokens of tg tests (0: none)")
	fl.StringArrayVar(&f.pgs, "pg", nil, "P,N: prompt of P then N generated tokens, timed as one (repeatable)")
	fl.StringArrayVarP(&f.depths, "n-depth", "d", []string{"0"}, "tokens already in the context before each test")
	f.load.register(cmd)
	fl.IntVarP(&f.reps, "repetitions", "r", 5, "counted repetitions per test (after one warm-up)")
	fl.StringVarP(&f.output, "output", "o", "md", "output format: "+strings.Join(bench.Formats, ", "))
	fl.BoolVar(&f.noTimers, "no-timers", false, "switch the per-op timers off (no op breakdown in the JSON)")
	fl.BoolVar(&f.overhead, "timers-overhead", false, "also run every repetition with the timers toggled and report their cost")
	fl.IntVar(&f.parallel, "parallel", 1, "tg tests decode N independent sequences together (system tok/s counts all of them)")
	fl.Float64Var(&f.memBW, "mem-bw", 0, "the machine's read bandwidth in GB/s for the BW % column (0: measure it, beside each test on the model's weights when they are large enough)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the random token ids")
	f.prof.register(cmd)
	cmd.AddCommand(benchServeCmd())
	return cmd
}

// benchModel is one file to benchmark and its display name.
type benchModel struct{ path, name string }

func runBench(ctx context.Context, f *benchFlags, args []string, stdout, stderr io.Writer) (err error) {
	tests, err := f.tests(args)
	if err != nil {
		return err
	}
	if f.reps < 1 || f.memBW < 0 {
		return usageErr("-r must be at least 1 and --mem-bw must not be negative")
	}
	if !slices.Contains(bench.Formats, strings.ToLower(f.output)) {
		return usageErr("-o must be one of %s, got %q", strings.Join(bench.Formats, ", "), f.output)
	}
	if f.synthetic == "" {
		for _, name := range []string{"type", "synth-seed"} {
			if f.cmd != nil && f.cmd.Flags().Changed(name) {
				return usageErr("--%s applies to --synthetic models (a model file has its own)", name)
			}
		}
	}
	loads, err := f.load.loads(stderr)
	if err != nil {
		return err
	}
	ctxLen, err := f.load.context(tests)
	if err != nil {
		return err
	}
	models, err := f.modelList(ctx, stderr)
	if err != nil {
		return err
	}
	if ctx.Err() != nil { // Ctrl-C while synthetic models were written: nothing ran
		return errInterrupted
	}

	stopProfiles, err := f.prof.start()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfiles()) }()

	mach := bench.DetectMachine()
	if f.memBW > 0 {
		mach.MemReadGBs, mach.MemReadGiven = f.memBW, true
	}

	cfg := bench.RunConfig{Reps: f.reps, Seed: f.seed, TimersOverhead: f.overhead, ProbeBandwidth: mach.MemReadGBs == 0}
	total := 0
	for _, t := range tests {
		total += cfg.Runs(t)
	}
	prog := newProgress(stderr, total*len(models)*len(loads))
	cfg.Progress = prog.step

	var results []bench.Result
	var runErr error
run:
	for _, bm := range models {
		for _, ld := range loads {
			rs, err := benchOne(ctx, bm, ld, ctxLen, f, tests, cfg, mach, prog, stderr)
			results = append(results, rs...)
			if err != nil {
				runErr = err
				break run
			}
		}
	}
	prog.finish()
	bench.SetSpeedups(results)
	if runErr != nil {
		// Ctrl-C, or a combination this model cannot load (a q8_0 cache
		// with small heads): the tests that finished, marked partial, as
		// llama-bench prints the rows before its error; no bandwidth probe
		// (a second of work nobody waits for).
		if !interrupted(runErr) && len(results) == 0 {
			return runErr
		}
		bench.MarkPartial(results)
		fmt.Fprintf(stderr, "bench: stopped: %d of %d tests finished\n", len(results), len(tests)*len(models)*len(loads))
		if err := bench.Write(stdout, f.output, mach, results); err != nil {
			return errors.Join(runErr, err)
		}
		if interrupted(runErr) {
			return errInterrupted
		}
		return runErr
	}
	if mach.MemReadGBs == 0 && ctx.Err() == nil && bench.NeedsBandwidth(results) {
		// After the runs: the probe's buffer must not count in their peak
		// RSS. Only for rows without probes of their own (models too small
		// to probe on).
		fmt.Fprintln(stderr, "bench: measuring the memory read bandwidth (--mem-bw GB/s skips this)")
		mach.MemReadGBs = bench.ReadBandwidth() / 1e9
		bench.SetBandwidth(results, mach.MemReadGBs)
	}
	mach.MemReadProbedMinGBs, mach.MemReadProbedMaxGBs, _ = bench.ProbedBandwidth(results)
	if err := bench.Write(stdout, f.output, mach, results); err != nil {
		return err
	}
	if ctx.Err() != nil { // Ctrl-C after the last test: the table is whole
		return errInterrupted
	}
	return nil
}

// benchOne loads one model with one combination of options and runs every
// test on it. It returns the tests that finished, and on Ctrl-C an error
// wrapping context.Canceled.
func benchOne(ctx context.Context, bm benchModel, ld benchLoad, ctxLen int, f *benchFlags, tests []bench.Test,
	cfg bench.RunConfig, mach bench.Machine, prog *progress, stderr io.Writer) ([]bench.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kv, err := f.load.kvPositions(tests, ld.kvBlock)
	if err != nil {
		return nil, err
	}
	if f.parallel > 1 && ld.batch == 0 {
		ld.batch = max(64, f.parallel)
	}
	m, err := engine.Load(bm.path, f.load.options(ld, ctxLen, kv, !f.noTimers))
	if err != nil {
		return nil, err
	}
	defer m.Close()
	if f.load.ctx > m.Config.ContextLen && !f.warned[bm.path] {
		f.warned[bm.path] = true
		fmt.Fprintf(stderr, "gollm: warning: -c %d is beyond the %d tokens %s was trained on\n", f.load.ctx, m.Config.ContextLen, bm.path)
	}
	// Like llama-bench, which repacks inside its model load: the timed runs
	// start once the weights are packed, not while a packer shares the cores.
	m.WaitPacked()
	if f.prof.labels() {
		m.EnableProfileLabels()
	}
	info := bench.DescribeModel(m, bm.path, bm.name)
	info.KVType, info.KVBlock, info.Pack = ld.kvType, ld.kvBlock, f.load.pack
	label := fmt.Sprintf("%s %s", info.Name, ld.label())
	var out []bench.Result
	for _, t := range tests {
		prog.describe(label + " " + t.Name())
		meas, err := bench.Run(ctx, m, t, cfg)
		if err != nil {
			return out, fmt.Errorf("%s %s: %w", info.Name, t.Name(), err)
		}
		r := bench.NewResult(info, mach, meas)
		prog.done(fmt.Sprintf("bench: %s %s: %.2f ± %.2f tok/s", label, t.Name(), r.AvgTS, r.StddevTS))
		out = append(out, r)
	}
	return out, nil
}

// tests expands -p/-n/-pg/-d. pflag reads llama-bench's "-pg 512,128" as
// -p "g" followed by the argument "512,128", so each -p value "g" takes the
// next positional argument as a pg pair ("-pg=512,128" arrives as "g=512,128").
func (f *benchFlags) tests(args []string) ([]bench.Test, error) {
	var prompts []string
	pgs := append([]string(nil), f.pgs...)
	for _, p := range f.prompts {
		switch {
		case p == "g":
			if len(args) == 0 {
				return nil, usageErr("-pg needs a value P,N")
			}
			pgs, args = append(pgs, args[0]), args[1:]
		case strings.HasPrefix(p, "g="):
			pgs = append(pgs, p[2:])
		default:
			prompts = append(prompts, p)
		}
	}
	switch {
	case len(args) == 1 && len(f.models) == 0 && f.synthetic == "":
		f.models = args // gollm bench model.gguf
	case len(args) > 0:
		return nil, usageErr("unexpected arguments %q (bench takes models as -m FILE, or one FILE argument)", strings.Join(args, " "))
	}
	pp, err := intList("-p", prompts, 0)
	if err != nil {
		return nil, err
	}
	tg, err := intList("-n", f.gens, 0)
	if err != nil {
		return nil, err
	}
	depths, err := intList("-d", f.depths, 0)
	if err != nil {
		return nil, err
	}
	var pairs [][2]int
	for _, s := range pgs {
		v, err := intList("-pg", []string{s}, 0)
		if err != nil || len(v) != 2 {
			return nil, usageErr("-pg wants P,N, got %q", s)
		}
		pairs = append(pairs, [2]int{v[0], v[1]})
	}
	tests := bench.Tests(pp, tg, pairs, depths)
	if len(tests) == 0 {
		return nil, usageErr("no tests: give a positive -p, -n or -pg")
	}
	if f.parallel < 1 {
		return nil, usageErr("--parallel must be at least 1, got %d", f.parallel)
	}
	if f.parallel > 1 {
		for i := range tests {
			if tests[i].IsGen() {
				tests[i].Parallel = f.parallel
			}
		}
	}
	return tests, nil
}

// modelList resolves -m and --synthetic (writing synthetic files on first use).
func (f *benchFlags) modelList(ctx context.Context, stderr io.Writer) ([]benchModel, error) {
	var out []benchModel
	for _, m := range splitList(f.models) {
		if _, err := os.Stat(m); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		out = append(out, benchModel{path: m})
	}
	if f.synthetic != "" {
		shape, err := synth.Lookup(f.synthetic)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		models, err := ensureSynthetic(ctx, shape, splitList([]string{f.types}), f.synthSeed, stderr)
		if err != nil {
			return nil, err
		}
		out = append(out, models...)
	}
	if len(out) == 0 {
		return nil, usageErr("give a model with -m FILE or --synthetic NAME")
	}
	return out, nil
}

// splitList flattens repeated and comma-separated values.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// intList parses a list flag of integers >= lo.
func intList(flag string, vals []string, lo int) ([]int, error) {
	var out []int
	for _, s := range splitList(vals) {
		n, err := strconv.Atoi(s)
		if err != nil || n < lo {
			return nil, usageErr("%s wants integers >= %d, got %q", flag, lo, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// progress is a bar when stderr is a terminal, else one line per test.
type progress struct {
	bar *progressbar.ProgressBar
	w   io.Writer
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30))
	}
	return p
}

func (p *progress) step() {
	if p.bar != nil {
		p.bar.Add(1)
	}
}

func (p *progress) describe(s string) {
	if p.bar != nil {
		p.bar.Describe(s)
	}
}

// done reports a finished test: a line when there is no bar.
func (p *progress) done(line string) {
	if p.bar == nil {
		fmt.Fprintln(p.w, line)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
