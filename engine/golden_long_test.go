package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/internal/shared"
)

// TestGoldenLongPrompts checks 173-token prompts against llama.cpp's
// logits (testdata/golden-long: written by ../shared/llama.cpp/bin/golden,
// b10573's AVX2 build, 2 threads, for models of ../shared/models; the
// per-position logits left out but the top 10 and the last position's).
// The shared golden prompts are 5-30 tokens: under llama.cpp's 64-token
// threshold for its tiled attention, and too short to meet the rounding
// differences of unfused Q4_0 block products or Q4_K experts summed in
// the four-token order, all of which these files caught.
func TestGoldenLongPrompts(t *testing.T) {
	sharedRoot := filepath.Dir(shared.Dir(t, "models"))
	files, _ := filepath.Glob(filepath.Join("testdata", "golden-long", "*.json"))
	if len(files) == 0 {
		t.Fatal("no testdata/golden-long files")
	}
	for _, file := range files {
		g := loadGolden(t, file)
		t.Run(filepath.Base(file), func(t *testing.T) {
			path := filepath.Join(sharedRoot, "models", g.Model)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s: %v", g.Model, err)
			}
			m, err := Load(path, Options{Threads: 2, Context: 256})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			checkGolden(t, m, g)
		})
	}
}
