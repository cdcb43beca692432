package engine

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gollm/gollm/kernels"
)

var perplexitySubset = map[string]bool{
	"stories260K.gguf": true, "stories260K-Q4_K_M.gguf": true, "tiny-F16.gguf": true,
	"tiny-Q4_0.gguf": true, "tiny-qwen2-Q8_0.gguf": true, "tiny-qwen3-Q4_K_M.gguf": true,
}

// TestPerplexityGolden runs llama-perplexity's method (-c 128) on the shared
// story and compares with llama.cpp's figure: within 0.1% for float models,
// 1% for quantized ones.
func TestPerplexityGolden(t *testing.T) {
	shared := sharedDir(t)
	f, err := os.Open(filepath.Join(shared, "golden", "perplexity.tsv"))
	if err != nil {
		t.Skipf("no perplexity golden file: %v", err)
	}
	defer f.Close()
	text, err := os.ReadFile(filepath.Join(shared, "text", "story.txt"))
	if err != nil {
		t.Skipf("no story text: %v", err)
	}
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 6 {
			continue
		}
		model, nctx := cols[0], cols[2]
		want, _ := strconv.ParseFloat(cols[4], 64)
		n, _ := strconv.Atoi(nctx)
		// The generic (purego) kernels are ~30x slower: there, and in -short
		// mode, score a subset that still covers float, legacy and K-quant
		// weights and all three architectures.
		if (testing.Short() || kernels.Impl() == "generic") && !perplexitySubset[model] {
			continue
		}
		t.Run(model, func(t *testing.T) {
			m, err := Load(filepath.Join(shared, "models", model), Options{Threads: 2, Context: n})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ids := m.Tokenizer.Encode(string(text), true, false)
			res, err := m.Perplexity(context.Background(), ids, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			tol := 0.001
			if isQuantized(m) {
				tol = 0.01
			}
			if rel := math.Abs(res.PPL-want) / want; rel > tol {
				t.Errorf("PPL %.4f, llama.cpp %.4f: off by %.3f%% > %.1f%%", res.PPL, want, 100*rel, 100*tol)
			}
			if chunks, _ := strconv.Atoi(cols[3]); res.Chunks != chunks {
				t.Errorf("%d chunks, llama.cpp %d", res.Chunks, chunks)
			}
		})
	}
}
