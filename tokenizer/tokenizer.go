package tokenizer

import (
	"fmt"
	"sync"
)

// Tokenizer encodes text to token ids and decodes ids to text. It is
// immutable after New and safe for concurrent use.
type Tokenizer struct {
	spm       bool // SentencePiece ("llama"); otherwise byte-level BPE ("gpt2")
	tokens    []string
	tokenToID map[string]int32
	scores    []float32
	attrs     []uint16

	bos, eos, unk, eot, eom int32
	addBOS, addEOS          bool
	addSpacePrefix          bool

	// SPM
	byteTok      [256]int32 // token of each byte for the byte fallback, -1 if none
	spmWordSplit bool       // see spmEncode

	// BPE
	pre        preConfig
	splitters  []splitter
	mergeByID  map[uint64]mergeInfo
	mergeByStr map[[2]string]mergeInfo
	charTok    [0x144]int32 // token of each code point below U+0144 (covers the byte characters)

	specials []int32 // control, user-defined and unknown tokens, longest text first
	eog      map[int32]bool
	pieces   []string // token_to_piece with special rendering, per id

	work sync.Pool // *encodeWork
}

type encodeWork struct {
	frags  []fragment
	spm    spmWork
	bpe    bpeWork
	cps    []rune
	fl     []uint8
	ends   []int
	tmp    []int
	enc    []byte
	encOff []int32
	cache  map[string]span
}

// New builds a tokenizer from v. v is not modified and may be reused.
func New(v *Vocab) (*Tokenizer, error) {
	if v == nil {
		return nil, fmt.Errorf("tokenizer: nil vocab: %w", ErrInvalid)
	}
	t := &Tokenizer{}
	switch v.Model {
	case "llama":
		t.spm = true
	case "gpt2":
		pre := v.Pre
		if pre == "" {
			pre = "default"
		}
		pc, ok := preConfigs[pre]
		if !ok {
			return nil, unsupportedPre(pre)
		}
		t.pre = pc
		t.splitters = splittersFor(pc.kind)
	default:
		return nil, unsupportedModel(v.Model)
	}
	n := len(v.Tokens)
	if n == 0 {
		return nil, fmt.Errorf("tokenizer: no tokens: %w", ErrInvalid)
	}
	if n > 1<<30 {
		return nil, fmt.Errorf("tokenizer: %d tokens: %w", n, ErrInvalid)
	}
	if v.Scores != nil && len(v.Scores) < n {
		return nil, fmt.Errorf("tokenizer: %d scores for %d tokens: %w", len(v.Scores), n, ErrInvalid)
	}
	if v.Types != nil && len(v.Types) < n {
		return nil, fmt.Errorf("tokenizer: %d token types for %d tokens: %w", len(v.Types), n, ErrInvalid)
	}

	t.tokens = make([]string, n)
	t.tokenToID = make(map[string]int32, n)
	t.attrs = make([]uint16, n)
	for i, s := range v.Tokens {
		if s == "" {
			// llama.cpp renames empty tokens so they can be looked up.
			s = fmt.Sprintf("[EMPTY_%d]", i)
		}
		if prev, dup := t.tokenToID[s]; dup {
			return nil, fmt.Errorf("tokenizer: duplicate token %q (ids %d and %d): %w", s, prev, i, ErrInvalid)
		}
		t.tokens[i] = s
		t.tokenToID[s] = int32(i)
		t.attrs[i] = attrNormal
		if v.Types != nil {
			t.attrs[i] = attrFromType(v.Types[i])
		}
	}
	if v.Scores != nil {
		t.scores = v.Scores[:n:n]
	}

	t.bos, t.eos, t.unk = validID(v.BOS, n), validID(v.EOS, n), validID(v.UNK, n)
	t.eot, t.eom = validID(v.EOT, n), validID(v.EOM, n)
	t.addBOS, t.addEOS, t.addSpacePrefix = v.AddBOS, v.AddEOS, v.AddSpacePrefix
	if t.addBOS && t.bos < 0 {
		return nil, fmt.Errorf("tokenizer: add_bos_token is true but there is no BOS token: %w", ErrInvalid)
	}
	if t.addEOS && t.eos < 0 {
		return nil, fmt.Errorf("tokenizer: add_eos_token is true but there is no EOS token: %w", ErrInvalid)
	}

	if t.spm {
		for b := 0; b < 256; b++ {
			t.byteTok[b] = t.spmByteToken(byte(b))
		}
		t.spmWordSplit = spmWordSafe(t.tokens)
	} else {
		t.buildMerges(v.Merges)
	}
	t.setupSpecial(v)
	t.buildPieces()
	return t, nil
}

// spmByteToken is llama.cpp's byte_to_token for SPM: the <0xXX> token, else
// the one-byte token. Where llama.cpp would throw, the unknown token is used
// (or nothing, without one).
func (t *Tokenizer) spmByteToken(b byte) int32 {
	const hex = "0123456789ABCDEF"
	if id, ok := t.tokenToID[string([]byte{'<', '0', 'x', hex[b>>4], hex[b&15], '>'})]; ok {
		return id
	}
	if id, ok := t.tokenToID[string([]byte{b})]; ok {
		return id
	}
	return t.unk
}

// Encode tokenizes text. addSpecial adds BOS/EOS as the vocabulary asks
// (AddBOS/AddEOS); parseSpecial turns the texts of control tokens in the
// input into their ids (user-defined tokens are always split out, as in
// llama.cpp).
func (t *Tokenizer) Encode(text string, addSpecial, parseSpecial bool) []int32 {
	w, _ := t.work.Get().(*encodeWork)
	if w == nil {
		w = &encodeWork{}
	}
	defer t.work.Put(w)
	clear(w.cache)

	out := make([]int32, 0, len(text)/3+2)
	if addSpecial && t.addBOS {
		out = append(out, t.bos)
	}
	w.frags = t.partition(text, parseSpecial, w.frags)
	prevSpecial := true // the first fragment gets the SPM space prefix
	for _, fr := range w.frags {
		if fr.tok >= 0 {
			out = append(out, fr.tok)
			prevSpecial = true
			continue
		}
		raw := text[fr.start:fr.end]
		if t.spm {
			out = t.spmEncode(raw, t.addSpacePrefix && prevSpecial, out, w)
		} else {
			out = t.bpeFragment(raw, out, w)
		}
		prevSpecial = false
	}
	if addSpecial && t.addEOS {
		out = append(out, t.eos)
	}
	return out
}

// VocabSize is the number of tokens.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// BOS is the beginning-of-sequence token, -1 if none.
func (t *Tokenizer) BOS() int32 { return t.bos }

// EOS is the end-of-sequence token, -1 if none.
func (t *Tokenizer) EOS() int32 { return t.eos }

// EOT is the end-of-turn token (from metadata or recognised by its text),
// -1 if none.
func (t *Tokenizer) EOT() int32 { return t.eot }

// AddBOS reports whether Encode with addSpecial prepends BOS.
func (t *Tokenizer) AddBOS() bool { return t.addBOS }

// AddEOS reports whether Encode with addSpecial appends EOS.
func (t *Tokenizer) AddEOS() bool { return t.addEOS }

// IsEOG reports whether id ends generation: EOS, EOT, EOM, the FIM
// pad/repo/separator tokens, and tokens llama.cpp recognises by their text
// ("<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|end|>", ...).
func (t *Tokenizer) IsEOG(id int32) bool { return t.eog[id] }

// EOGTokens returns the end-of-generation ids in increasing order.
func (t *Tokenizer) EOGTokens() []int32 {
	ids := make([]int32, 0, len(t.eog))
	for id := range t.tokens {
		if t.eog[int32(id)] {
			ids = append(ids, int32(id))
		}
	}
	return ids
}

// Token returns the vocabulary text of id ("" if out of range).
func (t *Tokenizer) Token(id int32) string {
	if id < 0 || int(id) >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// TokenID returns the id whose vocabulary text is s.
func (t *Tokenizer) TokenID(s string) (int32, bool) {
	id, ok := t.tokenToID[s]
	return id, ok
}

// IsControl reports whether id is a control (or unknown) token, rendered
// only on request.
func (t *Tokenizer) IsControl(id int32) bool {
	return id >= 0 && int(id) < len(t.attrs) && t.attrs[id]&(attrControl|attrUnknown) != 0
}
