package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// Byte-level BPE (llama.cpp's llm_tokenizer_bpe_session): the fragment is
// split into pre-tokens, each pre-token's UTF-8 bytes are mapped to GPT-2's
// printable characters, and within each pre-token the adjacent pair with the
// lowest merge rank is merged, repeatedly (ties: the leftmost pair).

// mergeInfo is one merge rule: its rank and the token id of the merged
// text (-1 if the merged text is not a token).
type mergeInfo struct {
	rank int32
	id   int32
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// buildMerges indexes tokenizer.ggml.merges. Rules whose two sides are both
// tokens (all of them in real vocabularies) are keyed by the pair of ids;
// the others by the pair of strings. A repeated rule keeps its first rank,
// as llama.cpp's map emplace does; rules naming unknown tokens are kept
// (they can still apply to symbols that are not tokens).
func (t *Tokenizer) buildMerges(merges []string) {
	for r := range t.charTok {
		t.charTok[r] = -1
		if id, ok := t.tokenToID[string(rune(r))]; ok {
			t.charTok[r] = id
		}
	}
	t.mergeByID = make(map[uint64]mergeInfo, len(merges))
	var ab []byte
	for i, m := range merges {
		if len(m) < 2 {
			continue
		}
		// llama.cpp splits at the first space after the first byte.
		k := strings.IndexByte(m[1:], ' ')
		if k < 0 {
			continue // parsed as ("", ""), which never matches a symbol
		}
		a, b := m[:k+1], m[k+2:]
		info := mergeInfo{rank: int32(i), id: -1}
		ab = append(append(ab[:0], a...), b...)
		if id, ok := t.tokenToID[string(ab)]; ok { // no allocation
			info.id = id
		}
		ia, oka := t.tokenToID[a]
		ib, okb := t.tokenToID[b]
		if oka && okb {
			key := pairKey(ia, ib)
			if _, dup := t.mergeByID[key]; !dup {
				t.mergeByID[key] = info
			}
			continue
		}
		if t.mergeByStr == nil {
			t.mergeByStr = make(map[[2]string]mergeInfo)
		}
		key := [2]string{a, b}
		if _, dup := t.mergeByStr[key]; !dup {
			t.mergeByStr[key] = info
		}
	}
}

type bpeSymbol struct {
	start, n   int32
	prev, next int32
	id         int32 // token id of the symbol's text, -1 if none
}

// bpeBigram: key = rank in the high half, left index in the low half.
type bpeBigram struct {
	key         uint64
	right, size int32
	id          int32 // token id of the merged text
}

type bpeWork struct {
	syms []bpeSymbol
	heap []bpeBigram
}

// bpeWord appends the tokens of one byte-encoded pre-token.
func (t *Tokenizer) bpeWord(word string, out []int32, w *bpeWork) []int32 {
	if t.pre.ignoreMerges {
		if id, ok := t.tokenToID[word]; ok {
			return append(out, id)
		}
	}
	syms := w.syms[:0]
	for off := 0; off < len(word); {
		n := min(utf8Len(word[off]), len(word)-off)
		idx := int32(len(syms))
		var id int32
		// Pre-tokens are byte-encoded, so each character is one of the 256
		// byte characters (U+0021..U+0143): a table beats the map.
		if r, _ := utf8.DecodeRuneInString(word[off : off+n]); r < rune(len(t.charTok)) {
			id = t.charTok[r]
		} else if tid, ok := t.tokenToID[word[off:off+n]]; ok {
			id = tid
		} else {
			id = -1
		}
		syms = append(syms, bpeSymbol{start: int32(off), n: int32(n), prev: idx - 1, next: idx + 1, id: id})
		off += n
	}
	if len(syms) == 0 {
		return out
	}
	syms[len(syms)-1].next = -1
	w.syms = syms

	h := w.heap[:0]
	for i := 1; i < len(syms); i++ {
		h = t.bpeTryBigram(word, syms, int32(i-1), int32(i), h)
	}
	for len(h) > 0 {
		var b bpeBigram
		b, h = heapPop(h)
		left := int32(uint32(b.key))
		l, r := &syms[left], &syms[b.right]
		// Stale candidate: llama.cpp compares the texts; as symbols only
		// grow and start where they started, comparing sizes is the same.
		if l.n == 0 || r.n == 0 || l.n+r.n != b.size {
			continue
		}
		l.n += r.n
		l.id = b.id
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = left
		}
		h = t.bpeTryBigram(word, syms, l.prev, left, h)
		h = t.bpeTryBigram(word, syms, left, l.next, h)
	}
	w.heap = h

	for i := int32(0); i != -1; i = syms[i].next {
		s := syms[i]
		if s.id >= 0 {
			out = append(out, s.id)
			continue
		}
		// Not a token: each byte of the (encoded) text on its own, when that
		// single byte is a token; llama.cpp silently drops the others.
		piece := word[s.start : s.start+s.n]
		for j := 0; j < len(piece); j++ {
			if id, ok := t.tokenToID[piece[j:j+1]]; ok {
				out = append(out, id)
			}
		}
	}
	return out
}

func (t *Tokenizer) bpeTryBigram(word string, syms []bpeSymbol, left, right int32, h []bpeBigram) []bpeBigram {
	if left < 0 || right < 0 {
		return h
	}
	l, r := &syms[left], &syms[right]
	var info mergeInfo
	var ok bool
	if l.id >= 0 && r.id >= 0 {
		info, ok = t.mergeByID[pairKey(l.id, r.id)]
	} else if t.mergeByStr != nil {
		info, ok = t.mergeByStr[[2]string{word[l.start : l.start+l.n], word[r.start : r.start+r.n]}]
	}
	if !ok {
		return h
	}
	b := bpeBigram{key: uint64(uint32(info.rank))<<32 | uint64(uint32(left)), right: right, size: l.n + r.n, id: info.id}
	return heapPush(h, b)
}

// bpeFragment tokenizes one raw fragment: decode to code points (invalid
// UTF-8 becomes U+FFFD, as in llama.cpp), pre-tokenize, byte-encode each
// pre-token and merge it.
func (t *Tokenizer) bpeFragment(frag string, out []int32, w *encodeWork) []int32 {
	cps, fl := w.cps[:0], w.fl[:0]
	for i := 0; i < len(frag); {
		cp, n := decodeCP(frag, i)
		cps = append(cps, cp)
		fl = append(fl, cpFlags(cp))
		i += n
	}
	w.cps, w.fl = cps, fl
	w.ends, w.tmp = preTokenize(t.splitters, cps, fl, w.ends, w.tmp)

	// Byte-encode the whole fragment once; encOff[i] is where code point
	// i starts in the encoded text.
	enc, encOff := w.enc[:0], w.encOff[:0]
	var u8 [4]byte
	for _, cp := range cps {
		encOff = append(encOff, int32(len(enc)))
		for _, b := range appendCP(u8[:0], cp) {
			enc = append(enc, byteEnc[b]...)
		}
	}
	encOff = append(encOff, int32(len(enc)))
	w.enc, w.encOff = enc, encOff
	encoded := string(enc)

	if w.cache == nil {
		w.cache = make(map[string]span)
	}
	ini := 0
	for _, e := range w.ends {
		word := encoded[encOff[ini]:encOff[e]]
		ini = e
		// Natural text repeats its words: reuse the result of an earlier
		// occurrence (the pieces already sit in out).
		if sp, ok := w.cache[word]; ok {
			out = append(out, out[sp.start:sp.start+sp.n]...)
			continue
		}
		start := len(out)
		out = t.bpeWord(word, out, &w.bpe)
		if len(word) <= maxCachedWord {
			w.cache[word] = span{start: start, n: len(out) - start}
		}
	}
	return out
}

const maxCachedWord = 64

type span struct{ start, n int }
