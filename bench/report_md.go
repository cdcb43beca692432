package bench

import (
	"fmt"
	"io"
	"strings"
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
	cols := []string{"model", "size", "params", "threads", "test", "t/s", "median t/s", "TTFT ms",
		"ITL p50/p90/p99 ms", "weights GB/s", "BW %", "speedup"}
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
		cells := []string{r.Model, sizeLabel(r.ModelSize), paramsCell(r.ModelNParams), fmt.Sprint(r.Threads), r.Test,
			fmt.Sprintf("%.2f ± %.2f", r.AvgTS, r.StddevTS), fmt.Sprintf("%.2f", r.MedianTS),
			opt(r.TTFTMS, "%.1f"), itlCell(r), opt(r.WeightsGBs, "%.2f"), opt(r.BandwidthPct, "%.0f%%"),
			speedupCell(r.Speedup)}
		if overhead {
			cells = append(cells, opt(r.TimersOverheadPct, "%+.1f%%"))
		}
		row(cells)
	}
	_, err := io.WriteString(w, b.String())
	return err
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
