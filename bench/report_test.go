package bench

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

var testMachine = Machine{CPU: "Test CPU 9000", Cores: 2, LogicalCPUs: 4, Kernels: "generic", GoVersion: "go1.26",
	OS: "linux", Arch: "amd64", MemReadGBs: 10}

func testResults() []Result {
	a := ModelInfo{Name: "a Q8", Filename: "/m/a.gguf", Type: "llama 1.1B Q8_0", Size: 3 << 30, Params: 11e8,
		WeightBytesPerToken: 1e9, Batch: 512, Threads: 2, Context: 4096}
	b := a
	b.Name, b.WeightBytesPerToken = "b", 5e8
	tg := &Measurement{Test: Test{NGen: 100}, Samples: []time.Duration{time.Second, 2 * time.Second},
		ITL: []time.Duration{1e6, 2e6, 3e6, 4e6}}
	pp := &Measurement{Test: Test{NPrompt: 64}, Samples: []time.Duration{time.Second, time.Second},
		TTFT: []time.Duration{time.Second, time.Second}}
	tgB := &Measurement{Test: Test{NGen: 100}, Samples: []time.Duration{500 * time.Millisecond, 500 * time.Millisecond}}
	rs := []Result{NewResult(a, testMachine, pp), NewResult(a, testMachine, tg), NewResult(b, testMachine, tgB)}
	SetSpeedups(rs)
	return rs
}

func TestNewResult(t *testing.T) {
	rs := testResults()
	tg := rs[1]
	// Per-repetition rates 100 and 50 tok/s: llama-bench averages the rates.
	if tg.Test != "tg100" || !near(tg.AvgTS, 75) || !near(tg.StddevTS, 35.35533905932738) || !near(tg.MedianTS, 75) ||
		tg.AvgNS != 15e8 || len(tg.SamplesTS) != 2 || tg.SamplesNS[1] != 2e9 {
		t.Errorf("tg row %+v", tg)
	}
	if tg.ITLMSP50 == nil || !near(*tg.ITLMSP50, 2.5) || !near(*tg.ITLMSP90, 3.7) || !near(*tg.ITLMSP99, 3.97) {
		t.Errorf("ITL percentiles %v %v %v", tg.ITLMSP50, tg.ITLMSP90, tg.ITLMSP99)
	}
	// 1e9 weight bytes per token at 75 tok/s = 75 GB/s, 750% of 10 GB/s.
	if tg.WeightsGBs == nil || !near(*tg.WeightsGBs, 75) || !near(*tg.BandwidthPct, 750) {
		t.Errorf("bandwidth %v %v", tg.WeightsGBs, tg.BandwidthPct)
	}
	if tg.TTFTMS != nil {
		t.Error("tg row has a TTFT")
	}
	pp := rs[0]
	if pp.TTFTMS == nil || *pp.TTFTMS != 1000 || pp.WeightsGBs != nil || pp.ITLMSP50 != nil || !near(pp.AvgTS, 64) {
		t.Errorf("pp row %+v", pp)
	}
	SetBandwidth(rs, 20)
	if rs[1].MemReadGBs != 20 || !near(*rs[1].BandwidthPct, 375) || rs[0].BandwidthPct != nil {
		t.Errorf("after SetBandwidth(20): %v %v", rs[1].BandwidthPct, rs[0].BandwidthPct)
	}
	if NeedsBandwidth(rs) {
		_, _, n := ProbedBandwidth(rs)
		if n != 0 {
			t.Errorf("%d rows probed", n)
		}
	} else {
		t.Error("generation rows without probes need no bandwidth")
	}
	if rs[0].Speedup != 1 || rs[1].Speedup != 1 || !near(rs[2].Speedup, 200.0/75) {
		t.Errorf("speedups %v %v %v", rs[0].Speedup, rs[1].Speedup, rs[2].Speedup)
	}
}

// TestProbedRows: a row with bandwidth probes of its own takes their
// best for its BW %, keeps it through SetBandwidth, and shows in the
// machine line's range.
func TestProbedRows(t *testing.T) {
	a := ModelInfo{Name: "a", WeightBytesPerToken: 1e9, Threads: 2}
	probed := &Measurement{Test: Test{NGen: 10}, Samples: []time.Duration{time.Second}, MemReadGBs: []float64{18, 20, 16}}
	plain := &Measurement{Test: Test{NGen: 10}, Samples: []time.Duration{time.Second}}
	rs := []Result{NewResult(a, testMachine, probed), NewResult(a, testMachine, plain)}
	// 10 tok/s x 1e9 bytes = 10 GB/s: 50% of the best probe, 20.
	if !rs[0].MemReadProbed || rs[0].MemReadGBs != 20 || rs[0].BandwidthPct == nil || !near(*rs[0].BandwidthPct, 50) {
		t.Errorf("probed row: %v %v %v", rs[0].MemReadProbed, rs[0].MemReadGBs, rs[0].BandwidthPct)
	}
	if !NeedsBandwidth(rs) || NeedsBandwidth(rs[:1]) {
		t.Error("NeedsBandwidth: only the row without probes needs the machine's figure")
	}
	SetBandwidth(rs, 40)
	if rs[0].MemReadGBs != 20 || !near(*rs[0].BandwidthPct, 50) || rs[1].MemReadGBs != 40 || !near(*rs[1].BandwidthPct, 25) {
		t.Errorf("after SetBandwidth(40): %v %v, %v %v", rs[0].MemReadGBs, *rs[0].BandwidthPct, rs[1].MemReadGBs, *rs[1].BandwidthPct)
	}
	rs = append(rs, NewResult(a, testMachine, &Measurement{Test: Test{NGen: 10}, Samples: []time.Duration{time.Second}, MemReadGBs: []float64{25}}))
	lo, hi, n := ProbedBandwidth(rs)
	if lo != 20 || hi != 25 || n != 2 {
		t.Errorf("ProbedBandwidth = %v %v %v", lo, hi, n)
	}
	mach := testMachine
	mach.MemReadGBs, mach.MemReadProbedMinGBs, mach.MemReadProbedMaxGBs = 0, lo, hi
	if s := mach.String(); !strings.Contains(s, ", memory read 20.0-25.0 GB/s probed beside each test") {
		t.Errorf("machine line %q", s)
	}
	mach.MemReadGBs, mach.MemReadProbedMinGBs = 30, hi
	if s := mach.String(); !strings.Contains(s, "memory read 30.0 GB/s (measured); 25.0 GB/s probed beside the larger models' tests") {
		t.Errorf("machine line with a measured figure too: %q", s)
	}
}

func TestWriteJSONAndJSONL(t *testing.T) {
	rs := testResults()
	var b bytes.Buffer
	if err := Write(&b, "json", testMachine, rs); err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal(b.Bytes(), &objs); err != nil {
		t.Fatalf("json: %v\n%s", err, b.String())
	}
	if len(objs) != 3 {
		t.Fatalf("%d objects", len(objs))
	}
	for _, k := range []string{"model", "model_type", "test", "n_prompt", "n_gen", "n_depth", "threads", "n_threads",
		"avg_ts", "stddev_ts", "median_ts", "samples_ts", "samples_ns", "speedup", "cpu_info"} {
		if _, ok := objs[1][k]; !ok {
			t.Errorf("json object lacks %q", k)
		}
	}
	for _, k := range []string{"itl_ms_p50", "itl_ms_p90", "itl_ms_p99", "bandwidth_pct"} {
		if _, ok := objs[1][k]; !ok {
			t.Errorf("tg object lacks %q", k)
		}
	}
	if _, ok := objs[0]["ttft_ms"]; !ok {
		t.Error("pp object lacks ttft_ms")
	}
	if objs[1]["test"] != "tg100" || objs[1]["model_type"] != "llama 1.1B Q8_0" {
		t.Errorf("tg object %v", objs[1])
	}

	b.Reset()
	if err := Write(&b, "jsonl", testMachine, rs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d jsonl lines", len(lines))
	}
	for _, l := range lines {
		var r Result
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.AvgTS <= 0 {
			t.Errorf("jsonl line %q: %v", l, err)
		}
	}
	if err := Write(&b, "yaml", testMachine, rs); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, testResults()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d csv records", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, k := range []string{"model", "test", "avg_ts", "samples_ts", "itl_ms_p99", "speedup"} {
		if _, ok := col[k]; !ok {
			t.Fatalf("csv header lacks %q: %v", k, recs[0])
		}
	}
	tg := recs[2]
	if tg[col["model"]] != "a Q8" || tg[col["test"]] != "tg100" || tg[col["avg_ts"]] != "75" ||
		tg[col["samples_ts"]] != "100 50" || tg[col["itl_ms_p50"]] != "2.5" || recs[1][col["itl_ms_p50"]] != "" {
		t.Errorf("csv tg row %v", tg)
	}
}

func TestWriteBenchstat(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchstat(&b, testMachine, testResults()); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^(BenchmarkGollm/model=[^ /=]+/test=[^ /]+-\d+)\t1\t(\d+) ns/token\t([0-9.e+]+) tok/s$`)
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if !strings.HasPrefix(l, "Benchmark") {
			if !strings.Contains(l, ": ") {
				t.Errorf("header line %q is not key: value", l)
			}
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("not a benchmark line: %q", l)
			continue
		}
		names = append(names, m[1])
	}
	want := []string{
		"BenchmarkGollm/model=a_Q8/test=pp64-2", "BenchmarkGollm/model=a_Q8/test=pp64-2",
		"BenchmarkGollm/model=a_Q8/test=tg100-2", "BenchmarkGollm/model=a_Q8/test=tg100-2",
		"BenchmarkGollm/model=b/test=tg100-2", "BenchmarkGollm/model=b/test=tg100-2",
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("benchmark names %v\nwant %v", names, want)
	}
	if !strings.Contains(b.String(), "\t10000000 ns/token\t100 tok/s\n") {
		t.Errorf("first tg sample (1 s for 100 tokens) missing:\n%s", b.String())
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, testMachine, testResults()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasPrefix(lines[0], "Test CPU 9000, 2 cores / 4 threads, kernels generic") {
		t.Errorf("machine line %q", lines[0])
	}
	var rows [][]string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, strings.Split(strings.Trim(l, "| "), " | "))
		}
	}
	if len(rows) != 5 {
		t.Fatalf("%d table lines:\n%s", len(rows), b.String())
	}
	for i, r := range rows {
		if len(r) != len(rows[0]) {
			t.Errorf("row %d has %d cells, header %d", i, len(r), len(rows[0]))
		}
	}
	tg := rows[3]
	if tg[0] != "a Q8" || tg[1] != "3.00 GiB" || tg[2] != "1.10 B" || tg[4] != "tg100" || tg[5] != "75.00 ± 35.36" ||
		tg[8] != "2.50 / 3.70 / 3.97" || tg[10] != "750%" || rows[4][11] != "2.67x" {
		t.Errorf("tg row %q, b row %q", tg, rows[4])
	}
}

// mdRows returns the table lines of a markdown report split into cells.
func mdRows(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, strings.Split(strings.Trim(l, "| "), " | "))
		}
	}
	return rows
}

// TestMarkdownParamColumns: a parameter gets a column (after threads, as in
// llama-bench) when a row has a non-default value or the rows differ, and
// speedups compare rows with the same parameters.
func TestMarkdownParamColumns(t *testing.T) {
	a := ModelInfo{Name: "a", Type: "llama 1M Q8_0", Size: 1 << 20, Params: 1e6, Batch: 512, Threads: 2, Context: 4096}
	meas := func(d time.Duration) *Measurement {
		return &Measurement{Test: Test{NGen: 10}, Samples: []time.Duration{d}}
	}
	q8 := a
	q8.KVType = "Q8_0"
	ub := a
	ub.Batch = 256
	b := a
	b.Name, b.KVType = "b", "q8_0"
	rs := []Result{NewResult(a, testMachine, meas(time.Second)), NewResult(q8, testMachine, meas(time.Second/2)),
		NewResult(ub, testMachine, meas(time.Second)), NewResult(b, testMachine, meas(time.Second/4))}
	SetSpeedups(rs)
	if rs[1].TypeK != "q8_0" || rs[1].TypeV != "q8_0" || rs[0].TypeK != "f16" || rs[0].KVBlock != 16 || rs[0].Pack != "load" {
		t.Errorf("parameters not filled in: %+v", rs[:2])
	}
	// b's q8_0 row compares with a's q8_0 row: 40 tok/s against 20.
	if rs[1].Speedup != 1 || !near(rs[3].Speedup, 2) {
		t.Errorf("speedups %v %v", rs[1].Speedup, rs[3].Speedup)
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, testMachine, rs); err != nil {
		t.Fatal(err)
	}
	rows := mdRows(buf.String())
	want := "model size params threads n_ubatch type_k type_v test"
	if got := strings.Join(rows[0][:8], " "); got != want {
		t.Fatalf("header %q, want %q first", got, want)
	}
	if got := strings.Join(rows[3][3:7], " "); got != "2 512 q8_0 q8_0" {
		t.Errorf("q8_0 row parameters %q", got)
	}
	if got := rows[4][4]; got != "256" {
		t.Errorf("n_ubatch cell %q", got)
	}
	if strings.Contains(buf.String(), "partial") {
		t.Error("a complete report says partial")
	}

	// Defaults everywhere: no parameter columns.
	buf.Reset()
	WriteMarkdown(&buf, testMachine, rs[:1])
	if got := mdRows(buf.String())[0][4]; got != "test" {
		t.Errorf("default parameters shown: column %q after threads", got)
	}
}

func TestPartialReports(t *testing.T) {
	rs := testResults()[:2]
	MarkPartial(rs)
	for _, format := range Formats {
		var b bytes.Buffer
		if err := Write(&b, format, testMachine, rs); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		switch format {
		case "json":
			var objs []map[string]any
			if err := json.Unmarshal(b.Bytes(), &objs); err != nil || len(objs) != 2 || objs[0]["partial"] != true {
				t.Errorf("json: %v %v", err, objs)
			}
		case "md":
			if !strings.Contains(out, "\npartial: the run stopped early; the table holds the 2 tests that finished\n") {
				t.Errorf("md:\n%s", out)
			}
		default:
			if !strings.Contains(out, "partial") {
				t.Errorf("%s output does not say partial:\n%s", format, out)
			}
		}
	}
	var b bytes.Buffer
	WriteJSON(&b, testResults())
	if strings.Contains(b.String(), "partial") {
		t.Error("a complete json report says partial")
	}
}
