package tokenizer

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// spmVocab builds a small SentencePiece vocabulary: <unk> <s> </s>, the 256
// byte tokens (ids 3..258) unless noBytes, then the given normal tokens
// with their scores.
func spmVocab(noBytes bool, toks ...any) *Vocab {
	v := &Vocab{Model: "llama", BOS: 1, EOS: 2, UNK: 0, PAD: -1, EOT: -1, EOM: -1,
		FIMPad: -1, FIMRep: -1, FIMSep: -1}
	add := func(s string, score float32, typ int32) {
		v.Tokens = append(v.Tokens, s)
		v.Scores = append(v.Scores, score)
		v.Types = append(v.Types, typ)
	}
	add("<unk>", 0, TypeUnknown)
	add("<s>", 0, TypeControl)
	add("</s>", 0, TypeControl)
	if !noBytes {
		for b := 0; b < 256; b++ {
			add(fmt.Sprintf("<0x%02X>", b), 0, TypeByte)
		}
	}
	for i := 0; i < len(toks); i += 2 {
		add(toks[i].(string), float32(toks[i+1].(float64)), TypeNormal)
	}
	return v
}

func mustNew(t *testing.T, v *Vocab) *Tokenizer {
	t.Helper()
	tk, err := New(v)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// ids maps token texts to ids.
func ids(t *testing.T, tk *Tokenizer, texts ...string) []int32 {
	t.Helper()
	var out []int32
	for _, s := range texts {
		id, ok := tk.TokenID(s)
		if !ok {
			t.Fatalf("no token %q", s)
		}
		out = append(out, id)
	}
	return out
}

func checkEncode(t *testing.T, tk *Tokenizer, text string, addSpecial, parseSpecial bool, want []int32) {
	t.Helper()
	got := tk.Encode(text, addSpecial, parseSpecial)
	if !equalIDs(got, want) {
		t.Errorf("Encode(%q, %v, %v) = %v, want %v", text, addSpecial, parseSpecial, got, want)
	}
}

func TestSPMMergeOrder(t *testing.T) {
	// Equal scores: the leftmost pair merges first, so "abc" is ab+c, not
	// a+bc.
	tk := mustNew(t, spmVocab(false, "a", -5.0, "b", -5.0, "c", -5.0, "ab", -1.0, "bc", -1.0))
	checkEncode(t, tk, "abc", false, false, ids(t, tk, "ab", "c"))
	// A higher score wins wherever it is.
	tk = mustNew(t, spmVocab(false, "a", -5.0, "b", -5.0, "c", -5.0, "ab", -1.0, "bc", -0.5))
	checkEncode(t, tk, "abc", false, false, ids(t, tk, "a", "bc"))
	// Merges chain through intermediate tokens.
	tk = mustNew(t, spmVocab(false, "a", -5.0, "b", -5.0, "c", -5.0, "ab", -1.0, "abc", -3.0))
	checkEncode(t, tk, "abcab", false, false, ids(t, tk, "abc", "ab"))
}

func TestSPMSpacePrefixAndBytes(t *testing.T) {
	v := spmVocab(false, "▁", -1.0, "a", -2.0, "▁a", -0.5, "b", -2.0)
	v.AddSpacePrefix = true
	v.AddBOS = true
	tk := mustNew(t, v)
	// ' ' is escaped to '▁' and a '▁' is prefixed to the first fragment.
	checkEncode(t, tk, "a b", false, false, ids(t, tk, "▁a", "▁", "b"))
	checkEncode(t, tk, "a", true, false, append([]int32{1}, ids(t, tk, "▁a")...))
	checkEncode(t, tk, "", true, false, []int32{1})
	checkEncode(t, tk, "", false, false, nil)
	// Characters that are not tokens fall back to their UTF-8 bytes.
	checkEncode(t, tk, "é", false, false, append(ids(t, tk, "▁"), 3+0xC3, 3+0xA9))
	// Invalid UTF-8: a lead byte takes the bytes it announces, whatever
	// they are, and falls back to bytes.
	checkEncode(t, tk, "\xE2a", false, false, append(ids(t, tk, "▁"), 3+0xE2, 3+'a'))

	// A special token splits the text; the text after it gets the space
	// prefix again.
	checkEncode(t, tk, "a</s>a", false, true, append(append(ids(t, tk, "▁a"), 2), ids(t, tk, "▁a")...))
	// Without parseSpecial control tokens are plain text.
	got := tk.Encode("a</s>a", false, false)
	for _, id := range got {
		if id == 2 {
			t.Errorf("Encode without parseSpecial produced </s>: %v", got)
		}
	}
	if s := tk.Decode(got); s != "a</s>a" {
		t.Errorf("Decode = %q", s)
	}

	// Without byte tokens, unknown bytes become <unk>.
	v = spmVocab(true, "▁", -1.0, "a", -2.0)
	tk = mustNew(t, v)
	checkEncode(t, tk, "aé", false, false, append(ids(t, tk, "a"), 0, 0))
}

// byteLevelVocab: the 256 byte characters (id = byte value order of
// byteEnc), then extra tokens, with merges.
func byteLevelVocab(pre string, extra []string, merges []string) *Vocab {
	v := &Vocab{Model: "gpt2", Pre: pre, BOS: -1, EOS: -1, UNK: -1, PAD: -1, EOT: -1, EOM: -1,
		FIMPad: -1, FIMRep: -1, FIMSep: -1, Merges: merges}
	for b := 0; b < 256; b++ {
		v.Tokens = append(v.Tokens, byteEnc[b])
	}
	v.Tokens = append(v.Tokens, extra...)
	return v
}

func TestBPEMerges(t *testing.T) {
	// Lowest rank first: "b c" (rank 0) before "a b".
	tk := mustNew(t, byteLevelVocab("gpt-2", []string{"ab", "bc"}, []string{"b c", "a b"}))
	checkEncode(t, tk, "abc", false, false, ids(t, tk, "a", "bc"))
	tk = mustNew(t, byteLevelVocab("gpt-2", []string{"ab", "bc"}, []string{"a b", "b c"}))
	checkEncode(t, tk, "abc", false, false, ids(t, tk, "ab", "c"))
	// A repeated rule keeps its first rank.
	tk = mustNew(t, byteLevelVocab("gpt-2", []string{"ab", "bc"}, []string{"b c", "a b", "b c"}))
	checkEncode(t, tk, "abc", false, false, ids(t, tk, "a", "bc"))
	// Space is byte-encoded as 'Ġ'; the gpt2 pre-tokenizer keeps it in
	// front of the word.
	tk = mustNew(t, byteLevelVocab("gpt-2", []string{"Ġa", "ab"}, []string{"Ġ a", "a b"}))
	checkEncode(t, tk, "ab a", false, false, ids(t, tk, "ab", "Ġa"))
	// A merge whose result is not a token leaves a symbol that is no
	// token: it is emitted byte by byte, and rules keyed by text still
	// apply to it ("ab c" -> "abc").
	tk = mustNew(t, byteLevelVocab("gpt-2", []string{"abc", "xyz"}, []string{"a b", "ab c", "q r s", "x nothere"}))
	checkEncode(t, tk, "abc", false, false, ids(t, tk, "abc"))
	checkEncode(t, tk, "ab", false, false, ids(t, tk, "a", "b"))
	// Multi-byte characters are their byte characters.
	tk = mustNew(t, byteLevelVocab("gpt-2", nil, nil))
	checkEncode(t, tk, "é", false, false, []int32{0xC3, 0xA9})
	if s := tk.Decode(tk.Encode("é", false, false)); s != "é" {
		t.Errorf("round trip: %q", s)
	}
	// Invalid UTF-8 becomes U+FFFD, as in llama.cpp.
	checkEncode(t, tk, "\xff", false, false, []int32{0xEF, 0xBF, 0xBD})
}

func TestBPEIgnoreMerges(t *testing.T) {
	// llama3-style vocabularies take a pre-token that is a token as is,
	// even when the merges would split it differently.
	extra := []string{"ab", "abc"}
	merges := []string{"a b"}
	tk := mustNew(t, byteLevelVocab("llama-bpe", extra, merges))
	checkEncode(t, tk, "abc", false, false, ids(t, tk, "abc"))
	tk = mustNew(t, byteLevelVocab("dbrx", extra, merges)) // same regex, merges not ignored
	checkEncode(t, tk, "abc", false, false, ids(t, tk, "ab", "c"))
}

func TestNewErrors(t *testing.T) {
	good := func() *Vocab { return spmVocab(false, "a", -1.0) }
	cases := []struct {
		name string
		mod  func(v *Vocab)
		want error
	}{
		{"model", func(v *Vocab) { v.Model = "bert" }, ErrUnsupported},
		{"pre", func(v *Vocab) { v.Model, v.Pre = "gpt2", "no-such-pre" }, ErrUnsupported},
		{"no tokens", func(v *Vocab) { v.Tokens, v.Scores, v.Types = nil, nil, nil }, ErrInvalid},
		{"short scores", func(v *Vocab) { v.Scores = v.Scores[:3] }, ErrInvalid},
		{"short types", func(v *Vocab) { v.Types = v.Types[:3] }, ErrInvalid},
		{"duplicate", func(v *Vocab) { v.Tokens[len(v.Tokens)-1] = "<s>" }, ErrInvalid},
		{"add bos without bos", func(v *Vocab) { v.AddBOS, v.BOS = true, -1 }, ErrInvalid},
		{"add bos with bos out of range", func(v *Vocab) { v.AddBOS, v.BOS = true, 1<<20 }, ErrInvalid},
		{"add eos without eos", func(v *Vocab) { v.AddEOS, v.EOS = true, -1 }, ErrInvalid},
	}
	for _, c := range cases {
		v := good()
		c.mod(v)
		_, err := New(v)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	_, err := New(&Vocab{Model: "gpt2", Pre: "nope", Tokens: []string{"a"}})
	if err == nil || !strings.Contains(err.Error(), "llama-bpe") || !strings.Contains(err.Error(), "qwen2") {
		t.Errorf("unsupported pre error should list the supported names: %v", err)
	}
	if _, err := New(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil vocab: %v", err)
	}
}

func TestHostileVocab(t *testing.T) {
	// Odd but loadable metadata must neither panic nor fail.
	v := spmVocab(false, "a", -1.0)
	v.Tokens[5] = ""                                     // renamed [EMPTY_5] as llama.cpp does
	v.Types[6] = 99                                      // unknown type: undefined
	v.Scores[7] = float32(nanf())                        // NaN score
	v.BOS, v.EOS, v.UNK, v.EOT = 1<<30, -7, 1<<20, 1<<30 // out of range: absent
	tk := mustNew(t, v)
	if tk.BOS() != -1 || tk.EOS() != -1 {
		t.Errorf("out-of-range ids should read as absent: %d %d", tk.BOS(), tk.EOS())
	}
	if _, ok := tk.TokenID("[EMPTY_5]"); !ok {
		t.Error("empty token not renamed")
	}
	for _, s := range []string{"", "a", "\x00\xff", strings.Repeat("a", 1000)} {
		tk.Encode(s, true, true)
	}
	for _, id := range []int32{-1, 0, 6, 1 << 30} {
		_ = tk.Piece(id)
		_ = tk.PieceSpecial(id, true)
		_ = tk.IsEOG(id)
	}
	_ = tk.Decode([]int32{-5, 1 << 30, 7})

	b := byteLevelVocab("gpt-2", []string{"ab"}, []string{"", " ", "a", "a b", "a b c", "  x", "b\xffc d"})
	tk = mustNew(t, b)
	checkEncode(t, tk, "ab", false, false, ids(t, tk, "ab"))
	// Byte tokens with malformed text render as llama.cpp parses them.
	if got := byteTokenValue("<0x4"); got != 4 {
		t.Errorf("byteTokenValue(<0x4) = %d", got)
	}
	if got := byteTokenValue("<"); got != 0 {
		t.Errorf("byteTokenValue(<) = %d", got)
	}
}

func nanf() float64 {
	zero := 0.0
	return zero / zero
}

func TestCleanSpaces(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"Hello , world !", "Hello, world!"},
		{"a . b ?", "a. b?"},
		{"a  ?", "a ?"},
		{"a ' b", "a'b"},
		// llama.cpp zeroes the skipped space in place, so a second quote
		// right after does not see a space before it.
		{"a ' ' b", "a'' b"},
		{"you 're I 'm it 's we 've", "you're I'm it's we've"},
		{"don 't I 'd we 'll", "don 't I 'd we 'll"},
		{" 's", "'s"},
		{"x '", "x '"},
	}
	for _, c := range cases {
		if got := string(cleanSpaces([]byte(c.in))); got != c.want {
			t.Errorf("cleanSpaces(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStreamDecoderUnit(t *testing.T) {
	// Byte tokens of "€" (E2 82 AC) arrive one at a time.
	tk := mustNew(t, spmVocab(false, "a", -1.0))
	d := tk.NewStreamDecoder()
	steps := []struct {
		id   int32
		want string
	}{
		{3 + 'x', "x"}, {3 + 0xE2, ""}, {3 + 0x82, ""}, {3 + 0xAC, "€"},
		{3 + 0xF0, ""}, {3 + 0x9F, ""}, // 4-byte sequence, cut short by...
		{3 + 'y', "\xF0\x9Fy"}, // ...an ASCII byte: passed through as is
		{3 + 0xFF, "\xFF"},     // never valid: not held back
		{3 + 0xC3, ""},
	}
	for i, s := range steps {
		if got := d.Add(s.id); got != s.want {
			t.Errorf("step %d: Add(%d) = %q, want %q", i, s.id, got, s.want)
		}
	}
	if got := d.Flush(); got != "\xC3" {
		t.Errorf("Flush = %q", got)
	}
	if got := d.Flush(); got != "" {
		t.Errorf("second Flush = %q", got)
	}
	// Control tokens render only when asked.
	if got := d.Add(1); got != "" {
		t.Errorf("control token rendered: %q", got)
	}
	d.Special = true
	if got := d.Add(1); got != "<s>" {
		t.Errorf("special rendering: %q", got)
	}
}
