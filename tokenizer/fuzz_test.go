package tokenizer

import (
	"github.com/gollm/gollm/internal/shared"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEncode: random text and flags on the SPM vocabulary and two BPE ones
// (qwen2, llama3). Encoding must not panic and must give valid ids; for
// valid UTF-8 the pieces must give the text back (SPM: unless the text holds
// '▁' itself, which decodes to a space; with parseSpecial: BPE only,
// rendering the special tokens).
func FuzzEncode(f *testing.F) {
	sharedRoot := shared.Dir(f)
	tks := []*Tokenizer{
		loadTokenizer(f, filepath.Join("vocab", "ggml-vocab-llama-spm.gguf")),
		loadTokenizer(f, filepath.Join("vocab", "ggml-vocab-qwen2.gguf")),
		loadTokenizer(f, filepath.Join("vocab", "ggml-vocab-llama-bpe.gguf")),
	}
	for _, c := range readVocabCases(f, filepath.Join(sharedRoot, "vocab", "ggml-vocab-llama-spm.gguf")) {
		for k := range 12 {
			f.Add(c.text, uint8(k))
		}
	}
	f.Add("<|im_start|>user\nhi<|im_end|><think>", uint8(7))
	f.Add("a<s>b</s>\xff\xfe", uint8(8))

	f.Fuzz(func(t *testing.T, text string, flags uint8) {
		tk := tks[int(flags)%len(tks)]
		addSpecial := flags&16 != 0
		parseSpecial := flags&32 != 0
		ids := tk.Encode(text, addSpecial, parseSpecial)
		for _, id := range ids {
			if id < 0 || int(id) >= tk.VocabSize() {
				t.Fatalf("id %d out of range", id)
			}
		}
		if !utf8.ValidString(text) {
			return
		}
		body := ids
		if addSpecial && tk.AddBOS() {
			if len(body) == 0 || body[0] != tk.BOS() {
				t.Fatalf("no BOS: %v", ids)
			}
			body = body[1:]
		}
		if addSpecial && tk.AddEOS() {
			body = body[:len(body)-1]
		}
		switch {
		case tk.spm && (parseSpecial || strings.Contains(text, spaceEscape)):
			return
		case parseSpecial:
			if got := rawText(tk, body, true); got != text {
				t.Fatalf("round trip with special tokens:\n got  %q\n want %q\n ids %v", got, text, ids)
			}
		default:
			if got := rawText(tk, body, false); got != text {
				t.Fatalf("round trip:\n got  %q\n want %q\n ids %v", got, text, ids)
			}
		}
	})
}
