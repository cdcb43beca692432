// Package synth writes random-weight GGUF models of real model shapes, so
// that anyone can measure gollm on their machine with nothing to download.
// The files go through the same GGUF writer and quantizers as real ones, and
// each tensor gets the type llama-quantize would give it in the chosen mix.
package synth

import (
	"fmt"
	"sort"
	"strings"
)

// Shape is a model architecture and its hyper-parameters.
type Shape struct {
	Name       string
	Arch       string // general.architecture
	Dim        int
	Layers     int
	Heads      int
	KVHeads    int
	HeadDim    int // 0: Dim/Heads
	FFN        int
	Vocab      int
	Context    int
	RopeBase   float32
	NormEps    float32
	Tied       bool // no output.weight: the embedding is reused
	QKVBias    bool // qwen2
	QKNorm     bool // qwen3
	ParamsNote string

	// The other families' hyper-parameters (archs.go).
	Window        int     // gemma: attention.sliding_window
	WindowPattern int     // gemma: attention.sliding_window_pattern
	LocalRopeBase float32 // gemma3: rope.freq_base_swa
	AttnSoftcap   float32 // gemma2: attn_logit_softcapping
	FinalSoftcap  float32 // gemma2: final_logit_softcapping
	OrigContext   int     // phi3: rope.scaling.original_context_length, with rope factors
	Experts       int     // qwen3moe: expert_count
	ExpertsUsed   int     // qwen3moe: expert_used_count
	ExpertFFN     int     // qwen3moe: expert_feed_forward_length
	SharedFFN     int     // qwen2moe: expert_shared_feed_forward_length
}

// headDim is the per-head size.
func (s Shape) headDim() int {
	if s.HeadDim > 0 {
		return s.HeadDim
	}
	return s.Dim / s.Heads
}

// Presets are real model shapes (weights random).
var Presets = map[string]Shape{
	"tinyllama-1.1b": {Name: "tinyllama-1.1b", Arch: "llama", Dim: 2048, Layers: 22, Heads: 32, KVHeads: 4, FFN: 5632,
		Vocab: 32000, Context: 2048, RopeBase: 10000, NormEps: 1e-5, ParamsNote: "TinyLlama 1.1B"},
	"llama3.2-1b": {Name: "llama3.2-1b", Arch: "llama", Dim: 2048, Layers: 16, Heads: 32, KVHeads: 8, FFN: 8192,
		Vocab: 128256, Context: 131072, RopeBase: 500000, NormEps: 1e-5, Tied: true, ParamsNote: "Llama 3.2 1B"},
	"qwen2.5-0.5b": {Name: "qwen2.5-0.5b", Arch: "qwen2", Dim: 896, Layers: 24, Heads: 14, KVHeads: 2, FFN: 4864,
		Vocab: 151936, Context: 32768, RopeBase: 1000000, NormEps: 1e-6, Tied: true, QKVBias: true, ParamsNote: "Qwen2.5 0.5B"},
	"qwen3-0.6b": {Name: "qwen3-0.6b", Arch: "qwen3", Dim: 1024, Layers: 28, Heads: 16, KVHeads: 8, HeadDim: 128, FFN: 3072,
		Vocab: 151936, Context: 40960, RopeBase: 1000000, NormEps: 1e-6, Tied: true, QKNorm: true, ParamsNote: "Qwen3 0.6B"},
	"smollm2-135m": {Name: "smollm2-135m", Arch: "llama", Dim: 576, Layers: 30, Heads: 9, KVHeads: 3, FFN: 1536,
		Vocab: 49152, Context: 8192, RopeBase: 100000, NormEps: 1e-5, Tied: true, ParamsNote: "SmolLM2 135M"},
	"llama2-7b": {Name: "llama2-7b", Arch: "llama", Dim: 4096, Layers: 32, Heads: 32, KVHeads: 32, FFN: 11008,
		Vocab: 32000, Context: 4096, RopeBase: 10000, NormEps: 1e-5, ParamsNote: "Llama 2 7B"},
	// tiny is for tests: a few hundred kB, every code path of the llama arch.
	"tiny": {Name: "tiny", Arch: "llama", Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		Vocab: 1024, Context: 512, RopeBase: 10000, NormEps: 1e-5, ParamsNote: "test shape"},
}

// Lookup returns the preset called name, or an error listing them.
func Lookup(name string) (Shape, error) {
	if s, ok := Presets[strings.ToLower(name)]; ok {
		return s, nil
	}
	return Shape{}, fmt.Errorf("synth: unknown preset %q (have: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the presets, sorted.
func Names() []string {
	var n []string
	for k := range Presets {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Params is the number of weights of the shape (every expert's).
func (s Shape) Params() int64 {
	var n int64
	for _, t := range s.tensors() {
		c := int64(1)
		for _, d := range t.dims {
			c *= int64(d)
		}
		n += c
	}
	return n
}
