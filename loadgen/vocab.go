package loadgen

import (
	"strings"

	"github.com/gollm/gollm/tokenizer"
)

// tokenizerVocab adapts a model's tokenizer.
type tokenizerVocab struct{ t *tokenizer.Tokenizer }

// TokenizerVocab makes random prompts with a model's own tokenizer, so a
// prompt of n tokens is n tokens to the server too (plus BOS).
func TokenizerVocab(t *tokenizer.Tokenizer) Vocab { return tokenizerVocab{t} }

func (v tokenizerVocab) Encode(text string) []int32 { return v.t.Encode(text, false, false) }
func (v tokenizerVocab) Decode(ids []int32) string  { return v.t.Decode(ids) }
func (v tokenizerVocab) Size() int                  { return v.t.VocabSize() }

func (v tokenizerVocab) Usable(id int32) bool {
	if v.t.IsControl(id) || v.t.IsEOG(id) {
		return false
	}
	s := v.t.Token(id)
	// Byte-fallback tokens ("<0x0A>") and other bracketed specials decode
	// to bytes that re-encode differently; leave them out.
	return s != "" && !(strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"))
}

// fixedWords are common English words that Llama, Mistral, Qwen and GPT-2
// style tokenizers each encode as one token after a space, so a prompt of n
// of them is about n tokens to most servers (the exact count comes back in
// the server's usage).
var fixedWords = strings.Fields(`the of and to in is was for that on as with by he at from his it
an were are which this be or first had not but after its new one they who also has their two
her been other when time all there into during more school most only over city she some can may
about world would up out years him later year then many under where made so used these three
what such no between would known well part back state around through while team season film
number before city than being name early game war both each state since several including well
same high great long work people house over local last day music found like own place them
government family until against second four best city end those became among series show major
public old following group still north south east west small large water power line life will`)

// FixedVocab is the vocabulary used without a model file: ids index
// fixedWords, text is the words joined by spaces.
type FixedVocab struct{}

func (FixedVocab) Size() int         { return len(fixedWords) }
func (FixedVocab) Usable(int32) bool { return true }

func (FixedVocab) Decode(ids []int32) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(fixedWords[int(id)%len(fixedWords)])
	}
	return b.String()
}

func (FixedVocab) Encode(text string) []int32 {
	ws := strings.Fields(text)
	ids := make([]int32, len(ws))
	for i, w := range ws {
		ids[i] = fixedIndex[w]
	}
	return ids
}

var fixedIndex = func() map[string]int32 {
	m := make(map[string]int32, len(fixedWords))
	for i, w := range fixedWords {
		if _, ok := m[w]; !ok {
			m[w] = int32(i)
		}
	}
	return m
}()
