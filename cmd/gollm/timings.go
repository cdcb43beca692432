package main

import (
	"os"

	"github.com/gollm/gollm/bench"
	"github.com/gollm/gollm/engine"
)

// generateTimings is the --timings report of a generate run, or nil when
// it was not asked for.
func (g *generateFlags) generateTimings(m *engine.Model, r *engine.Result) *bench.Timings {
	if !g.timings {
		return nil
	}
	return bench.GenerateTimings(m, r)
}

// printTimings writes the --timings tables to stderr, after the summary.
func printTimings(t *bench.Timings) error {
	if t == nil {
		return nil
	}
	os.Stderr.WriteString("\n")
	return bench.WriteTimings(os.Stderr, t)
}
