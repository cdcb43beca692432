package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gollm/gollm/engine"
)

// WriteMarkdown writes the machine line and a llama-bench style table: t/s
// is mean ± sample stddev over the repetitions; TTFT is the prompt's time
// (pp and pp+tg tests); ITL percentiles come from every decode step; the
// weights columns (tg tests) are weight bytes per token x t/s and its share
// of the machine's read bandwidth; speedup is against the first model.
func WriteMarkdown(w io.Writer, mach Machine, rs []Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", mach)
	overhead := false
	for _, r := range rs {
		overhead = overhead || r.TimersOverheadPct != nil
	}
	params := shownParams(rs)
	cols := []string{"model", "size", "params", "threads"}
	for _, p := range params {
		cols = append(cols, p.name)
	}
	cols = append(cols, "test", "t/s", "median t/s", "TTFT ms", "ITL p50/p90/p99 ms", "weights GB/s", "BW %", "speedup")
	if overhead {
		cols = append(cols, "timers %")
	}
	row := func(cells []string) {
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	row(cols)
	sep := make([]string, len(cols))
	for i := range sep {
		sep[i] = "---:"
	}
	sep[0] = "---"
	row(sep)
	for _, r := range rs {
		cells := []string{r.Model, sizeLabel(r.ModelSize), paramsCell(r.ModelNParams), fmt.Sprint(r.Threads)}
		for _, p := range params {
			cells = append(cells, p.cell(r))
		}
		cells = append(cells, r.Test,
			fmt.Sprintf("%.2f ± %.2f", r.AvgTS, r.StddevTS), fmt.Sprintf("%.2f", r.MedianTS),
			opt(r.TTFTMS, "%.1f"), itlCell(r), opt(r.WeightsGBs, "%.2f"), opt(r.BandwidthPct, "%.0f%%"),
			speedupCell(r.Speedup))
		if overhead {
			cells = append(cells, opt(r.TimersOverheadPct, "%+.1f%%"))
		}
		row(cells)
	}
	if IsPartial(rs) {
		fmt.Fprintf(&b, "\npartial: the run stopped early; the table holds the %d tests that finished\n", len(rs))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// paramColumn is one of llama-bench's per-instance parameters that gollm
// has (the KV cache type, the batch, ...).
type paramColumn struct {
	name      string
	cell      func(Result) string
	isDefault func(Result) bool
}

var paramColumns = []paramColumn{
	// gollm's forward pass is llama.cpp's physical batch, hence n_ubatch.
	{"n_ubatch", func(r Result) string { return strconv.Itoa(r.NBatch) },
		func(r Result) bool { return r.NBatch == min(defaultBatch, r.NCtx) }},
	{"type_k", func(r Result) string { return r.TypeK }, func(r Result) bool { return r.TypeK == defaultKVType }},
	{"type_v", func(r Result) string { return r.TypeV }, func(r Result) bool { return r.TypeV == defaultKVType }},
	{"kv_block", func(r Result) string { return strconv.Itoa(r.KVBlock) }, func(r Result) bool { return r.KVBlock == defaultKVBlock }},
	{"pack", func(r Result) string { return r.Pack }, func(r Result) bool { return r.Pack == engine.PackAtLoad }},
}

// shownParams picks the parameter columns the table needs: those where a
// row differs from the engine's default (as llama-bench shows the
// parameters given other values) or the rows differ among themselves.
func shownParams(rs []Result) []paramColumn {
	var out []paramColumn
	for _, p := range paramColumns {
		for _, r := range rs {
			if !p.isDefault(r) || p.cell(r) != p.cell(rs[0]) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func opt(v *float64, format string) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf(format, *v)
}

func itlCell(r Result) string {
	if r.ITLMSP50 == nil {
		return ""
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f", *r.ITLMSP50, *r.ITLMSP90, *r.ITLMSP99)
}

func speedupCell(s float64) string {
	if s == 0 {
		return ""
	}
	return fmt.Sprintf("%.2fx", s)
}

// sizeLabel is llama-bench's size column: MiB below 1 GiB, else GiB.
func sizeLabel(n int64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// paramsCell is llama-bench's params column.
func paramsCell(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.2f B", float64(n)/1e9)
	}
	return fmt.Sprintf("%.2f M", float64(n)/1e6)
}
