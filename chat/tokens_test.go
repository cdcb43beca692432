package chat

import (
	"slices"
	"strings"
	"testing"
)

// fakeVocab splits on spaces; "<s>" is id 1, anything else gets its length+10.
type fakeVocab struct{ addBOS bool }

func (f fakeVocab) Encode(text string, addSpecial, parseSpecial bool) []int32 {
	var ids []int32
	if addSpecial && f.addBOS {
		ids = append(ids, 1)
	}
	for _, w := range strings.Fields(text) {
		if w == "<s>" && parseSpecial {
			ids = append(ids, 1)
		} else {
			ids = append(ids, int32(len(w)+10))
		}
	}
	return ids
}
func (fakeVocab) BOS() int32            { return 1 }
func (fakeVocab) EOS() int32            { return -1 }
func (f fakeVocab) AddBOS() bool        { return f.addBOS }
func (fakeVocab) Token(id int32) string { return map[int32]string{1: "<s>"}[id] }

func TestPromptTokensOneBOS(t *testing.T) {
	cases := []struct {
		v    fakeVocab
		text string
		want []int32
	}{
		{fakeVocab{true}, "<s> hi", []int32{1, 12}},    // the template wrote BOS: not doubled
		{fakeVocab{true}, "hi", []int32{1, 12}},        // it did not: added
		{fakeVocab{false}, "hi", []int32{12}},          // the vocabulary wants none
		{fakeVocab{true}, "", []int32{1}},              // empty rendering
		{fakeVocab{true}, "hi <s>", []int32{1, 12, 1}}, // a BOS later is the template's business
	}
	for _, c := range cases {
		if got := PromptTokens(c.v, c.text); !slices.Equal(got, c.want) {
			t.Errorf("%+v %q: got %v want %v", c.v, c.text, got, c.want)
		}
	}
	o := WithVocab(Options{AddGenerationPrompt: true}, fakeVocab{true})
	if o.BOS != "<s>" || o.EOS != "" || !o.AddGenerationPrompt {
		t.Fatalf("WithVocab: %+v", o)
	}
	tm, fb, err := ForModel("")
	if err != nil || !fb || tm.Name() != DefaultName {
		t.Fatalf("ForModel(\"\"): %v %v %v", tm, fb, err)
	}
	tm, fb, err = ForModel("{{ bos_token }}")
	if err != nil || fb {
		t.Fatalf("ForModel: %v %v", fb, err)
	}
}
