package main

import (
	"bufio"
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
	json         bool
	parseSpecial bool
	timings      bool // per-layer/per-op report after the run (timings.go)
	parallel     int  // completions of one prompt decoded together (parallel.go)
	prof         profileFlags
}

func generateCmd() *cobra.Command {
	var g generateFlags
	cmd := &cobra.Command{
		Use:   "generate -m FILE -p TEXT",
		Short: "Generate text from a prompt, streaming it, with a timing summary on stderr",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runGenerate(&g) },
	}
	g.model.register(cmd)
	g.prompt.register(cmd)
	d := sampler.DefaultConfig()
	fl := cmd.Flags()
	fl.IntVarP(&g.n, "n-predict", "n", 128, "tokens to generate (-1: until end of generation or a full context)")
	fl.Float32Var(&g.temp, "temp", d.Temperature, "temperature (0: greedy)")
	fl.IntVar(&g.topK, "top-k", d.TopK, "top-k sampling (0: off)")
	fl.Float32Var(&g.topP, "top-p", d.TopP, "top-p sampling (1: off)")
	fl.Float32Var(&g.minP, "min-p", d.MinP, "min-p sampling (0: off)")
	fl.Float32Var(&g.repeat, "repeat-penalty", 1.0, "repetition penalty (1: off)")
	fl.IntVar(&g.repeatLastN, "repeat-last-n", d.PenaltyLastN, "tokens the penalties look back over")
	fl.Float32Var(&g.presence, "presence-penalty", 0, "presence penalty (0: off)")
	fl.Float32Var(&g.frequency, "frequency-penalty", 0, "frequency penalty (0: off)")
	fl.Int64Var(&g.seed, "seed", -1, "RNG seed (-1: random)")
	fl.StringArrayVar(&g.stops, "stop", nil, "stop string (repeatable); not included in the output")
	fl.BoolVar(&g.json, "json", false, "print one JSON object instead of streaming text")
	fl.BoolVar(&g.parseSpecial, "parse-special", true, "turn control-token texts in the prompt into their ids")
	fl.IntVar(&g.parallel, "parallel", 1, "generate N completions of the prompt at once, sharing its KV blocks")
	fl.BoolVar(&g.timings, "timings", false, "report per-layer and per-op times, TTFT, tok/s, ITL percentiles (with --json: in the object)")
	g.prof.register(cmd)
	return cmd
}

func (g *generateFlags) samplerConfig() (sampler.Config, error) {
	if g.n == 0 || g.n < -1 {
		return sampler.Config{}, usageErr("-n must be positive or -1, got %d", g.n)
	}
	for name, v := range map[string]float32{"temp": g.temp, "top-p": g.topP, "min-p": g.minP, "repeat-penalty": g.repeat} {
		if math.IsNaN(float64(v)) || v < 0 {
			return sampler.Config{}, usageErr("--%s must be a non-negative number, got %v", name, v)
		}
	}
	seed := uint64(g.seed)
	if g.seed < 0 {
		seed = uint64(time.Now().UnixNano())
	}
	return sampler.Config{Temperature: g.temp, TopK: g.topK, TopP: g.topP, MinP: g.minP,
		RepeatPenalty: g.repeat, PresencePenalty: g.presence, FrequencyPenalty: g.frequency,
		PenaltyLastN: g.repeatLastN, Seed: seed}, nil
}

func runGenerate(g *generateFlags) (err error) {
	scfg, err := g.samplerConfig()
	if err != nil {
		return err
	}
	prompt, err := g.prompt.read(false)
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
	req := engine.Request{Prompt: prompt, ParseSpecial: g.parseSpecial, MaxTokens: g.n, Sampler: smp, Stop: g.stops}
	if g.parallel != 1 {
		return runParallel(g, m, req, scfg)
	}
	out := bufio.NewWriter(os.Stdout)
	if !g.json {
		req.OnText = func(s string) { out.WriteString(s); out.Flush() }
	}
	res, err := m.Generate(req)
	if err != nil {
		return err
	}
	timings := g.generateTimings(m, res)
	if g.json {
		j := generateJSON(m, res)
		j.Timings = timings
		return writeJSON(os.Stdout, j)
	}
	fmt.Fprintln(out)
	out.Flush()
	printSummary(m, res)
	return printTimings(timings)
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

func printSummary(m *engine.Model, r *engine.Result) {
	w := os.Stderr
	fmt.Fprintf(w, "load:     %.1f ms%s\n", ms(m.LoadTime), packNote(m))
	fmt.Fprintf(w, "prompt:   %d tokens, prefill %.1f ms (%.1f tok/s), TTFT %.1f ms\n",
		len(r.PromptTokens), ms(r.Stats.Prefill), r.PrefillTPS(), ms(r.Stats.TTFT))
	fmt.Fprintf(w, "generate: %d tokens, decode %.1f ms (%.2f tok/s), stop: %s, %d threads\n",
		len(r.Tokens), ms(r.Stats.Decode), r.DecodeTPS(), r.StopReason, m.Threads())
}

// generateResult is the --json output of generate.
type generateResult struct {
	PromptTokens []int32        `json:"prompt_tokens"`
	Tokens       []int32        `json:"tokens"`
	Text         string         `json:"text"`
	StopReason   string         `json:"stop_reason"`
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

func generateJSON(m *engine.Model, r *engine.Result) *generateResult {
	return &generateResult{
		PromptTokens: r.PromptTokens, Tokens: r.Tokens, Text: r.Text, StopReason: r.StopReason,
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
