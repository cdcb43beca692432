package bench

import (
	"math"
	"time"

	"github.com/gollm/gollm/engine"
)

// ReconcileTolerancePct is how far the timed ops may fall from a phase's
// measured wall time before the breakdown is reported as not reconciling;
// ReconcileSlack is an absolute allowance beside it, for phases of a few
// milliseconds (a tiny model's prefill), where one OS preemption or GC
// assist between two ops is already several percent.
const (
	ReconcileTolerancePct = 2.0
	ReconcileSlack        = time.Millisecond
)

// Timings is where the time of a run went: per layer, per op, and the
// request-level metrics. Shares are percentages of the measured phase time,
// so time no op accounts for shows up as the shares summing to less than
// 100 (and as Reconciliation.UntimedMS).
type Timings struct {
	PrefillTokens int64            `json:"prefill_tokens"` // tokens through prefill forward passes
	DecodeTokens  int64            `json:"decode_tokens"`  // decode forward passes (one token each)
	Layers        []LayerTiming    `json:"layers"`
	NonLayer      LayerTiming      `json:"non_layer"` // embedding, output_norm, lm_head, sampling
	Ops           []OpTiming       `json:"ops"`
	Reconcile     []Reconciliation `json:"reconciliation"`

	// Request metrics (see the package doc for definitions).
	TTFTMS              float64 `json:"ttft_ms"`
	PrefillTPS          float64 `json:"prefill_tps"`
	DecodeTPS           float64 `json:"decode_tps"`
	E2ETPS              float64 `json:"e2e_tps"`
	ITLMS               Summary `json:"itl_ms"`
	LoadMS              float64 `json:"load_ms"`
	PeakRSSBytes        int64   `json:"peak_rss_bytes"`
	KVCacheBytes        int64   `json:"kv_cache_bytes"`
	WeightBytesPerToken int64   `json:"weight_bytes_per_token"`
	DecodeWeightsGBs    float64 `json:"decode_weights_gbs"` // weight bytes per token x decode tok/s
}

// LayerTiming is one row of the per-layer table.
type LayerTiming struct {
	Layer            int     `json:"layer"` // -1: the non-layer ops
	PrefillMS        float64 `json:"prefill_ms"`
	DecodeMSPerToken float64 `json:"decode_ms_per_token"`
	PrefillPct       float64 `json:"prefill_pct"`
	DecodePct        float64 `json:"decode_pct"`
}

// OpTiming is one row of the per-op table. The bandwidth fields are set for
// the matmul ops: the weight bytes the op reads per forward pass divided by
// its time per pass.
type OpTiming struct {
	Op               string  `json:"op"`
	PrefillMS        float64 `json:"prefill_ms"`
	DecodeMSPerToken float64 `json:"decode_ms_per_token"`
	PrefillPct       float64 `json:"prefill_pct"`
	DecodePct        float64 `json:"decode_pct"`
	WeightBytes      int64   `json:"weight_bytes,omitempty"` // per forward pass, all layers
	PrefillGBs       float64 `json:"prefill_gbs,omitempty"`
	DecodeGBs        float64 `json:"decode_gbs,omitempty"`
}

// Reconciliation compares a phase's timed ops with its measured wall time.
type Reconciliation struct {
	Phase      string  `json:"phase"`
	OpsMS      float64 `json:"ops_ms"`      // sum of the per-op table
	LayersMS   float64 `json:"layers_ms"`   // sum of the per-layer table plus the non-layer ops
	MeasuredMS float64 `json:"measured_ms"` // the phase's wall time, measured apart from the op timers
	UntimedMS  float64 `json:"untimed_ms"`  // measured - ops: work between timed ops
	DiffPct    float64 `json:"diff_pct"`    // |ops - measured| / measured x 100
	OK         bool    `json:"ok"`
}

// BreakdownInput is what Breakdown needs.
type BreakdownInput struct {
	Snapshot *Snapshot
	Measured [engine.NumPhases]time.Duration // wall time per phase, measured apart from the op timers
	Passes   [engine.NumPhases]int64         // forward passes per phase (each reads every weight once)
	OpBytes  [engine.NumOps]int64            // weight bytes each op reads per forward pass
}

// Breakdown builds the per-layer and per-op tables and reconciles them with
// the measured phase times. Decode figures are per decode token.
func Breakdown(in BreakdownInput) *Timings {
	s := in.Snapshot
	t := &Timings{PrefillTokens: s.Tokens[engine.Prefill], DecodeTokens: s.Tokens[engine.Decode]}
	pre, dec := engine.Prefill, engine.Decode
	perTok := func(d time.Duration) float64 {
		if t.DecodeTokens == 0 {
			return 0
		}
		return ms(d) / float64(t.DecodeTokens)
	}
	layerRow := func(l int) LayerTiming {
		return LayerTiming{Layer: l,
			PrefillMS: ms(s.Layer(pre, l)), DecodeMSPerToken: perTok(s.Layer(dec, l)),
			PrefillPct: pct(s.Layer(pre, l), in.Measured[pre]), DecodePct: pct(s.Layer(dec, l), in.Measured[dec])}
	}
	for l := 0; l < s.Layers; l++ {
		t.Layers = append(t.Layers, layerRow(l))
	}
	t.NonLayer = layerRow(-1)
	for op := engine.Op(0); op < engine.NumOps; op++ {
		p, d := s.Op(pre, op), s.Op(dec, op)
		row := OpTiming{Op: op.String(),
			PrefillMS: ms(p), DecodeMSPerToken: perTok(d),
			PrefillPct: pct(p, in.Measured[pre]), DecodePct: pct(d, in.Measured[dec]),
			WeightBytes: in.OpBytes[op]}
		if b := in.OpBytes[op]; b > 0 {
			row.PrefillGBs = gbs(b*in.Passes[pre], p)
			row.DecodeGBs = gbs(b*in.Passes[dec], d)
		}
		t.Ops = append(t.Ops, row)
	}
	for _, ph := range []engine.Phase{pre, dec} {
		var layers time.Duration
		for l := -1; l < s.Layers; l++ {
			layers += s.Layer(ph, l)
		}
		var ops time.Duration
		for op := engine.Op(0); op < engine.NumOps; op++ {
			ops += s.Op(ph, op)
		}
		if ops == 0 && in.Measured[ph] == 0 {
			continue // the phase did not run (e.g. a single generated token has no decode)
		}
		t.Reconcile = append(t.Reconcile, Reconcile(ph.String(), ops, layers, in.Measured[ph]))
	}
	return t
}

// Reconcile checks that the per-op sum matches the per-layer sum (they are
// two views of the same counters) and lies within ReconcileTolerancePct of
// the measured wall time (or within ReconcileSlack of it).
func Reconcile(phase string, ops, layers, measured time.Duration) Reconciliation {
	r := Reconciliation{Phase: phase, OpsMS: ms(ops), LayersMS: ms(layers), MeasuredMS: ms(measured),
		UntimedMS: ms(measured - ops)}
	if measured > 0 {
		r.DiffPct = math.Abs(float64(ops-measured)) / float64(measured) * 100
		r.OK = (r.DiffPct <= ReconcileTolerancePct || (ops-measured).Abs() <= ReconcileSlack) && ops == layers
	}
	return r
}

func pct(d, of time.Duration) float64 {
	if of <= 0 {
		return 0
	}
	return float64(d) / float64(of) * 100
}

// gbs is bytes per d in GB/s (1e9 bytes).
func gbs(bytes int64, d time.Duration) float64 {
	if bytes <= 0 || d <= 0 {
		return 0
	}
	return float64(bytes) / d.Seconds() / 1e9
}
