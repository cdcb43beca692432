package tokenizer

import (
	"github.com/gollm/gollm/internal/shared"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gollm/gollm/gguf"
)

var (
	loadMu    sync.Mutex
	loadCache = map[string]*Tokenizer{}
)

// loadTokenizer opens a GGUF file under ../sharedRoot and builds its tokenizer
// (cached across tests: the big vocabularies take a moment).
func loadTokenizer(t testing.TB, rel string) *Tokenizer {
	t.Helper()
	path := filepath.Join(filepath.Dir(shared.Dir(t, "vocab")), rel)
	loadMu.Lock()
	defer loadMu.Unlock()
	if tk, ok := loadCache[path]; ok {
		return tk
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", rel, err)
	}
	defer f.Close()
	tk, err := FromGGUF(f)
	if err != nil {
		t.Fatalf("tokenizer of %s: %v", rel, err)
	}
	loadCache[path] = tk
	return tk
}

type vocabCase struct {
	text string
	ids  []int32
}

// readVocabCases parses a .inp/.out pair as llama.cpp's test-tokenizer-0
// does: inputs separated by "\n__ggml_vocab_test__\n" (the trailing
// separator ends the last case), outputs one line of space-separated ids per
// case.
func readVocabCases(t testing.TB, base string) []vocabCase {
	t.Helper()
	inp, err := os.ReadFile(base + ".inp")
	if err != nil {
		t.Fatal(err)
	}
	outp, err := os.ReadFile(base + ".out")
	if err != nil {
		t.Fatal(err)
	}
	const sep = "\n__ggml_vocab_test__\n"
	var texts []string
	raw := string(inp)
	for pos := 0; pos < len(raw); {
		k := strings.Index(raw[pos:], sep)
		if k < 0 {
			texts = append(texts, raw[pos:])
			break
		}
		texts = append(texts, raw[pos:pos+k])
		pos += k + len(sep)
	}
	lines := strings.Split(strings.TrimSuffix(string(outp), "\n"), "\n")
	if len(lines) != len(texts) {
		t.Fatalf("%s: %d inputs but %d outputs", base, len(texts), len(lines))
	}
	cases := make([]vocabCase, len(texts))
	for i, line := range lines {
		cases[i].text = texts[i]
		for _, f := range strings.Fields(line) {
			v, err := strconv.ParseInt(f, 10, 32)
			if err != nil {
				t.Fatalf("%s line %d: %v", base, i+1, err)
			}
			cases[i].ids = append(cases[i].ids, int32(v))
		}
	}
	return cases
}

var vocabNames = []string{"llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2", "deepseek-coder", "falcon"}

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
