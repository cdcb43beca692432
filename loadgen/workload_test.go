package loadgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/tokenizer"
)

func TestRandomFixedVocab(t *testing.T) {
	w, err := NewRandom(FixedVocab{}, 32, 0, 8, 16, 3)
	if err != nil {
		t.Fatal(err)
	}
	p0, p1 := w.Prompt(0), w.Prompt(1)
	if p0.InputTokens != 40 || len(strings.Fields(p0.Text)) != 40 || p0.OutputLen != 16 {
		t.Errorf("prompt 0: %d tokens, %d words, output %d; want 32+8 and 16", p0.InputTokens, len(strings.Fields(p0.Text)), p0.OutputLen)
	}
	if p0.Text == p1.Text {
		t.Error("two requests got the same prompt")
	}
	pre0 := strings.Fields(p0.Text)[:8]
	pre1 := strings.Fields(p1.Text)[:8]
	if strings.Join(pre0, " ") != strings.Join(pre1, " ") {
		t.Errorf("prefixes differ: %q %q", pre0, pre1)
	}
	if w.Prompt(0).Text != p0.Text {
		t.Error("the same index gave another prompt")
	}
	wr, _ := NewRandom(FixedVocab{}, 100, 0.5, 0, 4, 3)
	lo, hi := 1000, 0
	for i := range 200 {
		n := wr.Prompt(i).InputTokens
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo < 50 || hi > 150 || hi-lo < 60 {
		t.Errorf("range ratio 0.5 of 100: lengths in [%d, %d]", lo, hi)
	}
	for _, bad := range [][4]int{{0, 0, 1, 0}, {5, -1, 1, 0}, {5, 0, 0, 0}} {
		if _, err := NewRandom(FixedVocab{}, bad[0], 0, bad[1], bad[2], 1); err == nil {
			t.Errorf("lengths %v accepted", bad)
		}
	}
	if _, err := NewRandom(FixedVocab{}, 5, 1, 0, 1, 1); err == nil {
		t.Error("range ratio 1 accepted")
	}
}

// With a model's tokenizer a prompt of n tokens re-encodes to n tokens
// (SentencePiece and byte-level BPE vocabularies).
func TestRandomModelTokenizer(t *testing.T) {
	for _, name := range []string{"tiny-Q4_0.gguf", "tiny-qwen2-Q8_0.gguf"} {
		path := filepath.Join("..", "..", "shared", "models", name)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("test models not found (../shared/models): %v", err)
		}
		f, err := gguf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := tokenizer.FromGGUF(f)
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
		v := TokenizerVocab(tok)
		w, err := NewRandom(v, 128, 0, 16, 8, 1)
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
		exact := 0
		for i := range 20 {
			p := w.Prompt(i)
			if n := len(tok.Encode(p.Text, false, false)); n == 144 && p.InputTokens == 144 {
				exact++
			} else {
				t.Logf("%s prompt %d: %d tokens (reported %d)", name, i, n, p.InputTokens)
			}
		}
		if exact < 19 {
			t.Errorf("%s: %d of 20 prompts encode to exactly 16+128 tokens", name, exact)
		}
		f.Close()
	}
}

func TestReadDataset(t *testing.T) {
	d, err := ReadDataset(strings.NewReader(`{"prompt":"one two","output_len":7}

{"text":"three","max_tokens":2}
{"prompt":"four five six"}
`), FixedVocab{}, 9)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 3 {
		t.Fatalf("%d prompts", d.Len())
	}
	want := []Prompt{{"one two", 2, 7}, {"three", 1, 2}, {"four five six", 3, 9}}
	for i, w := range want {
		if got := d.Prompt(i); got != w {
			t.Errorf("prompt %d: %+v, want %+v", i, got, w)
		}
	}
	if d.Prompt(3) != want[0] {
		t.Error("the dataset does not cycle")
	}
	for _, bad := range []string{"", "{not json}", `{"output_len":3}`, `{"prompt":"x"}`} {
		out := 5
		if bad == `{"prompt":"x"}` {
			out = 0
		}
		if _, err := ReadDataset(strings.NewReader(bad), nil, out); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
