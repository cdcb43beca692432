package chat

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSplitReasoning(t *testing.T) {
	cases := []struct {
		in          string
		inReasoning bool
		r, a        string
	}{
		{"<think>\nLet me see.\n</think>\n\nThe answer is 4.", false, "Let me see.", "The answer is 4."},
		{"  <think>a</think>b", false, "a", "b"},
		{"The answer <think>not reasoning</think>", false, "", "The answer <think>not reasoning</think>"},
		{"Just an answer.", false, "", "Just an answer."},
		{"thinking...\n</think>\n\nDone.", true, "thinking...", "Done."},
		{"<think>never closed  \n", false, "never closed", ""},
		{"still thinking", true, "still thinking", ""},
		{"<thi", false, "", "<thi"},
		{"<think></think>x", false, "", "x"},
		{"<think>a < b </thin and </think> ok", false, "a < b </thin and", "ok"},
	}
	for _, c := range cases {
		r, a := SplitReasoning(c.in, c.inReasoning)
		if r != c.r || a != c.a {
			t.Errorf("%q: got (%q, %q) want (%q, %q)", c.in, r, a, c.r, c.a)
		}
		// Streamed in pieces of every size, the result is the same.
		for size := 1; size <= len(c.in); size++ {
			s := NewReasoningSplitter(c.inReasoning)
			var rb, ab strings.Builder
			for i := 0; i < len(c.in); i += size {
				r, a := s.Push(c.in[i:min(i+size, len(c.in))])
				rb.WriteString(r)
				ab.WriteString(a)
			}
			r, a := s.Flush()
			rb.WriteString(r)
			ab.WriteString(a)
			if rb.String() != c.r || ab.String() != c.a {
				t.Fatalf("%q in pieces of %d: got (%q, %q) want (%q, %q)", c.in, size, rb.String(), ab.String(), c.r, c.a)
			}
		}
	}
}

// TestSplitterStreamsEarly: text that cannot be part of a tag comes out at
// once, not at the end.
func TestSplitterStreamsEarly(t *testing.T) {
	s := NewReasoningSplitter(false)
	if r, a := s.Push("<think>step one"); r != "step one" || a != "" {
		t.Fatalf("got (%q, %q)", r, a)
	}
	if r, _ := s.Push(" then </th"); r != " then" {
		t.Fatalf("held back too much or too little: %q", r)
	}
	if r, a := s.Push("ink>\n\nAns"); r != "" || a != "Ans" {
		t.Fatalf("got (%q, %q)", r, a)
	}
	if !strings.HasSuffix("x<think>\n", ThinkOpen+"\n") || !OpensReasoning("<|im_start|>assistant\n<think>\n") || OpensReasoning("<think>x</think>") {
		t.Fatal("OpensReasoning")
	}
}

// TestReasoningTemplates: the generation prompts of the reasoning templates
// say whether the reply starts inside <think>.
func TestReasoningTemplates(t *testing.T) {
	templatesDir(t) // skips without ../shared
	user := []Message{{Role: "user", Content: Text("2+2?")}}
	cases := []struct {
		file   string
		kwargs string
		opens  bool
	}{
		{"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", "true", true},
		{"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", "", false}, // this copy closes it unless enable_thinking
		{"Qwen-QwQ-32B.jinja", "true", true},
		{"Qwen-Qwen3-0.6B.jinja", "", false},
		{"Qwen-Qwen3-0.6B.jinja", "false", false},
		{"Qwen-Qwen2.5-7B-Instruct.jinja", "", false},
	}
	for _, c := range cases {
		tm := loadTemplate(t, c.file)
		opts := Options{AddGenerationPrompt: true}
		if c.kwargs != "" {
			opts.Kwargs = map[string]json.RawMessage{"enable_thinking": json.RawMessage(c.kwargs)}
		}
		out, err := tm.Render(user, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := OpensReasoning(out); got != c.opens {
			t.Errorf("%s (enable_thinking %q): OpensReasoning %v for %q", c.file, c.kwargs, got, out)
		}
		if c.kwargs == "false" && !strings.HasSuffix(out, "<think>\n\n</think>\n\n") {
			t.Errorf("Qwen3 with thinking off: %q", out)
		}
	}
	// A Qwen3 history turn keeps only the answer: the template strips the
	// reasoning the splitter separated (content as generated).
	tm := loadTemplate(t, "Qwen-Qwen3-0.6B.jinja")
	msgs := append(user, Message{Role: "assistant", Content: Text("<think>\nadd\n</think>\n\n4")}, Message{Role: "user", Content: Text("and 3+3?")})
	out, err := tm.Render(msgs, Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "add") || !strings.Contains(out, "<|im_start|>assistant\n4<|im_end|>") {
		t.Errorf("Qwen3 history: %q", out)
	}
}
