package tokenizer

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gollm/gollm/gguf"
)

// ggufOf writes the given metadata to an in-memory GGUF file and parses it.
func ggufOf(t *testing.T, kv map[string]any) *gguf.File {
	t.Helper()
	w := gguf.NewWriter()
	for k, v := range kv {
		if err := w.Set(k, v); err != nil {
			t.Fatalf("set %s: %v", k, err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestVocabFromGGUFDefaults(t *testing.T) {
	// SPM without special-token keys: llama.cpp's defaults.
	toks := []string{"<unk>", "<s>", "</s>", "a"}
	v, err := VocabFromGGUF(ggufOf(t, map[string]any{
		keyModel:  "llama",
		keyTokens: toks,
		// llama.cpp writes "no token" as 0xFFFFFFFF: out of range, so the
		// default (none) stays.
		"tokenizer.ggml.padding_token_id": uint32(0xFFFFFFFF),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if v.BOS != 1 || v.EOS != 2 || v.UNK != 0 || v.PAD != -1 || v.EOT != -1 || !v.AddBOS || v.AddEOS || !v.AddSpacePrefix || v.Pre != "default" {
		t.Errorf("SPM defaults: %+v", v)
	}

	// BPE: BOS=EOS=11 when in range, add_bos from the pre-tokenizer,
	// keys override.
	bpeToks := make([]string, 20)
	for i := range bpeToks {
		bpeToks[i] = string(rune('A' + i))
	}
	v, err = VocabFromGGUF(ggufOf(t, map[string]any{
		keyModel: "gpt2", keyPre: "llama-bpe", keyTokens: bpeToks, keyMerges: []string{"A B"},
		"tokenizer.ggml.eos_token_id": uint32(3),
		"tokenizer.ggml.bos_token_id": uint32(1000), // out of range: default kept
		keySpacePrefix:                true,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if v.BOS != 11 || v.EOS != 3 || v.UNK != -1 || !v.AddBOS || !v.AddSpacePrefix {
		t.Errorf("BPE defaults: %+v", v)
	}
	v, err = VocabFromGGUF(ggufOf(t, map[string]any{
		keyModel: "gpt2", keyTokens: bpeToks[:5], keyMerges: []string{}, keyAddBOS: true,
		"tokenizer.ggml.bos_token_id": uint32(2),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if v.Pre != "default" || v.BOS != 2 || v.EOS != -1 || !v.AddBOS {
		t.Errorf("BPE with 5 tokens: %+v", v)
	}
	if _, err := New(v); err != nil {
		t.Errorf("New: %v", err)
	}
}

func TestVocabFromGGUFErrors(t *testing.T) {
	toks := []string{"a", "b", "c"}
	cases := []struct {
		name string
		kv   map[string]any
		want error
	}{
		{"no model", map[string]any{keyTokens: toks}, ErrInvalid},
		{"t5", map[string]any{keyModel: "t5", keyTokens: toks}, ErrUnsupported},
		{"bad pre", map[string]any{keyModel: "gpt2", keyPre: "nope", keyTokens: toks, keyMerges: []string{}}, ErrUnsupported},
		{"no tokens", map[string]any{keyModel: "llama"}, ErrInvalid},
		{"tokens not strings", map[string]any{keyModel: "llama", keyTokens: []int32{1, 2}}, ErrInvalid},
		{"empty tokens", map[string]any{keyModel: "llama", keyTokens: []string{}}, ErrInvalid},
		{"short scores", map[string]any{keyModel: "llama", keyTokens: toks, keyScores: []float32{1}}, ErrInvalid},
		{"scores not numbers", map[string]any{keyModel: "llama", keyTokens: toks, keyScores: []string{"x", "y", "z"}}, ErrInvalid},
		{"short types", map[string]any{keyModel: "llama", keyTokens: toks, keyTypes: []int32{1, 1}}, ErrInvalid},
		{"no merges", map[string]any{keyModel: "gpt2", keyTokens: toks}, ErrInvalid},
	}
	for _, c := range cases {
		_, err := VocabFromGGUF(ggufOf(t, c.kv))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := VocabFromGGUF(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil file: %v", err)
	}
	// Integer scores are accepted (llama.cpp converts them).
	v, err := VocabFromGGUF(ggufOf(t, map[string]any{keyModel: "llama", keyTokens: toks, keyScores: []int32{1, 2, 3}}))
	if err != nil || v.Scores[2] != 3 {
		t.Errorf("int scores: %v %v", v, err)
	}
	// add_bos_token true without a usable BOS fails in New.
	v, err = VocabFromGGUF(ggufOf(t, map[string]any{keyModel: "llama", keyTokens: toks}))
	if err != nil {
		t.Fatal(err)
	}
	v.BOS = -1
	if _, err := New(v); !errors.Is(err, ErrInvalid) {
		t.Errorf("add_bos without BOS: %v", err)
	}
}
