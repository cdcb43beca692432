package chat

// Vocab is what PromptTokens and SpecialTokens need of a tokenizer;
// *tokenizer.Tokenizer has these methods.
type Vocab interface {
	Encode(text string, addSpecial, parseSpecial bool) []int32
	BOS() int32 // -1 if none
	EOS() int32 // -1 if none
	AddBOS() bool
	Token(id int32) string
}

// PromptTokens tokenizes a rendered conversation as llama.cpp should: the
// texts of control tokens become their ids, BOS is put in front when the
// vocabulary asks for one unless the template already wrote it (no second
// BOS), and no EOS is appended.
func PromptTokens(v Vocab, rendered string) []int32 {
	ids := v.Encode(rendered, false, true)
	if bos := v.BOS(); v.AddBOS() && bos >= 0 && (len(ids) == 0 || ids[0] != bos) {
		ids = append([]int32{bos}, ids...)
	}
	return ids
}

// WithVocab returns opts with BOS and EOS set to the vocabulary's
// bos_token and eos_token texts ("" where it has none).
func WithVocab(opts Options, v Vocab) Options {
	text := func(id int32) string {
		if id < 0 {
			return ""
		}
		return v.Token(id)
	}
	opts.BOS, opts.EOS = text(v.BOS()), text(v.EOS())
	return opts
}

// ForModel parses a model's own template (its tokenizer.chat_template
// text). A model without one gets the DefaultName built-in, and fallback
// reports it so the caller can say so.
func ForModel(src string) (t *Template, fallback bool, err error) {
	if src == "" {
		t, err = Builtin(DefaultName)
		return t, true, err
	}
	t, err = Parse("tokenizer.chat_template", src)
	return t, false, err
}
