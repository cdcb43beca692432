package tokenizer

import (
	"encoding/hex"
	"encoding/json"
	"github.com/gollm/gollm/internal/shared"
	"os"
	"path/filepath"
	"testing"
)

type goldenRun struct {
	Model         string  `json:"model"`
	Prompt        string  `json:"prompt"`
	NVocab        int     `json:"n_vocab"`
	PromptTokens  []int32 `json:"prompt_tokens"`
	GreedyTokens  []int32 `json:"greedy_tokens"`
	GreedyTextHex string  `json:"greedy_text_hex"`
}

// TestGoldenPrompts checks the prompt tokens llama.cpp produced for every
// model of ../sharedRoot/models (add_special=true, parse_special=false) and that
// the pieces of its greedy continuation render to the bytes it printed
// (pieces with special rendering, as the golden generator asked for).
func TestGoldenPrompts(t *testing.T) {
	sharedRoot := shared.Dir(t)
	files, err := filepath.Glob(filepath.Join(sharedRoot, "golden", "*.p[0-9].json"))
	if err != nil || len(files) == 0 {
		t.Skipf("no golden files: %v", err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var g goldenRun
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			tk := loadTokenizer(t, filepath.Join("models", g.Model))
			seen[g.Model] = true
			if tk.VocabSize() != g.NVocab {
				t.Errorf("vocab size %d, want %d", tk.VocabSize(), g.NVocab)
			}
			got := tk.Encode(g.Prompt, true, false)
			if !equalIDs(got, g.PromptTokens) {
				t.Errorf("Encode(%q) = %v, want %v", g.Prompt, got, g.PromptTokens)
			}
			var text []byte
			for _, id := range g.GreedyTokens {
				text = append(text, tk.PieceSpecial(id, true)...)
			}
			if h := hex.EncodeToString(text); h != g.GreedyTextHex {
				t.Errorf("pieces of the greedy tokens:\n got  %s\n want %s", h, g.GreedyTextHex)
			}
		})
	}
	for _, m := range []string{"stories260K.gguf", "llama-2-tiny-random.gguf", "tiny-qwen2-F16.gguf"} {
		if !seen[m] {
			t.Errorf("no golden file for %s", m)
		}
	}
}
