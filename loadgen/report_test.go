package loadgen

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// runSweep measures two levels against a steady fake server.
func runSweep(t *testing.T) *Report {
	t.Helper()
	fs := newFakeServer(t, func(n int) fakeScript {
		sc := steady(4, time.Duration(5+n%3)*time.Millisecond, time.Duration(1+n%2)*time.Millisecond)
		sc.timings = true
		return sc
	})
	r := newRunner(t, fs, Config{NumPrompts: 8})
	rep := &Report{Tool: "test", BaseURL: fs.URL, Endpoint: EndpointCompletions, InputLen: 8, OutputLen: 4, NumPrompts: 8}
	for _, c := range []int{1, 2} {
		res, err := r.Run(context.Background(), Level{Concurrency: c})
		if err != nil {
			t.Fatal(err)
		}
		rep.Levels = append(rep.Levels, Summarize(res, SLO{TTFT: 50 * time.Millisecond}, 2))
	}
	return rep
}

func TestReportFormats(t *testing.T) {
	rep := runSweep(t)
	var js bytes.Buffer
	if err := rep.Write(&js, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Levels []map[string]any `json:"levels"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	if len(doc.Levels) != 2 {
		t.Fatalf("%d levels in the JSON", len(doc.Levels))
	}
	// vLLM's keys, and ours.
	for _, k := range []string{"completed", "failed", "total_input_tokens", "total_output_tokens", "duration",
		"request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
		"max_output_tokens_per_s", "max_concurrent_requests", "mean_ttft_ms", "median_ttft_ms", "std_ttft_ms",
		"p99_ttft_ms", "mean_tpot_ms", "p90_itl_ms", "p95_e2el_ms", "median_request_output_tps",
		"cost_per_million_output_tokens", "mean_server_prompt_ms", "mean_server_predicted_tps", "mean_server_queue_ms"} {
		if _, ok := doc.Levels[1][k]; !ok {
			t.Errorf("JSON level lacks %q", k)
		}
	}
	if doc.Levels[0]["completed"] != 8.0 || doc.Levels[1]["label"] != "c=2" || doc.Levels[0]["request_rate"] != "inf" {
		t.Errorf("level values: %v", doc.Levels[0])
	}

	var cs bytes.Buffer
	if err := rep.Write(&cs, "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&cs).ReadAll()
	if err != nil || len(recs) != 3 || recs[0][0] != "label" || recs[2][0] != "c=2" {
		t.Errorf("CSV: %v %v", recs, err)
	}

	var md bytes.Buffer
	if err := rep.Write(&md, "md"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| c=1 | 8 | 0 |") || !strings.Contains(md.String(), "srv prompt ms") {
		t.Errorf("table:\n%s", md.String())
	}
	if err := rep.Write(&md, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestCompare(t *testing.T) {
	rep := runSweep(t)
	var a bytes.Buffer
	if err := rep.Write(&a, "json"); err != nil {
		t.Fatal(err)
	}
	ra, err := ReadReport(bytes.NewReader(a.Bytes()), "a.json")
	if err != nil {
		t.Fatal(err)
	}
	// b: the same run with doubled output throughput.
	rb, _ := ReadReport(bytes.NewReader(a.Bytes()), "b.json")
	for _, l := range rb.Levels {
		l["output_throughput"] = l["output_throughput"].(float64) * 2
	}
	var out bytes.Buffer
	if err := Compare(&out, ra, rb); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "c=2 vs c=2") || !strings.Contains(s, "| output_throughput |") || !strings.Contains(s, "2.00x better") {
		t.Errorf("comparison:\n%s", s)
	}
	// A vLLM --save-result file (one flat result) reads as one level.
	v, err := ReadReport(strings.NewReader(`{"max_concurrency": 1, "output_throughput": 10, "mean_ttft_ms": 5}`), "vllm.json")
	if err != nil || len(v.Levels) != 1 || v.Levels[0]["label"] != "c=1" {
		t.Errorf("vLLM file: %v %v", v, err)
	}
	if _, err := ReadReport(strings.NewReader(`{"x":1}`), "x.json"); err == nil {
		t.Error("a JSON without levels accepted")
	}
}

func TestPlot(t *testing.T) {
	rep := runSweep(t)
	for _, f := range []string{"png", "svg"} {
		var b bytes.Buffer
		if err := Plot(&b, rep.Levels, "title", f); err != nil {
			t.Fatal(err)
		}
		if f == "png" && !bytes.HasPrefix(b.Bytes(), []byte("\x89PNG")) {
			t.Error("not a PNG")
		}
		if f == "svg" && !bytes.Contains(b.Bytes(), []byte("<svg")) {
			t.Error("not an SVG")
		}
	}
	if _, err := PlotFormat("x.pdf"); err == nil {
		t.Error("pdf accepted")
	}
	if err := Plot(&bytes.Buffer{}, nil, "", "png"); err == nil {
		t.Error("empty sweep plotted")
	}
}
