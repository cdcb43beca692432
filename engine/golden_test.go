package engine

import (
	"encoding/json"
	"fmt"
	"github.com/gollm/gollm/internal/shared"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
)

type golden struct {
	file         string
	Model        string        `json:"model"`
	Prompt       string        `json:"prompt"`
	NVocab       int           `json:"n_vocab"`
	PromptTokens []int32       `json:"prompt_tokens"`
	PromptTop10  [][][]float64 `json:"prompt_top10"`
	PromptLogits [][]float32   `json:"prompt_logits"`
	LastLogits   []float32     `json:"last_logits"`
	GreedyTokens []int32       `json:"greedy_tokens"`
}

func loadGolden(t *testing.T, path string) *golden {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := golden{file: path}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &g
}

// isQuantized reports whether any matrix of the model is stored in a
// quantized type (the tolerance for those is wider).
func isQuantized(m *Model) bool {
	for i := range m.File.Tensors {
		switch m.File.Tensors[i].Type {
		case ggml.F32, ggml.F16, ggml.BF16:
		default:
			return true
		}
	}
	return false
}

// goldenFiles lists the golden files: ../shared/golden and its archs/
// directory (the families added later: gemma2, gemma3, phi3, qwen3moe).
func goldenFiles(sharedRoot, pattern string) []string {
	files, _ := filepath.Glob(filepath.Join(sharedRoot, "golden", pattern))
	more, _ := filepath.Glob(filepath.Join(sharedRoot, "golden", "archs", pattern))
	return append(files, more...)
}

// TestGoldenLogits compares gollm's teacher-forced logits, prompt tokens and
// greedy continuations with llama.cpp's, for every golden file.
func TestGoldenLogits(t *testing.T) {
	sharedRoot := filepath.Dir(shared.Dir(t, "golden"))
	files := goldenFiles(sharedRoot, "*.json")
	if len(files) == 0 {
		t.Skip("no golden files")
	}
	models := map[string]*Model{}
	defer func() {
		for _, m := range models {
			m.Close()
		}
	}()
	for _, file := range files {
		g := loadGolden(t, file)
		t.Run(filepath.Base(file), func(t *testing.T) {
			m := models[g.Model]
			if m == nil {
				var err error
				m, err = Load(filepath.Join(sharedRoot, "models", g.Model), Options{Threads: 2, Context: 256})
				if err != nil {
					t.Fatal(err)
				}
				models[g.Model] = m
			}
			checkGolden(t, m, g)
		})
	}
}

// knownDivergent lists golden cases gollm does not yet reproduce, with why.
// They run, and their differences are logged, but they do not fail. It is
// empty: tiny-BF16.p2 (1.4e-3 of max|logit| off at one position) came from
// RoPE's last bit (kernels/rope.go fuses as GCC does); every case now passes.
var knownDivergent = map[string]string{}

func checkGolden(t *testing.T, m *Model, g *golden) {
	if why, ok := knownDivergent[filepath.Base(g.file)]; ok {
		rec := &recorder{TB: t}
		checkGoldenInto(rec, m, g)
		if rec.failed {
			t.Skipf("known divergence (%s); differences:\n%s", why, rec.log.String())
		}
		return
	}
	checkGoldenInto(t, m, g)
}

// recorder collects a check's failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
	log    strings.Builder
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	fmt.Fprintf(&r.log, format+"\n", args...)
}

func checkGoldenInto(t testing.TB, m *Model, g *golden) {
	ids := m.Tokenizer.Encode(g.Prompt, true, false)
	if !equalIDs(ids, g.PromptTokens) {
		t.Fatalf("prompt tokens %v, want %v", ids, g.PromptTokens)
	}
	m.Reset()
	logits, err := m.Eval(ids, true)
	if err != nil {
		t.Fatal(err)
	}
	// The default sets (generic, avx2 and the AVX-512 ones, which give the
	// AVX2 kernels' bits) reproduce llama.cpp's AVX2 build (the golden
	// files' maker) operation by operation: every file agrees to the 6
	// printed digits (<= 4e-6 of max|logit|). The opt-in sets sum in other
	// orders and get the wide tolerances.
	rel := 2e-5
	if impl := kernels.Impl(); impl == "avx512bf16" || impl == "avx2-q8sums" {
		rel = 1e-3
		if isQuantized(m) {
			rel = 2e-2
		}
	}
	vocab := m.Config.Vocab
	sameArgmax := 0
	for pos := range ids {
		row := logits[pos*vocab : (pos+1)*vocab]
		var want map[int]float32
		switch {
		case g.PromptLogits != nil:
			want = denseRef(g.PromptLogits[pos])
		case pos == len(ids)-1:
			want = denseRef(g.LastLogits)
		default:
			want = map[int]float32{}
			for _, p := range g.PromptTop10[pos] {
				want[int(p[0])] = float32(p[1])
			}
		}
		maxAbs, maxDiff := 0.0, 0.0
		for id, w := range want {
			maxAbs = math.Max(maxAbs, math.Abs(float64(w)))
			maxDiff = math.Max(maxDiff, math.Abs(float64(row[id]-w)))
		}
		if maxDiff > rel*maxAbs {
			t.Errorf("position %d: max |diff| %.5g > %.0e x max |logit| %.5g", pos, maxDiff, rel, maxAbs)
		}
		if argmax(row) == int(g.PromptTop10[pos][0][0]) {
			sameArgmax++
		}
	}
	if frac := float64(sameArgmax) / float64(len(ids)); frac < 0.95 {
		t.Errorf("same argmax at %.0f%% of positions, want >= 95%%", 100*frac)
	}
	// Every file's greedy continuation, token for token: the random-weight
	// models' flat distributions make it a fine test of the one-token
	// kernels (tiny-BF16 diverged at its 4th token before the decode
	// kernel took ggml_vec_dot_bf16's order).
	if got := greedy(t, m, ids, len(g.GreedyTokens)); !equalIDs(got, g.GreedyTokens) {
		t.Errorf("greedy continuation\n got %v\nwant %v", got, g.GreedyTokens)
	}
}

// greedy feeds back the argmax n times (stopping after an end-of-generation
// token, as the golden files do).
func greedy(t testing.TB, m *Model, prompt []int32, n int) []int32 {
	m.Reset()
	logits, err := m.Eval(prompt, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for len(out) < n {
		id := int32(argmax(logits))
		out = append(out, id)
		if m.Tokenizer.IsEOG(id) {
			break
		}
		if logits, err = m.Eval([]int32{id}, false); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func denseRef(row []float32) map[int]float32 {
	m := make(map[int]float32, len(row))
	for i, v := range row {
		m[i] = v
	}
	return m
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
