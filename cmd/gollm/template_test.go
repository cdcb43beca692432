package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"github.com/gollm/gollm/internal/shared"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runTemplateCmd runs `gollm template ARGS` in process.
func runTemplateCmd(args ...string) (string, string, error) {
	cmd := templateCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

// TestTemplateCommandReference runs every line of expected.jsonl through
// `gollm template --chat-template FILE --context CTX --now 2024-07-26T00:00:00`
// and wants Hugging Face's string byte for byte.
func TestTemplateCommandReference(t *testing.T) {
	templates := shared.Dir(t, "templates")
	f, err := os.Open(filepath.Join(templates, "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	pass, total := 0, 0
	for sc.Scan() {
		var l struct {
			Template, Case, Expected string
			Context                  json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		total++
		ctx := filepath.Join(dir, "ctx.json")
		if err := os.WriteFile(ctx, l.Context, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, err := runTemplateCmd("--chat-template", filepath.Join(templates, l.Template), "--context", ctx, "--now", "2024-07-26T00:00:00")
		switch {
		case err != nil:
			t.Errorf("%s/%s: %v", l.Template, l.Case, err)
		case got != l.Expected:
			t.Errorf("%s/%s:\n got %q\nwant %q", l.Template, l.Case, got, l.Expected)
		default:
			pass++
		}
	}
	t.Logf("gollm template: %d/%d reference renderings exact", pass, total)
	if total < 268 {
		t.Fatalf("only %d lines read", total)
	}
}

func TestTemplateCommandErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.jinja", "{% for m in messages %}\n{{ m.content }}\n")
	msgs := write("m.json", `[{"role":"user","content":"a"},{"role":"user","content":"b"}]`)
	notList := write("n.json", `{"role":"user","content":"a"}`)
	cases := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--chat-template", bad, "--messages", msgs}, "line 1", 1},
		{[]string{"--chat-template", "gemma", "--messages", msgs}, "Conversation roles must alternate", 1},
		{[]string{"--chat-template", "chatml", "--messages", notList}, "JSON list of messages", 1},
		{[]string{"--chat-template", "nosuch", "--messages", msgs}, "neither a file nor a built-in", 2},
		{[]string{"--chat-template", "chatml"}, "--messages or --context", 2},
		{[]string{"--chat-template", "chatml", "--messages", msgs, "--tokens"}, "needs a model", 2},
		{[]string{"--chat-template", "chatml", "--messages", msgs, "--now", "yesterday"}, "--now", 2},
		{[]string{"--chat-template", "chatml", "--messages", msgs, "--chat-template-kwargs", "[1]"}, "JSON object", 2},
	}
	for _, c := range cases {
		_, _, err := runTemplateCmd(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err) != c.code {
			t.Errorf("%v: got %v (exit %d), want %q (exit %d)", c.args, err, exitCode(err), c.want, c.code)
		}
	}
	out, _, err := runTemplateCmd("--chat-template", "chatml", "--messages", msgs, "--system", "S", "--no-generation-prompt")
	if err != nil || out != "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\na<|im_end|>\n<|im_start|>user\nb<|im_end|>\n" {
		t.Fatalf("got %q, %v", out, err)
	}
}

// TestTemplateCommandTools: --tools gives the template the tool list, in
// its key order, as the "tools" reference case does.
func TestTemplateCommandTools(t *testing.T) {
	templates := shared.Dir(t, "templates")
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte(`[{"type":"function","function":{"name":"get_weather","description":"Current weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}}}]`), 0o644)
	msgs := filepath.Join(dir, "m.json")
	os.WriteFile(msgs, []byte(`[{"role":"user","content":"What's the weather in Paris?"}]`), 0o644)
	got, _, err := runTemplateCmd("--chat-template", filepath.Join(templates, "Qwen-Qwen2.5-7B-Instruct.jinja"), "--messages", msgs, "--tools", tools)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}}}`
	if !strings.Contains(got, "<tools>\n"+want+"\n</tools>") {
		t.Fatalf("got %q", got)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"type":"function"}`), 0o644)
	if _, _, err := runTemplateCmd("--chat-template", "chatml", "--messages", msgs, "--tools", bad); err == nil || !strings.Contains(err.Error(), "JSON list of tool definitions") {
		t.Fatalf("bad tools: %v", err)
	}
}

// TestTemplateTokensSPM: a SentencePiece model whose own template writes
// the BOS (tiny-phi3): one BOS, then llama.cpp's ids (b10573
// llama-tokenize, which adds a second BOS in front).
func TestTemplateTokensSPM(t *testing.T) {
	model := shared.Dir(t, "models", "tiny-phi3-F16.gguf")
	msgs := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(msgs, []byte(`[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi there"}]`), 0o644)
	out, _, err := runTemplateCmd("-m", model, "--messages", msgs)
	if err != nil || out != "<s><|user|>\nHi there<|end|>\n<|assistant|>\n" {
		t.Fatalf("rendered %q, %v", out, err)
	}
	out, _, err = runTemplateCmd("-m", model, "--messages", msgs, "--tokens")
	if err != nil || strings.TrimSpace(out) != "1 32010 6324 727 32007 32001" {
		t.Fatalf("tokens %q, %v", out, err)
	}
}
