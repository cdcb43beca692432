package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/gollm/gollm/bench"
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/sampler"
	"github.com/spf13/cobra"
)

type generateFlags struct {
	model        modelFlags
	prompt       promptFlags
	n            int
	temp         float32
	topK         int
	topP         float32
	minP         float32
	repeat       float32
	repeatLastN  int
	presence     float32
	frequency    float32
	seed         int64
	stops        []string
	reverse      []string
	ignoreEOS    bool
	json         bool
	parseSpecial bool
	noParseSpec  bool
	timings      bool // per-layer/per-op report after the run (timings.go)
	parallel     int  // completions of one prompt decoded together (parallel.go)
	prof         profileFlags
	chat         chatFlags // --chat, --messages, --system, ... (chatprompt.go)
}

func generateCmd() *cobra.Command {
	var g generateFlags
	cmd := &cobra.Command{
		Use:   "generate -m FILE -p TEXT",
		Short: "Generate text from a prompt, streaming it, with a timing summary on stderr",
		Long: `Generate text from a prompt (-p, -f FILE, or standard input), streaming it to
stdout with a timing summary on stderr. Ctrl-C stops generating and still
prints the text, the summary (stop: interrupted) or the --json object; a
second Ctrl-C exits at once.`,
		Args: g.model.modelArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runGenerate(cmd.Context(), &g) },
	}
	g.model.register(cmd)
	g.prompt.register(cmd)
	d := sampler.DefaultConfig()
	fl := cmd.Flags()
	fl.IntVarP(&g.n, "n-predict", "n", 128, "tokens to generate (-1: until end of generation or a full context)")
	fl.Float32Var(&g.temp, "temp", d.Temperature, "temperature, >= 0 (0: greedy)")
	fl.IntVar(&g.topK, "top-k", d.TopK, "top-k sampling, >= 0 (0: off)")
	fl.Float32Var(&g.topP, "top-p", d.TopP, "top-p sampling, in [0, 1] (1: off; 0: the most probable token only, as llama.cpp)")
	fl.Float32Var(&g.minP, "min-p", d.MinP, "min-p sampling, in [0, 1] (0: off)")
	fl.Float32Var(&g.repeat, "repeat-penalty", 1.0, "repetition penalty, >= 0 (1: off)")
	fl.IntVar(&g.repeatLastN, "repeat-last-n", d.PenaltyLastN, "tokens the penalties look back over (-1: the context)")
	fl.Float32Var(&g.presence, "presence-penalty", 0, "presence penalty, >= 0 (0: off)")
	fl.Float32Var(&g.frequency, "frequency-penalty", 0, "frequency penalty, >= 0 (0: off)")
	fl.Int64VarP(&g.seed, "seed", "s", -1, "RNG seed (-1: random; the seed used is printed)")
	fl.StringArrayVar(&g.stops, "stop", nil, "stop string (repeatable); not included in the output")
	fl.StringArrayVarP(&g.reverse, "reverse-prompt", "r", nil, "llama.cpp's reverse prompt: a stop string (repeatable)")
	fl.BoolVar(&g.ignoreEOS, "ignore-eos", false, "never stop at end-of-generation tokens (their logits are masked)")
	fl.BoolVar(&g.json, "json", false, "print one JSON object instead of streaming text")
	fl.BoolVar(&g.parseSpecial, "parse-special", true, "turn control-token texts in the prompt into their ids")
	fl.BoolVar(&g.noParseSpec, "no-parse-special", false, "tokenize control-token texts in the prompt as plain text")
	fl.IntVar(&g.parallel, "parallel", 1, "generate N completions of the prompt at once, sharing its KV blocks")
	fl.BoolVar(&g.timings, "timings", false, "report per-layer and per-op times, TTFT, tok/s, ITL percentiles (with --json: in the object)")
	g.prof.register(cmd)
	g.chat.registerGenerate(cmd)
	return cmd
}

// samplerConfig checks the sampling flags (out-of-range values are refused
// with their valid range) and picks a seed when none was given.
func (g *generateFlags) samplerConfig() (sampler.Config, error) {
	bad := func(v float32) bool { return math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) }
	switch {
	case g.n == 0 || g.n < -1:
		return sampler.Config{}, usageErr("-n must be positive or -1, got %d", g.n)
	case bad(g.temp) || g.temp < 0:
		return sampler.Config{}, usageErr("--temp must be >= 0 (0: greedy), got %v", g.temp)
	case g.topK < 0:
		return sampler.Config{}, usageErr("--top-k must be >= 0 (0: off), got %d", g.topK)
	case bad(g.topP) || g.topP < 0 || g.topP > 1:
		return sampler.Config{}, usageErr("--top-p must be in [0, 1] (1: off), got %v", g.topP)
	case bad(g.minP) || g.minP < 0 || g.minP > 1:
		return sampler.Config{}, usageErr("--min-p must be in [0, 1] (0: off), got %v", g.minP)
	case bad(g.repeat) || g.repeat < 0:
		return sampler.Config{}, usageErr("--repeat-penalty must be >= 0 (1: off), got %v", g.repeat)
	case bad(g.presence) || g.presence < 0:
		return sampler.Config{}, usageErr("--presence-penalty must be >= 0 (0: off), got %v", g.presence)
	case bad(g.frequency) || g.frequency < 0:
		return sampler.Config{}, usageErr("--frequency-penalty must be >= 0 (0: off), got %v", g.frequency)
	case g.repeatLastN < -1:
		return sampler.Config{}, usageErr("--repeat-last-n must be >= -1, got %d", g.repeatLastN)
	case g.seed < -1:
		return sampler.Config{}, usageErr("--seed must be >= 0, or -1 for a random one, got %d", g.seed)
	case g.parallel < 1:
		return sampler.Config{}, usageErr("--parallel must be at least 1, got %d", g.parallel)
	case g.timings && g.parallel > 1:
		return sampler.Config{}, usageErr("--timings reports one sequence; it cannot be combined with --parallel %d", g.parallel)
	}
	if g.topK > 0 && g.temp == 0 && g.model.cmd != nil && g.model.cmd.Flags().Changed("top-k") {
		fmt.Fprintln(os.Stderr, "gollm: warning: --top-k has no effect with --temp 0 (greedy)")
	}
	seed := uint64(g.seed)
	if g.seed < 0 {
		seed = randomSeed()
	}
	topP := g.topP
	if topP == 0 {
		// llama.cpp's top-p 0 keeps the most probable token alone; the
		// library's zero means "off", so ask for the smallest positive p.
		topP = math.SmallestNonzeroFloat32
	}
	return sampler.Config{Temperature: g.temp, TopK: g.topK, TopP: topP, MinP: g.minP,
		RepeatPenalty: g.repeat, PresencePenalty: g.presence, FrequencyPenalty: g.frequency,
		PenaltyLastN: g.repeatLastN, Seed: seed}, nil
}

// randomSeed is a seed below 2^32, so that llama-cli --seed can reproduce it.
func randomSeed() uint64 { return uint64(time.Now().UnixNano()) & 0xffffffff }

// stopStrings are --stop and -r, escapes processed; an empty one is refused.
func (g *generateFlags) stopStrings() ([]string, error) {
	var out []string
	for _, s := range append(append([]string(nil), g.stops...), g.reverse...) {
		s = g.prompt.esc(s)
		if s == "" {
			return nil, usageErr("--stop and -r take a non-empty string")
		}
		out = append(out, s)
	}
	return out, nil
}

func runGenerate(ctx context.Context, g *generateFlags) (err error) {
	scfg, err := g.samplerConfig()
	if err != nil {
		return err
	}
	stops, err := g.stopStrings()
	if err != nil {
		return err
	}
	prompt, err := g.chat.readPrompt(&g.prompt)
	if err != nil {
		return err
	}
	stopProfiles, err := g.prof.start()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfiles()) }()
	m, err := g.model.load(g.timings)
	if err != nil {
		return err
	}
	defer m.Close()
	if g.prof.labels() {
		m.EnableProfileLabels()
	}
	smp, err := sampler.New(scfg, m.Config.Vocab)
	if err != nil {
		return usageErr("%v", err)
	}
	req := engine.Request{Prompt: prompt, ParseSpecial: g.parseSpecial && !g.noParseSpec, MaxTokens: g.n,
		Sampler: smp, Stop: stops, IgnoreEOS: g.ignoreEOS}
	reasoning, err := g.chat.apply(m, prompt, g.prompt.esc, &req)
	if err != nil {
		return err
	}
	if g.parallel != 1 {
		return runParallel(ctx, g, m, req, scfg)
	}
	out := bufio.NewWriter(os.Stdout)
	if !g.json {
		req.OnText = func(s string) bool { out.WriteString(s); out.Flush(); return true }
	}
	var flushReasoning func()
	req.OnText, flushReasoning = reasoning.wrap(req.OnText, os.Stderr)
	res, err := m.Generate(ctx, req)
	flushReasoning()
	if res == nil {
		return err
	}
	genErr := err
	timings := g.generateTimings(m, res)
	if g.json {
		j := generateJSON(m, res, scfg.Seed)
		j.Timings = timings
		if err := writeJSON(os.Stdout, j); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(out)
		out.Flush()
		printSummary(m, res, scfg.Seed)
		if err := printTimings(timings); err != nil {
			return err
		}
	}
	if genErr != nil {
		if interrupted(genErr) {
			return errInterrupted
		}
		return genErr
	}
	return nil
}

// packNote says how the weight packing went, for the load line.
func packNote(m *engine.Model) string {
	done, took := m.PackStatus()
	switch {
	case !done:
		return " (weights still being packed in the background)"
	case took > 0:
		return fmt.Sprintf(" (+ weights packed in %.0f ms)", ms(took))
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func printSummary(m *engine.Model, r *engine.Result, seed uint64) {
	w := os.Stderr
	fmt.Fprintf(w, "load:     %.1f ms%s\n", ms(m.LoadTime), packNote(m))
	fmt.Fprintf(w, "prompt:   %d tokens, prefill %.1f ms (%.1f tok/s), TTFT %.1f ms\n",
		len(r.PromptTokens), ms(r.Stats.Prefill), r.PrefillTPS(), ms(r.Stats.TTFT))
	fmt.Fprintf(w, "generate: %d tokens, decode %.1f ms (%.2f tok/s), stop: %s, %d threads, seed %d\n",
		len(r.Tokens), ms(r.Stats.Decode), r.DecodeTPS(), r.StopReason, m.Threads(), seed)
}

// generateResult is the --json output of generate.
type generateResult struct {
	PromptTokens []int32        `json:"prompt_tokens"`
	Tokens       []int32        `json:"tokens"`
	Text         string         `json:"text"`
	StopReason   string         `json:"stop_reason"`
	Seed         uint64         `json:"seed"`
	NPrompt      int            `json:"n_prompt"`
	NGen         int            `json:"n_gen"`
	Threads      int            `json:"threads"`
	LoadMS       float64        `json:"load_ms"`
	TokenizeMS   float64        `json:"tokenize_ms"`
	PrefillMS    float64        `json:"prefill_ms"`
	PrefillTPS   float64        `json:"prefill_tps"`
	TTFTMS       float64        `json:"ttft_ms"`
	DecodeMS     float64        `json:"decode_ms"`
	DecodeTPS    float64        `json:"decode_tps"`
	TotalMS      float64        `json:"total_ms"`
	E2ETPS       float64        `json:"e2e_tps"`
	Timings      *bench.Timings `json:"timings,omitempty"`
}

func generateJSON(m *engine.Model, r *engine.Result, seed uint64) *generateResult {
	return &generateResult{
		PromptTokens: r.PromptTokens, Tokens: r.Tokens, Text: r.Text, StopReason: r.StopReason, Seed: seed,
		NPrompt: len(r.PromptTokens), NGen: len(r.Tokens), Threads: m.Threads(),
		LoadMS: ms(m.LoadTime), TokenizeMS: ms(r.Stats.Tokenize),
		PrefillMS: ms(r.Stats.Prefill), PrefillTPS: r.PrefillTPS(), TTFTMS: ms(r.Stats.TTFT),
		DecodeMS: ms(r.Stats.Decode), DecodeTPS: r.DecodeTPS(),
		TotalMS: ms(r.Stats.Total), E2ETPS: r.EndToEndTPS(),
	}
}

func writeJSON(w *os.File, v any) error {
	enc := json.NewEncoder(w)
	return enc.Encode(v)
}
