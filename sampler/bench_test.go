package sampler

import (
	"math/rand/v2"
	"testing"
)

// A Qwen2-sized vocabulary: the top-k selection must keep Sample well below
// a millisecond, since it runs once per generated token.
const benchVocab = 152064

func benchSample(b *testing.B, cfg Config) {
	r := rand.New(rand.NewPCG(41, 42))
	logits := randomLogits(r, benchVocab, 3)
	s, err := New(cfg, benchVocab)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 64 {
		s.Accept(int32(i * 997 % benchVocab))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Accept(s.Sample(logits))
	}
}

func BenchmarkSampleDefault152k(b *testing.B) { benchSample(b, DefaultConfig()) }

func BenchmarkSamplePenalties152k(b *testing.B) {
	cfg := DefaultConfig()
	cfg.RepeatPenalty, cfg.FrequencyPenalty, cfg.PresencePenalty = 1.1, 0.1, 0.1
	benchSample(b, cfg)
}

func BenchmarkSampleGreedy152k(b *testing.B) {
	benchSample(b, Config{Temperature: 0, RepeatPenalty: 1})
}

// No top-k: top-p has to work on the whole vocabulary.
func BenchmarkSampleTopPOnly152k(b *testing.B) {
	benchSample(b, Config{Temperature: 0.8, TopP: 0.95, RepeatPenalty: 1})
}

func BenchmarkSampleTempOnly152k(b *testing.B) {
	benchSample(b, Config{Temperature: 1, TopP: 1, RepeatPenalty: 1})
}
