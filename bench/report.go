package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Formats are the report formats Write knows.
var Formats = []string{"md", "csv", "json", "jsonl", "benchstat"}

// ErrFormat is returned for an unknown report format.
var ErrFormat = errors.New("bench: unknown output format")

// Write renders rs in format (one of Formats).
func Write(w io.Writer, format string, mach Machine, rs []Result) error {
	switch strings.ToLower(format) {
	case "md", "markdown":
		return WriteMarkdown(w, mach, rs)
	case "csv":
		return WriteCSV(w, rs)
	case "json":
		return WriteJSON(w, rs)
	case "jsonl":
		return WriteJSONL(w, rs)
	case "benchstat":
		return WriteBenchstat(w, mach, rs)
	}
	return fmt.Errorf("%w %q (have %s)", ErrFormat, format, strings.Join(Formats, ", "))
}

// WriteJSON writes rs as one indented JSON array, as llama-bench -o json.
func WriteJSON(w io.Writer, rs []Result) error {
	if rs == nil {
		rs = []Result{}
	}
	b, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteJSONL writes one compact JSON object per line.
func WriteJSONL(w io.Writer, rs []Result) error {
	enc := json.NewEncoder(w)
	for i := range rs {
		if err := enc.Encode(&rs[i]); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}

// WriteBenchstat writes one Go benchmark line per repetition, so that
// `benchstat old.txt new.txt` compares two runs:
//
//	BenchmarkGollm/model=NAME/test=tg128-2  1  2641502 ns/token  378.6 tok/s
//
// The -N suffix is the thread count (benchstat reads it as GOMAXPROCS).
func WriteBenchstat(w io.Writer, mach Machine, rs []Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "goos: %s\ngoarch: %s\npkg: github.com/gollm/gollm\ncpu: %s\n", mach.OS, mach.Arch, mach.CPU)
	fmt.Fprintf(&b, "kernels: %s\n", mach.Kernels)
	if IsPartial(rs) {
		fmt.Fprintf(&b, "partial: stopped after %d tests\n", len(rs))
	}
	for _, r := range rs {
		name := fmt.Sprintf("BenchmarkGollm/model=%s/test=%s-%d", benchName(r.Model), benchName(r.Test), r.Threads)
		tokens := r.NPrompt + r.NGen
		for i, ns := range r.SamplesNS {
			fmt.Fprintf(&b, "%s\t1\t%d ns/token\t%.4g tok/s\n", name, ns/int64(max(tokens, 1)), r.SamplesTS[i])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// benchName keeps a name part inside one benchmark-name field: no spaces
// (they end the name), no slashes (sub-benchmark separators), no '='.
func benchName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '/', '=':
			return '_'
		}
		return r
	}, s)
}
