package gguf

import (
	"strings"
	"testing"
)

// TestFullString: String cuts long strings and arrays, FullString shows
// them whole (a chat template, a vocabulary), nested arrays included.
func TestFullString(t *testing.T) {
	tmpl := "{% for message in messages %}\n{{ '<|' + message['role'] + '|>' }}\n{{ message['content'] }}\n{% endfor %}é"
	v, _ := ValueOf(tmpl)
	if s := v.String(); !strings.HasSuffix(s, `"...`) || len(s) > 60 {
		t.Errorf("String() = %s", s)
	}
	if got, want := v.FullString(), `"{% for message in messages %}\n{{ '<|' + message['role'] + '|>' }}\n{{ message['content'] }}\n{% endfor %}é"`; got != want {
		t.Errorf("FullString() = %s\nwant %s", got, want)
	}
	words, _ := ValueOf([]string{"a", "b", "c", "d", "e", "f"})
	if got := words.FullString(); got != `[6]string{"a", "b", "c", "d", "e", "f"}` {
		t.Errorf("FullString() = %s", got)
	}
	nums, _ := ValueOf([]int32{1, -2, 3, 4, 5})
	in2, _ := ValueOf([]int32{6, 7, 8, 9, 10})
	nested, err := ValueOf([]Value{nums, in2})
	if err != nil {
		t.Fatal(err)
	}
	if got := nested.FullString(); got != "[2]array{[5]int32{1, -2, 3, 4, 5}, [5]int32{6, 7, 8, 9, 10}}" {
		t.Errorf("nested FullString() = %s", got)
	}
	if got := nested.String(); got != "[2]array{[5]int32{1, -2, 3, 4, ...}, [5]int32{6, 7, 8, 9, ...}}" {
		t.Errorf("nested String() = %s", got)
	}
	if n, _ := ValueOf(uint32(42)); n.FullString() != "42" {
		t.Errorf("scalar FullString() = %s", n.FullString())
	}
}
