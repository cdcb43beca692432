package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/loadgen"
	"github.com/gollm/gollm/tokenizer"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type benchServeFlags struct {
	baseURL, endpoint, model, apiKey string
	modelFile, dataset               string
	inputLen, outputLen, prefixLen   int
	inputRange                       float64
	numPrompts, warmup               int
	duration, timeout                time.Duration
	concurrency                      string
	rates                            string
	burstiness                       float64
	maxConcurrency                   int
	goodput                          string
	costPerHour                      float64
	ignoreEOS                        bool
	output, plot, save               string
	compare                          bool
	extraBody                        string
	seed                             uint64
}

func benchServeCmd() *cobra.Command {
	var f benchServeFlags
	cmd := &cobra.Command{
		Use:   "serve --base-url URL [flags] | serve --compare A.json B.json",
		Short: "Load-test an OpenAI-compatible server: TTFT, ITL, TPOT, throughput, goodput (vLLM bench serve figures)",
		Long: `Send streamed requests to an OpenAI-compatible server (gollm serve,
llama-server, vLLM, Ollama's /v1, ...) and report what users and the
operator see, named as vLLM's bench serve names it: TTFT (first chunk with
content), ITL (gaps between content chunks, per token), TPOT ((E2EL - TTFT) /
(output tokens - 1)), E2EL, request/output/total throughput over the span of
the measured requests, goodput under --goodput, cost per million output
tokens, and the server's own timings when it sends them (llama-server,
gollm serve).

Requests arrive in a closed loop (--concurrency; a comma list sweeps, one
result per level) or at --request-rate (Poisson; --burstiness is the gamma
shape, lower is burstier) capped by --max-concurrency. --warmup requests go
first at each level and are not counted. Prompts are random tokens of the
model's own tokenizer (-m FILE.gguf) or of a fixed English vocabulary, or
come from --dataset (JSONL with "prompt" and optional "output_len").

  gollm bench serve --base-url http://127.0.0.1:8080 -m model.gguf \
      --input-len 128 --output-len 128 --concurrency 1,2,4,8,16 --plot sweep.png
  gollm bench serve --request-rate 2 --burstiness 0.5 --max-concurrency 16 --num-prompts 200
  gollm bench serve --compare llama-server.json gollm.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.compare {
				if len(args) != 2 {
					return usageErr("--compare takes two JSON reports, got %d arguments", len(args))
				}
				return nil
			}
			if len(args) > 0 {
				return usageErr("unexpected arguments %q", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.compare {
				return runBenchCompare(args[0], args[1], cmd.OutOrStdout())
			}
			return runBenchServe(&f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.baseURL, "base-url", "http://127.0.0.1:8080", "the server's address")
	fl.StringVar(&f.endpoint, "endpoint", loadgen.EndpointCompletions, "API path: "+loadgen.EndpointCompletions+" or "+loadgen.EndpointChat)
	fl.StringVar(&f.model, "model", "", "model name to send (default: the first of the server's /v1/models)")
	fl.StringVar(&f.apiKey, "api-key", os.Getenv("OPENAI_API_KEY"), "bearer token (default $OPENAI_API_KEY)")
	fl.StringVarP(&f.modelFile, "model-file", "m", "", "GGUF file whose tokenizer builds the random prompts (default: a fixed English vocabulary)")
	fl.StringVar(&f.dataset, "dataset", "", "JSONL file of prompts (\"prompt\" or \"text\", optional \"output_len\") instead of random ones")
	fl.IntVar(&f.inputLen, "input-len", 128, "random prompt length in tokens")
	fl.Float64Var(&f.inputRange, "input-len-range", 0, "spread prompt lengths uniformly over input-len x (1 ± this ratio), in [0, 1)")
	fl.IntVar(&f.prefixLen, "prefix-len", 0, "tokens shared by every prompt before its random part (measures prefix caching)")
	fl.IntVar(&f.outputLen, "output-len", 128, "output tokens per request (max_tokens)")
	fl.BoolVar(&f.ignoreEOS, "ignore-eos", true, "send ignore_eos and min_tokens so every request generates --output-len tokens")
	fl.IntVar(&f.numPrompts, "num-prompts", 0, "measured requests per level (0: 4 x the level's concurrency)")
	fl.DurationVar(&f.duration, "duration", 0, "send requests for this long per level instead of --num-prompts")
	fl.IntVar(&f.warmup, "warmup", 1, "uncounted requests sent before each level")
	fl.StringVarP(&f.concurrency, "concurrency", "c", "1", "closed-loop concurrency levels, comma list (a sweep)")
	fl.StringVar(&f.rates, "request-rate", "", "open-loop request rates per second, comma list (\"inf\": all at once); replaces --concurrency")
	fl.Float64Var(&f.burstiness, "burstiness", 1, "gamma shape of the arrival gaps with --request-rate (1: Poisson; lower: burstier)")
	fl.IntVar(&f.maxConcurrency, "max-concurrency", 0, "cap on requests in flight with --request-rate (0: none)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "per-request timeout (counted as a \"timeout\" failure)")
	fl.StringVar(&f.goodput, "goodput", "", "SLO for goodput in ms, e.g. ttft:500,tpot:50 (also e2el)")
	fl.Float64Var(&f.costPerHour, "cost-per-hour", 0, "the server's price per hour, for cost per million output tokens")
	fl.StringVarP(&f.output, "output", "o", "md", "report format: "+strings.Join(loadgen.Formats, ", "))
	fl.StringVar(&f.save, "save", "", "also write the JSON report to this file")
	fl.StringVar(&f.plot, "plot", "", "draw the throughput-latency curves and latency distributions to FILE.png or FILE.svg")
	fl.StringVar(&f.extraBody, "extra-body", "", "JSON object of fields to add to every request, e.g. '{\"top_k\":1}'")
	fl.BoolVar(&f.compare, "compare", false, "print two saved JSON reports side by side with ratios")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the prompts and arrival times")
	return cmd
}

// levels turns the flags into the sweep's levels.
func (f *benchServeFlags) levels() ([]loadgen.Level, error) {
	var lv []loadgen.Level
	if f.rates != "" {
		if f.burstiness <= 0 {
			return nil, usageErr("--burstiness %g: must be > 0", f.burstiness)
		}
		if f.maxConcurrency < 0 {
			return nil, usageErr("--max-concurrency %d: must be >= 0", f.maxConcurrency)
		}
		for _, s := range strings.Split(f.rates, ",") {
			s = strings.TrimSpace(s)
			r := math.Inf(1)
			if s != "inf" {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || v <= 0 || math.IsNaN(v) {
					return nil, usageErr("--request-rate %q: want positive numbers or inf", s)
				}
				r = v
			}
			l := loadgen.Level{RequestRate: r, Burstiness: f.burstiness, Concurrency: f.maxConcurrency}
			if math.IsInf(r, 1) && l.Concurrency == 0 {
				if f.numPrompts == 0 && f.duration == 0 {
					return nil, usageErr("--request-rate inf without --max-concurrency needs --num-prompts or --duration")
				}
				l.Concurrency = max(f.numPrompts, 1<<20) // all at once
			}
			lv = append(lv, l)
		}
		return lv, nil
	}
	for _, s := range strings.Split(f.concurrency, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || c < 1 {
			return nil, usageErr("--concurrency %q: want positive integers", s)
		}
		lv = append(lv, loadgen.Level{Concurrency: c})
	}
	return lv, nil
}

func (f *benchServeFlags) check() error {
	switch {
	case f.endpoint != loadgen.EndpointCompletions && f.endpoint != loadgen.EndpointChat:
		return usageErr("--endpoint %q: want %s or %s", f.endpoint, loadgen.EndpointCompletions, loadgen.EndpointChat)
	case f.numPrompts < 0 || f.warmup < 0 || f.duration < 0 || f.timeout < 0:
		return usageErr("--num-prompts, --warmup, --duration and --timeout must not be negative")
	case f.costPerHour < 0:
		return usageErr("--cost-per-hour %g: must not be negative", f.costPerHour)
	case f.inputLen < 1 || f.outputLen < 1 || f.prefixLen < 0:
		return usageErr("--input-len and --output-len must be >= 1, --prefix-len >= 0")
	case f.inputRange < 0 || f.inputRange >= 1:
		return usageErr("--input-len-range %g: want a ratio in [0, 1)", f.inputRange)
	}
	if !strings.HasPrefix(f.baseURL, "http://") && !strings.HasPrefix(f.baseURL, "https://") {
		return usageErr("--base-url %q: want http://HOST:PORT", f.baseURL)
	}
	if !slicesContains(loadgen.Formats, f.output) {
		return usageErr("-o %q: want %s", f.output, strings.Join(loadgen.Formats, ", "))
	}
	if f.plot != "" {
		if _, err := loadgen.PlotFormat(f.plot); err != nil {
			return usageErr("--plot %q: want a .png or .svg file", f.plot)
		}
	}
	return nil
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// workload builds the prompts the flags ask for, and names the tokenizer.
func (f *benchServeFlags) workload() (loadgen.Workload, string, func(), error) {
	var vocab loadgen.Vocab = loadgen.FixedVocab{}
	name := "fixed"
	closeFn := func() {}
	if f.modelFile != "" {
		gf, err := gguf.Open(f.modelFile)
		if err != nil {
			return nil, "", nil, fmt.Errorf("bench serve: %w", err)
		}
		tok, err := tokenizer.FromGGUF(gf)
		if err != nil {
			gf.Close()
			return nil, "", nil, fmt.Errorf("bench serve: %s: %w", f.modelFile, err)
		}
		vocab = loadgen.TokenizerVocab(tok)
		name = f.modelFile
		closeFn = func() { gf.Close() }
	}
	if f.dataset != "" {
		fh, err := os.Open(f.dataset)
		if err != nil {
			closeFn()
			return nil, "", nil, fmt.Errorf("bench serve: %w", err)
		}
		defer fh.Close()
		var counter loadgen.Vocab
		if f.modelFile != "" {
			counter = vocab
		}
		d, err := loadgen.ReadDataset(fh, counter, f.outputLen)
		if err != nil {
			closeFn()
			return nil, "", nil, fmt.Errorf("bench serve: %s: %w", f.dataset, err)
		}
		return d, name, closeFn, nil
	}
	w, err := loadgen.NewRandom(vocab, f.inputLen, f.inputRange, f.prefixLen, f.outputLen, f.seed)
	if err != nil {
		closeFn()
		return nil, "", nil, fmt.Errorf("bench serve: %w", err)
	}
	return w, name, closeFn, nil
}

func runBenchServe(f *benchServeFlags, stdout, stderr io.Writer) error {
	if err := f.check(); err != nil {
		return err
	}
	levels, err := f.levels()
	if err != nil {
		return err
	}
	slo, err := loadgen.ParseSLO(f.goodput)
	if err != nil {
		return usageErr("--goodput %q: want e.g. ttft:500,tpot:50 (milliseconds)", f.goodput)
	}
	var extra map[string]any
	if f.extraBody != "" {
		if err := json.Unmarshal([]byte(f.extraBody), &extra); err != nil {
			return usageErr("--extra-body: want a JSON object: %v", err)
		}
	}
	wl, tokName, closeFn, err := f.workload()
	if err != nil {
		return err
	}
	defer closeFn()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	maxConc := 1
	for _, l := range levels {
		maxConc = max(maxConc, min(l.Concurrency, 4096))
	}
	target := &loadgen.Target{
		BaseURL: f.baseURL, Endpoint: f.endpoint, Model: f.model, APIKey: f.apiKey,
		IgnoreEOS: f.ignoreEOS, Timeout: f.timeout, HTTP: loadgen.NewHTTPClient(maxConc),
		ExtraBody: extra,
	}
	if target.Model == "" {
		if id, err := target.FetchModel(ctx); err == nil {
			target.Model = id
		} else if f.modelFile != "" {
			target.Model = strings.TrimSuffix(filepath.Base(f.modelFile), ".gguf")
		}
	}
	live := term.IsTerminal(int(os.Stderr.Fd())) && stderr == io.Writer(os.Stderr)
	cfg := loadgen.Config{
		Target: target, Workload: wl, NumPrompts: f.numPrompts, Duration: f.duration,
		Warmup: f.warmup, Seed: f.seed,
		Progress: func(p loadgen.Progress) {
			if !live {
				return
			}
			phase := "measuring"
			if p.Warmup {
				phase = "warm-up"
			}
			total := "?"
			if p.Total > 0 {
				total = strconv.Itoa(p.Total)
			}
			tps := 0.0
			if s := p.Elapsed.Seconds(); s > 0 {
				tps = float64(p.OutputTokens) / s
			}
			fmt.Fprintf(stderr, "\r\033[K%s %s: %d/%s done, %d failed, %.1f out tok/s, %.1fs",
				p.Level, phase, p.Done, total, p.Failed, tps, p.Elapsed.Seconds())
		},
	}
	runner, err := loadgen.NewRunner(cfg)
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	rep := &loadgen.Report{
		Tool: "gollm bench serve", Date: time.Now().UTC().Format(time.RFC3339),
		BaseURL: f.baseURL, Endpoint: f.endpoint, Model: target.Model, Tokenizer: tokName,
		Dataset: f.dataset, OutputLen: f.outputLen, IgnoreEOS: f.ignoreEOS,
		NumPrompts: f.numPrompts, DurationS: f.duration.Seconds(), Warmup: f.warmup,
	}
	if f.dataset == "" {
		rep.InputLen, rep.InputRange, rep.PrefixLen = f.inputLen, f.inputRange, f.prefixLen
	}
	var runErr error
	completed := 0
	for _, lv := range levels {
		res, err := runner.Run(ctx, lv)
		if live {
			fmt.Fprint(stderr, "\r\033[K")
		}
		if err != nil {
			runErr = fmt.Errorf("bench serve: %s: %w", lv, err)
			break
		}
		s := loadgen.Summarize(res, slo, f.costPerHour)
		reportErrors(stderr, lv, res)
		completed += s.Completed
		rep.Levels = append(rep.Levels, s)
	}
	if len(rep.Levels) == 0 {
		return runErr
	}
	if err := rep.Write(stdout, f.output); err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	if f.save != "" {
		if err := writeFileWith(f.save, func(w io.Writer) error { return rep.Write(w, "json") }); err != nil {
			return fmt.Errorf("bench serve: %w", err)
		}
	}
	if f.plot != "" {
		format, _ := loadgen.PlotFormat(f.plot)
		title := fmt.Sprintf("%s %s (%s)", f.baseURL, target.Model, rep.Date)
		if err := writeFileWith(f.plot, func(w io.Writer) error { return loadgen.Plot(w, rep.Levels, title, format) }); err != nil {
			return fmt.Errorf("bench serve: %w", err)
		}
	}
	if runErr == nil && completed == 0 {
		runErr = fmt.Errorf("bench serve: every request failed")
	}
	return runErr
}

// reportErrors prints one example of each kind of failure of a level, so
// the counts in the table can be explained.
func reportErrors(stderr io.Writer, lv loadgen.Level, res *loadgen.LevelResult) {
	seen := map[string]int{}
	var order []string
	example := map[string]string{}
	for _, r := range res.Requests {
		if r.OK() {
			continue
		}
		if seen[r.ErrKind] == 0 {
			order = append(order, r.ErrKind)
			example[r.ErrKind] = fmt.Sprint(r.Err)
		}
		seen[r.ErrKind]++
	}
	for _, k := range order {
		fmt.Fprintf(stderr, "bench serve: %s: %d of %d requests failed with %s, e.g. %s\n", lv, seen[k], len(res.Requests), k, example[k])
	}
}

func writeFileWith(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

func runBenchCompare(a, b string, stdout io.Writer) error {
	read := func(path string) (*loadgen.SavedReport, error) {
		fh, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("bench serve: %w", err)
		}
		defer fh.Close()
		r, err := loadgen.ReadReport(fh, filepath.Base(path))
		if err != nil {
			return nil, fmt.Errorf("bench serve: %w", err)
		}
		return r, nil
	}
	ra, err := read(a)
	if err != nil {
		return err
	}
	rb, err := read(b)
	if err != nil {
		return err
	}
	if err := loadgen.Compare(stdout, ra, rb); err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	return nil
}
