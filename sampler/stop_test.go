package sampler

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

type pushStep struct {
	in      string
	emit    string
	stopped bool
}

func runSteps(t *testing.T, stops []string, steps []pushStep, flush string) {
	t.Helper()
	m := NewStopMatcher(stops)
	for i, st := range steps {
		emit, stopped := m.Push(st.in)
		if emit != st.emit || stopped != st.stopped {
			t.Fatalf("stops %q push %d %q: got (%q, %v), want (%q, %v)", stops, i, st.in, emit, stopped, st.emit, st.stopped)
		}
	}
	if got := m.Flush(); got != flush {
		t.Fatalf("stops %q: Flush = %q, want %q", stops, got, flush)
	}
}

func TestStopSpanningPushes(t *testing.T) {
	runSteps(t, []string{"</s>"}, []pushStep{
		{"Hello <", "Hello ", false},
		{"/", "", false},
		{"s> more", "", true},
		{"ignored", "", true},
	}, "")
}

func TestStopOverlappingPrefixes(t *testing.T) {
	// "ab" may begin "abc": held, then released when "d" rules it out.
	runSteps(t, []string{"abc"}, []pushStep{
		{"ab", "", false},
		{"d", "abd", false},
		{"xa", "x", false},
		{"bc", "", true},
	}, "")
	// A failed partial match can still hide the start of a real one.
	runSteps(t, []string{"aab"}, []pushStep{
		{"a", "", false},
		{"a", "", false},
		{"a", "a", false},
		{"b", "", true},
	}, "")
	// Held text comes back on Flush when the stream ends mid-prefix.
	runSteps(t, []string{"abc"}, []pushStep{
		{"xxab", "xx", false},
	}, "ab")
}

func TestStopMultiple(t *testing.T) {
	runSteps(t, []string{"\n\n", "User:"}, []pushStep{
		{"Hi\n", "Hi", false},
		{"Us", "\n", false},
		{"er: x", "", true},
	}, "")
	m := NewStopMatcher([]string{"\n\n", "User:"})
	if emit, stopped := m.Push("one\n\ntwo User:"); emit != "one" || !stopped || m.Matched() != "\n\n" {
		t.Fatalf("got (%q, %v, %q)", emit, stopped, m.Matched())
	}
}

// The stop that completes first wins, however the text was chunked.
func TestStopEarliestCompletion(t *testing.T) {
	stops := []string{"abcdef", "bcd"}
	whole := NewStopMatcher(stops)
	emit, stopped := whole.Push("xabcdefg")
	if emit != "xa" || !stopped || whole.Matched() != "bcd" {
		t.Fatalf("whole: (%q, %v, %q), want (\"xa\", true, \"bcd\")", emit, stopped, whole.Matched())
	}
	bytewise := NewStopMatcher(stops)
	var out strings.Builder
	for _, b := range []byte("xabcdefg") {
		e, s := bytewise.Push(string(b))
		out.WriteString(e)
		if s {
			break
		}
	}
	if out.String() != "xa" || bytewise.Matched() != "bcd" {
		t.Fatalf("byte-wise: %q %q, want \"xa\" \"bcd\"", out.String(), bytewise.Matched())
	}
}

func TestStopUTF8(t *testing.T) {
	runSteps(t, []string{"世界"}, []pushStep{
		{"你好世", "你好", false},
		{"界!", "", true},
	}, "")
	runSteps(t, []string{"世界"}, []pushStep{
		{"你好世", "你好", false},
		{"人", "世人", false},
	}, "")
	// A stop sharing only a lead byte with the text never splits a rune.
	runSteps(t, []string{"é!"}, []pushStep{
		{"caf", "caf", false},
		{"é", "", false},
		{"è", "éè", false},
		{"é!", "", true},
	}, "")
}

func TestStopPassthrough(t *testing.T) {
	for _, stops := range [][]string{nil, {}, {""}} {
		m := NewStopMatcher(stops)
		for _, s := range []string{"a", "</s>", "", "\n\n"} {
			if emit, stopped := m.Push(s); emit != s || stopped {
				t.Fatalf("stops %q: Push(%q) = (%q, %v)", stops, s, emit, stopped)
			}
		}
		if m.Flush() != "" {
			t.Fatal("passthrough held text")
		}
	}
}

func TestStopReset(t *testing.T) {
	m := NewStopMatcher([]string{"END"})
	m.Push("xEN")
	m.Push("D")
	m.Reset()
	if emit, stopped := m.Push("ok E"); emit != "ok " || stopped || m.Held() != "E" {
		t.Fatalf("after Reset: (%q, %v, held %q)", emit, stopped, m.Held())
	}
}

// expectStop is the byte-by-byte definition: the output is the text before
// the stop occurrence that ends first (longest among those ending there).
func expectStop(text string, stops []string) (string, bool) {
	for end := 1; end <= len(text); end++ {
		best := -1
		for _, s := range stops {
			if s != "" && end >= len(s) && text[end-len(s):end] == s {
				if start := end - len(s); best < 0 || start < best {
					best = start
				}
			}
		}
		if best >= 0 {
			return text[:best], true
		}
	}
	return text, false
}

func TestStopRandomChunking(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	alphabet := []string{"a", "b", "c", "é", "世"}
	randStr := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for iter := range 3000 {
		stops := make([]string, 1+r.IntN(3))
		maxLen := 0
		for i := range stops {
			stops[i] = randStr(1 + r.IntN(4))
			maxLen = max(maxLen, len(stops[i]))
		}
		text := randStr(r.IntN(30))
		want, wantStop := expectStop(text, stops)

		m := NewStopMatcher(stops)
		var out strings.Builder
		stopped := false
		for rest := text; rest != "" && !stopped; {
			n := 1 + r.IntN(len(rest))
			for n < len(rest) && !utf8.RuneStart(rest[n]) { // pieces are whole runes, as the detokenizer sends them
				n++
			}
			var emit string
			emit, stopped = m.Push(rest[:n])
			rest = rest[n:]
			out.WriteString(emit)
			if !strings.HasPrefix(want, out.String()) {
				t.Fatalf("iter %d stops %q text %q: emitted %q, not a prefix of %q", iter, stops, text, out.String(), want)
			}
			if !utf8.ValidString(emit) {
				t.Fatalf("iter %d: emitted broken UTF-8 %q", iter, emit)
			}
			if len(m.Held()) > maxLen-1 {
				t.Fatalf("iter %d: holding %d bytes with longest stop %d", iter, len(m.Held()), maxLen)
			}
		}
		out.WriteString(m.Flush())
		if out.String() != want || stopped != wantStop {
			t.Fatalf("iter %d stops %q text %q: got (%q, %v), want (%q, %v)", iter, stops, text, out.String(), stopped, want, wantStop)
		}
	}
}
