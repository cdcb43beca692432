package engine

import (
	"bufio"
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
	"tiny-gemma3-Q4_K_M.gguf": true, "tiny-qwen3moe-Q8_0.gguf": true, // a sliding window, experts
}

// knownDivergentPPL lists perplexity cases gollm does not reproduce, with why.
var knownDivergentPPL = map[string]string{"tiny-BF16.gguf": bf16Divergence}

// TestPerplexityGolden runs llama-perplexity's method (-c 128) on the shared
// story and compares with llama.cpp's figure: within 0.1% for float models,
// 1% for quantized ones.
func TestPerplexityGolden(t *testing.T) {
	shared := sharedDir(t)
	text, err := os.ReadFile(filepath.Join(shared, "text", "story.txt"))
	if err != nil {
		t.Skipf("no story text: %v", err)
	}
	tables := goldenFiles(shared, "perplexity.tsv")
	if len(tables) == 0 {
		t.Skip("no perplexity golden file")
	}
	for _, table := range tables {
		checkPerplexityTable(t, shared, table, string(text))
	}
}

// checkPerplexityTable checks the models of one perplexity.tsv.
func checkPerplexityTable(t *testing.T, shared, table, text string) {
	f, err := os.Open(table)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
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
		if why, ok := knownDivergentPPL[model]; ok {
			t.Logf("%s: skipped (%s)", model, why)
			continue
		}
		t.Run(model, func(t *testing.T) {
			m, err := Load(filepath.Join(shared, "models", model), Options{Threads: 2, Context: n})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ids := m.Tokenizer.Encode(text, true, false)
			res, err := m.Perplexity(ids, n, nil)
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
