package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/synth"
)

// benchObject is the part of a bench JSON object the tests read, by the
// field names scripts use.
type benchObject struct {
	Model     string             `json:"model"`
	ModelType string             `json:"model_type"`
	Test      string             `json:"test"`
	NPrompt   *int               `json:"n_prompt"`
	NGen      *int               `json:"n_gen"`
	NDepth    *int               `json:"n_depth"`
	Threads   int                `json:"threads"`
	AvgTS     float64            `json:"avg_ts"`
	StddevTS  *float64           `json:"stddev_ts"`
	MedianTS  float64            `json:"median_ts"`
	SamplesTS []float64          `json:"samples_ts"`
	TTFTMS    *float64           `json:"ttft_ms"`
	ITLP50    *float64           `json:"itl_ms_p50"`
	ITLP90    *float64           `json:"itl_ms_p90"`
	ITLP99    *float64           `json:"itl_ms_p99"`
	BWPct     *float64           `json:"bandwidth_pct"`
	Speedup   float64            `json:"speedup"`
	Ops       map[string]float64 `json:"op_ms_per_token"`
}

func parseBenchJSON(t *testing.T, out string) []benchObject {
	t.Helper()
	var objs []benchObject
	if err := json.Unmarshal([]byte(out), &objs); err != nil {
		t.Fatalf("bench -o json output does not parse: %v\n%s", err, out)
	}
	return objs
}

func checkBenchObject(t *testing.T, o benchObject, reps int) {
	t.Helper()
	if o.Model == "" || o.ModelType == "" || o.NPrompt == nil || o.NGen == nil || o.NDepth == nil || o.Threads <= 0 ||
		o.StddevTS == nil || o.AvgTS <= 0 || o.MedianTS <= 0 || len(o.SamplesTS) != reps {
		t.Errorf("incomplete object %+v", o)
	}
	if *o.NPrompt > 0 != (o.TTFTMS != nil) {
		t.Errorf("%s: ttft_ms %v", o.Test, o.TTFTMS)
	}
	if *o.NGen > 0 {
		if o.ITLP50 == nil || o.ITLP90 == nil || o.ITLP99 == nil || *o.ITLP50 <= 0 || *o.ITLP50 > *o.ITLP99 {
			t.Errorf("%s: ITL percentiles %v %v %v", o.Test, o.ITLP50, o.ITLP90, o.ITLP99)
		}
	}
	if (*o.NPrompt == 0 && *o.NGen > 0) != (o.BWPct != nil) {
		t.Errorf("%s: bandwidth_pct %v", o.Test, o.BWPct)
	}
}

// TestBenchSyntheticJSON is the acceptance run: a SmolLM2-135M shaped
// random model in Q8_0, written to the user cache on first use.
func TestBenchSyntheticJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: writes a 140 MiB synthetic model")
	}
	if kernels.Impl() == "generic" {
		t.Skip("generic kernels (purego build): too slow for a 135M model; TestBenchFormats covers the paths")
	}
	out, _, err := instrRun(t, "bench", "--synthetic", "smollm2-135m", "--type", "q8_0", "-p", "32", "-n", "16", "-r", "2",
		"-o", "json", "--mem-bw", "10")
	if err != nil {
		t.Fatal(err)
	}
	objs := parseBenchJSON(t, out)
	if len(objs) != 2 || objs[0].Test != "pp32" || objs[1].Test != "tg16" {
		t.Fatalf("tests %+v", objs)
	}
	for _, o := range objs {
		checkBenchObject(t, o, 2)
		if o.Model != "smollm2-135m-Q8_0" || o.ModelType != "llama 135M Q8_0" || o.Speedup != 1 {
			t.Errorf("model %q type %q speedup %v", o.Model, o.ModelType, o.Speedup)
		}
		if len(o.Ops) == 0 || o.Ops["ffn_down"] <= 0 {
			t.Errorf("%s: op breakdown %v", o.Test, o.Ops)
		}
	}
}

// tinyFiles writes two tiny synthetic models (Q8_0, Q4_0) into dir.
func tinyFiles(t *testing.T) (string, string) {
	t.Helper()
	shape, err := synth.Lookup("tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	for _, typ := range []string{"Q8_0", "Q4_0"} {
		p := filepath.Join(dir, "tiny-"+typ+".gguf")
		if err := synth.Write(p, shape, synth.Options{FileType: typ, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths[0], paths[1]
}

// TestBenchFormats runs two models (comma list), pp/tg/-pg tests and two
// thread counts through every output format and parses each.
func TestBenchFormats(t *testing.T) {
	a, b := tinyFiles(t)
	args := []string{"bench", "-m", a + "," + b, "-p", "8", "-n", "4", "-pg", "4,2", "-t", "1,2", "-r", "2", "--mem-bw", "10"}
	const rows = 2 * 2 * 3 // models x threads x tests
	wantTests := []string{"pp8", "tg4", "pp4+tg2"}

	out, stderr, err := instrRun(t, append(args, "-o", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	objs := parseBenchJSON(t, out)
	if len(objs) != rows {
		t.Fatalf("%d objects, want %d", len(objs), rows)
	}
	for i, o := range objs {
		checkBenchObject(t, o, 2)
		if o.Test != wantTests[i%3] || o.Threads != 1+i/3%2 {
			t.Errorf("object %d: test %s threads %d", i, o.Test, o.Threads)
		}
		wantModel := "tiny-Q8_0"
		if i >= 6 {
			wantModel = "tiny-Q4_0"
		}
		if o.Model != wantModel || (i < 6) != (o.Speedup == 1) || o.Speedup <= 0 {
			t.Errorf("object %d: model %s speedup %v", i, o.Model, o.Speedup)
		}
	}
	if n := strings.Count(stderr, "tok/s\n"); n != rows {
		t.Errorf("%d progress lines on a non-terminal stderr, want %d:\n%s", n, rows, stderr)
	}

	out, _, err = instrRun(t, append(args, "-o", "jsonl")...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != rows {
		t.Errorf("%d jsonl lines, want %d", len(lines), rows)
	}
	for _, l := range lines {
		var o benchObject
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("jsonl line %q: %v", l, err)
		}
		checkBenchObject(t, o, 2)
	}

	out, _, err = instrRun(t, append(args, "-o", "csv")...)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != rows+1 || recs[0][0] != "model" {
		t.Errorf("csv: %d records, %v", len(recs), err)
	}

	out, _, err = instrRun(t, append(args, "-o", "benchstat")...)
	if err != nil {
		t.Fatal(err)
	}
	bl := regexp.MustCompile(`^BenchmarkGollm/model=tiny-Q[48]_0/test=(pp8|tg4|pp4\+tg2)-[12]\t1\t\d+ ns/token\t[0-9.e+]+ tok/s$`)
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			n++
			if !bl.MatchString(l) {
				t.Errorf("benchstat line %q", l)
			}
		}
	}
	if n != rows*2 {
		t.Errorf("%d benchstat lines, want %d (one per repetition)", n, rows*2)
	}

	out, _, err = instrRun(t, append(args, "-o", "md")...)
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") {
			table = append(table, l)
		}
	}
	if len(table) != rows+2 || !strings.Contains(table[0], "| speedup |") || !strings.Contains(out, "kernels "+kernels.Impl()) {
		t.Errorf("markdown:\n%s", out)
	}
}

// TestBenchDepthAndOverhead covers -d, --timers-overhead and the profiles.
func TestBenchDepthAndOverhead(t *testing.T) {
	a, _ := tinyFiles(t)
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "cpu"), filepath.Join(dir, "mem"), filepath.Join(dir, "trace")}
	prof := []string{"--cpuprofile", files[0], "--memprofile", files[1], "--trace", files[2]}
	out, _, err := instrRun(t, append([]string{"bench", "-m", a, "-p", "0", "-n", "3", "-d", "16", "-r", "2",
		"--timers-overhead", "--mem-bw", "10", "-o", "json"}, prof...)...)
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal([]byte(out), &objs); err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0]["test"] != "tg3@d16" || objs[0]["n_depth"] != 16.0 {
		t.Fatalf("objects %v", objs)
	}
	if _, ok := objs[0]["timers_overhead_pct"]; !ok {
		t.Error("no timers_overhead_pct with --timers-overhead")
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("profile %s: %v", f, err)
		}
	}

	out, _, err = instrRun(t, "bench", "-m", a, "-p", "4", "-n", "0", "-r", "1", "--no-timers", "--mem-bw", "10", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "op_ms_per_token") || strings.Contains(out, "timers_overhead_pct") {
		t.Errorf("--no-timers output has timer figures:\n%s", out)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	a, _ := tinyFiles(t)
	for _, args := range [][]string{
		{"-m", a, "-r", "0"},
		{"-m", a, "-o", "xml"},
		{"-p", "8"},
		{"-m", a, "-p", "x"},
		{"-m", a, "-pg", "5"},
		{"-m", a, "-p", "0", "-n", "0"},
		{"-m", a, "-t", "-1"},
		{"--synthetic", "no-such-shape"},
		{"-m", a, "stray"},
	} {
		_, _, err := instrRun(t, append([]string{"bench", "--mem-bw", "10"}, args...)...)
		if !errors.Is(err, errUsage) {
			t.Errorf("bench %v: err %v, want a usage error", args, err)
		}
	}
	if _, _, err := instrRun(t, "bench", "-m", filepath.Join(t.TempDir(), "missing.gguf")); err == nil || errors.Is(err, errUsage) {
		t.Errorf("missing file: %v", err)
	}
	_ = fmt.Sprint
}
