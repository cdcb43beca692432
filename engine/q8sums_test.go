package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm/gollm/internal/shared"
	"github.com/gollm/gollm/kernels"
)

// useKernels switches the kernels to the named set for the test, or skips
// it where the CPU cannot run that set.
func useKernels(t *testing.T, name string) {
	t.Helper()
	if !kernels.Available(name) {
		t.Skipf("kernels %q not available on this CPU", name)
	}
	prev := kernels.Impl()
	if err := kernels.SetImpl(name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := kernels.SetImpl(prev); err != nil {
			t.Error(err)
		}
	})
}

// TestQ8SumsSet checks the opt-in avx2-q8sums kernels (Q8_0 matrices in
// block sums, not llama.cpp's lane order) where that order has to hold:
// a token's logits do not depend on its batch, and the trained Q8_0 model
// of the golden files stays within the quantized tolerance with its exact
// greedy continuation (checkGolden gives this set 2e-2 of max|logit|).
// The random-weight tiny Q8_0 models are left out: their near-tied logits
// turn last-bit differences into whole quantization steps of the next
// layer's activations (tiny-Q8_0.p3 measured 2.6e-2, 8 of 10 argmaxes).
func TestQ8SumsSet(t *testing.T) {
	useKernels(t, "avx2-q8sums")
	t.Run("batch invariant", func(t *testing.T) { checkBatchInvariant(t, "Q8_0") })
	t.Run("golden", func(t *testing.T) {
		sharedRoot := filepath.Dir(shared.Dir(t, "golden"))
		files := goldenFiles(sharedRoot, "stories260K-Q8_0*.json")
		if len(files) == 0 {
			t.Skip("no stories260K Q8_0 golden files")
		}
		var m *Model
		for _, file := range files {
			g := loadGolden(t, file)
			if !strings.HasPrefix(g.Model, "stories260K") {
				t.Fatalf("%s: model %s", file, g.Model)
			}
			if m == nil {
				var err error
				if m, err = Load(filepath.Join(sharedRoot, "models", g.Model), Options{Threads: 2, Context: 256}); err != nil {
					t.Fatal(err)
				}
				defer m.Close()
			}
			t.Run(filepath.Base(file), func(t *testing.T) { checkGoldenInto(t, m, g) })
		}
	})
}
