package sampler

import (
	"encoding/json"
	"github.com/gollm/gollm/internal/shared"
	"os"
	"path/filepath"
	"testing"
)

// The first greedy token llama.cpp chose after each golden prompt must be
// what greedy sampling picks from the same last-position logits.
func TestGreedyMatchesGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared.Dir(t), "golden", "*.json"))
	if len(files) == 0 {
		t.Skip("../shared/golden not present: skipping llama.cpp greedy comparison")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			NVocab       int       `json:"n_vocab"`
			LastLogits   []float32 `json:"last_logits"`
			GreedyTokens []int32   `json:"greedy_tokens"`
		}
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(g.GreedyTokens) == 0 || len(g.LastLogits) != g.NVocab {
			t.Fatalf("%s: unexpected golden shape", f)
		}
		cfg := DefaultConfig()
		cfg.Temperature = 0
		s, err := New(cfg, g.NVocab)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Sample(g.LastLogits); got != g.GreedyTokens[0] {
			t.Errorf("%s: greedy = %d, llama.cpp chose %d", filepath.Base(f), got, g.GreedyTokens[0])
		}
		// top-k = 1 must agree at any temperature.
		cfg = DefaultConfig()
		cfg.TopK, cfg.Temperature = 1, 1.7
		s, _ = New(cfg, g.NVocab)
		if got := s.Sample(g.LastLogits); got != g.GreedyTokens[0] {
			t.Errorf("%s: top-k 1 = %d, llama.cpp greedy chose %d", filepath.Base(f), got, g.GreedyTokens[0])
		}
	}
}
