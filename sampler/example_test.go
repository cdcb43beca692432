package sampler_test

import (
	"fmt"
	"log"

	"github.com/gollm/gollm/sampler"
)

// The zero Config is greedy sampling with every other stage off: the
// sampler returns the token with the highest logit.
func Example() {
	s, err := sampler.New(sampler.Config{}, 4)
	if err != nil {
		log.Fatal(err)
	}
	logits := []float32{0.5, 2.25, -1, 2}
	tok := s.Sample(logits)
	s.Accept(tok) // the penalties (off here) see the tokens actually used
	fmt.Println(tok, s.Config().Greedy())
	// Output: 1 true
}

// llama.cpp's defaults (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05)
// with a fixed seed draw the same tokens on every run (those llama.cpp's
// chain draws with that seed).
func ExampleDefaultConfig() {
	cfg := sampler.DefaultConfig()
	cfg.Seed = 42
	draw := func() []int32 {
		s, err := sampler.New(cfg, 4)
		if err != nil {
			log.Fatal(err)
		}
		var toks []int32
		for range 8 {
			t := s.Sample([]float32{1, 1.2, 0.9, -5})
			s.Accept(t)
			toks = append(toks, t)
		}
		return toks
	}
	a, b := draw(), draw()
	fmt.Println(a, fmt.Sprint(a) == fmt.Sprint(b))
	// Output: [2 1 2 0 0 1 0 1] true
}

// A repeat penalty makes an accepted token less likely: here it turns the
// greedy choice from token 1 to token 3 once token 1 was used.
func ExampleConfig_penalties() {
	s, err := sampler.New(sampler.Config{RepeatPenalty: 1.5, PenaltyLastN: 64}, 4)
	if err != nil {
		log.Fatal(err)
	}
	logits := []float32{0, 3, 1, 2.5}
	first := s.Sample(logits)
	s.Accept(first)
	fmt.Println(first, s.Sample(logits))
	// Output: 1 3
}

// Stop strings may span tokens: the matcher holds back text that could
// still become one.
func ExampleStopMatcher() {
	m := sampler.NewStopMatcher([]string{"\n\n"})
	for _, piece := range []string{"Once", " upon\n", "\nIn"} {
		emit, stopped := m.Push(piece)
		fmt.Printf("%q %v\n", emit, stopped)
	}
	// Output:
	// "Once" false
	// " upon" false
	// "" true
}
