package quantize

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gollm/gollm/ggml"
)

// This file reproduces llama-quantize's per-tensor type choice
// (llama_tensor_get_type in llama.cpp's src/llama-quant.cpp, without an
// importance matrix) for the file types gollm supports; the user's
// overrides are in overrides.go. Branches that only concern the IQ* / TQ* /
// MXFP4 mixes are left out, since those mixes cannot be requested here.

// ErrNoFallback is returned when a tensor's row length is not a multiple of
// the chosen type's block size and llama.cpp defines no fallback type for it
// (llama-quantize fails the same way, e.g. Q8_0 with rows of 48 elements).
var ErrNoFallback = errors.New("no fallback type for this row length")

// ErrLayer is returned for a MoE model whose ffn tensor names carry no valid
// "blk.N." layer number: llama-quantize needs it to place the tensor.
var ErrLayer = errors.New("cannot determine the layer of a tensor")

type category int

const (
	catOther category = iota
	catTokenEmbd
	catAttnQ
	catAttnV
	catAttnK
	catAttnQKV
	catAttnKVB
	catAttnOutput
	catFFNUp
	catFFNGate
	catFFNDown
	catOutput
)

// categorize mirrors tensor_get_category: the first matching test wins, so
// "ffn_up" matches ffn_up_exps and ffn_up_shexp too.
func categorize(name string) category {
	switch {
	case name == "output.weight":
		return catOutput
	case name == "token_embd.weight" || name == "per_layer_token_embd.weight":
		return catTokenEmbd
	case strings.Contains(name, "attn_qkv.weight"):
		return catAttnQKV
	case strings.Contains(name, "attn_kv_b.weight"):
		return catAttnKVB
	case strings.Contains(name, "attn_v.weight"):
		return catAttnV
	case strings.Contains(name, "attn_k.weight"):
		return catAttnK
	case strings.Contains(name, "attn_q.weight"):
		return catAttnQ
	case strings.Contains(name, "attn_output.weight"):
		return catAttnOutput
	case strings.Contains(name, "ffn_up"):
		return catFFNUp
	case strings.Contains(name, "ffn_gate"):
		return catFFNGate
	case strings.Contains(name, "ffn_down"):
		return catFFNDown
	}
	return catOther
}

// isAttnV: llama.cpp treats fused qkv and MLA kv_b like attn_v (they hold
// the values, which are the most quantization-sensitive). Because this test
// comes first in its rule chain, attn_qkv gets the attn_v upgrades.
func (c category) isAttnV() bool {
	return c == catAttnV || c == catAttnQKV || c == catAttnKVB
}

// nDims is ggml_n_dims: trailing dimensions of 1 do not count, so a
// [4096, 1] tensor is 1-D and stays unquantized.
func nDims(dims []uint64) int {
	for i := len(dims) - 1; i >= 1; i-- {
		if dims[i] != 1 {
			return i + 1
		}
	}
	return 1
}

// notQuantized lists name fragments llama-quantize never quantizes: small
// or precision-critical tensors of various architectures.
var notQuantized = []string{
	"_norm.weight",
	"ffn_gate_inp.weight", // expert router
	"ffn_gate_tid2eid.weight",
	"altup", "laurel", "per_layer_model_proj",
	"ssm_conv1d", "shortconv.conv.weight",
	"indexer.k_proj.weight", "indexer.q_proj.weight",
	"time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight", "time_mix_w2.weight",
	"time_mix_v0.weight", "time_mix_v1.weight", "time_mix_v2.weight",
	"time_mix_a0.weight", "time_mix_a1.weight", "time_mix_a2.weight",
	"time_mix_g1.weight", "time_mix_g2.weight",
	"time_mix_decay_w1.weight", "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight",
	"attn_rel_b.weight",
	".position_embd", "sam.pos_embd", "sam.neck.", "sam.net_", ".rel_pos", ".patch_embd", ".patch_merger",
	"a.rvq.codebook", "mm.a.code_embd",
}

// Quantizable reports whether llama-quantize converts the tensor at all
// (tensor_allows_quantization): only weights of 2 or more dimensions whose
// name ends in "weight", minus norms, routers, positional embeddings and a
// list of small special tensors. Everything else is copied as it is.
func Quantizable(name string, dims []uint64) bool {
	if nDims(dims) < 2 || !strings.HasSuffix(name, "weight") {
		return false
	}
	if name == "position_embd.weight" || name == "token_types.weight" {
		return false
	}
	for _, s := range notQuantized {
		if strings.Contains(name, s) {
			return false
		}
	}
	return true
}

// Counters is the running state of the type rules (llama.cpp's
// quantize_state_impl): some choices depend on how many attn_v / ffn_down
// tensors came before, so ChooseType must see the tensors in llama-quantize's
// order (see Order) and share one Counters for a whole model.
type Counters struct {
	nAttnV  int  // attn_v-like tensors in the model
	nLayer  int  // n_ffn_down = n_ffn_gate = n_ffn_up = block_count
	tied    bool // no output.weight: token_embd doubles as the output matrix
	iAttnV  int
	iFFNDwn int
	iFFNGt  int
	iFFNUp  int

	// Fallbacks counts tensors whose row length forced a fallback type.
	Fallbacks int
}

// NewCounters prepares the rule state for a model with these tensor names.
func NewCounters(mi ModelInfo, names []string) *Counters {
	c := &Counters{nLayer: mi.Layers, tied: true}
	for _, n := range names {
		cat := categorize(n)
		if cat.isAttnV() {
			c.nAttnV++
		}
		if cat == catOutput {
			c.tied = false
		}
	}
	return c
}

// useMoreBits picks the layers the _M mixes upgrade: the first and last
// eighth, and every third layer in between.
func useMoreBits(i, n int) bool {
	return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2
}

func blockSize(t ggml.Type) uint64 {
	l, ok := ggml.LayoutOf(t)
	if !ok {
		return 1
	}
	return uint64(l.BlockSize)
}

// isQuantized is ggml_is_quantized for the types that matter here: block
// formats, as opposed to the float formats.
func isQuantized(t ggml.Type) bool { return blockSize(t) > 1 }

// ChooseType returns the type llama-quantize gives the tensor name of shape
// dims and current type from when making a file of type ft. Tensors it does
// not quantize keep from. Call it in Order, with one Counters per model.
func ChooseType(ft FileType, mi ModelInfo, name string, dims []uint64, from ggml.Type, c *Counters) (ggml.Type, error) {
	return chooseType(ft, mi, name, dims, from, c, &Overrides{})
}

// chooseType is ChooseType with the user's overrides
// (llama_tensor_get_type; see Overrides for the precedence).
func chooseType(ft FileType, mi ModelInfo, name string, dims []uint64, from ggml.Type, c *Counters, ov *Overrides) (ggml.Type, error) {
	def, ok := ft.DefaultType()
	if !ok {
		return 0, fmt.Errorf("%w: %v", ErrUnknownFileType, ft)
	}
	if !Quantizable(name, dims) || (ov.LeaveOutput && name == "output.weight") {
		return from, nil
	}
	cat := categorize(name)
	if ov.TokenEmbeddingType != nil && cat == catTokenEmbd {
		return *ov.TokenEmbeddingType, nil
	}
	if ov.OutputType != nil && cat == catOutput {
		return *ov.OutputType, nil
	}
	if !isQuantized(def) {
		return def, nil // F32/F16/BF16: no mixes, no rules, no fallbacks
	}
	// A tensor a rule or Pure decides skips the mix rules altogether, so it
	// does not advance their attn_v / ffn_down counters either.
	t, manual := ov.manualType(name)
	if !manual {
		t = def
		if !ov.Pure {
			var err error
			if t, err = mixType(ft, mi, name, dims, def, c, ov); err != nil {
				return 0, err
			}
		}
	}
	return fallback(name, dims[0], t, c)
}

// TypeFor is ChooseType for a model whose weights are F32 (as a synthetic
// model generator has them). Where ChooseType fails it returns F32, which
// every shape can store.
func TypeFor(ft FileType, mi ModelInfo, name string, dims []uint64, counters *Counters) ggml.Type {
	t, err := ChooseType(ft, mi, name, dims, ggml.F32, counters)
	if err != nil {
		return ggml.F32
	}
	return t
}

// layerInfo is llama.cpp's layer_info: in dense models the running counter
// is the layer; in MoE models tensors of one kind are not consecutive, so
// the layer comes from the name.
func layerInfo(i, n int, name string, experts int) (int, int, error) {
	if experts <= 1 {
		return i, n, nil
	}
	l, ok := blkLayer(name)
	if !ok {
		return 0, 0, fmt.Errorf("%w: %s", ErrLayer, name)
	}
	if l < 0 || l >= n {
		return 0, 0, fmt.Errorf("%w: layer %d of %s is not in [0, %d)", ErrLayer, l, name, n)
	}
	return l, n, nil
}

// mixType applies the mix's upgrades (llama_tensor_get_type_impl).
func mixType(ft FileType, mi ModelInfo, name string, dims []uint64, t ggml.Type, c *Counters, ov *Overrides) (ggml.Type, error) {
	const falcon = "falcon"
	cat := categorize(name)
	gqa := mi.GQA()

	// The output matrix (or the token embeddings standing in for it) is the
	// most sensitive tensor: Q6_K unless the mix is already Q8_0.
	if cat == catOutput || (c.tied && cat == catTokenEmbd) {
		switch {
		case ov.OutputType != nil: // tied token_embd: the output's type
			return *ov.OutputType, nil
		case mi.Arch == falcon || dims[0]%blockSize(t) != 0:
			return ggml.Q8_0, nil
		case t != ggml.Q8_0:
			return ggml.Q6_K, nil
		}
		return t, nil
	}

	switch {
	case cat == catTokenEmbd:
		// only the IQ/TQ mixes change untied token embeddings
	case cat.isAttnV():
		switch ft {
		case MostlyQ2_K:
			t = ggml.Q3_K
			if gqa >= 4 {
				t = ggml.Q4_K
			}
		case MostlyQ3_K_M:
			t = ggml.Q4_K
			if c.iAttnV < 2 {
				t = ggml.Q5_K
			}
		case MostlyQ3_K_L:
			t = ggml.Q5_K
		case MostlyQ4_K_M, MostlyQ5_K_M:
			if useMoreBits(c.iAttnV, c.nAttnV) {
				t = ggml.Q6_K
			}
		case MostlyQ4_K_S:
			if c.iAttnV < 4 {
				t = ggml.Q5_K
			}
		}
		// 70B models share one attn_v among 8 heads: the tensor is small,
		// so more bits cost little.
		if mi.is70B() && (t == ggml.Q3_K || t == ggml.Q4_K) {
			t = ggml.Q5_K
		}
		if mi.Experts == 8 {
			t = ggml.Q8_0
		}
		c.iAttnV++
	case cat == catAttnK:
		if mi.Experts == 8 {
			t = ggml.Q8_0
		}
	case cat == catFFNDown:
		i, n, err := layerInfo(c.iFFNDwn, c.nLayer, name, mi.Experts)
		if err != nil {
			return 0, err
		}
		switch ft {
		case MostlyQ2_K:
			t = ggml.Q3_K
		case MostlyQ3_K_M:
			switch {
			case i < n/16:
				t = ggml.Q5_K
			case mi.Arch != falcon || useMoreBits(i, n):
				t = ggml.Q4_K
			default:
				t = ggml.Q3_K
			}
		case MostlyQ3_K_L:
			t = ggml.Q5_K
			if mi.Arch == falcon {
				t = ggml.Q4_K
			}
		case MostlyQ4_K_M:
			if mi.Arch == falcon {
				switch {
				case i < n/16:
					t = ggml.Q6_K
				case useMoreBits(i, n):
					t = ggml.Q5_K
				default:
					t = ggml.Q4_K
				}
			} else if useMoreBits(i, n) {
				t = ggml.Q6_K
			}
		case MostlyQ5_K_M:
			if useMoreBits(i, n) {
				t = ggml.Q6_K
			}
		case MostlyQ4_K_S:
			if mi.Arch != falcon && i < n/8 {
				t = ggml.Q5_K
			}
		}
		c.iFFNDwn++
	case cat == catAttnOutput:
		if mi.Arch != falcon {
			if mi.Experts == 8 {
				switch ft {
				case MostlyQ2_K, MostlyQ3_K_S, MostlyQ3_K_M, MostlyQ4_K_S, MostlyQ4_K_M:
					t = ggml.Q5_K
				}
			} else {
				switch ft {
				case MostlyQ2_K:
					t = ggml.Q3_K
				case MostlyQ3_K_M:
					t = ggml.Q4_K
				case MostlyQ3_K_L:
					t = ggml.Q5_K
				}
			}
		} else if ft == MostlyQ3_K_L {
			t = ggml.Q4_K
		}
	case cat == catFFNGate:
		// the layer only matters to IQ3_XS, but a MoE name without a layer
		// is still an error, as in llama.cpp
		if _, _, err := layerInfo(c.iFFNGt, c.nLayer, name, mi.Experts); err != nil {
			return 0, err
		}
		c.iFFNGt++
	case cat == catFFNUp:
		if _, _, err := layerInfo(c.iFFNUp, c.nLayer, name, mi.Experts); err != nil {
			return 0, err
		}
		c.iFFNUp++
	}
	return t, nil
}

// fallback replaces a type whose block does not divide the row length
// (tensor_type_fallback): the nearest 32-element format, or F16 when even
// that does not fit.
func fallback(name string, ncols uint64, t ggml.Type, c *Counters) (ggml.Type, error) {
	if ncols%blockSize(t) == 0 {
		return t, nil
	}
	c.Fallbacks++
	var r ggml.Type
	switch t {
	case ggml.Q2_K, ggml.Q3_K, ggml.TQ1_0, ggml.TQ2_0:
		r = ggml.Q4_0
	case ggml.Q4_K:
		r = ggml.Q5_0
	case ggml.Q5_K:
		r = ggml.Q5_1
	case ggml.Q6_K:
		r = ggml.Q8_0
	case ggml.IQ1_S, ggml.IQ1_M, ggml.IQ2_XXS, ggml.IQ2_XS, ggml.IQ2_S, ggml.IQ3_XXS, ggml.IQ3_S, ggml.IQ4_XS:
		r = ggml.IQ4_NL
	default:
		return 0, fmt.Errorf("%w: %s has rows of %d elements, not a multiple of the %v block size %d",
			ErrNoFallback, name, ncols, t, blockSize(t))
	}
	if ncols%blockSize(r) != 0 {
		r = ggml.F16
	}
	return r, nil
}

// TensorSpec describes a tensor for ChooseTypes.
type TensorSpec struct {
	Name string
	Dims []uint64
	Type ggml.Type // current type: what tensors that are not quantized keep
}

// ChooseTypes returns the type llama-quantize gives each tensor of a model
// (indexed like specs), running the rules in llama-quantize's order with one
// Counters. A synthetic-model generator can call it to reproduce a real
// quantized file's mix without quantizing anything.
func ChooseTypes(ft FileType, mi ModelInfo, specs []TensorSpec) ([]ggml.Type, error) {
	names := make([]string, len(specs))
	for i := range specs {
		names[i] = specs[i].Name
	}
	c := NewCounters(mi, names)
	out := make([]ggml.Type, len(specs))
	for _, i := range Order(names) {
		t, err := ChooseType(ft, mi, specs[i].Name, specs[i].Dims, specs[i].Type, c)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}
