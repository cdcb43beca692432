package bench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Test is one llama-bench style test: prompt processing of NPrompt tokens,
// generation of NGen tokens, or both (pg), after NDepth tokens already in the
// context.
type Test struct {
	NPrompt int `json:"n_prompt"`
	NGen    int `json:"n_gen"`
	NDepth  int `json:"n_depth"`
	// Parallel decodes this many independent sequences together (one pass
	// over the weights serves all of them); tok/s then counts every
	// sequence's tokens (system throughput). Only for generation tests.
	Parallel int `json:"n_parallel,omitempty"`
}

// Seqs is the number of sequences a run decodes at once (at least 1).
func (t Test) Seqs() int { return max(1, t.Parallel) }

// ErrBadTest is returned for a test with nothing to measure or negative sizes.
var ErrBadTest = errors.New("bench: bad test")

// Validate rejects negative sizes and tests that measure nothing.
func (t Test) Validate() error {
	if t.NPrompt < 0 || t.NGen < 0 || t.NDepth < 0 {
		return fmt.Errorf("%w: negative size in %+v", ErrBadTest, t)
	}
	if t.NPrompt == 0 && t.NGen == 0 {
		return fmt.Errorf("%w: no prompt and no generated tokens", ErrBadTest)
	}
	if t.Parallel > 1 && !t.IsGen() {
		return fmt.Errorf("%w: --parallel applies to generation tests (tg), not %s", ErrBadTest, t.Name())
	}
	return nil
}

// Name is llama-bench's test label: "pp512", "tg128", "pp512+tg128", with
// "@d2048" appended for a depth.
func (t Test) Name() string {
	var parts []string
	if t.NPrompt > 0 {
		parts = append(parts, "pp"+strconv.Itoa(t.NPrompt))
	}
	if t.NGen > 0 {
		parts = append(parts, "tg"+strconv.Itoa(t.NGen))
	}
	s := strings.Join(parts, "+")
	if t.NDepth > 0 {
		s += "@d" + strconv.Itoa(t.NDepth)
	}
	if t.Parallel > 1 {
		s += "x" + strconv.Itoa(t.Parallel)
	}
	return s
}

// Tokens is the tokens a run of the test is credited with (tok/s numerator).
func (t Test) Tokens() int { return t.NPrompt + t.NGen*t.Seqs() }

// IsGen reports a pure generation test (no prompt), the one whose rate is
// the decode rate and whose weights bandwidth is meaningful.
func (t Test) IsGen() bool { return t.NPrompt == 0 && t.NGen > 0 }

// Context is the context window a run needs: the depth, the prompt, the
// generated tokens, and for a pure generation test without depth the one
// untimed token evaluated before the timed steps.
func (t Test) Context() int {
	n := t.NDepth + t.NPrompt + t.NGen
	if t.IsGen() && t.NDepth == 0 {
		n++
	}
	return n
}

// KVPositions is the cache positions a run needs over all its sequences
// (forks share the depth's blocks, but a partial last block is copied).
func (t Test) KVPositions(blockLen int) int {
	return t.Context() + (t.Seqs()-1)*(t.NGen+1+blockLen)
}

// Tests expands the size lists like llama-bench: each pp size, each tg size,
// each (pp, tg) pair, all at each depth. Zero sizes are skipped (-p 0
// disables pp tests).
func Tests(prompts, gens []int, pairs [][2]int, depths []int) []Test {
	if len(depths) == 0 {
		depths = []int{0}
	}
	var out []Test
	for _, d := range depths {
		for _, p := range prompts {
			if p > 0 {
				out = append(out, Test{NPrompt: p, NDepth: d})
			}
		}
		for _, n := range gens {
			if n > 0 {
				out = append(out, Test{NGen: n, NDepth: d})
			}
		}
		for _, pg := range pairs {
			if pg[0] > 0 || pg[1] > 0 {
				out = append(out, Test{NPrompt: pg[0], NGen: pg[1], NDepth: d})
			}
		}
	}
	return out
}
