package tokenizer

import (
	"slices"
	"testing"
)

// preSplit pre-tokenizes s with the regex list of kind.
func preSplit(kind preKind, s string) []string {
	var cps []rune
	var fl []uint8
	var offs []int
	for i := 0; i < len(s); {
		cp, n := decodeCP(s, i)
		cps = append(cps, cp)
		fl = append(fl, cpFlags(cp))
		offs = append(offs, i)
		i += n
	}
	offs = append(offs, len(s))
	ends, _ := preTokenize(splittersFor(kind), cps, fl, nil, nil)
	var out []string
	ini := 0
	for _, e := range ends {
		out = append(out, s[offs[ini]:offs[e]])
		ini = e
	}
	return out
}

// TestPreTokenizers checks the regex lists the shared vocab files do not
// exercise, on inputs split by hand following ECMAScript regex semantics
// and llama.cpp's apply-each-regex-to-each-piece order.
func TestPreTokenizers(t *testing.T) {
	cases := []struct {
		kind preKind
		in   string
		want []string
	}{
		{preDefault, "Hello, world! 12345 a+b", []string{"Hello", ",", " world", "!", " ", "123", "45", " a", "+", "b"}},
		{preStarcoder, "ab 12 c", []string{"ab", " ", "1", "2", " c"}},
		{preDeepseekLLM, "Hi there!\n中文 42  ", []string{"Hi", " there", "!", "\n", "中文", " ", "42", "  "}},
		{preBloom, "Hello, world. (x)", []string{"Hello", ",", " world", ". (", "x", ")"}},
		{preViking, "ab12 c", []string{"ab", "1", "2", " c"}},
		{preGPT2, "I'm  fine 12345 :-)\n\n", []string{"I", "'m", " ", " fine", " 12345", " :-)", "\n\n"}},
		{preLlama3, "I'M  fine 12345 :-)\n\n x", []string{"I", "'M", " ", " fine", " ", "123", "45", " :-)\n\n", " x"}},
		{preQwen2, "x 123\r\n  y", []string{"x", " ", "1", "2", "3", "\r\n", " ", " y"}},
		{preFalcon, "a`b 1234", []string{"a", "`", "b", " ", "123", "4"}},
		{preDeepseekCoder, "if x:\n  return 12", []string{"if", " x", ":", "\n", " ", " return", " ", "1", "2"}},
	}
	for _, c := range cases {
		if got := preSplit(c.kind, c.in); !slices.Equal(got, c.want) {
			t.Errorf("kind %d %q:\n got  %q\n want %q", c.kind, c.in, got, c.want)
		}
	}
}

func TestCPFlags(t *testing.T) {
	cases := []struct {
		cp   rune
		want uint8
	}{
		{'a', cfLetter}, {'7', cfNumber}, {'!', cfPunct}, {'~', cfSymbol}, {' ', cfOther | cfWhitespace},
		{'\n', cfOther | cfWhitespace}, {0x1C, cfOther}, {0x85, cfOther | cfWhitespace},
		{0x3000, cfOther | cfWhitespace}, {0x4E2D, cfLetter}, {0x0301, cfMark}, {0x00B2, cfNumber},
		{0x2EBF0, cfLetter}, // CJK Extension I: Unicode 15.1, as llama.cpp's table
		{0xE000, cfOther}, {0x0378, cfOther}, {0x110000, 0},
	}
	for _, c := range cases {
		if got := cpFlags(c.cp); got != c.want {
			t.Errorf("cpFlags(%U) = %08b, want %08b", c.cp, got, c.want)
		}
	}
}

func TestDecodeCP(t *testing.T) {
	cases := []struct {
		in   string
		cp   rune
		size int
	}{
		{"a", 'a', 1}, {"é", 0xE9, 2}, {"\xC0\x80", 0, 2}, // overlong accepted, as llama.cpp
		{"\xED\xA0\x80", 0xD800, 3}, // surrogate accepted
		{"\x80", 0xFFFD, 1}, {"\xE2\x82", 0xFFFD, 1}, {"\xF8\x80\x80\x80", 0xFFFD, 1},
		{"\xF5\x80\x80\x80", 0xFFFD, 1}, // beyond U+10FFFF
		{"😀", 0x1F600, 4},
	}
	for _, c := range cases {
		cp, n := decodeCP(c.in, 0)
		if cp != c.cp || n != c.size {
			t.Errorf("decodeCP(%q) = %U,%d want %U,%d", c.in, cp, n, c.cp, c.size)
		}
	}
	if got := string(appendCP(nil, 0xD800)); got != "\xED\xA0\x80" {
		t.Errorf("appendCP(D800) = %q", got)
	}
}
