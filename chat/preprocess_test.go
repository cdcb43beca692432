package chat

import (
	"encoding/json"
	"testing"
)

// TestWhitespaceLikeJinja2: Jinja2's output with trim_blocks, lstrip_blocks
// and keep_trailing_newline=False (as Hugging Face renders), worked out from
// jinja2/lexer.py's rules.
func TestWhitespaceLikeJinja2(t *testing.T) {
	cases := []struct{ src, want string }{
		{"{% for m in x %}{{ m }}\n{% endfor %}", "a\nb\n"},
		{"{% for m in x %}{{ m }}\n\n{% endfor %}", "a\n\nb\n\n"},
		{"{% for m in x %}\n  {{ m }}\n{% endfor %}", "  a\n  b\n"},
		{"  {% if true %}\nyes\n  {% endif %}\n", "yes\n"},
		{"{{ x[0] }}  {% if true %}z{% endif %}", "a  z"},
		{"a\n{#- c -#}\nb", "ab"},
		{"a\n  {# c #}\nb", "a\nb"},
		{"{% raw %}{{ x }} {% if %}{% endraw %}", "{{ x }} {% if %}"},
		{"a {%- if true +%}\nb{% endif %}", "a\nb"},
		{"{% if true %}\r\nq{% endif %}", "q"},
		{"x\n  {%+ if true %}y{% endif %}", "x\n  y"},
		{"It's a \\ test {{ x[0] }}\n", "It's a \\ test a"},
		{"{{- x[0] -}}  \n {{ x[1] }}\n\n", "ab\n"},
		{"{% set s = '}}' %}{{ s }}|{{ x | tojson }}|{{ 'x|tojson' }}", "}}|[\"a\", \"b\"]|x|tojson"},
		{"{% for m in x %}{% if loop.first %}[{% endif %}{{ m }}{% if not loop.last %}, {% endif %}{% endfor %}]", "[a, b]"},
	}
	for _, c := range cases {
		tm, err := Parse("t", c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		got, err := tm.Render(nil, Options{Kwargs: map[string]json.RawMessage{"x": json.RawMessage(`["a","b"]`)}})
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// TestPreprocessKeepsLines: errors in the rewritten source name the
// original lines.
func TestPreprocessKeepsLines(t *testing.T) {
	src := "{#- a\ncomment -#}\n\n  {%- if true %}\n\n{{ x }}\n{% bogus %}\n"
	_, err := Parse("t", src)
	pe, ok := err.(*ParseError)
	if !ok || pe.Line != 7 {
		t.Fatalf("want a parse error on line 7, got %v", err)
	}
}
