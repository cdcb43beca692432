package chat

import (
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
