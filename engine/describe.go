package engine

import (
	"fmt"

	"github.com/gollm/gollm/gguf"
)

// Describe reads a file's architecture and hyper-parameters (no weights)
// and returns them as short lines for a human: the shape every family has,
// then what is particular to the family (sliding windows, soft-caps,
// experts, fused matrices). An unsupported architecture or impossible
// hyper-parameters are an error.
func Describe(f *gguf.File) ([]string, error) {
	a, err := LookupArch(f.Architecture())
	if err != nil {
		return nil, err
	}
	c, err := readConfig(f, a.Name)
	if err != nil {
		return nil, err
	}
	lines := []string{
		fmt.Sprintf("%d layers, embedding %d, %d heads (%d KV heads) of %d, FFN %d, vocab %d, trained context %d",
			c.Layers, c.Dim, c.Heads, c.KVHeads, c.HeadDim, c.FFN, c.Vocab, c.ContextLen),
		fmt.Sprintf("RoPE base %g on %d dims, norm eps %g", c.RopeBase, c.RopeDim, c.NormEps),
	}
	if a.describe != nil {
		lines = append(lines, a.describe(&loader{f: f}, &c)...)
	}
	return lines, nil
}
