package tokenizer

import (
	"github.com/gollm/gollm/internal/shared"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// perfText builds about n bytes of varied text, deterministically: the
// sharedRoot story, llama.cpp's tokenizer test inputs, and random words
// (letters, digits, punctuation, accented and CJK characters, emoji), so
// a per-call word cache can not make the work trivial.
func perfText(t testing.TB, n int) string {
	sharedRoot := shared.Dir(t)
	var seeds []string
	if b, err := os.ReadFile(filepath.Join(sharedRoot, "text", "story.txt")); err == nil {
		seeds = append(seeds, string(b))
	}
	if b, err := os.ReadFile(filepath.Join(sharedRoot, "vocab", "ggml-vocab-llama-spm.gguf.inp")); err == nil {
		seeds = append(seeds, strings.ReplaceAll(string(b), "__ggml_vocab_test__", ""))
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?'\"()-éèüöß中文字日本語😀✅нещо")
	var sb strings.Builder
	for sb.Len() < n {
		if len(seeds) > 0 && r.IntN(4) == 0 {
			s := seeds[r.IntN(len(seeds))]
			a := r.IntN(len(s))
			b := min(len(s), a+200+r.IntN(800))
			sb.WriteString(s[a:b])
			continue
		}
		for w := 0; w < 50; w++ {
			l := 1 + r.IntN(9)
			for i := 0; i < l; i++ {
				sb.WriteRune(alphabet[r.IntN(len(alphabet))])
			}
			sb.WriteByte(" \n "[r.IntN(3)])
		}
	}
	return sb.String()
}

// TestEncodeSpeed: encoding 1 MB must stay well under a second; fail past
// 2 s of CPU time (not under the race detector, which slows everything
// ~10x).
func TestEncodeSpeed(t *testing.T) {
	if raceEnabled {
		t.Skip("timing is meaningless under -race")
	}
	text := perfText(t, 1<<20)
	for _, name := range []string{"llama-spm", "llama-bpe", "qwen2"} {
		tk := loadTokenizer(t, filepath.Join("vocab", "ggml-vocab-"+name+".gguf"))
		var ids []int32
		el := measure(func() { ids = tk.Encode(text, true, false) })
		t.Logf("%s: %d bytes -> %d tokens in %v", name, len(text), len(ids), el)
		if el > 2*time.Second {
			t.Errorf("%s: encoding 1 MB took %v (limit 2s)", name, el)
		}
	}
}

func benchEncode(b *testing.B, name string) {
	tk := loadTokenizer(b, filepath.Join("vocab", "ggml-vocab-"+name+".gguf"))
	text := perfText(b, 1<<20)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		tk.Encode(text, true, false)
	}
}

func BenchmarkEncodeSPM(b *testing.B)      { benchEncode(b, "llama-spm") }
func BenchmarkEncodeLlama3(b *testing.B)   { benchEncode(b, "llama-bpe") }
func BenchmarkEncodeQwen2(b *testing.B)    { benchEncode(b, "qwen2") }
func BenchmarkEncodeGPT2(b *testing.B)     { benchEncode(b, "gpt-2") }
func BenchmarkEncodeDeepseek(b *testing.B) { benchEncode(b, "deepseek-coder") }
