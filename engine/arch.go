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
	// RopeNeoX rotates halves (x[i], x[i+d/2]): qwen2, qwen3, gemma, phi3.
	RopeNeoX
)

// Arch is one model family: its name (general.architecture) and the
// function that reads its hyper-parameters and tensors into a forward pass.
// Each family is one arch_*.go file that calls Register from init; it
// builds its pass from the shared blocks (blocks.go, moe.go), so adding a
// family touches no other.
type Arch struct {
	Name string
	// load reads the family's layers (l records every matrix it loads, in
	// forward order: that list feeds the packer, the byte counts and the
	// timers) and returns its forward pass.
	load func(l *loader, c *Config, env loadEnv) (family, error)
	// describe, if set, lists the family's particulars for Describe
	// (reading metadata only).
	describe func(l *loader, c *Config) []string
}

// family is a loaded architecture: its layers and its forward pass.
type family interface {
	// forward runs one pass: see Model.forward.
	forward(m *Model, phase Phase, p *pass) []float32
}

// loadEnv is what a family needs to know about the run besides the file:
// the context window (RoPE tables) and the batch (scratch buffers).
type loadEnv struct {
	ctx, batch int
}

var archs = map[string]*Arch{}

// register adds an architecture; each arch_*.go file calls it from init.
func register(a Arch) {
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
