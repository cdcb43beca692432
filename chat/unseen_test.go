package chat

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUnseenConversations renders conversations that are not in
// expected.jsonl on the same templates: every template that accepts a long
// conversation must show each turn's text once and in order, and for
// templates whose format is known the whole string is checked.
func TestUnseenConversations(t *testing.T) {
	lines := readExpected(t)
	seen := map[string]bool{}
	conv := conversation(5)
	conv[2].Content = Text("Ünïcode «quotes» and 'single' \"double\" \\ back\nslash")
	rendered := 0
	for _, l := range lines {
		if seen[l.Template] {
			continue
		}
		seen[l.Template] = true
		tm := loadTemplate(t, l.Template)
		var ctx map[string]json.RawMessage
		if err := json.Unmarshal(l.Context, &ctx); err != nil {
			t.Fatal(err)
		}
		opts := Options{AddGenerationPrompt: true, Now: referenceNow}
		_ = json.Unmarshal(ctx["bos_token"], &opts.BOS)
		_ = json.Unmarshal(ctx["eos_token"], &opts.EOS)
		out, err := tm.Render(conv, opts)
		if err != nil {
			t.Logf("%s rejects the conversation: %v", l.Template, err)
			continue
		}
		rendered++
		pos := 0
		for i, m := range conv {
			if m.Role == "system" {
				continue // some templates rewrite or drop the system turn
			}
			text := strings.TrimSpace(m.Content.Text)
			k := strings.Index(out[pos:], text)
			if k < 0 {
				t.Errorf("%s: turn %d (%s) missing or out of order", l.Template, i, m.Role)
				break
			}
			pos += k + len(text)
		}
	}
	if rendered < 40 {
		t.Fatalf("only %d templates rendered the conversation", rendered)
	}

	// Qwen2.5 is ChatML with a default system prompt when none is given:
	// known output for a conversation with a tool call and its result.
	tm := loadTemplate(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	msgs, err := ParseMessages([]byte(`[
		{"role":"user","content":"Weather in Paris?"},
		{"role":"assistant","content":"","tool_calls":[{"id":"1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},
		{"role":"tool","tool_call_id":"1","content":"22C"},
		{"role":"assistant","content":"It is 22C."},
		{"role":"user","content":"Thanks"}]`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tm.Render(msgs, Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n" +
		"<|im_start|>user\nWeather in Paris?<|im_end|>\n" +
		"<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n" +
		"<|im_start|>user\n<tool_response>\n22C\n</tool_response><|im_end|>\n" +
		"<|im_start|>assistant\nIt is 22C.<|im_end|>\n" +
		"<|im_start|>user\nThanks<|im_end|>\n<|im_start|>assistant\n"
	if got != want {
		t.Errorf("Qwen2.5 tool conversation:\n got %q\nwant %q", got, want)
	}

	// Llama 3.1: the date line comes from the injected clock.
	tm = loadTemplate(t, "meta-llama-Llama-3.1-8B-Instruct.jinja")
	got, err = tm.Render([]Message{{Role: "user", Content: Text("Hi")}}, Options{AddGenerationPrompt: true, BOS: "<|begin_of_text|>"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024") {
		t.Errorf("Llama 3.1: %q", got)
	}
	if !strings.HasSuffix(got, "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n") {
		t.Errorf("Llama 3.1 ending: %q", got)
	}
}

// Rendering a 20-turn conversation: the cost next to a forward pass.
func BenchmarkRender20Turns(b *testing.B) {
	for _, c := range []struct{ name, file string }{
		{"Llama3.1", "meta-llama-Llama-3.1-8B-Instruct.jinja"},
		{"Qwen2.5", "Qwen-Qwen2.5-7B-Instruct.jinja"},
	} {
		name := c.file
		b.Run(c.name, func(b *testing.B) {
			if _, err := readExpectedOK(); err != nil {
				b.Skip(err)
			}
			tm := loadTemplate(b, name)
			msgs := conversation(20)
			opts := Options{AddGenerationPrompt: true, BOS: "<|begin_of_text|>", Now: referenceNow}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tm.Render(msgs, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
