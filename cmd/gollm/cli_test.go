package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/gollm/gollm/internal/shared"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the binary gollmBin built, so test runs leave no
// directories behind in the system's temporary directory.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// gollmBin builds the CLI once per test run.
func gollmBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gollm-cli")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "gollm")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building gollm: %v", buildErr)
	}
	return binPath
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gollmBin(t), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// synthModel writes the tiny synthetic model through the CLI.
func synthModel(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if _, stderr, code := run(t, "synth", "--preset", "tiny", "--type", "Q8_0", "-o", path); code != 0 {
		t.Fatalf("synth failed: %s", stderr)
	}
	return path
}

func TestCLIErrorsAreOneLine(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.gguf")
	os.WriteFile(junk, []byte("GGUF but not really"), 0o644)
	model := synthModel(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"generate", "-m", filepath.Join(dir, "nope.gguf"), "-p", "hi"}, "no such file"},
		{"not gguf", []string{"generate", "-m", junk, "-p", "hi"}, "gguf"},
		{"bad flag", []string{"generate", "-m", model, "-p", "hi", "--temp", "abc"}, "invalid argument"},
		{"negative temp", []string{"generate", "-m", model, "-p", "hi", "--temp", "-1"}, "temp"},
		{"zero -n", []string{"generate", "-m", model, "-p", "hi", "-n", "0"}, "-n"},
		{"no model", []string{"generate", "-p", "hi"}, "required"},
		{"prompt too long", []string{"generate", "-m", model, "-c", "8", "-p", strings.Repeat("word ", 50)}, "context"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"inspect junk", []string{"inspect", "-m", junk}, "gguf"},
		{"perplexity no file", []string{"perplexity", "-m", model}, "-f"},
		{"unknown kernels", []string{"generate", "--kernels", "sse9", "-m", model, "-p", "hi"}, "available"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := run(t, c.args...)
			if code == 0 {
				t.Fatalf("exit status 0; stdout %q", stdout)
			}
			msg := strings.TrimRight(stderr, "\n")
			if strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "gollm: ") {
				t.Errorf("stderr is not one 'gollm: ...' line: %q", stderr)
			}
			if !strings.Contains(strings.ToLower(msg), strings.ToLower(c.want)) {
				t.Errorf("stderr %q does not mention %q", msg, c.want)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace on stderr: %s", stderr)
			}
		})
	}
}

func TestCLIGenerateJSON(t *testing.T) {
	model := synthModel(t)
	stdout, stderr, code := run(t, "generate", "-m", model, "-p", "Once upon a time", "-n", "8", "--temp", "0", "--json")
	if code != 0 {
		t.Fatalf("generate failed: %s", stderr)
	}
	var res struct {
		PromptTokens []int32 `json:"prompt_tokens"`
		Tokens       []int32 `json:"tokens"`
		Text         *string `json:"text"`
		TTFT         float64 `json:"ttft_ms"`
		PrefillTPS   float64 `json:"prefill_tps"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, stdout)
	}
	if len(res.PromptTokens) == 0 || len(res.Tokens) == 0 || len(res.Tokens) > 8 || res.Text == nil || res.TTFT <= 0 || res.PrefillTPS <= 0 {
		t.Errorf("implausible result: %+v", res)
	}
	// Greedy is deterministic.
	again, _, _ := run(t, "generate", "-m", model, "-p", "Once upon a time", "-n", "8", "--temp", "0", "--json")
	var res2 struct {
		Tokens []int32 `json:"tokens"`
	}
	json.Unmarshal([]byte(again), &res2)
	if len(res2.Tokens) != len(res.Tokens) {
		t.Fatalf("greedy runs differ: %v vs %v", res.Tokens, res2.Tokens)
	}
	for i := range res.Tokens {
		if res.Tokens[i] != res2.Tokens[i] {
			t.Fatalf("greedy runs differ: %v vs %v", res.Tokens, res2.Tokens)
		}
	}
	// Every kernel implementation gives the same bits, so the same tokens.
	for _, impl := range availableKernels() {
		out, stderr, code := run(t, "generate", "--kernels", impl, "-m", model, "-p", "Once upon a time", "-n", "8", "--temp", "0", "--json")
		var r struct {
			Tokens []int32 `json:"tokens"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("--kernels %s: exit %d: %s", impl, code, stderr)
		}
		if fmt.Sprint(r.Tokens) != fmt.Sprint(res.Tokens) {
			t.Errorf("--kernels %s: tokens %v, default kernels %v", impl, r.Tokens, res.Tokens)
		}
	}
}

func TestCLITokenizeAndLogits(t *testing.T) {
	stories := filepath.Join(shared.Dir(t, "models"), "stories260K.gguf")
	stdout, stderr, code := run(t, "tokenize", "-m", stories, "-p", "Once upon a time")
	if code != 0 || strings.TrimSpace(stdout) != "1 403 407 261 378" {
		t.Errorf("tokenize: %q (stderr %q), want the golden ids 1 403 407 261 378", stdout, stderr)
	}
	stdout, stderr, code = run(t, "logits", "-m", stories, "-p", "Once upon a time", "--top", "3", "--json")
	if code != 0 {
		t.Fatalf("logits: %s", stderr)
	}
	var lg struct {
		PromptTokens []int32        `json:"prompt_tokens"`
		Top          [][][2]float64 `json:"top"`
	}
	if err := json.Unmarshal([]byte(stdout), &lg); err != nil {
		t.Fatal(err)
	}
	// llama.cpp's argmax after "Once upon a time" is token 432 (golden file).
	if len(lg.Top) != 5 || len(lg.Top[4]) != 3 || lg.Top[4][0][0] != 432 {
		t.Errorf("logits top: %v", lg.Top)
	}
	stdout, _, code = run(t, "perplexity", "-m", stories, "-f", shared.Dir(t, "text", "story.txt"), "-c", "128")
	if code != 0 || !strings.Contains(stdout, "Final estimate: PPL = 5.10") {
		t.Errorf("perplexity output: %q", stdout)
	}
}
