package bench

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/quantize"
)

// ModelInfo describes a benchmarked model file.
type ModelInfo struct {
	Name                string // display name: the file name without .gguf, or the synthetic preset and type
	Filename            string
	Type                string // llama-bench's model_type: "llama 1.1B Q4_0"
	Size                int64  // the tensors' bytes (llama-bench's model_size; the file adds its metadata)
	Params              int64
	WeightBytesPerToken int64
	Batch               int // tokens per forward pass
	Threads             int
	Context             int // context window of one sequence

	// The load options the caller chose, which a loaded model does not
	// report; empty or 0 means the engine's default.
	KVType  string // "f16", "q8_0" or "f32"
	KVBlock int    // positions per KV cache block
	Pack    string // when the weights were repacked: engine.PackAtLoad, ...
}

// DescribeModel fills ModelInfo from a loaded model; name "" means the
// file's base name without the extension.
func DescribeModel(m *engine.Model, path, name string) ModelInfo {
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), ".gguf")
	}
	var params, size int64
	for i := range m.File.Tensors {
		params += int64(m.File.Tensors[i].Elements())
		size += int64(m.File.Tensors[i].Size)
	}
	ft := "unknown"
	if v, ok := m.File.Get("general.file_type"); ok {
		if n, ok := v.Uint(); ok {
			ft = quantize.FileType(n).String()
		}
	}
	return ModelInfo{
		Name: name, Filename: path,
		Type: fmt.Sprintf("%s %s %s", m.Config.Arch, ParamsLabel(params), ft),
		Size: size, Params: params, WeightBytesPerToken: m.WeightBytesPerToken(),
		Batch: m.BatchSize(), Threads: m.Threads(), Context: m.ContextSize(),
	}
}

// ParamsLabel is a short parameter count: "135M", "1.1B", "6.7B".
func ParamsLabel(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%dM", (n+5e5)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%dK", (n+500)/1e3)
	}
	return fmt.Sprint(n)
}

// Result is one (model, threads, test) row of a report. The JSON names are
// llama-bench's where it has the field (so scripts read both), plus
// latency, bandwidth and timer figures.
type Result struct {
	Model        string `json:"model"`
	ModelFile    string `json:"model_filename"`
	ModelType    string `json:"model_type"`
	ModelSize    int64  `json:"model_size"` // the tensors' bytes, as llama-bench
	ModelNParams int64  `json:"model_n_params"`
	Test         string `json:"test"`
	NPrompt      int    `json:"n_prompt"`
	NGen         int    `json:"n_gen"`
	NDepth       int    `json:"n_depth"`
	NBatch       int    `json:"n_batch"`  // tokens per forward pass
	NUBatch      int    `json:"n_ubatch"` // the same: gollm's pass is llama.cpp's physical batch
	NCtx         int    `json:"n_ctx"`
	TypeK        string `json:"type_k"` // KV cache storage; K and V always alike
	TypeV        string `json:"type_v"`
	KVBlock      int    `json:"kv_block"`
	Pack         string `json:"pack"`
	Threads      int    `json:"threads"`
	NThreads     int    `json:"n_threads"` // llama-bench's name for Threads
	CPUInfo      string `json:"cpu_info"`
	Kernels      string `json:"kernels"`
	GoVersion    string `json:"go_version"`
	TestTime     string `json:"test_time"`

	AvgNS     int64     `json:"avg_ns"`
	StddevNS  int64     `json:"stddev_ns"`
	AvgTS     float64   `json:"avg_ts"` // mean of the per-repetition tok/s, as llama-bench
	StddevTS  float64   `json:"stddev_ts"`
	MedianTS  float64   `json:"median_ts"`
	SamplesNS []int64   `json:"samples_ns"`
	SamplesTS []float64 `json:"samples_ts"`

	TTFTMS    *float64 `json:"ttft_ms,omitempty"` // mean over repetitions, tests with a prompt
	ITLMSP50  *float64 `json:"itl_ms_p50,omitempty"`
	ITLMSP90  *float64 `json:"itl_ms_p90,omitempty"`
	ITLMSP99  *float64 `json:"itl_ms_p99,omitempty"`
	ITLMSMean *float64 `json:"itl_ms_mean,omitempty"`
	ITLMSSD   *float64 `json:"itl_ms_stddev,omitempty"`

	WeightBytesPerToken int64    `json:"weight_bytes_per_token"`
	WeightsGBs          *float64 `json:"weights_gbs,omitempty"`   // tg: weight bytes per pass x passes/s
	BandwidthPct        *float64 `json:"bandwidth_pct,omitempty"` // tg: WeightsGBs / the machine's read bandwidth
	MemReadGBs          float64  `json:"mem_read_gbs,omitempty"`
	// MemReadProbed: MemReadGBs is the best of the probes taken beside this
	// test's repetitions (RunConfig.ProbeBandwidth), not the machine's
	// one figure.
	MemReadProbed bool    `json:"mem_read_probed,omitempty"`
	Speedup       float64 `json:"speedup"` // avg_ts / the first model's avg_ts on the same test and threads

	TimersOverheadPct *float64           `json:"timers_overhead_pct,omitempty"`
	OpMSPerToken      map[string]float64 `json:"op_ms_per_token,omitempty"` // op timers over the timed tokens
	PeakRSSBytes      int64              `json:"peak_rss_bytes"`            // the process's high-water mark when the test ended

	// Partial marks every row of a report cut short (Ctrl-C, an error): the rows are
	// the tests that finished, not all that were asked for.
	Partial bool `json:"partial,omitempty"`
}

// Engine defaults, filled in where ModelInfo leaves an option empty.
const (
	defaultKVType  = "f16"
	defaultKVBlock = 16
	defaultBatch   = 512
)

// NewResult summarizes a measurement into a report row (Speedup is set by
// SetSpeedups once every row is in).
func NewResult(info ModelInfo, mach Machine, meas *Measurement) Result {
	t := meas.Test
	r := Result{
		Model: info.Name, ModelFile: info.Filename, ModelType: info.Type, ModelSize: info.Size,
		ModelNParams: info.Params, Test: t.Name(), NPrompt: t.NPrompt, NGen: t.NGen, NDepth: t.NDepth,
		NBatch: info.Batch, NUBatch: info.Batch, NCtx: info.Context,
		TypeK: orDefault(strings.ToLower(info.KVType), defaultKVType), KVBlock: info.KVBlock,
		Pack: orDefault(strings.ToLower(info.Pack), engine.PackAtLoad), Threads: info.Threads, NThreads: info.Threads,
		CPUInfo: mach.CPU, Kernels: mach.Kernels, GoVersion: mach.GoVersion,
		TestTime:            time.Now().UTC().Format(time.RFC3339),
		WeightBytesPerToken: info.WeightBytesPerToken,
		TimersOverheadPct:   meas.TimersOverheadPct, PeakRSSBytes: PeakRSS(),
	}
	r.TypeV = r.TypeK
	if r.KVBlock <= 0 {
		r.KVBlock = defaultKVBlock
	}
	ns := make([]float64, len(meas.Samples))
	for i, d := range meas.Samples {
		r.SamplesNS = append(r.SamplesNS, int64(d))
		r.SamplesTS = append(r.SamplesTS, Rate(t.Tokens(), d))
		ns[i] = float64(d)
	}
	mean, sd := MeanStddev(ns)
	r.AvgNS, r.StddevNS = int64(mean), int64(sd)
	r.AvgTS, r.StddevTS = MeanStddev(r.SamplesTS)
	r.MedianTS = Median(r.SamplesTS)
	if len(meas.TTFT) > 0 {
		v, _ := MeanStddev(Millis(meas.TTFT))
		r.TTFTMS = &v
	}
	if len(meas.ITL) > 0 {
		s := Summarize(Millis(meas.ITL))
		r.ITLMSP50, r.ITLMSP90, r.ITLMSP99, r.ITLMSMean, r.ITLMSSD = &s.P50, &s.P90, &s.P99, &s.Mean, &s.Stddev
	}
	if t.IsGen() && info.WeightBytesPerToken > 0 {
		// One pass over the weights serves every parallel sequence.
		g := float64(info.WeightBytesPerToken) * r.AvgTS / float64(t.Seqs()) / 1e9
		r.WeightsGBs = &g
	}
	if len(meas.MemReadGBs) > 0 {
		r.setBandwidth(slices.Max(meas.MemReadGBs))
		r.MemReadProbed = true
	} else {
		r.setBandwidth(mach.MemReadGBs)
	}
	if meas.Ops != nil {
		if n := len(meas.Samples) * t.Tokens(); n > 0 {
			r.OpMSPerToken = map[string]float64{}
			for op := engine.Op(0); op < engine.NumOps; op++ {
				d := meas.Ops.Op(engine.Prefill, op) + meas.Ops.Op(engine.Decode, op)
				r.OpMSPerToken[op.String()] = ms(d) / float64(n)
			}
		}
	}
	return r
}

// SetBandwidth records the machine's read bandwidth (GB/s) in every row
// without probes of its own (MemReadProbed) and each such generation row's
// share of it. Measuring that bandwidth takes a large buffer, so callers do
// it after the runs, where it cannot raise the peak RSS the rows report.
func SetBandwidth(rs []Result, memReadGBs float64) {
	for i := range rs {
		if !rs[i].MemReadProbed {
			rs[i].setBandwidth(memReadGBs)
		}
	}
}

// NeedsBandwidth reports whether a generation row has no bandwidth probes
// of its own (a model too small to probe on, or probes off): the machine's
// figure must be measured for its BW %.
func NeedsBandwidth(rs []Result) bool {
	for _, r := range rs {
		if r.WeightsGBs != nil && !r.MemReadProbed {
			return true
		}
	}
	return false
}

// ProbedBandwidth returns the least and the greatest bandwidth of the rows
// with probes of their own, and how many there are.
func ProbedBandwidth(rs []Result) (lo, hi float64, n int) {
	for _, r := range rs {
		if !r.MemReadProbed {
			continue
		}
		if n == 0 || r.MemReadGBs < lo {
			lo = r.MemReadGBs
		}
		hi = max(hi, r.MemReadGBs)
		n++
	}
	return lo, hi, n
}

func (r *Result) setBandwidth(memReadGBs float64) {
	r.MemReadGBs = memReadGBs
	r.BandwidthPct = nil
	if r.WeightsGBs != nil && memReadGBs > 0 {
		p := *r.WeightsGBs / memReadGBs * 100
		r.BandwidthPct = &p
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// MarkPartial marks every row as part of a report cut short.
func MarkPartial(rs []Result) {
	for i := range rs {
		rs[i].Partial = true
	}
}

// IsPartial reports whether any row is marked partial.
func IsPartial(rs []Result) bool {
	for _, r := range rs {
		if r.Partial {
			return true
		}
	}
	return false
}

// speedupKey is what a row is compared on: the same test under the same
// parameters, on another model.
type speedupKey struct {
	test, typeK, pack       string
	threads, batch, kvBlock int
}

func (r *Result) speedupKey() speedupKey {
	return speedupKey{r.Test, r.TypeK, r.Pack, r.Threads, r.NBatch, r.KVBlock}
}

// SetSpeedups sets each row's Speedup against the row of the first model
// with the same test and parameters (threads, batch, KV type and block,
// pack mode); 0 where the first model has no such row.
func SetSpeedups(rs []Result) {
	if len(rs) == 0 {
		return
	}
	base := map[speedupKey]float64{}
	first := rs[0].Model
	for i := range rs {
		if rs[i].Model == first {
			base[rs[i].speedupKey()] = rs[i].AvgTS
		}
	}
	for i := range rs {
		if b := base[rs[i].speedupKey()]; b > 0 {
			rs[i].Speedup = rs[i].AvgTS / b
		}
	}
}
