package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gollm/gollm/gguf"
)

// TestInspectFull: inspect cuts long strings and arrays; --full shows them
// whole, a multi-line template as its text, a string with control
// characters still quoted.
func TestInspectFull(t *testing.T) {
	tmpl := "{% for message in messages %}\n{{ '<|' + message['role'] + '|>' }}\n{{ message['content'] }}\n{% endfor %}"
	long := strings.Repeat("0123456789", 12) + "END"
	w := gguf.NewWriter()
	for _, kv := range []struct {
		k string
		v any
	}{
		{"general.architecture", "llama"},
		{"tokenizer.chat_template", tmpl},
		{"general.description", long},
		{"general.escapes", "red\x1b[31m\nline"},
		{"tokenizer.ggml.tokens", []string{"<unk>", "<s>", "</s>", "a", "b", "c", "last"}},
	} {
		if err := w.Set(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "meta.gguf")
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}

	short, stderr, code := run(t, "inspect", path)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	if strings.Contains(short, "END") || strings.Contains(short, `"last"`) || strings.Contains(short, "{% endfor %}") {
		t.Errorf("inspect without --full shows long values whole:\n%s", short)
	}

	out, stderr, code := run(t, "inspect", "--full", path)
	if code != 0 {
		t.Fatalf("inspect --full: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"\ntokenizer.chat_template (" + strconv.Itoa(len(tmpl)) + " bytes):\n" + tmpl + "\n",
		`"` + long + `"`,
		`"red\x1b[31m\nline"`,
		`[7]string{"<unk>", "<s>", "</s>", "a", "b", "c", "last"}`,
		"(" + strconv.Itoa(len(tmpl)) + " bytes of text, shown below)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect --full lacks %q:\n%s", want, out)
		}
	}
}
