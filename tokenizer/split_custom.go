package tokenizer

// Hand-written splitters for the two regexes llama.cpp itself implements by
// hand (unicode_regex_split_custom_gpt2 / _llama3), plus qwen2's, which
// llama.cpp runs through std::regex but which is the llama3 regex with
// single digits: under ECMAScript's first-alternative-wins matching it splits
// exactly like the llama3 code with a digit group of 1.
//
// Positions outside the chunk read as "no code point": flags 0, which is
// how llama.cpp's _get_flags behaves.

func flagAt(fl []uint8, end, i int) uint8 {
	if i < end {
		return fl[i]
	}
	return 0
}

const notLetterNumberSpace = cfLetter | cfNumber | cfWhitespace

// splitGPT2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func splitGPT2(cps []rune, fl []uint8, ini, end int, out []int) []int {
	for pos := ini; pos < end; {
		cp := cps[pos]
		if cp == '\'' && pos+1 < end {
			if n := contraction(cps, pos, end, false); n > 0 {
				pos += n
				out = append(out, pos)
				continue
			}
		}
		f2 := fl[pos]
		if cp == ' ' {
			f2 = flagAt(fl, end, pos+1)
		}
		var class uint8
		switch {
		case f2&cfLetter != 0:
			class = cfLetter
		case f2&cfNumber != 0:
			class = cfNumber
		case f2&notLetterNumberSpace == 0 && f2 != 0:
			class = 0 // punctuation-like run
		default:
			class = 0xFF // whitespace handling below
		}
		if class != 0xFF {
			if cp == ' ' {
				pos++
			}
			for {
				f := flagAt(fl, end, pos)
				if class == 0 {
					if f&notLetterNumberSpace != 0 || f == 0 {
						break
					}
				} else if f&class == 0 {
					break
				}
				pos++
			}
			out = append(out, pos)
			continue
		}
		nws := 0
		for flagAt(fl, end, pos+nws)&cfWhitespace != 0 {
			nws++
		}
		switch {
		case nws > 1 && pos+nws < end: // \s+(?!\S): leave the last space to the next word
			pos += nws - 1
		case nws > 0:
			pos += nws
		default:
			pos++
		}
		out = append(out, pos)
	}
	return out
}

// contraction returns the length of 's|'t|'re|'ve|'m|'ll|'d at pos (pos
// holds the apostrophe), 0 if none. fold makes it case-insensitive as the
// llama3 regex is.
func contraction(cps []rune, pos, end int, fold bool) int {
	lower := func(c rune) rune {
		if fold && c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	c1 := lower(cps[pos+1])
	if c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd' {
		return 2
	}
	if pos+2 < end {
		c2 := lower(cps[pos+2])
		if (c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l') {
			return 3
		}
	}
	return 0
}

// splitLlama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitLlama3(cps []rune, fl []uint8, ini, end int, out []int) []int {
	return splitLlama3Like(cps, fl, ini, end, out, 3)
}

// splitQwen2: the llama3 regex with \p{N} instead of \p{N}{1,3}.
func splitQwen2(cps []rune, fl []uint8, ini, end int, out []int) []int {
	return splitLlama3Like(cps, fl, ini, end, out, 1)
}

func splitLlama3Like(cps []rune, fl []uint8, ini, end int, out []int, maxDigits int) []int {
	for pos := ini; pos < end; {
		cp := cps[pos]
		f := fl[pos]
		// Only ASCII letters fold to s/t/r/v/m/l/d under llama.cpp's
		// unicode_tolower, so ASCII folding is exact.
		if cp == '\'' && pos+1 < end {
			if n := contraction(cps, pos, end, true); n > 0 {
				pos += n
				out = append(out, pos)
				continue
			}
		}
		// [^\r\n\p{L}\p{N}]?\p{L}+
		if cp != '\r' && cp != '\n' && f&cfNumber == 0 {
			if f&cfLetter != 0 || flagAt(fl, end, pos+1)&cfLetter != 0 {
				pos++
				for flagAt(fl, end, pos)&cfLetter != 0 {
					pos++
				}
				out = append(out, pos)
				continue
			}
		}
		// \p{N}{1,maxDigits}
		if f&cfNumber != 0 {
			ini := pos
			for flagAt(fl, end, pos)&cfNumber != 0 {
				pos++
				if pos-ini >= maxDigits {
					out = append(out, pos)
					ini = pos
				}
			}
			if pos > ini {
				out = append(out, pos)
			}
			continue
		}
		// ' ?[^\s\p{L}\p{N}]+[\r\n]*'. llama.cpp tests the in-range flag of
		// the current code point here (always true), not of the next one:
		// a lone space at the chunk end takes this branch.
		f2 := f
		if cp == ' ' {
			f2 = flagAt(fl, end, pos+1)
		}
		if f2&notLetterNumberSpace == 0 {
			if cp == ' ' {
				pos++
			}
			for {
				g := flagAt(fl, end, pos)
				if g&notLetterNumberSpace != 0 || g == 0 {
					break
				}
				pos++
			}
			for pos < end && (cps[pos] == '\r' || cps[pos] == '\n') {
				pos++
			}
			out = append(out, pos)
			continue
		}
		nws, lastRN := 0, -1
		for flagAt(fl, end, pos+nws)&cfWhitespace != 0 {
			if c := cps[pos+nws]; c == '\r' || c == '\n' {
				lastRN = pos + nws + 1
			}
			nws++
		}
		switch {
		case lastRN >= 0: // \s*[\r\n]+
			pos = lastRN
		case nws > 1 && pos+nws < end: // \s+(?!\S)
			pos += nws - 1
		case nws > 0: // \s+
			pos += nws
		default:
			pos++
		}
		out = append(out, pos)
	}
	return out
}
