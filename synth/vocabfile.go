package synth

import (
	"fmt"
	"strings"

	"github.com/gollm/gollm/gguf"
)

// tokenizerKeys reads every tokenizer.* key of a GGUF file (a model or a
// vocabulary-only file such as llama.cpp's ggml-vocab-*.gguf) and the size of
// its vocabulary.
func tokenizerKeys(path string) ([]gguf.KV, int, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("synth: vocabulary: %w", err)
	}
	defer f.Close()
	tokens, ok := f.Strings("tokenizer.ggml.tokens")
	if !ok || len(tokens) == 0 {
		return nil, 0, fmt.Errorf("synth: vocabulary %s has no tokenizer.ggml.tokens", path)
	}
	var kvs []gguf.KV
	for _, kv := range f.KV {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			kvs = append(kvs, kv)
		}
	}
	return kvs, len(tokens), nil
}

// customize applies Options.VocabFrom and Options.ChatTemplate: the shape
// takes the vocabulary's size, and the returned function replaces the
// made-up tokenizer keys by the file's and sets tokenizer.chat_template.
func (opt Options) customize(s *Shape) (func(w *gguf.Writer) error, error) {
	var kvs []gguf.KV
	if opt.VocabFrom != "" {
		var n int
		var err error
		if kvs, n, err = tokenizerKeys(opt.VocabFrom); err != nil {
			return nil, err
		}
		s.Vocab = n
	}
	return func(w *gguf.Writer) error {
		if len(kvs) > 0 {
			for _, k := range []string{"tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.scores",
				"tokenizer.ggml.token_type", "tokenizer.ggml.unknown_token_id", "tokenizer.ggml.bos_token_id",
				"tokenizer.ggml.eos_token_id", "tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token"} {
				w.Delete(k)
			}
			for _, kv := range kvs {
				if err := w.Set(kv.Key, kv.Value); err != nil {
					return fmt.Errorf("synth: %w", err)
				}
			}
		}
		if opt.ChatTemplate != "" {
			if err := w.Set("tokenizer.chat_template", opt.ChatTemplate); err != nil {
				return fmt.Errorf("synth: %w", err)
			}
		}
		return nil
	}, nil
}
