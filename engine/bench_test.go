package engine

import (
	"github.com/gollm/gollm/internal/shared"
	"path/filepath"
	"testing"
)

// BenchmarkDecodeStories260K times one decode step of the stories260K model
// (skipped without ../shared).
func BenchmarkDecodeStories260K(b *testing.B) {
	sharedRoot := filepath.Dir(shared.Dir(b, "golden"))
	m, err := Load(filepath.Join(sharedRoot, "models", "stories260K.gguf"), Options{Threads: 1, Context: 512})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	tok := []int32{1}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m.Pos() >= 256 {
			m.Reset()
		}
		if _, err := m.Eval(tok, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tok/s")
}
