package tokenizer

import (
	"math"
	"strings"
)

// SentencePiece-style tokenization (llama.cpp's llm_tokenizer_spm): the text
// is cut into UTF-8 characters, then the adjacent pair whose concatenation
// is the vocabulary token with the highest score is merged, repeatedly
// (ties: the leftmost pair). Characters left that are not tokens fall back
// to byte tokens <0xXX>.

type spmSymbol struct {
	start, n   int32
	prev, next int32
}

// spmBigram is a candidate merge. key orders the heap: the score's order
// bits inverted in the high half (higher score first), the left index in
// the low half (leftmost first).
type spmBigram struct {
	key         uint64
	left, right int32
	size        int32
}

type spmWork struct {
	syms []spmSymbol
	heap []spmBigram
}

// scoreOrder maps a float32 to a uint32 with the same order.
func scoreOrder(f float32) uint32 {
	b := math.Float32bits(f)
	if b&0x80000000 != 0 {
		return ^b
	}
	return b | 0x80000000
}

const spaceEscape = "\u2581" // ▁

// spmEncode tokenizes one raw fragment. prefixSpace adds the leading space
// llama.cpp adds to the first fragment and to fragments after a special
// token when add_space_prefix is set.
//
// llama.cpp merges over the whole fragment with one priority queue. When no
// token of the vocabulary has a '▁' preceded by anything but '▁' (true of
// Llama's and Phi-3's), no merge can cross a point where a '▁' follows
// another character, so the fragment is cut there into words that merge
// independently: same result, far less work, and repeated words are
// reused.
func (t *Tokenizer) spmEncode(frag string, prefixSpace bool, out []int32, w *encodeWork) []int32 {
	if prefixSpace {
		frag = " " + frag
	}
	text := strings.ReplaceAll(frag, " ", spaceEscape)
	if len(text) == 0 || len(text) > math.MaxInt32 {
		// Symbol indices are int32; no real prompt comes near the limit.
		return out
	}
	if !t.spmWordSplit {
		return t.spmMerge(text, out, &w.spm)
	}
	if w.cache == nil {
		w.cache = make(map[string]span)
	}
	segStart, prevStart := 0, -1
	for off := 0; off <= len(text); {
		if off == len(text) || (off > segStart && strings.HasPrefix(text[off:], spaceEscape) && text[prevStart:off] != spaceEscape) {
			word := text[segStart:off]
			if sp, ok := w.cache[word]; ok {
				out = append(out, out[sp.start:sp.start+sp.n]...)
			} else {
				start := len(out)
				out = t.spmMerge(word, out, &w.spm)
				if len(word) <= maxCachedWord {
					w.cache[word] = span{start: start, n: len(out) - start}
				}
			}
			segStart = off
			if off == len(text) {
				break
			}
		}
		prevStart = off
		off += min(utf8Len(text[off]), len(text)-off)
	}
	return out
}

// spmWordSafe reports whether no token holds a '▁' after a character other
// than '▁', which makes cutting before such a '▁' exact (see spmEncode).
func spmWordSafe(tokens []string) bool {
	for _, s := range tokens {
		for k := 1; k < len(s); k++ {
			if strings.HasPrefix(s[k:], spaceEscape) && !(k >= len(spaceEscape) && s[k-len(spaceEscape):k] == spaceEscape) {
				return false
			}
		}
	}
	return true
}

// spmMerge runs llama.cpp's SPM merge loop over text (already escaped).
func (t *Tokenizer) spmMerge(text string, out []int32, w *spmWork) []int32 {
	syms := w.syms[:0]
	for off := 0; off < len(text); {
		n := min(utf8Len(text[off]), len(text)-off)
		idx := int32(len(syms))
		syms = append(syms, spmSymbol{start: int32(off), n: int32(n), prev: idx - 1, next: idx + 1})
		off += n
	}
	syms[len(syms)-1].next = -1
	w.syms = syms

	h := w.heap[:0]
	for i := 1; i < len(syms); i++ {
		h = t.spmTryBigram(text, syms, int32(i-1), int32(i), h)
	}
	for len(h) > 0 {
		var b spmBigram
		b, h = heapPop(h)
		l, r := &syms[b.left], &syms[b.right]
		// Stale candidate: one side was merged since it was queued.
		if l.n == 0 || r.n == 0 || l.n+r.n != b.size {
			continue
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = b.left
		}
		h = t.spmTryBigram(text, syms, l.prev, b.left, h)
		h = t.spmTryBigram(text, syms, b.left, l.next, h)
	}
	w.heap = h

	for i := int32(0); i != -1; i = syms[i].next {
		s := syms[i]
		piece := text[s.start : s.start+s.n]
		if id, ok := t.tokenToID[piece]; ok {
			out = append(out, id)
			continue
		}
		for j := 0; j < len(piece); j++ {
			if id := t.byteTok[piece[j]]; id >= 0 {
				out = append(out, id)
			}
		}
	}
	return out
}

func (t *Tokenizer) spmTryBigram(text string, syms []spmSymbol, left, right int32, h []spmBigram) []spmBigram {
	if left < 0 || right < 0 {
		return h
	}
	l, r := syms[left], syms[right]
	id, ok := t.tokenToID[text[l.start:l.start+l.n+r.n]]
	if !ok {
		return h
	}
	score := float32(0)
	if t.scores != nil {
		score = t.scores[id]
	}
	key := uint64(^scoreOrder(score))<<32 | uint64(uint32(left))
	return heapPush(h, spmBigram{key: key, left: left, right: right, size: l.n + r.n})
}
