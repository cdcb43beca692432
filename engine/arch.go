package engine

import (
	"fmt"
	"sort"
	"strings"
)

// RopeStyle says which dimensions RoPE rotates together.
type RopeStyle int

const (
	// RopeNormal rotates adjacent pairs (x[2i], x[2i+1]): llama GGUF files
	// store Wq/Wk permuted for it.
	RopeNormal RopeStyle = iota
	// RopeNeoX rotates halves (x[i], x[i+d/2]): qwen2, qwen3.
	RopeNeoX
)

// Arch describes one model architecture: everything that differs between the
// decoder-only transformers gollm runs is data here, so the forward pass has
// no switch on the architecture name.
type Arch struct {
	Name string
	Rope RopeStyle
	// Required lists per-layer tensors (suffixes after "blk.N.") this
	// architecture must have beyond the llama set. Optional tensors (biases,
	// q/k norms) are used whenever a file has them.
	Required []string
}

var archs = map[string]*Arch{}

// Register adds an architecture; each arch_*.go file calls it from init.
func Register(a Arch) {
	if _, dup := archs[a.Name]; dup {
		panic("engine: architecture registered twice: " + a.Name)
	}
	archs[a.Name] = &a
}

// LookupArch returns the registered architecture name, or an error listing
// the supported ones.
func LookupArch(name string) (*Arch, error) {
	if a, ok := archs[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("%w %q (supported: %s)", ErrUnknownArch, name, strings.Join(SupportedArchs(), ", "))
}

// SupportedArchs returns the registered architecture names, sorted.
func SupportedArchs() []string {
	names := make([]string, 0, len(archs))
	for n := range archs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
