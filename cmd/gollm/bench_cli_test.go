package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"github.com/gollm/gollm/internal/shared"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gollm/gollm/gguf"
)

// TestBenchOptionLists: the KV type and the batch are lists, each
// combination a row in llama-bench's order with its own columns; -c sets
// the context; one positional argument is the model.
func TestBenchOptionLists(t *testing.T) {
	a, _ := tinyFiles(t)
	out, _, err := instrRun(t, "bench", a, "-p", "8", "-n", "2", "-t", "1", "-r", "1", "--mem-bw", "10", "-c", "64",
		"--kv-type", "f16,q8_0", "--ubatch-size", "4", "--ubatch-size", "8", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var objs []struct {
		Test    string `json:"test"`
		TypeK   string `json:"type_k"`
		TypeV   string `json:"type_v"`
		NBatch  int    `json:"n_batch"`
		NUBatch int    `json:"n_ubatch"`
		NCtx    int    `json:"n_ctx"`
		Size    int64  `json:"model_size"`
		Partial bool   `json:"partial"`
	}
	if err := json.Unmarshal([]byte(out), &objs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, strings.Join([]string{o.Test, o.TypeK, o.TypeV, strconv.Itoa(o.NBatch), strconv.Itoa(o.NUBatch), strconv.Itoa(o.NCtx)}, "/"))
		if o.Partial {
			t.Error("a complete run is marked partial")
		}
	}
	want := "pp8/f16/f16/4/4/64 tg2/f16/f16/4/4/64 pp8/q8_0/q8_0/4/4/64 tg2/q8_0/q8_0/4/4/64 " +
		"pp8/f16/f16/8/8/64 tg2/f16/f16/8/8/64 pp8/q8_0/q8_0/8/8/64 tg2/q8_0/q8_0/8/8/64"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %s\nwant %s", strings.Join(got, " "), want)
	}

	// size is the tensors' bytes, as llama-bench (less than the file).
	f, err := gguf.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	var tensors int64
	for _, ti := range f.Tensors {
		tensors += int64(ti.Size)
	}
	if objs[0].Size != tensors || tensors >= int64(f.Size) {
		t.Errorf("model_size %d, tensor bytes %d, file %d", objs[0].Size, tensors, f.Size)
	}
	f.Close()

	out, _, err = instrRun(t, "bench", "-m", a, "-p", "8", "-n", "0", "-t", "1", "-r", "1", "--kv-type", "f16,q8_0", "-o", "md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| threads | type_k | type_v | test |") || !strings.Contains(out, "| 1 | q8_0 | q8_0 | pp8 |") {
		t.Errorf("markdown lacks the type_k/type_v columns:\n%s", out)
	}
}

// TestBenchLlamaFlags runs the built binary with llama-bench's spellings.
func TestBenchLlamaFlags(t *testing.T) {
	a, _ := tinyFiles(t)
	stdout, stderr, code := run(t, "bench", "-m", a, "-p", "4", "-n", "0", "-r", "1", "-t", "1", "--mem-bw", "10", "-o", "json",
		"-ctk", "f16,q8_0", "-ctv", "f16,q8_0", "-ub", "4", "-b", "2048", "-fa", "0,1", "-mmp", "0", "-ngl", "99", "-pg", "2,1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	objs := parseBenchJSON(t, stdout)
	if len(objs) != 4 || objs[0].Test != "pp4" || objs[1].Test != "pp2+tg1" {
		t.Errorf("%d rows: %+v", len(objs), objs)
	}
	for _, note := range []string{"-ngl is ignored", "-fa off is ignored", "-mmp 0 is ignored"} {
		if strings.Count(stderr, note) != 1 {
			t.Errorf("stderr does not say %q once:\n%s", note, stderr)
		}
	}
	// A usage error exits 2 with one line.
	_, stderr, code = run(t, "bench", "-m", a, "--type", "Q8_0")
	if code != 2 || !strings.Contains(stderr, "--type applies to --synthetic") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("bench --type without --synthetic: exit %d, %q", code, stderr)
	}
}

func TestBenchOptionErrors(t *testing.T) {
	a, _ := tinyFiles(t)
	for _, args := range [][]string{
		{"--type", "Q8_0"},
		{"--synth-seed", "3"},
		{"--cache-type-k", "q8_0", "--cache-type-v", "f16"},
		{"--kv-type", "f16", "--cache-type-k", "q8_0"},
		{"--kv-type", "q4_0"},
		{"--kv-block", "0"},
		{"-c", "4"},
		{"--kv-size", "3"},
		{"--flash-attn", "maybe"},
		{"--mmap", "2"},
		{"--n-gpu-layers", "-2"},
		{"--pack", "never"},
		{"--ubatch-size", "-1"},
		{"-b", "x"},
		{a},
	} {
		_, _, err := instrRun(t, append([]string{"bench", "-m", a, "-p", "8", "-n", "0", "-r", "1", "--mem-bw", "10"}, args...)...)
		if !errors.Is(err, errUsage) {
			t.Errorf("bench %v: err %v, want a usage error", args, err)
		}
	}
}

// TestBenchInterrupt sends SIGINT to the built binary once the first test
// has finished: it prints the finished tests marked partial and exits 130.
func TestBenchInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the binary for a second or two")
	}
	a, _ := tinyFiles(t)
	for _, format := range []string{"md", "json"} {
		t.Run(format, func(t *testing.T) {
			// tg2 takes milliseconds; tg4000 (two runs of 4000 steps) seconds.
			cmd := exec.Command(gollmBin(t), "bench", "-m", a, "-p", "0", "-n", "2,4000", "-r", "1", "-t", "1",
				"--mem-bw", "10", "-o", format)
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			sc := bufio.NewScanner(errPipe)
			signalled := false
			for sc.Scan() {
				stderr.WriteString(sc.Text() + "\n")
				if !signalled && strings.Contains(sc.Text(), " tg2: ") {
					signalled = true
					start := time.Now()
					cmd.Process.Signal(syscall.SIGINT)
					defer func() {
						if d := time.Since(start); d > 5*time.Second {
							t.Errorf("exited %v after SIGINT", d)
						}
					}()
				}
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !signalled || !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("signalled %v, exit %v; stderr:\n%s", signalled, err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "bench: stopped: 1 of 2 tests finished") || strings.Contains(stderr.String(), "gollm: ") {
				t.Errorf("stderr:\n%s", stderr.String())
			}
			out := stdout.String()
			switch format {
			case "md":
				if !strings.Contains(out, "| tg2 |") || strings.Contains(out, "tg4000") ||
					!strings.Contains(out, "partial: the run stopped early; the table holds the 1 tests that finished") {
					t.Errorf("partial table:\n%s", out)
				}
			case "json":
				var objs []map[string]any
				if err := json.Unmarshal([]byte(out), &objs); err != nil || len(objs) != 1 ||
					objs[0]["test"] != "tg2" || objs[0]["partial"] != true {
					t.Errorf("partial json (%v):\n%s", err, out)
				}
			}
		})
	}
}

// TestBenchErrorKeepsRows: a combination the model cannot load (a q8_0
// cache with 8-wide heads) ends the run with its error, after the rows
// already finished, marked partial.
func TestBenchErrorKeepsRows(t *testing.T) {
	model := filepath.Join(shared.Dir(t), "models", "stories260K.gguf")
	out, stderr, err := instrRun(t, "bench", "-m", model, "-p", "8", "-n", "0", "-t", "1", "-r", "1", "--mem-bw", "10",
		"--kv-type", "f16,q8_0", "-o", "json")
	if err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), "q8_0") {
		t.Fatalf("err %v", err)
	}
	var objs []map[string]any
	if e := json.Unmarshal([]byte(out), &objs); e != nil || len(objs) != 1 || objs[0]["type_k"] != "f16" || objs[0]["partial"] != true {
		t.Errorf("rows before the error (%v):\n%s", e, out)
	}
	if !strings.Contains(stderr, "bench: stopped: 1 of 2 tests finished") {
		t.Errorf("stderr %q", stderr)
	}
}
