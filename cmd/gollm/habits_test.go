package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func runStdin(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gollmBin(t), args...)
	var o, e bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// interruptAfter starts gollm, waits until ready(stdout so far) holds (or
// the delay passes when ready is nil), sends SIGINT and returns what it
// printed and its exit status.
func interruptAfter(t *testing.T, delay time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gollmBin(t), args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var o bytes.Buffer
	done := make(chan struct{})
	firstOutput := make(chan struct{}, 1)
	go func() {
		defer close(done)
		r := bufio.NewReader(out)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			o.Write(buf[:n])
			if n > 0 {
				select {
				case firstOutput <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	if delay == 0 {
		select {
		case <-firstOutput:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatal("no output within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	} else {
		time.Sleep(delay)
	}
	cmd.Process.Signal(syscall.SIGINT)
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	<-done
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// Ctrl-C during generate keeps what was made: the text and a newline, the
// summary with stop: interrupted, or the whole JSON object; exit 130.
func TestCLIInterruptGenerate(t *testing.T) {
	model := synthModel(t)
	long := []string{"generate", "-m", model, "-p", "Once upon a time", "-n", "100000", "--ignore-eos", "-c", "65536", "--temp", "0"}
	stdout, stderr, code := interruptAfter(t, 0, long...)
	if code != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr)
	}
	if stdout == "" || !strings.HasSuffix(stdout, "\n") {
		t.Errorf("stdout %q: want the text made so far and a final newline", tail(stdout))
	}
	if !strings.Contains(stderr, "stop: interrupted") || !strings.Contains(stderr, "decode") {
		t.Errorf("stderr has no summary with stop: interrupted:\n%s", stderr)
	}

	stdout, stderr, code = interruptAfter(t, 1500*time.Millisecond, append(long, "--json")...)
	if code != 130 {
		t.Errorf("--json: exit status %d, want 130; stderr:\n%s", code, stderr)
	}
	var res struct {
		StopReason string  `json:"stop_reason"`
		NGen       int     `json:"n_gen"`
		Text       string  `json:"text"`
		Seed       *uint64 `json:"seed"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("--json output is not one JSON object (%v): %q", err, tail(stdout))
	}
	// (On a loaded machine the signal may come before the first token.)
	if res.StopReason != "interrupted" || res.Seed == nil {
		t.Errorf("--json after Ctrl-C: stop %q, %d tokens, seed %v", res.StopReason, res.NGen, res.Seed)
	}
}

func tail(s string) string {
	if len(s) > 200 {
		return "..." + s[len(s)-200:]
	}
	return s
}

func TestCLIInterruptPerplexity(t *testing.T) {
	model := synthModel(t)
	text := filepath.Join(t.TempDir(), "text.txt")
	if err := os.WriteFile(text, bytes.Repeat([]byte("the cat sat on the mat and looked at the dog. "), 20000), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := interruptAfter(t, 0, "perplexity", "-m", model, "-f", text, "-c", "256")
	if code != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Partial estimate (interrupted after") || !strings.Contains(stdout, "PPL = ") {
		t.Errorf("no partial estimate:\n%s", tail(stdout))
	}
}

// Escapes in -p, --stop and -r are processed as llama.cpp does; a file
// prompt is taken as is; --no-escape turns them off.
func TestCLIEscapes(t *testing.T) {
	model := synthModel(t)
	file := filepath.Join(t.TempDir(), "p.txt")
	os.WriteFile(file, []byte("a\nb\tc\"d\\e"), 0o644)
	fromFile, _, code := run(t, "tokenize", "-m", model, "-f", file)
	if code != 0 {
		t.Fatal("tokenize -f failed")
	}
	escaped, _, _ := run(t, "tokenize", "-m", model, "-p", `a\nb\tc\"d\\e`)
	if escaped != fromFile {
		t.Errorf("-p with escapes gives %q, the same text from a file %q", escaped, fromFile)
	}
	literal, _, _ := run(t, "tokenize", "-m", model, "--no-escape", "-p", `a\nb\tc\"d\\e`)
	if literal == fromFile {
		t.Errorf("--no-escape still processed the escapes")
	}
	hex, _, _ := run(t, "tokenize", "-m", model, "-p", `a\x0ab\x09c"d\\e`)
	if hex != fromFile {
		t.Errorf(`\xNN escapes: %q, want %q`, hex, fromFile)
	}
	if _, stderr, code := run(t, "generate", "-m", model, "-p", "hi", "--stop", ""); code != 2 {
		t.Errorf(`--stop "": exit %d, want 2 (%s)`, code, stderr)
	}
}

// --top-p 0 keeps the most probable token alone, as in llama.cpp: a
// sampled run with it is the greedy run (the library's TopP 0 means off).
func TestCLITopPZeroIsGreedy(t *testing.T) {
	model := synthModel(t)
	greedy, _, code := run(t, "generate", "-m", model, "-p", "Once", "-n", "24", "--temp", "0", "--ignore-eos")
	if code != 0 {
		t.Fatal("greedy generate failed")
	}
	for _, seed := range []string{"1", "2", "3"} {
		out, stderr, _ := run(t, "generate", "-m", model, "-p", "Once", "-n", "24", "--temp", "1.5", "--top-k", "0",
			"--min-p", "0", "--top-p", "0", "-s", seed, "--ignore-eos")
		if out != greedy {
			t.Errorf("--top-p 0 -s %s: %q, want the greedy %q (%s)", seed, out, greedy, stderr)
		}
	}
}

// Every usage error exits 2 with one line naming the problem; llama.cpp's
// flags are accepted or named whole.
func TestCLIUsageErrors(t *testing.T) {
	model := synthModel(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"generate", "-m", model, "-p", "hi", "--bogus"}, "--bogus"},
		{[]string{"generate", "-m", model, "-p", "hi", "-n", "abc"}, `"abc"`},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"generate", "-m", model, "-p", "hi", "-cnv"}, "-cnv"},
		{[]string{"generate", "-m", model, "-p", "hi", "-xyz"}, "-xyz"},
		{[]string{"generate", "-m", model, "-p", "hi", "--top-p", "2"}, "[0, 1]"},
		{[]string{"generate", "-m", model, "-p", "hi", "--top-k", "-3"}, "top-k"},
		{[]string{"generate", "-m", model, "-p", "hi", "--min-p", "1.5"}, "min-p"},
		{[]string{"generate", "-m", model, "-p", "hi", "--timings", "--parallel", "2"}, "--parallel"},
		{[]string{"generate", "-m", model, "-p", "hi", "-ctk", "q8_0", "-ctv", "f16"}, "-ctk"},
		{[]string{"generate", model, "extra.gguf", "-p", "hi"}, "unexpected arguments"},
		{[]string{"generate", "-m", model, "other.gguf", "-p", "hi"}, "already given"},
	}
	for _, tc := range cases {
		_, stderr, code := run(t, tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", tc.args, code, stderr)
		}
		if !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: stderr %q, want one line naming %q", tc.args, stderr, tc.want)
		}
	}

	// llama.cpp's common flags work.
	stdout, stderr, code := run(t, "generate", model, "-ngl", "99", "-fa", "on", "-ctk", "q8_0", "-ctv", "q8_0", "-ub", "32",
		"-s", "7", "-e", "-r", "zzz", "-n", "4", "-p", "hi", "--ignore-eos")
	if code != 0 {
		t.Fatalf("llama.cpp flags: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "-ngl is ignored") || !strings.Contains(stderr, "seed 7") || stdout == "" {
		t.Errorf("llama.cpp flags: stderr %s", stderr)
	}
	if _, stderr, code := run(t, "generate", "-m", model, "-p", "hi", "-n", "2", "-t", "64"); code != 0 || !strings.Contains(stderr, "warning: -t 64") {
		t.Errorf("-t 64: exit %d, stderr %s", code, stderr)
	}
}

// Prompts from standard input: piped, -f -, -p -; -p "" is BOS only.
func TestCLIStdinPrompts(t *testing.T) {
	model := synthModel(t)
	want, _, _ := run(t, "tokenize", "-m", model, "-p", "hello there")
	for _, args := range [][]string{
		{"tokenize", "-m", model},
		{"tokenize", "-m", model, "-f", "-"},
		{"tokenize", "-m", model, "-p", "-"},
	} {
		got, stderr, code := runStdin(t, "hello there", args...)
		if code != 0 || got != want {
			t.Errorf("%v with stdin: %q (exit %d, %s), want %q", args[3:], got, code, stderr, want)
		}
	}
	stdout, stderr, code := runStdin(t, "Once upon a time", "generate", "-m", model, "-n", "3", "--json", "--temp", "0")
	var res struct {
		NPrompt int `json:"n_prompt"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.NPrompt < 2 {
		t.Errorf("generate with a piped prompt: exit %d, %s %s", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, "generate", "-m", model, "-p", "", "-n", "3", "--json")
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.NPrompt != 1 {
		t.Errorf(`-p "": exit %d, n_prompt %d, want the BOS alone (%s)`, code, res.NPrompt, stderr)
	}
	if _, stderr, code := runStdin(t, "", "generate", "-m", model); code != 2 || !strings.Contains(stderr, "prompt is required") {
		t.Errorf("empty stdin: exit %d, %s", code, stderr)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`a\nb`: "a\nb", `\t\r\\\"\'`: "\t\r\\\"'", `\x41\x7a`: "Az", `\x4`: `\x4`, `\q`: `\q`, `end\`: `end\`, "plain": "plain",
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLlamaArgs(t *testing.T) {
	root := rootCmd()
	got, err := llamaArgs(root, []string{"generate", "-ngl", "0", "-p", "-ctk", "-c", "128", "-fa", "on", "-n", "-1", "--gpu-layers", "3"})
	if err != nil {
		t.Fatal(err)
	}
	want := "generate --n-gpu-layers 0 -p -ctk -c 128 --flash-attn on -n -1 --n-gpu-layers 3"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if _, err := llamaArgs(root, []string{"generate", "-dev", "none"}); err == nil || !strings.Contains(err.Error(), "-dev") {
		t.Errorf("-dev: %v", err)
	}
}

// The small habits: --version names the toolchain, tokenize --show-pieces
// prints each id with its piece, special tokens are parsed by default, and
// -c beyond the trained context warns in one line but runs.
func TestCLISmallHabits(t *testing.T) {
	model := synthModel(t)
	if out, _, code := run(t, "--version"); code != 0 || !strings.HasPrefix(out, "gollm ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("--version: %q (exit %d)", out, code)
	}
	out, _, code := run(t, "tokenize", "-m", model, "-p", "Hello world", "--show-pieces")
	if code != 0 {
		t.Fatal("tokenize --show-pieces failed")
	}
	var text strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		_, piece, ok := strings.Cut(line, " -> ")
		if !ok || len(piece) < 2 || piece[0] != '\'' || piece[len(piece)-1] != '\'' {
			t.Fatalf("--show-pieces line %q is not `id -> 'piece'`", line)
		}
		if i > 0 { // after BOS
			text.WriteString(piece[1 : len(piece)-1])
		}
	}
	if text.String() != " Hello world" {
		t.Errorf("--show-pieces pieces make %q, want %q", text.String(), " Hello world")
	}
	special, _, _ := run(t, "tokenize", "-m", model, "-p", "a<s>b")
	literal, _, _ := run(t, "tokenize", "-m", model, "-p", "a<s>b", "--parse-special=false")
	bos := func(ids string) (n int) { // how many times the BOS id (1) appears
		for _, f := range strings.Fields(ids) {
			if f == "1" {
				n++
			}
		}
		return n
	}
	if bos(special) != 2 || bos(literal) != 1 {
		t.Errorf("special tokens not parsed by default: %q (with --parse-special=false: %q)", special, literal)
	}
	_, stderr, code := run(t, "generate", "-m", model, "-p", "hi", "-n", "1", "-c", "100000")
	if code != 0 || !strings.Contains(stderr, "warning: -c 100000") || !strings.Contains(stderr, "512") {
		t.Errorf("-c above the trained context: exit %d, %q", code, stderr)
	}
}
