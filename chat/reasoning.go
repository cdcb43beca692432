package chat

import (
	"strings"
	"unicode"
)

// The tags reasoning models (Qwen3, QwQ, DeepSeek-R1 and its distills) put
// around their thinking.
const (
	ThinkOpen  = "<think>"
	ThinkClose = "</think>"
)

// OpensReasoning reports whether a rendered prompt ends inside a <think>
// block (DeepSeek-R1 and QwQ templates end the generation prompt with
// "<think>\n"), so the model's output starts with reasoning and has no
// opening tag of its own.
func OpensReasoning(prompt string) bool {
	p := strings.TrimRightFunc(prompt, unicode.IsSpace)
	return strings.HasSuffix(p, ThinkOpen)
}

// SplitReasoning splits a whole reply into its reasoning (the text of a
// leading <think>...</think> block) and its answer, both trimmed of the
// whitespace around the tags. inReasoning says the reply starts inside the
// block (see OpensReasoning). A reply without the block is all answer; an
// unclosed block is all reasoning.
func SplitReasoning(text string, inReasoning bool) (reasoning, answer string) {
	s := NewReasoningSplitter(inReasoning)
	r1, a1 := s.Push(text)
	r2, a2 := s.Flush()
	return r1 + r2, a1 + a2
}

// ReasoningSplitter splits streamed text into reasoning and answer as it
// arrives, holding back only what could still be the start of a tag or
// whitespace that may turn out to be trailing. Joined, its outputs equal
// SplitReasoning of the joined input. Not safe for concurrent use.
type ReasoningSplitter struct {
	state   splitState
	pending string
}

type splitState uint8

const (
	splitStart       splitState = iota // before any non-space output; a <think> may come
	splitReasonStart                   // inside <think>, skipping leading space
	splitReason                        // inside <think>
	splitAnswerStart                   // after </think>, skipping leading space
	splitAnswer
)

// NewReasoningSplitter returns a splitter; inReasoning says the text starts
// inside a <think> block.
func NewReasoningSplitter(inReasoning bool) *ReasoningSplitter {
	if inReasoning {
		return &ReasoningSplitter{state: splitReasonStart}
	}
	return &ReasoningSplitter{}
}

// InReasoning reports whether the text so far is inside the reasoning block.
func (s *ReasoningSplitter) InReasoning() bool {
	return s.state == splitReasonStart || s.state == splitReason
}

// Push adds text and returns the reasoning and answer text it completes.
func (s *ReasoningSplitter) Push(text string) (reasoning, answer string) {
	s.pending += text
	var r, a strings.Builder
	for {
		switch s.state {
		case splitStart:
			p := strings.TrimLeftFunc(s.pending, unicode.IsSpace)
			switch {
			case p == "":
				return r.String(), a.String() // only space so far: wait
			case strings.HasPrefix(p, ThinkOpen):
				s.pending, s.state = p[len(ThinkOpen):], splitReasonStart
			case strings.HasPrefix(ThinkOpen, p):
				return r.String(), a.String() // maybe a tag: wait
			default:
				s.pending, s.state = p, splitAnswer
			}
		case splitReasonStart, splitAnswerStart:
			s.pending = strings.TrimLeftFunc(s.pending, unicode.IsSpace)
			if s.pending == "" {
				return r.String(), a.String()
			}
			s.state++
		case splitReason:
			if i := strings.Index(s.pending, ThinkClose); i >= 0 {
				r.WriteString(strings.TrimRightFunc(s.pending[:i], unicode.IsSpace))
				s.pending, s.state = s.pending[i+len(ThinkClose):], splitAnswerStart
				continue
			}
			k := len(s.pending) - tagPrefixSuffix(s.pending, ThinkClose)
			k = len(strings.TrimRightFunc(s.pending[:k], unicode.IsSpace))
			r.WriteString(s.pending[:k])
			s.pending = s.pending[k:]
			return r.String(), a.String()
		case splitAnswer:
			a.WriteString(s.pending)
			s.pending = ""
			return r.String(), a.String()
		}
	}
}

// Flush ends the text and returns what was held back.
func (s *ReasoningSplitter) Flush() (reasoning, answer string) {
	p := s.pending
	s.pending = ""
	switch s.state {
	case splitReasonStart, splitReason:
		return strings.TrimSpace(p), ""
	case splitStart:
		return "", strings.TrimLeftFunc(p, unicode.IsSpace)
	case splitAnswerStart:
		return "", ""
	}
	return "", p
}

// tagPrefixSuffix returns the length of the longest suffix of s that is a
// proper prefix of tag.
func tagPrefixSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
