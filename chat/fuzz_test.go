package chat

import (
	"testing"
)

// FuzzParseRender: any source parses or fails with an error, and renders or
// fails with an error; never a panic.
func FuzzParseRender(f *testing.F) {
	for _, s := range []string{
		"{% for m in messages %}{{ m.content }}\n{% endfor %}",
		"{%- if x -%}\n  {{- y | tojson(indent=2) -}}{% raw %}{{ }}{% endraw %}{# c #}",
		"{{ '}}' }}{% set a = \"%}\" %}",
		"{% raw %}unclosed",
		"{{", "{%", "{#", "{%-+%}", "{{ 'a\\",
		builtins["llama2"], builtins["gemma"],
	} {
		f.Add(s)
	}
	msgs := []Message{{Role: "system", Content: Text("s")}, {Role: "user", Content: Text("u")}}
	f.Fuzz(func(t *testing.T, src string) {
		tm, err := Parse("fuzz", src)
		if err != nil {
			return
		}
		_, _ = tm.Render(msgs, Options{AddGenerationPrompt: true})
	})
}
