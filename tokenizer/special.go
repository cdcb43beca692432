package tokenizer

import (
	"sort"
	"strings"
)

// Token attributes, llama.cpp's llama_token_attr bits.
const (
	attrUnknown     uint16 = 1 << 0
	attrUnused      uint16 = 1 << 1
	attrNormal      uint16 = 1 << 2
	attrControl     uint16 = 1 << 3
	attrUserDefined uint16 = 1 << 4
	attrByte        uint16 = 1 << 5
	attrLStrip      uint16 = 1 << 7
	attrRStrip      uint16 = 1 << 8
)

func attrFromType(t int32) uint16 {
	switch t {
	case TypeNormal:
		return attrNormal
	case TypeUnknown:
		return attrUnknown
	case TypeControl:
		return attrControl
	case TypeUserDefined:
		return attrUserDefined
	case TypeUnused:
		return attrUnused
	case TypeByte:
		return attrByte
	}
	return 0 // undefined
}

// Token texts llama.cpp recognises when the metadata does not name the
// tokens (llama_vocab::impl::load, "auto-detect special tokens by text").
var (
	eotTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
		"<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"}
	eomTexts    = []string{"<|eom_id|>"}
	fimPadTexts = []string{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}
	fimRepTexts = []string{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}
	fimSepTexts = []string{"<|file_sep|>"}
	eogTexts    = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>",
		"<|flush|>", "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>",
		"<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>",
		"<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~["}
	// gpt-oss: always rendered, as user-defined tokens.
	alwaysRenderTexts = []string{"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"}
)

// setupSpecial resolves token attributes, the end-of-generation set and the
// special-token cache the way llama_vocab::impl::load does after reading
// the token list.
func (t *Tokenizer) setupSpecial(v *Vocab) {
	n := len(t.tokens)
	lookup := func(texts []string) []int32 {
		var ids []int32
		for _, s := range texts {
			if id, ok := t.tokenToID[s]; ok {
				ids = append(ids, id)
			}
		}
		return ids
	}
	markControl := func(id int32) { t.attrs[id] |= attrControl }
	// A missing id is found by its text; llama.cpp walks a hash map, so
	// with several candidates its pick is arbitrary. Take the earliest
	// text of the list, which is deterministic.
	detect := func(id *int32, texts []string) {
		if *id >= 0 {
			return
		}
		if c := lookup(texts); len(c) > 0 {
			*id = c[0]
			markControl(c[0])
		}
	}
	detect(&t.eot, eotTexts)
	detect(&t.eom, eomTexts)
	fimPad, fimRep, fimSep := validID(v.FIMPad, n), validID(v.FIMRep, n), validID(v.FIMSep, n)
	detect(&fimPad, fimPadTexts)
	detect(&fimRep, fimRepTexts)
	detect(&fimSep, fimSepTexts)
	// llama.cpp also marks FIM prefix/suffix/middle tokens as control; they
	// only matter to infill prompts, which this package does not build.

	for id := range t.attrs {
		if t.attrs[id]&attrControl != 0 && strings.Contains(t.tokens[id], "unused") {
			t.attrs[id] |= attrUnused
		}
	}

	t.eog = make(map[int32]bool)
	for _, id := range []int32{fimPad, fimRep, fimSep} {
		if id >= 0 {
			t.eog[id] = true
		}
	}
	for _, id := range lookup(eogTexts) {
		t.eog[id] = true
		markControl(id)
	}
	for _, id := range lookup(alwaysRenderTexts) {
		t.attrs[id] = attrUserDefined
	}
	for _, id := range []int32{t.eos, t.eot, t.eom} {
		if id >= 0 {
			t.eog[id] = true
		}
	}
	// o200k_harmony / solar-open: "<|end|>" ends a message, not generation.
	has := func(s string) (int32, bool) {
		id, ok := t.tokenToID[s]
		return id, ok && t.eog[id]
	}
	_, hasReturn := has("<|return|>")
	_, hasCall := has("<|call|>")
	_, hasCalls := has("<|calls|>")
	_, hasFlush := has("<|flush|>")
	if endID, hasEnd := has("<|end|>"); hasEnd && ((hasReturn && (hasCall || hasCalls)) || ((hasCall || hasCalls) && hasFlush)) {
		delete(t.eog, endID)
		t.attrs[endID] = attrUserDefined
	}
	// gemma4 / paddleocr: "</s>" is not an end of generation there.
	if _, hasTool := has("<|tool_response>"); hasTool {
		if sID, hasS := has("</s>"); hasS {
			delete(t.eog, sID)
			t.attrs[sID] = attrNormal
		}
	}

	// Tokens split out of the text before tokenizing, longest first.
	for id, a := range t.attrs {
		if a&(attrControl|attrUserDefined|attrUnknown) != 0 {
			t.specials = append(t.specials, int32(id))
		}
	}
	sort.SliceStable(t.specials, func(i, j int) bool {
		return len(t.tokens[t.specials[i]]) > len(t.tokens[t.specials[j]])
	})

	// phi-3: special tokens swallow the whitespace after them.
	name := strings.ToLower(v.Name)
	if strings.Contains(name, "phi-3") || strings.Contains(name, "phi3") {
		for _, id := range t.specials {
			t.attrs[id] |= attrRStrip
		}
		if id, ok := t.tokenToID["</s>"]; ok {
			t.attrs[id] |= attrRStrip
		}
		for _, s := range []string{"<unk>", "<s>", "<|endoftext|>"} {
			if id, ok := t.tokenToID[s]; ok {
				t.attrs[id] &^= attrRStrip
			}
		}
	}
}

func validID(id int32, n int) int32 {
	if id < 0 || int(id) >= n {
		return -1
	}
	return id
}

// fragment is a piece of the input: raw text [start, end) or a token.
type fragment struct {
	tok        int32 // -1 for raw text
	start, end int
}

// partition splits special-token texts out of text (tokenizer_st_partition):
// for each special token, longest first, every occurrence inside the raw
// fragments left so far becomes a token fragment. Without parseSpecial only
// user-defined tokens are split out (control and unknown ones stay text).
func (t *Tokenizer) partition(text string, parseSpecial bool, frags []fragment) []fragment {
	frags = append(frags[:0], fragment{tok: -1, start: 0, end: len(text)})
	if len(text) == 0 {
		return frags[:0]
	}
	var next []fragment
	for _, id := range t.specials {
		a := t.attrs[id]
		if !parseSpecial && a&(attrControl|attrUnknown) != 0 {
			continue
		}
		tok := t.tokens[id]
		// Cheap pre-check: most special tokens never occur in the text.
		if !strings.Contains(text, tok) {
			continue
		}
		next = next[:0]
		for _, fr := range frags {
			if fr.tok >= 0 {
				next = append(next, fr)
				continue
			}
			next = splitOccurrences(next, text, fr.start, fr.end, id, tok, a)
		}
		frags, next = next, frags
	}
	return frags
}

func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

func splitOccurrences(out []fragment, text string, base, end int, id int32, tok string, a uint16) []fragment {
	for {
		k := strings.Index(text[base:end], tok)
		if k < 0 {
			if end > base {
				out = append(out, fragment{tok: -1, start: base, end: end})
			}
			return out
		}
		m := base + k
		left := m
		if a&attrLStrip != 0 {
			for left > base && isCSpace(text[left-1]) {
				left--
			}
		}
		if left > base {
			out = append(out, fragment{tok: -1, start: base, end: left})
		}
		out = append(out, fragment{tok: id, start: m, end: m + len(tok)})
		base = m + len(tok)
		if a&attrRStrip != 0 {
			for base < end && isCSpace(text[base]) {
				base++
			}
		}
	}
}
