package loadgen

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Report is a whole run: what was measured and each level's figures.
type Report struct {
	Tool       string    `json:"tool"`
	Date       string    `json:"date"`
	BaseURL    string    `json:"base_url"`
	Endpoint   string    `json:"endpoint"`
	Model      string    `json:"model_id"`
	Tokenizer  string    `json:"tokenizer"` // the -m file, or "fixed"
	Dataset    string    `json:"dataset,omitempty"`
	InputLen   int       `json:"input_len,omitempty"`
	InputRange float64   `json:"input_len_range,omitempty"`
	PrefixLen  int       `json:"prefix_len,omitempty"`
	OutputLen  int       `json:"output_len"`
	IgnoreEOS  bool      `json:"ignore_eos"`
	NumPrompts int       `json:"num_prompts,omitempty"`
	DurationS  float64   `json:"duration_s,omitempty"`
	Warmup     int       `json:"num_warmups"`
	Levels     []Summary `json:"-"`
}

// Formats are the report formats Write accepts.
var Formats = []string{"md", "json", "csv"}

// ErrFormat marks an unknown report format or an unreadable report file.
var ErrFormat = errors.New("loadgen: bad report format")

// Write writes r as "md" (a table for the terminal), "json" or "csv".
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "md", "table", "":
		return r.writeMarkdown(w)
	case "json":
		return r.writeJSON(w)
	case "csv":
		return r.writeCSV(w)
	}
	return fmt.Errorf("%w: %q (want %s)", ErrFormat, format, strings.Join(Formats, ", "))
}

func (r *Report) writeJSON(w io.Writer) error {
	head, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	b.WriteString(`,"levels":[`)
	for i := range r.Levels {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeFieldsJSON(&b, r.Levels[i].Fields()); err != nil {
			return err
		}
	}
	b.WriteString("]}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

func writeFieldsJSON(b *bytes.Buffer, fs []Field) error {
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		v, err := json.Marshal(f.Value)
		if err != nil {
			return fmt.Errorf("loadgen: %s: %w", f.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return nil
}

func (r *Report) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	var keys []string
	rows := make([]map[string]string, len(r.Levels))
	for i := range r.Levels {
		rows[i] = map[string]string{}
		for _, f := range r.Levels[i].Fields() {
			if !slices.Contains(keys, f.Key) {
				keys = append(keys, f.Key)
			}
			rows[i][f.Key] = formatValue(f.Value)
		}
	}
	if err := cw.Write(keys); err != nil {
		return err
	}
	for _, row := range rows {
		rec := make([]string, len(keys))
		for j, k := range keys {
			rec[j] = row[k]
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', 6, 64)
	case int:
		return strconv.Itoa(x)
	case string:
		return x
	case map[string]int:
		return errorsString(x)
	}
	return fmt.Sprint(v)
}

// writeMarkdown prints the figures people compare levels by; the JSON and
// CSV carry every figure.
func (r *Report) writeMarkdown(w io.Writer) error {
	server := false
	cost := false
	good := false
	for i := range r.Levels {
		server = server || r.Levels[i].ServerRequests > 0
		cost = cost || r.Levels[i].CostPerHour > 0
		good = good || r.Levels[i].SLO.Set()
	}
	head := []string{"level", "ok", "fail", "req/s", "out tok/s", "total tok/s", "user tok/s p50", "TTFT mean", "TTFT p99", "TPOT mean", "TPOT p99", "ITL p50", "ITL p99", "E2EL p99"}
	if good {
		head = append(head, "goodput req/s")
	}
	if cost {
		head = append(head, "$/M out tok")
	}
	if server {
		head = append(head, "srv prompt ms", "client TTFT ms", "srv tok/s", "client decode tok/s")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s, %s; latencies in ms\n\n", r.BaseURL, r.Endpoint, r.describeWorkload())
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for range head {
		b.WriteString("---:|")
	}
	b.WriteByte('\n')
	for i := range r.Levels {
		s := &r.Levels[i]
		fail := strconv.Itoa(s.Failed)
		if s.Failed > 0 {
			fail += " (" + errorsString(s.Errors) + ")"
		}
		cells := []string{s.Level.String(), strconv.Itoa(s.Completed), fail,
			num(s.RequestThroughput), num(s.OutputThroughput), num(s.TotalTokenThroughput), num(s.RequestOutputTPS.Median),
			num(s.TTFT.Mean), num(s.TTFT.P99), num(s.TPOT.Mean), num(s.TPOT.P99), num(s.ITL.P50), num(s.ITL.P99), num(s.E2EL.P99)}
		if good {
			cells = append(cells, num(s.RequestGoodput))
		}
		if cost {
			cells = append(cells, num(s.CostPerMillionOutputTokens))
		}
		if server {
			if s.ServerRequests > 0 {
				cells = append(cells, num(s.ServerPromptMS.Mean), num(s.TTFT.Mean), num(s.ServerPredictedTPS.Mean), num(s.RequestDecodeTPS.Mean))
			} else {
				cells = append(cells, "-", num(s.TTFT.Mean), "-", num(s.RequestDecodeTPS.Mean))
			}
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) describeWorkload() string {
	var parts []string
	if r.Dataset != "" {
		parts = append(parts, "dataset "+r.Dataset)
	} else {
		in := strconv.Itoa(r.InputLen)
		if r.InputRange > 0 {
			in += fmt.Sprintf("±%g%%", r.InputRange*100)
		}
		parts = append(parts, in+"-token prompts")
		if r.PrefixLen > 0 {
			parts = append(parts, fmt.Sprintf("%d-token shared prefix", r.PrefixLen))
		}
	}
	parts = append(parts, fmt.Sprintf("%d output tokens", r.OutputLen))
	if r.DurationS > 0 {
		parts = append(parts, fmt.Sprintf("%gs per level", r.DurationS))
	} else if r.NumPrompts > 0 {
		parts = append(parts, fmt.Sprintf("%d requests per level", r.NumPrompts))
	} else {
		parts = append(parts, "4 x concurrency requests per level")
	}
	if r.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("%d warm-up", r.Warmup))
	}
	return strings.Join(parts, ", ")
}

// num formats a figure with about four significant digits.
func num(x float64) string {
	switch {
	case x == math.Trunc(x) && math.Abs(x) < 1e9:
		return strconv.FormatFloat(x, 'f', 0, 64) // counts
	case x == 0:
		return "0"
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case math.Abs(x) >= 100:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case math.Abs(x) >= 10:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case math.Abs(x) >= 0.01:
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func itoa(n int) string { return strconv.Itoa(n) }

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
