package tokenizer

// Splitters for the regexes llama.cpp hands to std::regex. None of them can
// match the empty string, so regex_iterator's behaviour reduces to: find the
// leftmost match, emit the text before it (if any) and the match, continue
// after the match; the tail after the last match is one more piece.
//
// llama.cpp runs regexes containing \p{..} on a "collapsed" byte string
// where each non-ASCII code point becomes one byte naming its category
// (whitespace -> 0x0B) and the \p{..} classes become byte classes, and the
// other regexes through std::wregex with non-ASCII whitespace replaced by
// 0x0B. Both come down to the predicates below over (code point, flags); the
// ASCII members of \p{P} in the collapsed form are exactly Unicode's. (The
// collapsed \p{S} forgets '~', but no regex used here contains \p{S}.)

// matchFunc returns the leftmost match in [i, end), or ms < 0 for none.
type matchFunc func(cps []rune, fl []uint8, i, end int) (ms, me int)

func regexSplit(m matchFunc) splitter {
	return func(cps []rune, fl []uint8, ini, end int, out []int) []int {
		i := ini
		for i < end {
			ms, me := m(cps, fl, i, end)
			if ms < 0 {
				break
			}
			if ms > i {
				out = append(out, ms)
			}
			out = append(out, me)
			i = me
		}
		if i < end {
			out = append(out, end)
		}
		return out
	}
}

type cpPred func(cp rune, f uint8) bool

// matchRun: C+
func matchRun(p cpPred) matchFunc {
	return func(cps []rune, fl []uint8, i, end int) (int, int) {
		for ; i < end; i++ {
			if p(cps[i], fl[i]) {
				j := i + 1
				for j < end && p(cps[j], fl[j]) {
					j++
				}
				return i, j
			}
		}
		return -1, -1
	}
}

// matchOne: C
func matchOne(p cpPred) matchFunc {
	return func(cps []rune, fl []uint8, i, end int) (int, int) {
		for ; i < end; i++ {
			if p(cps[i], fl[i]) {
				return i, i + 1
			}
		}
		return -1, -1
	}
}

// matchOptRun: L?C+ where L is \s or a literal space. Each C used here
// excludes whitespace, so the optional lead never competes with the run.
func matchOptRun(lead, p cpPred) matchFunc {
	return func(cps []rune, fl []uint8, i, end int) (int, int) {
		for ; i < end; i++ {
			start := i
			if lead(cps[i], fl[i]) && i+1 < end && p(cps[i+1], fl[i+1]) {
				i++
			} else if !p(cps[i], fl[i]) {
				continue
			}
			j := i + 1
			for j < end && p(cps[j], fl[j]) {
				j++
			}
			return start, j
		}
		return -1, -1
	}
}

// matchThreeDigits: [0-9][0-9][0-9]
func matchThreeDigits(cps []rune, _ []uint8, i, end int) (int, int) {
	for ; i+2 < end; i++ {
		if isASCIIDigit(cps[i]) && isASCIIDigit(cps[i+1]) && isASCIIDigit(cps[i+2]) {
			return i, i + 3
		}
	}
	return -1, -1
}

// matchTrailingSpace: \s+$ ($ is the end of the chunk being searched).
func matchTrailingSpace(_ []rune, fl []uint8, i, end int) (int, int) {
	j := end
	for j > i && fl[j-1]&cfWhitespace != 0 {
		j--
	}
	if j == end {
		return -1, -1
	}
	return j, end
}

func isASCIIDigit(c rune) bool { return c >= '0' && c <= '9' }

func isNumber(_ rune, f uint8) bool { return f&cfNumber != 0 }
func isLetter(_ rune, f uint8) bool { return f&cfLetter != 0 }
func isPunct(_ rune, f uint8) bool  { return f&cfPunct != 0 }
func isCRLF(c rune, _ uint8) bool   { return c == '\r' || c == '\n' }
func isSpace(_ rune, f uint8) bool  { return f&cfWhitespace != 0 }
func isBlank(c rune, _ uint8) bool  { return c == ' ' }

// [\p{P}\$\+<=>\^~\|]
func isDefaultPunct(c rune, f uint8) bool {
	if f&cfPunct != 0 {
		return true
	}
	switch c {
	case '$', '+', '<', '=', '>', '^', '~', '|':
		return true
	}
	return false
}

// [\p{P}\$\+<=>\^~\|`]
func isFalconPunct(c rune, f uint8) bool { return c == '`' || isDefaultPunct(c, f) }

// wcode is the character std::wregex sees: llama.cpp replaces non-ASCII
// whitespace by 0x0B before matching.
func wcode(c rune, f uint8) rune {
	if c > 0x7F && f&cfWhitespace != 0 {
		return 0x0B
	}
	return c
}

type runeRange struct{ lo, hi rune }

func inRanges(c rune, rs []runeRange) bool {
	for _, r := range rs {
		if c >= r.lo && c <= r.hi {
			return true
		}
	}
	return false
}

// [一-龥ࠀ-一가-퟿]
var deepseekCJK = []runeRange{{0x4E00, 0x9FA5}, {0x0800, 0x4E00}, {0xAC00, 0xD7FF}}

func isDeepseekCJK(c rune, f uint8) bool { return inRanges(wcode(c, f), deepseekCJK) }

// deepseek-llm's letter class "[A-Za-zµÀ-ÖØ-öø-ƺ...𞤀-𞥃]", as code point
// ranges.
var deepseekLetters = []runeRange{
	{0x41, 0x5A}, {0x61, 0x7A}, {0xB5, 0xB5}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x1BA},
	{0x1BC, 0x1BF}, {0x1C4, 0x293}, {0x295, 0x2AF}, {0x370, 0x373}, {0x376, 0x377},
	{0x37B, 0x37D}, {0x37F, 0x37F}, {0x386, 0x386}, {0x388, 0x38A}, {0x38C, 0x38C},
	{0x38E, 0x3A1}, {0x3A3, 0x3F5}, {0x3F7, 0x481}, {0x48A, 0x52F}, {0x531, 0x556},
	{0x10A0, 0x10C5}, {0x13A0, 0x13F5}, {0x13F8, 0x13FD}, {0x1C90, 0x1CBA}, {0x1CBD, 0x1CBF},
	{0x1D00, 0x1D2B}, {0x1D6B, 0x1D77}, {0x1D79, 0x1D9A}, {0x1E00, 0x1F15}, {0x1F18, 0x1F1D},
	{0x1F20, 0x1F45}, {0x1F48, 0x1F4D}, {0x1F50, 0x1F57}, {0x1F59, 0x1F59}, {0x1F5B, 0x1F5B},
	{0x1F5D, 0x1F5D}, {0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4}, {0x1FB6, 0x1FBC}, {0x1FBE, 0x1FBE},
	{0x1FC2, 0x1FC4}, {0x1FC6, 0x1FCC}, {0x1FD0, 0x1FD3}, {0x1FD6, 0x1FDB}, {0x1FE0, 0x1FEC},
	{0x1FF2, 0x1FF4}, {0x1FF6, 0x1FFC}, {0x2102, 0x2102}, {0x2107, 0x2107}, {0x210A, 0x2113},
	{0x2115, 0x2115}, {0x2119, 0x211D}, {0x2124, 0x2124}, {0x2126, 0x2126}, {0x2128, 0x2128},
	{0x212A, 0x212D}, {0x212F, 0x2134}, {0x2139, 0x2139}, {0x213C, 0x213F}, {0x2145, 0x2149},
	{0x214E, 0x214E}, {0x2183, 0x2184}, {0x2C00, 0x2C7B}, {0x2C7E, 0x2CE4}, {0x2CEB, 0x2CEE},
	{0x2CF2, 0x2CF3}, {0xA640, 0xA66D}, {0xA680, 0xA69B}, {0xA722, 0xA76F}, {0xA771, 0xA787},
	{0xA78B, 0xA78E}, {0xAB70, 0xABBF}, {0xFB00, 0xFB06}, {0xFB13, 0xFB17}, {0xFF21, 0xFF3A},
	{0xFF41, 0xFF5A}, {0x10400, 0x1044F}, {0x104B0, 0x104D3}, {0x104D8, 0x104FB},
	{0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
}

func isDeepseekLetter(c rune, f uint8) bool {
	c = wcode(c, f)
	if c < 0x80 {
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
	}
	return inRanges(c, deepseekLetters)
}

// deepseek-llm's "[!-/:-~！-／：-～‘-‟　-。]" (the ideographic space can
// never match: it is whitespace, replaced before matching).
var deepseekPunct = []runeRange{{0x21, 0x2F}, {0x3A, 0x7E}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF5E}, {0x2018, 0x201F}, {0x3000, 0x3002}}

func isDeepseekPunct(c rune, f uint8) bool { return inRanges(wcode(c, f), deepseekPunct) }

// bloom's "[^(\s|.,!?…。，、।۔،)]".
func isBloomWord(c rune, f uint8) bool {
	c = wcode(c, f)
	switch c {
	case '(', '|', '.', ',', '!', '?', ')', 0x2026, 0x3002, 0xFF0C, 0x3001, 0x0964, 0x06D4, 0x060C,
		'\t', '\n', '\v', '\f', '\r', ' ':
		return false
	}
	return true
}
