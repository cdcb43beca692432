package tokenizer

import (
	"github.com/gollm/gollm/internal/shared"
	"path/filepath"
	"testing"
)

// TestVocabFiles checks every case of llama.cpp's tokenizer test files
// (ids produced by llama.cpp) with add_special=false, parse_special=false.
func TestVocabFiles(t *testing.T) {
	sharedRoot := shared.Dir(t)
	for _, name := range vocabNames {
		t.Run(name, func(t *testing.T) {
			rel := filepath.Join("vocab", "ggml-vocab-"+name+".gguf")
			tk := loadTokenizer(t, rel)
			cases := readVocabCases(t, filepath.Join(sharedRoot, rel))
			for i, c := range cases {
				got := tk.Encode(c.text, false, false)
				if !equalIDs(got, c.ids) {
					t.Errorf("case %d %q:\n got  %v\n want %v", i, c.text, got, c.ids)
				}
			}
		})
	}
}
