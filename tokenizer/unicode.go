package tokenizer

import (
	"sync"
	"unicode"
)

// Code point classes as llama.cpp's unicode.cpp sees them (its table is
// generated from Unicode 15.1 with Python's `regex` module). Every code point
// has exactly one category bit; separators, controls, format, private use,
// surrogates and unassigned code points all share cfOther, which the
// pre-tokenizers never tell apart. The non-zero value also stands for
// llama.cpp's "in range" test (flags.as_uint() != 0). Whitespace is an extra
// bit following Unicode's White_Space property (0x1C..0x1F are NOT
// whitespace).
const (
	cfNumber     uint8 = 1 << iota // \p{N}
	cfLetter                       // \p{L}
	cfPunct                        // \p{P}
	cfSymbol                       // \p{S}
	cfMark                         // \p{M}
	cfOther                        // \p{Z}, \p{C}, unassigned
	cfWhitespace                   // \s
)

const maxCodepoint = 0x110000

var (
	cpFlagsOnce  sync.Once
	cpFlagsTable []uint8 // indexed by code point, 0x110000 entries
)

// cpFlags returns the class bits of cp (0 only for code points outside
// Unicode's range).
func cpFlags(cp rune) uint8 {
	if cp >= 0 && cp < 0x80 {
		return asciiFlags[cp]
	}
	cpFlagsOnce.Do(buildCPFlags)
	if cp < 0 || cp >= maxCodepoint {
		return 0
	}
	return cpFlagsTable[cp]
}

var asciiFlags = func() (t [128]uint8) {
	for c := 0; c < 128; c++ {
		t[c] = flagsFromGo(rune(c))
	}
	return t
}()

// flagsFromGo classifies one code point with Go's unicode tables (slow path,
// used only to build the tables).
func flagsFromGo(cp rune) uint8 {
	f := cfOther
	switch {
	case unicode.Is(unicode.N, cp):
		f = cfNumber
	case unicode.Is(unicode.L, cp):
		f = cfLetter
	case unicode.Is(unicode.P, cp):
		f = cfPunct
	case unicode.Is(unicode.S, cp):
		f = cfSymbol
	case unicode.Is(unicode.M, cp):
		f = cfMark
	}
	if isWhitespaceCP(cp) {
		f |= cfWhitespace
	}
	return f
}

// isWhitespaceCP is llama.cpp's unicode_set_whitespace (Unicode White_Space).
func isWhitespaceCP(cp rune) bool {
	switch {
	case cp >= 0x09 && cp <= 0x0D, cp == 0x20, cp == 0x85, cp == 0xA0, cp == 0x1680:
		return true
	case cp >= 0x2000 && cp <= 0x200A:
		return true
	case cp == 0x2028, cp == 0x2029, cp == 0x202F, cp == 0x205F, cp == 0x3000:
		return true
	}
	return false
}

func buildCPFlags() {
	t := make([]uint8, maxCodepoint)
	groups := []struct {
		tab  *unicode.RangeTable
		flag uint8
	}{
		{unicode.N, cfNumber}, {unicode.L, cfLetter}, {unicode.P, cfPunct},
		{unicode.S, cfSymbol}, {unicode.M, cfMark},
	}
	for c := range t {
		t[c] = cfOther
	}
	// Fill from the range tables directly: far cheaper than asking
	// unicode.Is for each of the 1.1M code points.
	for _, g := range groups {
		for _, r := range g.tab.R16 {
			for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
				t[c] = g.flag
			}
		}
		for _, r := range g.tab.R32 {
			for c := r.Lo; c <= r.Hi && c < maxCodepoint; c += r.Stride {
				t[c] = g.flag
			}
		}
	}
	// llama.cpp's table is Unicode 15.1; Go 1.26 ships 15.0. Add what 15.1
	// assigned so both agree: CJK Extension I (letters), four ideographic
	// description characters and one CJK stroke (symbols).
	if unicode.Version == "15.0.0" {
		for c := 0x2EBF0; c <= 0x2EE5D; c++ {
			t[c] = cfLetter
		}
		for c := 0x2FFC; c <= 0x2FFF; c++ {
			t[c] = cfSymbol
		}
		t[0x31EF] = cfSymbol
	}
	for c := rune(0); c < maxCodepoint; c++ {
		if isWhitespaceCP(c) {
			t[c] |= cfWhitespace
		}
	}
	copy(t[:128], asciiFlags[:])
	cpFlagsTable = t
}

// decodeCP decodes one code point at s[i:] exactly as llama.cpp's
// unicode_cpt_from_utf8 does: it checks only the lead byte pattern and that
// enough continuation bytes follow, so overlong forms and surrogates are
// accepted. On failure it returns U+FFFD consuming one byte (what
// unicode_cpts_from_utf8 substitutes). Code points above U+10FFFF (from F5..F7
// lead bytes), on which llama.cpp throws later, are also replaced by U+FFFD.
func decodeCP(s string, i int) (rune, int) {
	c0 := s[i]
	if c0 < 0x80 {
		return rune(c0), 1
	}
	cont := func(k int) bool { return i+k < len(s) && s[i+k]&0xC0 == 0x80 }
	switch {
	case c0&0x40 == 0:
		return 0xFFFD, 1
	case c0&0x20 == 0:
		if !cont(1) {
			return 0xFFFD, 1
		}
		return rune(c0&0x1F)<<6 | rune(s[i+1]&0x3F), 2
	case c0&0x10 == 0:
		if !cont(1) || !cont(2) {
			return 0xFFFD, 1
		}
		return rune(c0&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3
	case c0&0x08 == 0:
		if !cont(1) || !cont(2) || !cont(3) {
			return 0xFFFD, 1
		}
		cp := rune(c0&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F)
		if cp >= maxCodepoint {
			return 0xFFFD, 1
		}
		return cp, 4
	}
	return 0xFFFD, 1
}

// appendCP encodes cp as llama.cpp's unicode_cpt_to_utf8 does: plain UTF-8
// bit packing, surrogates included (Go's utf8 package would substitute them).
func appendCP(b []byte, cp rune) []byte {
	switch {
	case cp < 0x80:
		return append(b, byte(cp))
	case cp < 0x800:
		return append(b, 0xC0|byte(cp>>6), 0x80|byte(cp&0x3F))
	case cp < 0x10000:
		return append(b, 0xE0|byte(cp>>12), 0x80|byte(cp>>6&0x3F), 0x80|byte(cp&0x3F))
	default:
		return append(b, 0xF0|byte(cp>>18&0x07), 0x80|byte(cp>>12&0x3F), 0x80|byte(cp>>6&0x3F), 0x80|byte(cp&0x3F))
	}
}

// utf8Len is llama.cpp's unicode_len_utf8: the sequence length announced by
// a lead byte (continuation bytes count as 1).
func utf8Len(b byte) int {
	return [16]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}[b>>4]
}

// GPT-2's bytes_to_unicode: printable Latin-1 bytes map to themselves, the
// other 68 bytes to U+0100.. in byte order. byteEnc holds the UTF-8 of each
// mapped character.
var (
	byteEnc [256]string
	byteDec map[rune]byte
)

func init() {
	byteDec = make(map[rune]byte, 256)
	n := 0
	for b := 0; b < 256; b++ {
		var r rune
		if (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			r = rune(b)
		} else {
			r = rune(256 + n)
			n++
		}
		byteEnc[b] = string(appendCP(nil, r))
		byteDec[r] = byte(b)
	}
}
