// Package sampler turns a row of logits into the next token the way
// llama.cpp's common sampler chain does (penalties -> top-k -> top-p -> min-p
// -> temperature -> dist), and matches stop strings in streamed text.
//
// The sampler owns its random generator (an MT19937 seeded like llama.cpp's
// dist sampler, so a given seed draws the same uniform numbers as
// `llama-cli --seed N`), keeps all buffers sized to the vocabulary from New
// on, and never allocates or mutates the caller's logits while sampling.
package sampler

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalidConfig is wrapped by every error New returns for a bad Config or
// vocabulary size.
var ErrInvalidConfig = errors.New("sampler: invalid config")

// DefaultHistoryCap is the penalty window used for PenaltyLastN == -1 when
// Config.HistoryCap is not set. llama.cpp uses the context size there; the
// engine should set HistoryCap to its context length.
const DefaultHistoryCap = 4096

// Config selects the samplers of the chain. The zero value of every field
// turns its stage off, so Config{} is greedy sampling with no penalties;
// DefaultConfig gives llama.cpp's defaults.
type Config struct {
	Temperature float32 // <= 0: greedy (argmax after penalties, ties -> lowest id)
	TopK        int     // 0: off; >= 0
	TopP        float32 // 0 or 1: off; in [0, 1]
	MinP        float32 // 0: off; in [0, 1]

	RepeatPenalty    float32 // 0 or 1: off; >= 0
	PresencePenalty  float32 // 0: off
	FrequencyPenalty float32 // 0: off

	// PenaltyLastN is how many of the most recently accepted tokens the
	// penalties look at: 0 turns them off, -1 means HistoryCap tokens.
	PenaltyLastN int
	// HistoryCap bounds the window for PenaltyLastN == -1 (llama.cpp uses the
	// context size). <= 0 means DefaultHistoryCap.
	HistoryCap int

	// Seed seeds the sampler's own MT19937. Seeds below 2^32 give exactly the
	// random stream of llama.cpp's dist sampler with that seed; larger seeds
	// use all 64 bits (MT19937 init_by_array) so distinct seeds never collide.
	Seed uint64
}

// DefaultConfig returns llama.cpp's common defaults: temperature 0.8, top-k
// 40, top-p 0.95, min-p 0.05, repeat penalty 1.0 (off), last-n 64.
func DefaultConfig() Config {
	return Config{
		Temperature:   0.8,
		TopK:          40,
		TopP:          0.95,
		MinP:          0.05,
		RepeatPenalty: 1.0,
		PenaltyLastN:  64,
	}
}

// Greedy reports whether the config picks the argmax without drawing.
func (c Config) Greedy() bool { return c.Temperature <= 0 }

// Validate reports the first problem with c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
	}
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	switch {
	case !finite(c.Temperature):
		return bad("temperature %v is not finite", c.Temperature)
	case c.TopK < 0:
		return bad("top-k %d must be >= 0 (0 turns it off)", c.TopK)
	case math.IsNaN(float64(c.TopP)) || c.TopP < 0 || c.TopP > 1:
		return bad("top-p %v must be in [0, 1] (0 and 1 turn it off)", c.TopP)
	case math.IsNaN(float64(c.MinP)) || c.MinP < 0 || c.MinP > 1:
		return bad("min-p %v must be in [0, 1] (0 turns it off)", c.MinP)
	case !finite(c.RepeatPenalty) || c.RepeatPenalty < 0:
		// A negative factor would flip logits; 0 is the zero value and
		// means off, like 1.
		return bad("repeat penalty %v must be finite and >= 0 (0 and 1 turn it off)", c.RepeatPenalty)
	case !finite(c.PresencePenalty) || c.PresencePenalty < 0:
		return bad("presence penalty %v must be finite and >= 0", c.PresencePenalty)
	case !finite(c.FrequencyPenalty) || c.FrequencyPenalty < 0:
		return bad("frequency penalty %v must be finite and >= 0", c.FrequencyPenalty)
	case c.PenaltyLastN < -1:
		return bad("penalty last-n %d must be >= -1", c.PenaltyLastN)
	}
	return nil
}

// window returns the number of recent tokens the penalties look at.
func (c Config) window() int {
	if c.PenaltyLastN == -1 {
		if c.HistoryCap > 0 {
			return c.HistoryCap
		}
		return DefaultHistoryCap
	}
	return c.PenaltyLastN
}
