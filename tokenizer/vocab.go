// Package tokenizer turns text into token ids and back for the vocabularies
// stored in GGUF files: SentencePiece-style ("llama", SPM) and byte-level BPE
// ("gpt2", with the pre-tokenizer chosen by tokenizer.ggml.pre). It follows
// llama.cpp's llama-vocab.cpp and unicode.cpp token for token, quirks
// included, so prompts tokenize exactly as they do there.
package tokenizer

import (
	"errors"
	"fmt"

	"github.com/gollm/gollm/gguf"
)

var (
	// ErrUnsupported: the tokenizer model or pre-tokenizer name is one this
	// package does not implement. The message lists the supported names.
	ErrUnsupported = errors.New("unsupported tokenizer")

	// ErrInvalid: the vocabulary metadata is missing or inconsistent
	// (no tokens, short score or type arrays, duplicate tokens, a BOS/EOS
	// that must be added but does not exist, ...).
	ErrInvalid = errors.New("invalid tokenizer metadata")
)

// Token types of tokenizer.ggml.token_type.
const (
	TypeUndefined   int32 = 0
	TypeNormal      int32 = 1
	TypeUnknown     int32 = 2
	TypeControl     int32 = 3
	TypeUserDefined int32 = 4
	TypeUnused      int32 = 5
	TypeByte        int32 = 6
)

// Vocab is everything the tokenizer needs. VocabFromGGUF fills it the way
// llama.cpp's llama_vocab::load resolves the metadata (defaults included);
// tests may build one by hand. Token ids are -1 when absent.
type Vocab struct {
	Model  string    // tokenizer.ggml.model: "llama" (SPM) or "gpt2" (BPE)
	Pre    string    // tokenizer.ggml.pre ("default" when absent)
	Name   string    // general.name: llama.cpp keys a few token-attribute quirks on it (phi-3)
	Tokens []string  // tokenizer.ggml.tokens
	Scores []float32 // tokenizer.ggml.scores (nil: all 0)
	Types  []int32   // tokenizer.ggml.token_type (nil: all normal)
	Merges []string  // tokenizer.ggml.merges, "left right"

	BOS, EOS, UNK, PAD, EOT, EOM int32
	// FIM pad/repo/file-separator ids: llama.cpp counts them as
	// end-of-generation tokens. -1 when absent (then found by their text).
	FIMPad, FIMRep, FIMSep int32

	AddBOS, AddEOS bool // tokenizer.ggml.add_bos_token / add_eos_token
	AddSpacePrefix bool // tokenizer.ggml.add_space_prefix
}

// GGUF metadata keys.
const (
	keyModel       = "tokenizer.ggml.model"
	keyPre         = "tokenizer.ggml.pre"
	keyTokens      = "tokenizer.ggml.tokens"
	keyScores      = "tokenizer.ggml.scores"
	keyTypes       = "tokenizer.ggml.token_type"
	keyMerges      = "tokenizer.ggml.merges"
	keyAddBOS      = "tokenizer.ggml.add_bos_token"
	keyAddEOS      = "tokenizer.ggml.add_eos_token"
	keySpacePrefix = "tokenizer.ggml.add_space_prefix"
)

// VocabFromGGUF reads the tokenizer metadata of f. Missing optional keys get
// llama.cpp's defaults: for SPM BOS=1, EOS=2, UNK=0, add_bos=true,
// add_space_prefix=true; for BPE BOS=EOS=11 and add_bos as the
// pre-tokenizer implies (true for llama3-style vocabularies). Ids present in
// the file but outside the vocabulary keep the default, as llama.cpp does.
func VocabFromGGUF(f *gguf.File) (*Vocab, error) {
	if f == nil {
		return nil, fmt.Errorf("tokenizer: nil gguf file: %w", ErrInvalid)
	}
	model := f.String(keyModel, "")
	if model == "" {
		return nil, fmt.Errorf("tokenizer: %s missing: %w", keyModel, ErrInvalid)
	}
	if model != "llama" && model != "gpt2" {
		return nil, unsupportedModel(model)
	}
	v := &Vocab{Model: model, Pre: f.String(keyPre, "default"), Name: f.String("general.name", "")}
	if v.Pre == "" {
		v.Pre = "default"
	}
	var pc preConfig
	if model == "gpt2" {
		var ok bool
		if pc, ok = preConfigs[v.Pre]; !ok {
			return nil, unsupportedPre(v.Pre)
		}
	}

	toks, ok := f.Strings(keyTokens)
	if !ok || len(toks) == 0 {
		return nil, fmt.Errorf("tokenizer: %s missing or not a string array: %w", keyTokens, ErrInvalid)
	}
	v.Tokens = toks
	n := len(toks)
	if _, present := f.Get(keyScores); present {
		s, ok := f.Float32s(keyScores)
		if !ok || len(s) < n {
			return nil, fmt.Errorf("tokenizer: %s has %d numbers for %d tokens: %w", keyScores, len(s), n, ErrInvalid)
		}
		v.Scores = s
	}
	if _, present := f.Get(keyTypes); present {
		t, ok := f.Int32s(keyTypes)
		if !ok || len(t) < n {
			return nil, fmt.Errorf("tokenizer: %s has %d ints for %d tokens: %w", keyTypes, len(t), n, ErrInvalid)
		}
		v.Types = t
	}
	if model == "gpt2" {
		m, ok := f.Strings(keyMerges)
		if !ok {
			return nil, fmt.Errorf("tokenizer: %s missing or not a string array: %w", keyMerges, ErrInvalid)
		}
		v.Merges = m
	}

	// Defaults per model type (llama_vocab::impl::load).
	v.BOS, v.EOS, v.UNK, v.PAD, v.EOT, v.EOM = -1, -1, -1, -1, -1, -1
	v.FIMPad, v.FIMRep, v.FIMSep = -1, -1, -1
	switch model {
	case "llama":
		v.BOS, v.EOS, v.UNK = 1, 2, 0
		v.AddBOS, v.AddSpacePrefix = true, true
	case "gpt2":
		v.BOS, v.EOS = 11, 11
		if pc.noBOS {
			v.BOS = -1
		}
		v.AddBOS = pc.addBOS
	}
	v.AddSpacePrefix = f.Bool(keySpacePrefix, v.AddSpacePrefix)

	ids := []struct {
		key string
		id  *int32
	}{
		{"tokenizer.ggml.bos_token_id", &v.BOS},
		{"tokenizer.ggml.eos_token_id", &v.EOS},
		{"tokenizer.ggml.eot_token_id", &v.EOT},
		{"tokenizer.ggml.eom_token_id", &v.EOM},
		{"tokenizer.ggml.unknown_token_id", &v.UNK},
		{"tokenizer.ggml.padding_token_id", &v.PAD},
		{"tokenizer.ggml.fim_pad_token_id", &v.FIMPad},
		{"tokenizer.ggml.fim_rep_token_id", &v.FIMRep},
		{"tokenizer.ggml.fim_sep_token_id", &v.FIMSep},
	}
	for _, s := range ids {
		if *s.id >= int32(n) {
			*s.id = -1 // a default outside the vocabulary is disabled
		}
		const absent = ^uint64(0)
		if u := f.Uint(s.key, absent); u != absent && u < uint64(n) {
			*s.id = int32(u)
		}
	}
	v.AddBOS = f.Bool(keyAddBOS, v.AddBOS)
	v.AddEOS = f.Bool(keyAddEOS, v.AddEOS)
	return v, nil
}

// FromGGUF builds the tokenizer of a GGUF file.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	v, err := VocabFromGGUF(f)
	if err != nil {
		return nil, err
	}
	return New(v)
}

func unsupportedModel(model string) error {
	return fmt.Errorf("tokenizer: model %q (supported: llama, gpt2): %w", model, ErrUnsupported)
}

func unsupportedPre(pre string) error {
	return fmt.Errorf("tokenizer: pre-tokenizer %q (supported: %s): %w", pre, supportedPreList(), ErrUnsupported)
}
