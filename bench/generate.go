package bench

import (
	"github.com/gollm/gollm/engine"
)

// GenerateTimings builds the breakdown of one engine.Generate run on m, whose
// timers were on (and reset before the run, which Generate does not do by
// itself: a fresh model or m.Timers.Reset()).
//
// The measured phase times follow engine.Generate's accounting: the sampling
// of the first token is charged to the prefill phase by the timers, while
// Stats.Prefill covers only the prompt's forward passes, so the prefill
// phase time is Stats.Prefill plus that first sampling. Decode is
// Stats.Decode (first to last token), which holds every decode forward pass
// and every later sampling; the detokenizing and stop-string matching in
// between are the untimed remainder.
func GenerateTimings(m *engine.Model, r *engine.Result) *Timings {
	snap := TakeSnapshot(m.Timers)
	firstSample := snap.Time[engine.Prefill][snap.Layers][engine.OpSampling]
	var in BreakdownInput
	in.Snapshot = snap
	in.Measured[engine.Prefill] = r.Stats.Prefill + firstSample
	in.Measured[engine.Decode] = r.Stats.Decode
	if b := int64(m.BatchSize()); b > 0 {
		in.Passes[engine.Prefill] = (snap.Tokens[engine.Prefill] + b - 1) / b
	}
	in.Passes[engine.Decode] = snap.Tokens[engine.Decode]
	in.OpBytes = OpWeightBytes(m.Weights)

	t := Breakdown(in)
	t.TTFTMS = ms(r.Stats.TTFT)
	t.PrefillTPS = r.PrefillTPS()
	t.DecodeTPS = r.DecodeTPS()
	t.E2ETPS = r.EndToEndTPS()
	t.ITLMS = Summarize(Millis(r.Stats.ITL))
	t.LoadMS = ms(m.LoadTime)
	t.PeakRSSBytes = PeakRSS()
	t.KVCacheBytes = m.KVCacheBytes()
	t.WeightBytesPerToken = m.WeightBytesPerToken()
	t.DecodeWeightsGBs = float64(t.WeightBytesPerToken) * t.DecodeTPS / 1e9
	return t
}
