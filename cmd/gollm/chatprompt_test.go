package main

import (
	"strings"
	"testing"
)

func TestReasoningOutput(t *testing.T) {
	gen := "<think>\nweigh it\n</think>\n\nFour."
	for _, c := range []struct {
		mode, out, errOut string
	}{
		{"show", gen, ""},
		{"hide", "Four.", ""},
		{"separate", "Four.", "weigh it\n"},
	} {
		r, err := newReasoningOutput(c.mode)
		if err != nil {
			t.Fatal(err)
		}
		var out, errOut strings.Builder
		onText, flush := r.wrap(func(s string) bool { out.WriteString(s); return true }, &errOut)
		for _, ch := range strings.SplitAfter(gen, "") { // one byte at a time, as a stream
			onText(ch)
		}
		flush()
		if out.String() != c.out || errOut.String() != c.errOut {
			t.Errorf("%s: stdout %q stderr %q, want %q %q", c.mode, out.String(), errOut.String(), c.out, c.errOut)
		}
	}
	if _, err := newReasoningOutput("loud"); err == nil || exitCode(err) != 2 {
		t.Fatalf("bad mode: %v", err)
	}
	var nilOut *reasoningOutput
	f := func(string) bool { return true }
	if got, _ := nilOut.wrap(f, nil); got == nil {
		t.Fatal("nil output must pass text through")
	}
}

// TestChatFallsBackToChatML: a model without a template gets ChatML and a
// one-line notice.
func TestChatFallsBackToChatML(t *testing.T) {
	model := synthModel(t)
	stdout, stderr, code := run(t, "generate", "-m", model, "--chat", "-p", "hi", "-n", "2", "--temp", "0", "--json")
	if code != 0 || !strings.Contains(stderr, "no chat template; using chatml") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, `"n_prompt"`) {
		t.Fatalf("stdout %q", stdout)
	}
	out, _, code := run(t, "template", "-m", model, "--messages", "-")
	_ = out
	if code == 0 {
		t.Fatal("empty stdin accepted as messages")
	}
}
