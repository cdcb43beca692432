package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// SavedReport is a JSON report read back: its header and each level's
// figures by key.
type SavedReport struct {
	Name   string // what to call it in a comparison (the file name)
	Header map[string]any
	Levels []map[string]any
}

// ReadReport reads a report written with format "json" (gollm's, or vLLM's
// --save-result file, whose single result is taken as one level).
func ReadReport(rd io.Reader, name string) (*SavedReport, error) {
	var raw map[string]any
	if err := json.NewDecoder(rd).Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	sr := &SavedReport{Name: name, Header: raw}
	if lv, ok := raw["levels"].([]any); ok {
		for i, l := range lv {
			m, ok := l.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w: %s: level %d is not an object", ErrFormat, name, i)
			}
			sr.Levels = append(sr.Levels, m)
		}
	} else if _, ok := raw["output_throughput"]; ok {
		if _, ok := raw["label"]; !ok {
			raw["label"] = fmt.Sprintf("c=%v", raw["max_concurrency"])
		}
		sr.Levels = []map[string]any{raw}
	}
	if len(sr.Levels) == 0 {
		return nil, fmt.Errorf("%w: %s: no levels (not a bench serve JSON report)", ErrFormat, name)
	}
	return sr, nil
}

// compareKeys are the figures a comparison shows, and whether higher is
// better.
var compareKeys = []struct {
	key    string
	higher bool
}{
	{"completed", true}, {"failed", false},
	{"request_throughput", true}, {"output_throughput", true}, {"total_token_throughput", true},
	{"request_goodput", true}, {"median_request_output_tps", true},
	{"mean_ttft_ms", false}, {"p99_ttft_ms", false},
	{"mean_tpot_ms", false}, {"p99_tpot_ms", false},
	{"median_itl_ms", false}, {"p99_itl_ms", false},
	{"p99_e2el_ms", false}, {"cost_per_million_output_tokens", false},
	{"mean_server_prompt_ms", false}, {"mean_server_predicted_tps", true},
}

// Compare writes a and b side by side, level by level (matched by label,
// else by position), with the ratio b/a of each figure.
func Compare(w io.Writer, a, b *SavedReport) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "A = %s (%v), B = %s (%v)\n", a.Name, a.Header["base_url"], b.Name, b.Header["base_url"])
	used := map[int]bool{}
	for i, la := range a.Levels {
		j := -1
		for k, lb := range b.Levels {
			if !used[k] && lb["label"] == la["label"] {
				j = k
				break
			}
		}
		if j < 0 && i < len(b.Levels) && !used[i] {
			j = i
		}
		if j < 0 {
			continue
		}
		used[j] = true
		lb := b.Levels[j]
		fmt.Fprintf(&sb, "\n%v vs %v\n\n| metric | A | B | B/A |\n|---|---:|---:|---:|\n", la["label"], lb["label"])
		for _, ck := range compareKeys {
			va, oka := la[ck.key].(float64)
			vb, okb := lb[ck.key].(float64)
			if !oka || !okb {
				continue
			}
			ratio := "-"
			if va != 0 {
				ratio = fmt.Sprintf("%.2fx", vb/va)
				if vb != va && (vb > va) == ck.higher {
					ratio += " better"
				}
			}
			fmt.Fprintf(&sb, "| %s | %s | %s | %s |\n", ck.key, num(va), num(vb), ratio)
		}
	}
	if len(used) == 0 {
		return fmt.Errorf("%w: %s and %s have no levels in common", ErrFormat, a.Name, b.Name)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
