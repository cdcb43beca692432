package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// buildPieces renders every token as llama.cpp's token_to_piece does with
// special=true (its cache_token_to_piece). Without special rendering,
// control and unknown tokens render as nothing (see PieceSpecial).
func (t *Tokenizer) buildPieces() {
	t.pieces = make([]string, len(t.tokens))
	for id, text := range t.tokens {
		a := t.attrs[id]
		switch {
		case a&(attrUnknown|attrControl|attrUserDefined) != 0:
			t.pieces[id] = text
		case a&attrNormal != 0:
			if t.spm {
				t.pieces[id] = strings.ReplaceAll(text, spaceEscape, " ")
			} else {
				t.pieces[id] = decodeByteLevel(text)
			}
		case a&attrByte != 0:
			t.pieces[id] = string([]byte{byteTokenValue(text)})
		}
		// Unused and undefined tokens render as nothing.
	}
}

// byteTokenValue parses "<0xAB>" as llama.cpp's token_to_byte does
// (strtol on the two characters after "<0x"; garbage gives 0).
func byteTokenValue(text string) byte {
	var v byte
	for i := 3; i < 5 && i < len(text); i++ {
		c := text[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | (c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | (c - 'A' + 10)
		default:
			return v
		}
	}
	return v
}

// decodeByteLevel maps GPT-2 byte characters back to bytes
// (llama_decode_text). A character outside the mapping is rendered as
// llama.cpp does: "[UNK_BYTE_0x<hex>" followed by the whole token text "]".
func decodeByteLevel(text string) string {
	out := make([]byte, 0, len(text))
	var u8 [4]byte
	for i := 0; i < len(text); {
		cp, n := decodeCP(text, i)
		i += n
		if b, ok := byteDec[cp]; ok {
			out = append(out, b)
			continue
		}
		out = append(out, "[UNK_BYTE_0x"...)
		for _, c := range appendCP(u8[:0], cp) {
			out = fmt.Appendf(out, "%02x", c)
		}
		out = append(out, text...)
		out = append(out, ']')
	}
	return string(out)
}

// pieceString is token_to_piece without lstrip.
func (t *Tokenizer) pieceString(id int32, special bool) string {
	if id < 0 || int(id) >= len(t.pieces) {
		return ""
	}
	if !special && t.attrs[id]&(attrUnknown|attrControl) != 0 {
		return ""
	}
	return t.pieces[id]
}

// Piece returns the bytes token id contributes to the output: SPM '▁' as
// ' ', byte tokens <0xAB> as the byte 0xAB, byte-level BPE characters as
// their bytes. Control and unknown tokens contribute nothing (see
// PieceSpecial). The slice is the caller's.
func (t *Tokenizer) Piece(id int32) []byte { return t.PieceSpecial(id, false) }

// PieceSpecial is Piece with special=true rendering control and unknown
// tokens as their text (llama_token_to_piece's special flag).
func (t *Tokenizer) PieceSpecial(id int32, special bool) []byte {
	return []byte(t.pieceString(id, special))
}

// Decode turns ids into text as llama_detokenize(remove_special=false,
// unparse_special=false) does: see Detokenize.
func (t *Tokenizer) Decode(ids []int32) string { return t.Detokenize(ids, false, false) }

// Detokenize is llama.cpp's llama_detokenize: the pieces of ids
// concatenated, where
//   - with add_space_prefix the first token loses one leading space (the
//     one Encode added), unless removeSpecial dropped a leading BOS;
//   - removeSpecial drops a leading BOS / trailing EOS the vocabulary adds;
//   - unparseSpecial renders control tokens as their text;
//   - vocabularies that ask for it (CleanSpaces) get the tokenizer clean-up:
//     " ?" " !" " ." " ," lose the space, " ' " becomes "'", and " 's" " 'm"
//     " 're" " 've" lose the space.
//
// Ids outside the vocabulary are skipped.
func (t *Tokenizer) Detokenize(ids []int32, removeSpecial, unparseSpecial bool) string {
	removeSpace := t.addSpacePrefix
	if removeSpecial && t.addBOS && len(ids) > 0 && ids[0] == t.bos {
		removeSpace = false
		ids = ids[1:]
	}
	if removeSpecial && t.addEOS && len(ids) > 0 && ids[len(ids)-1] == t.eos {
		ids = ids[:len(ids)-1]
	}
	var b []byte
	for i, id := range ids {
		p := t.pieceString(id, unparseSpecial)
		if i == 0 && removeSpace && len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		b = append(b, p...)
	}
	if t.CleanSpaces() {
		b = cleanSpaces(b)
	}
	return string(b)
}

// CleanSpaces reports whether Detokenize applies the clean-up of spaces
// before punctuation (llama.cpp's clean_spaces: BPE vocabularies except
// those whose pre-tokenizer turns it off, e.g. qwen2 and deepseek).
func (t *Tokenizer) CleanSpaces() bool { return !t.spm && t.pre.cleanSpaces }

// cleanSpaces runs llama_detokenize's three clean-up passes.
func cleanSpaces(src []byte) []byte {
	if len(src) == 0 {
		return src
	}
	// Pass 1: " ?", " !", " .", " ," lose the space.
	dst := make([]byte, 0, len(src))
	dst = append(dst, src[0])
	for i := 1; i < len(src); i++ {
		x := src[i]
		if src[i-1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',') {
			dst = dst[:len(dst)-1]
		}
		dst = append(dst, x)
	}
	// Pass 2: " ' " becomes "'". llama.cpp overwrites the skipped space
	// with NUL in place, which the next comparison then sees.
	src, dst = dst, make([]byte, 0, len(dst))
	dst = append(dst, src[0])
	for i := 1; i < len(src); i++ {
		x := src[i]
		if x == '\'' && i+1 < len(src) && src[i-1] == ' ' && src[i+1] == ' ' {
			dst = dst[:len(dst)-1]
			i++
			src[i] = 0
		}
		dst = append(dst, x)
	}
	// Pass 3: " 's", " 'm", " 're", " 've" lose the space.
	src, dst = dst, make([]byte, 0, len(dst))
	dst = append(dst, src[0])
	for i := 1; i < len(src); i++ {
		x := src[i]
		if src[i-1] == ' ' && x == '\'' && i+1 < len(src) {
			x1 := src[i+1]
			switch {
			case x1 == 't' || x1 == 'd':
			case x1 == 's' || x1 == 'm':
				dst = dst[:len(dst)-1]
			case i+2 < len(src):
				x2 := src[i+2]
				if (x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e') {
					dst = dst[:len(dst)-1]
				}
			}
		}
		dst = append(dst, x)
	}
	return dst
}

// StreamDecoder turns generated tokens into text as they come, never
// splitting a UTF-8 character across two results: bytes of a character
// whose remaining bytes are still to come are held back. Bytes that can
// not start or continue a valid character are passed through as they are,
// so the concatenated results equal the concatenated pieces.
//
// A StreamDecoder holds one stream's state: make one per sequence with
// Tokenizer.NewStreamDecoder; it is not safe for concurrent use (the
// Tokenizer it reads is).
type StreamDecoder struct {
	t       *Tokenizer
	pending []byte
	// Special renders control tokens as their text.
	Special bool
}

// NewStreamDecoder returns a decoder of the pieces of t (no leading-space
// removal: llama.cpp prints generated pieces as they are).
func (t *Tokenizer) NewStreamDecoder() *StreamDecoder { return &StreamDecoder{t: t} }

// Add appends the piece of id and returns the text that is now complete.
func (d *StreamDecoder) Add(id int32) string {
	d.pending = append(d.pending, d.t.pieceString(id, d.Special)...)
	cut := incompleteTail(d.pending)
	out := string(d.pending[:cut])
	d.pending = append(d.pending[:0], d.pending[cut:]...)
	return out
}

// Flush returns what is held back (an incomplete character) and resets.
func (d *StreamDecoder) Flush() string {
	out := string(d.pending)
	d.pending = d.pending[:0]
	return out
}

// incompleteTail returns where a trailing, not yet complete but so far
// valid UTF-8 sequence starts (len(p) if there is none).
func incompleteTail(p []byte) int {
	for k := len(p) - 1; k >= 0 && k >= len(p)-utf8.UTFMax+1; k-- {
		if utf8.RuneStart(p[k]) {
			if !utf8.FullRune(p[k:]) {
				return k
			}
			break
		}
	}
	return len(p)
}
