package chat

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseErrorNamesLine(t *testing.T) {
	src := "{% for m in messages %}\n{{ m.content }}\n{% if m.role == 'user' %}\nx\n{% endfor %}"
	_, err := Parse("bad.jinja", src)
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrParse) {
		t.Fatalf("want a *ParseError, got %v", err)
	}
	if pe.Line == 0 || !strings.Contains(err.Error(), "bad.jinja") || !strings.Contains(err.Error(), "line ") {
		t.Fatalf("error does not name the template and line: %v", err)
	}
	_, err = Parse("open.jinja", "hello\n\n{{ messages")
	if !errors.As(err, &pe) || pe.Line != 3 {
		t.Fatalf("unclosed tag on line 3: got %v", err)
	}
}

func TestRaiseExceptionText(t *testing.T) {
	tm, err := Builtin("gemma")
	if err != nil {
		t.Fatal(err)
	}
	msgs := []Message{{Role: "user", Content: Text("a")}, {Role: "user", Content: Text("b")}}
	_, err = tm.Render(msgs, Options{})
	var re *RaiseError
	if !errors.As(err, &re) || !errors.Is(err, ErrRender) {
		t.Fatalf("want a *RaiseError, got %v", err)
	}
	if re.Message != "Conversation roles must alternate user/assistant/user/assistant/..." {
		t.Fatalf("raise text %q", re.Message)
	}
}

func TestRenderErrorIsError(t *testing.T) {
	tm, err := Parse("t", "{{ messages[0].content | nosuchfilter }}")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tm.Render([]Message{{Role: "user", Content: Text("x")}}, Options{})
	if !errors.Is(err, ErrRender) {
		t.Fatalf("want ErrRender, got %v", err)
	}
	// Indexing past the end of the messages must be an error or empty, not a panic.
	tm, err = Parse("t", "{{ messages[5].content.upper() }}")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = tm.Render(nil, Options{})
}

func TestParseMessages(t *testing.T) {
	for _, bad := range []string{``, `{}`, `"x"`, `[1]`, `[{"content":"no role"}]`, `[{"role":"user","content":5}]`, `[{"role":"user"`} {
		if _, err := ParseMessages([]byte(bad)); !errors.Is(err, ErrMessages) {
			t.Errorf("%q: want ErrMessages, got %v", bad, err)
		}
	}
	in := `[{"content":"hi","role":"user","x_extra":{"b":1,"a":2}},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"z\":1,\"a\":2}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"ok"},{"type":"image_url","image_url":{"url":"u"}}]}]`
	msgs, err := ParseMessages([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Fatalf("round trip changed the JSON:\n got %s\nwant %s", out, in)
	}
	if msgs[2].Content.String() != "ok" || !msgs[1].Content.Null {
		t.Fatalf("content: %+v", msgs)
	}
	// The template sees keys in input order and arguments as an object.
	tm, err := Parse("t", "{% for m in messages %}{{ m | tojson }}\n{% endfor %}")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tm.Render(msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content": "hi", "role": "user", "x_extra": {"b": 1, "a": 2}}` + "\n" +
		`{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"z": 1, "a": 2}}}]}` + "\n" +
		`{"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "ok"}, {"type": "image_url", "image_url": {"url": "u"}}]}` + "\n"
	if got != want {
		t.Fatalf("template view:\n got %s\nwant %s", got, want)
	}
}

func TestTojsonArguments(t *testing.T) {
	tm, err := Parse("t", `{{ x | tojson(indent=2) }}|{{ x|tojson }}|{{ x | tojson(separators=(',', ':')) }}|{{ x | tojson(sort_keys=true) }}|{{ "a|tojson" }}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tm.Render(nil, Options{Kwargs: map[string]json.RawMessage{"x": json.RawMessage(`{"b":[1,2.5,"é\n"],"a":{},"c":[]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"b\": [\n    1,\n    2.5,\n    \"é\\n\"\n  ],\n  \"a\": {},\n  \"c\": []\n}" +
		`|{"b": [1, 2.5, "é\n"], "a": {}, "c": []}|{"b":[1,2.5,"é\n"],"a":{},"c":[]}|{"a": {}, "b": [1, 2.5, "é\n"], "c": []}|a|tojson`
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestStrftimeNow(t *testing.T) {
	tm, err := Parse("t", `{{ strftime_now("%d %b %Y|%Y-%m-%d %H:%M:%S|%B %-d, %Y|%A %a %j %I%p") }}`)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2024, 7, 6, 15, 4, 5, 0, time.UTC) }
	got, err := tm.Render(nil, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if want := "06 Jul 2024|2024-07-06 15:04:05|July 6, 2024|Saturday Sat 188 03PM"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// TestAllSharedTemplatesParse parses every template in ../shared/templates.
func TestAllSharedTemplatesParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(templatesDir, "*.jinja"))
	if len(files) == 0 {
		t.Skip("no templates in ../shared/templates")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(filepath.Base(f), string(src)); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestBuiltins(t *testing.T) {
	conv := []Message{
		{Role: "system", Content: Text("Be brief.")},
		{Role: "user", Content: Text("Hi")},
		{Role: "assistant", Content: Text("Hello!")},
		{Role: "user", Content: Text("Bye")},
	}
	want := map[string]string{
		"chatml":  "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n",
		"llama2":  "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST] Hello! </s><s>[INST] Bye [/INST]",
		"llama3":  "<s><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
		"mistral": "<s>[INST] Be brief.\n\nHi [/INST]Hello!</s>[INST] Bye [/INST]",
		"gemma":   "<s><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n",
		"phi3":    "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n<|user|>\nBye<|end|>\n<|assistant|>\n",
	}
	if len(want) != len(BuiltinNames()) {
		t.Fatalf("built-ins %v, test covers %d", BuiltinNames(), len(want))
	}
	for name, w := range want {
		tm, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tm.Render(conv, Options{AddGenerationPrompt: true, BOS: "<s>", EOS: "</s>"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != w {
			t.Errorf("%s:\n got %q\nwant %q", name, got, w)
		}
	}
	if _, err := Builtin("nope"); err == nil {
		t.Fatal("unknown built-in accepted")
	}
}

// TestBuiltinsMatchPublished: where a built-in is the same as a published
// template, it renders the reference strings of that template (gemma: the
// cases without a system turn, which Gemma 2's template rejects).
func TestBuiltinsMatchPublished(t *testing.T) {
	pairs := map[string]string{"gemma": "google-gemma-2-2b-it.jinja", "phi3": "microsoft-Phi-3.5-mini-instruct.jinja"}
	lines := readExpected(t)
	n := 0
	for name, file := range pairs {
		tm, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if l.Template != file || l.Case == "system-multiturn" {
				continue
			}
			got, err := tm.RenderContext(l.Context, referenceNow)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, l.Case, err)
			}
			if got != l.Expected {
				t.Errorf("%s/%s:\n got %q\nwant %q", name, l.Case, got, l.Expected)
			}
			n++
		}
	}
	if n < 6 {
		t.Fatalf("only %d reference lines compared", n)
	}
}

func TestConcurrentRender(t *testing.T) {
	tm, err := Builtin("llama3")
	if err != nil {
		t.Fatal(err)
	}
	msgs := conversation(6)
	want, err := tm.Render(msgs, Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got, err := tm.Render(msgs, Options{AddGenerationPrompt: true})
				if err != nil || got != want {
					t.Errorf("concurrent render differs: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// conversation returns a system turn and n user/assistant turns.
func conversation(turns int) []Message {
	msgs := []Message{{Role: "system", Content: Text("You are a helpful assistant.")}}
	for i := range turns {
		msgs = append(msgs, Message{Role: "user", Content: Text(strings.Repeat("Tell me about llamas, please. ", 1+i%3))})
		msgs = append(msgs, Message{Role: "assistant", Content: Text(strings.Repeat("Llamas are domesticated South American camelids. ", 2+i%4))})
	}
	return append(msgs, Message{Role: "user", Content: Text("Thanks! One more question?")})
}
