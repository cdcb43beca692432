package sampler

import "strings"

// StopMatcher finds stop strings in text that arrives in pieces (one
// detokenized token at a time) and decides what is safe to print: it holds
// back any tail that could still grow into a stop string, and never more
// than the longest stop string minus one byte. Matching is byte-wise, so it
// works for any UTF-8 text; given valid UTF-8 pieces and stop strings, the
// split points always fall on rune boundaries (a held tail starts where a
// stop string starts).
//
// A StopMatcher holds one stream's state: give each sequence its own; it is
// not safe for concurrent use.
type StopMatcher struct {
	stops   []string
	maxLen  int
	held    string
	stopped bool
	matched string
}

// NewStopMatcher returns a matcher for stops. Empty strings are ignored; with
// no stop strings Push passes text straight through.
func NewStopMatcher(stops []string) *StopMatcher {
	m := &StopMatcher{}
	for _, s := range stops {
		if s == "" {
			continue
		}
		m.stops = append(m.stops, s)
		m.maxLen = max(m.maxLen, len(s))
	}
	return m
}

// Push feeds the next piece of text. It returns the text that can be printed
// now and whether a stop string has completed; on a stop, emit is everything
// before the stop string and the rest (the stop string and whatever follows)
// is dropped. After a stop, Push returns ("", true).
func (m *StopMatcher) Push(text string) (emit string, stopped bool) {
	if m.stopped {
		return "", true
	}
	if len(m.stops) == 0 {
		return text, false
	}
	buf := m.held + text

	// The stop that would have completed first had the text arrived byte by
	// byte: smallest end, then the longest (earliest start). Using the end,
	// not the start, makes the result independent of how text was chunked.
	// No match can start inside text emitted earlier: that text was released
	// only because no stop string could start there.
	bestStart, bestEnd := -1, 0
	for _, s := range m.stops {
		i := strings.Index(buf, s)
		if i < 0 {
			continue
		}
		end := i + len(s)
		if bestStart < 0 || end < bestEnd || (end == bestEnd && i < bestStart) {
			bestStart, bestEnd = i, end
			m.matched = s
		}
	}
	if bestStart >= 0 {
		m.stopped = true
		m.held = ""
		return buf[:bestStart], true
	}

	hold := m.pendingPrefix(buf)
	m.held = buf[len(buf)-hold:]
	return buf[:len(buf)-hold], false
}

// pendingPrefix returns the length of the longest tail of buf that is a
// proper prefix of some stop string.
func (m *StopMatcher) pendingPrefix(buf string) int {
	for n := min(len(buf), m.maxLen-1); n > 0; n-- {
		tail := buf[len(buf)-n:]
		for _, s := range m.stops {
			if len(s) > n && strings.HasPrefix(s, tail) {
				return n
			}
		}
	}
	return 0
}

// Flush ends the stream and returns the held-back text (empty after a stop).
func (m *StopMatcher) Flush() string {
	out := m.held
	m.held = ""
	return out
}

// Stopped reports whether a stop string has completed.
func (m *StopMatcher) Stopped() bool { return m.stopped }

// Matched returns the stop string that ended the stream, or "" if none has.
func (m *StopMatcher) Matched() string { return m.matched }

// Held returns the text currently held back (for inspection only).
func (m *StopMatcher) Held() string { return m.held }

// Reset readies the matcher for a new stream with the same stop strings.
func (m *StopMatcher) Reset() {
	m.held, m.stopped, m.matched = "", false, ""
}
