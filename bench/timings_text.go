package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTimings renders t as the text report of `gollm generate --timings`:
// the per-layer table, the per-op table, the reconciliation of both with the
// measured phase times, then the request metrics.
func WriteTimings(w io.Writer, t *Timings) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(&b, "per layer (prefill: %d tokens; decode: %d tokens, per token)\n", t.PrefillTokens, t.DecodeTokens)
	fmt.Fprintln(tw, "layer\tprefill ms\tshare\tdecode ms/tok\tshare\t")
	for _, l := range append(t.Layers, t.NonLayer) {
		name := fmt.Sprint(l.Layer)
		if l.Layer < 0 {
			name = "non-layer"
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.1f%%\t%.4f\t%.1f%%\t\n", name, l.PrefillMS, l.PrefillPct, l.DecodeMSPerToken, l.DecodePct)
	}
	tw.Flush()

	fmt.Fprintf(&b, "\nper op (GB/s: weight bytes read per forward pass / op time per pass)\n")
	fmt.Fprintln(tw, "op\tprefill ms\tshare\tGB/s\tdecode ms/tok\tshare\tGB/s\t")
	for _, o := range t.Ops {
		fmt.Fprintf(tw, "%s\t%.3f\t%.1f%%\t%s\t%.4f\t%.1f%%\t%s\t\n", o.Op, o.PrefillMS, o.PrefillPct, gbsCell(o.WeightBytes, o.PrefillGBs),
			o.DecodeMSPerToken, o.DecodePct, gbsCell(o.WeightBytes, o.DecodeGBs))
	}
	tw.Flush()

	b.WriteString("\nreconciliation (sum of the ops vs the phase's measured wall time)\n")
	for _, r := range t.Reconcile {
		status := "ok"
		if !r.OK {
			status = fmt.Sprintf("OFF by more than %.0f%% and %v", ReconcileTolerancePct, ReconcileSlack)
		}
		fmt.Fprintf(&b, "  %-7s ops %.3f ms = layers + non-layer %.3f ms; measured %.3f ms; untimed %.3f ms (%.2f%%): %s\n",
			r.Phase, r.OpsMS, r.LayersMS, r.MeasuredMS, r.UntimedMS, r.DiffPct, status)
	}

	fmt.Fprintf(&b, "\nTTFT          %.2f ms\n", t.TTFTMS)
	fmt.Fprintf(&b, "prefill       %.2f tok/s\n", t.PrefillTPS)
	fmt.Fprintf(&b, "decode        %.2f tok/s (weights %.2f GB/s)\n", t.DecodeTPS, t.DecodeWeightsGBs)
	fmt.Fprintf(&b, "end-to-end    %.2f tok/s\n", t.E2ETPS)
	if t.ITLMS.N > 0 {
		fmt.Fprintf(&b, "ITL           p50 %.3f / p90 %.3f / p99 %.3f ms, mean %.3f ± %.3f ms (%d gaps)\n",
			t.ITLMS.P50, t.ITLMS.P90, t.ITLMS.P99, t.ITLMS.Mean, t.ITLMS.Stddev, t.ITLMS.N)
	}
	fmt.Fprintf(&b, "load          %.1f ms\n", t.LoadMS)
	fmt.Fprintf(&b, "peak RSS      %.1f MiB\n", float64(t.PeakRSSBytes)/(1<<20))
	fmt.Fprintf(&b, "KV cache      %.1f MiB\n", float64(t.KVCacheBytes)/(1<<20))
	_, err := io.WriteString(w, b.String())
	return err
}

func gbsCell(bytes int64, v float64) string {
	if bytes == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", v)
}
