package tokenizer

import (
	"github.com/gollm/gollm/internal/shared"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gollm/gollm/gguf"
)

func vocabTokenizer(t testing.TB, name string) *Tokenizer {
	return loadTokenizer(t, filepath.Join("vocab", "ggml-vocab-"+name+".gguf"))
}

// rawText concatenates the pieces of ids, dropping the one leading space
// an SPM vocabulary's Encode added (no clean-up).
func rawText(tk *Tokenizer, ids []int32, special bool) string {
	var sb strings.Builder
	for i, id := range ids {
		p := tk.pieceString(id, special)
		if i == 0 && tk.addSpacePrefix && strings.HasPrefix(p, " ") {
			p = p[1:]
		}
		sb.WriteString(p)
	}
	return sb.String()
}

// TestRoundTrip: the pieces of Encode(x) give back x on every test input of
// every vocabulary; Decode also applies llama.cpp's space clean-up where
// the vocabulary asks for it.
func TestRoundTrip(t *testing.T) {
	sharedRoot := shared.Dir(t)
	for _, name := range vocabNames {
		tk := vocabTokenizer(t, name)
		for i, c := range readVocabCases(t, filepath.Join(sharedRoot, "vocab", "ggml-vocab-"+name+".gguf")) {
			ids := tk.Encode(c.text, false, false)
			if got := rawText(tk, ids, false); got != c.text {
				t.Errorf("%s case %d: pieces give %q, want %q", name, i, got, c.text)
			}
			want := c.text
			if tk.CleanSpaces() {
				want = string(cleanSpaces([]byte(c.text)))
			}
			if got := tk.Decode(ids); got != want {
				t.Errorf("%s case %d: Decode = %q, want %q", name, i, got, want)
			}
		}
	}
}

// TestStreamDecoderVocab feeds the tokens of every test input one by one:
// every result must be valid UTF-8 and together they must be the pieces.
func TestStreamDecoderVocab(t *testing.T) {
	sharedRoot := shared.Dir(t)
	for _, name := range vocabNames {
		tk := vocabTokenizer(t, name)
		for i, c := range readVocabCases(t, filepath.Join(sharedRoot, "vocab", "ggml-vocab-"+name+".gguf")) {
			d := tk.NewStreamDecoder()
			var sb strings.Builder
			for _, id := range c.ids {
				s := d.Add(id)
				if !utf8.ValidString(s) {
					t.Errorf("%s case %d: Add returned invalid UTF-8 %q", name, i, s)
				}
				sb.WriteString(s)
			}
			if rest := d.Flush(); rest != "" {
				t.Errorf("%s case %d: Flush = %q after complete text", name, i, rest)
			}
			var want strings.Builder
			for _, id := range c.ids {
				want.Write(tk.Piece(id))
			}
			if sb.String() != want.String() {
				t.Errorf("%s case %d: streamed %q, pieces %q", name, i, sb.String(), want.String())
			}
		}
	}

	// " this is 🦙.cpp": the llama is four byte tokens in the SPM vocab
	// (llama.cpp's expected ids); it must come out whole with the last one.
	tk := vocabTokenizer(t, "llama-spm")
	d := tk.NewStreamDecoder()
	var got []string
	for _, id := range []int32{29871, 445, 338, 29871, 243, 162, 169, 156, 29889, 8223} {
		got = append(got, d.Add(id))
	}
	want := []string{" ", " this", " is", " ", "", "", "", "🦙", ".", "cpp"}
	if !slices.Equal(got, want) {
		t.Errorf("stream of 🦙: %q, want %q", got, want)
	}
}

func TestSpecialTokens(t *testing.T) {
	shared.Dir(t)
	l3 := vocabTokenizer(t, "llama-bpe")
	// Ids from llama.cpp's tests: "Hello" is 9906.
	checkEncode(t, l3, "Hello", true, false, []int32{128000, 9906})
	checkEncode(t, l3, "<|begin_of_text|>Hello", false, true, []int32{128000, 9906})
	if got := l3.Encode("<|eot_id|>", false, false); slices.Contains(got, 128009) {
		t.Errorf("control token parsed without parseSpecial: %v", got)
	}
	checkEncode(t, l3, "<|eot_id|>", false, true, []int32{128009})
	if got := l3.Detokenize(l3.Encode("<|eot_id|>Hi", false, true), false, true); got != "<|eot_id|>Hi" {
		t.Errorf("unparse special: %q", got)
	}

	q := vocabTokenizer(t, "qwen2")
	// User-defined tokens are split out even without parseSpecial.
	checkEncode(t, q, "<think>", false, false, []int32{151667})
	checkEncode(t, q, "<|im_start|>", false, true, []int32{151644})
	if got := q.Encode("<|im_start|>", false, false); slices.Contains(got, 151644) {
		t.Errorf("control token parsed without parseSpecial: %v", got)
	}
	if q.AddBOS() {
		t.Error("qwen2 vocab sets add_bos_token false")
	}

	spm := vocabTokenizer(t, "llama-spm")
	// After a special token the text gets the SPM space prefix again.
	checkEncode(t, spm, "Hello<s>world", false, true, []int32{15043, 1, 3186})
	checkEncode(t, spm, "</s>\n Hi", false, true, append([]int32{2}, spm.Encode("\n Hi", false, false)...))
	// Detokenizing: the leading space goes only when nothing precedes the
	// first text token (llama_detokenize's remove_space).
	ids := spm.Encode("Hello", true, false)
	checkIDs(t, "Encode(Hello)", ids, []int32{1, 15043})
	for _, c := range []struct {
		rs, us bool
		want   string
	}{{false, false, " Hello"}, {true, false, " Hello"}, {false, true, "<s> Hello"}} {
		if got := spm.Detokenize(ids, c.rs, c.us); got != c.want {
			t.Errorf("Detokenize(%v, %v, %v) = %q, want %q", ids, c.rs, c.us, got, c.want)
		}
	}
	if got := spm.Decode(ids[1:]); got != "Hello" {
		t.Errorf("Decode without BOS = %q", got)
	}

	// phi-3 (general.name "Phi3"): special tokens eat the whitespace after
	// them.
	phi := vocabTokenizer(t, "phi-3")
	checkEncode(t, phi, "<|end|>\n  Hi", false, true, append([]int32{32007}, phi.Encode("Hi", false, false)...))
}

func checkIDs(t *testing.T, what string, got, want []int32) {
	t.Helper()
	if !equalIDs(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestEOG: the end-of-generation sets llama.cpp derives (EOS, EOT/EOM,
// FIM pad/repo/sep, and the tokens it recognises by text).
func TestEOG(t *testing.T) {
	shared.Dir(t)
	want := map[string][]int32{
		"llama-spm": {2},
		"phi-3":     {2, 32000, 32007},
		"gpt-2":     {50256},
		"llama-bpe": {128001, 128009},
		// "</s>" (128247, a normal token here) is on llama.cpp's list too.
		"qwen2":          {128247, 151643, 151645, 151662, 151663, 151664},
		"deepseek-coder": {32014},
		"falcon":         {11},
	}
	for name, w := range want {
		tk := vocabTokenizer(t, name)
		if got := tk.EOGTokens(); !slices.Equal(got, w) {
			t.Errorf("%s: EOG tokens %v, want %v", name, got, w)
		}
		for _, id := range w {
			if !tk.IsEOG(id) {
				t.Errorf("%s: IsEOG(%d) false", name, id)
			}
		}
		if tk.IsEOG(-1) || tk.IsEOG(5) {
			t.Errorf("%s: IsEOG true for a non-EOG id", name)
		}
	}
	if got := vocabTokenizer(t, "llama-bpe").EOT(); got != 128009 {
		t.Errorf("llama-bpe EOT = %d, want 128009 (<|eot_id|>)", got)
	}
}

// TestSPMWordSplit: cutting SPM text into words (the fast path) gives the
// same tokens as llama.cpp's single merge over the whole fragment.
func TestSPMWordSplit(t *testing.T) {
	sharedRoot := shared.Dir(t)
	f, err := gguf.Open(filepath.Join(sharedRoot, "vocab", "ggml-vocab-llama-spm.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	slow, err := FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	if !slow.spmWordSplit {
		t.Fatal("llama-spm vocab should allow the word split")
	}
	slow.spmWordSplit = false
	fast := vocabTokenizer(t, "llama-spm")

	texts := []string{perfText(t, 64<<10), "  a  b   c\n\n  ", "▁▁x▁ y", "\xE2\x96 \xF0 a"}
	for _, c := range readVocabCases(t, filepath.Join(sharedRoot, "vocab", "ggml-vocab-llama-spm.gguf")) {
		texts = append(texts, c.text)
	}
	for _, s := range texts {
		a, b := fast.Encode(s, true, false), slow.Encode(s, true, false)
		if !equalIDs(a, b) {
			t.Errorf("word split differs on %.60q...:\n fast %v\n slow %v", s, a[:min(len(a), 40)], b[:min(len(b), 40)])
		}
	}
}

// TestConcurrentEncode: one Tokenizer serves several goroutines (run with
// -race).
func TestConcurrentEncode(t *testing.T) {
	sharedRoot := shared.Dir(t)
	for _, name := range []string{"llama-spm", "qwen2"} {
		tk := vocabTokenizer(t, name)
		cases := readVocabCases(t, filepath.Join(sharedRoot, "vocab", "ggml-vocab-"+name+".gguf"))
		errs := make(chan string, 4*len(cases))
		done := make(chan struct{})
		for g := 0; g < 4; g++ {
			go func() {
				defer func() { done <- struct{}{} }()
				for i := range cases {
					c := cases[(i+g*7)%len(cases)]
					if got := tk.Encode(c.text, false, false); !equalIDs(got, c.ids) {
						errs <- c.text
					}
				}
			}()
		}
		for g := 0; g < 4; g++ {
			<-done
		}
		close(errs)
		for s := range errs {
			t.Errorf("%s: concurrent Encode(%q) differs", name, s)
		}
	}
}
