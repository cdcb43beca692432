package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gollm/gollm/synth"
)

// ensureSynthetic returns the cached synthetic models of shape in each type,
// writing the missing ones (with a progress bar on a terminal) and saying
// where they are kept.
func ensureSynthetic(ctx context.Context, shape synth.Shape, types []string, seed uint64, stderr io.Writer) ([]benchModel, error) {
	var out []benchModel
	for _, typ := range types {
		opt := synth.Options{FileType: typ, Seed: seed}
		name := shape.Name + "-" + strings.ToUpper(typ)
		path, err := synth.CachePathFor(shape, opt)
		if err != nil {
			return nil, usageErr("--type: %v", err)
		}
		if _, err := os.Stat(path); err != nil {
			fmt.Fprintf(stderr, "bench: writing synthetic %s %s to %s (once; `gollm cache ls|rm` lists and removes cached models)\n",
				shape.Name, strings.ToUpper(typ), path)
			progress, finish := progressBar("synth " + name)
			opt.Progress = progress
			guardTemp(path)
			_, _, err = synth.EnsureContext(ctx, shape, opt)
			finish()
			if err != nil {
				return nil, writeErr(fmt.Errorf("synthetic %s %s: %w", shape.Name, typ, err), path)
			}
		} else {
			fmt.Fprintf(stderr, "bench: synthetic %s %s cached in %s\n", shape.Name, strings.ToUpper(typ), path)
		}
		out = append(out, benchModel{path: path, name: name})
	}
	return out, nil
}
