package quantize

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"

	"github.com/gollm/gollm/internal/shared"
)

func TestParseFileType(t *testing.T) {
	for name, want := range map[string]FileType{
		"q4_k_m": MostlyQ4_K_M, "Q8_0": MostlyQ8_0, "f16": MostlyF16, "BF16": MostlyBF16,
		"Q2_K": MostlyQ2_K, "q3_k_s": MostlyQ3_K_S, "Q3_K_L": MostlyQ3_K_L, "Q5_K_S": MostlyQ5_K_S,
		"Q6_K": MostlyQ6_K, "Q4_K": MostlyQ4_K_M, "F32": AllF32,
	} {
		got, err := ParseFileType(name)
		if err != nil || got != want {
			t.Errorf("ParseFileType(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	// llama.h numbering, as stored in general.file_type
	for ft, n := range map[FileType]int{MostlyF16: 1, MostlyQ4_0: 2, MostlyQ4_1: 3, MostlyQ8_0: 7, MostlyQ5_0: 8,
		MostlyQ5_1: 9, MostlyQ2_K: 10, MostlyQ3_K_S: 11, MostlyQ3_K_M: 12, MostlyQ3_K_L: 13, MostlyQ4_K_S: 14,
		MostlyQ4_K_M: 15, MostlyQ5_K_S: 16, MostlyQ5_K_M: 17, MostlyQ6_K: 18, MostlyBF16: 32} {
		if int(ft) != n {
			t.Errorf("%v = %d, want %d", ft, int(ft), n)
		}
	}
	_, err := ParseFileType("Q7_K")
	if !errors.Is(err, ErrUnknownFileType) || !strings.Contains(err.Error(), "Q4_K_M") || !strings.Contains(err.Error(), "Q7_K") {
		t.Errorf("ParseFileType(Q7_K) error %v: want ErrUnknownFileType naming the input and the valid types", err)
	}
	if s := FileType(99).String(); s != "ftype(99)" {
		t.Errorf("String of 99 = %q", s)
	}
}

func TestQuantizable(t *testing.T) {
	for _, c := range []struct {
		name string
		dims []uint64
		want bool
	}{
		{"blk.0.attn_q.weight", []uint64{256, 256}, true},
		{"token_embd.weight", []uint64{256, 512}, true},
		{"blk.0.attn_norm.weight", []uint64{256}, false},
		{"blk.0.attn_q.bias", []uint64{256}, false},
		{"blk.0.attn_q_norm.weight", []uint64{64, 1}, false}, // trailing 1 = 1-D
		{"blk.0.odd.weight", []uint64{64, 1}, false},
		{"blk.0.ffn_gate_inp.weight", []uint64{4096, 8}, false},
		{"position_embd.weight", []uint64{768, 1024}, false},
		{"blk.0.ffn_up_exps.weight", []uint64{256, 768, 8}, true},
		{"blk.0.ssm_conv1d.weight", []uint64{4, 256}, false},
		{"v.patch_embd.weight", []uint64{14, 14, 3, 1024}, false},
		{"blk.0.attn_q.weight_scale", []uint64{256, 256}, false},
	} {
		if got := Quantizable(c.name, c.dims); got != c.want {
			t.Errorf("Quantizable(%s, %v) = %v, want %v", c.name, c.dims, got, c.want)
		}
	}
}

func TestOrder(t *testing.T) {
	names := []string{"token_embd.weight", "blk.10.ffn_up.weight", "blk.2.attn_v.weight", "blk.2.attn_k.weight",
		"output.weight", "blk.0.ffn_down.weight", "output_norm.weight", "rope_freqs.weight"}
	var got []string
	for _, i := range Order(names) {
		got = append(got, names[i])
	}
	want := []string{"output.weight", "output_norm.weight", "rope_freqs.weight", "token_embd.weight",
		"blk.0.ffn_down.weight", "blk.2.attn_k.weight", "blk.2.attn_v.weight", "blk.10.ffn_up.weight"}
	if !slices.Equal(got, want) {
		t.Errorf("Order:\n got %v\nwant %v", got, want)
	}
	for s, want := range map[string]int{"blk.7.x": 7, "blk. -3.x": -3, "blk.12": 12, "blk.x": -100, "block.1.x": -100} {
		l, ok := blkLayer(s)
		if !ok {
			l = -100
		}
		if l != want {
			t.Errorf("blkLayer(%q) = %d, want %d", s, l, want)
		}
	}
}

// llamaNames returns a dense llama model's tensor names for n layers.
func llamaNames(n int, tied bool) []string {
	names := []string{"token_embd.weight", "output_norm.weight"}
	if !tied {
		names = append(names, "output.weight")
	}
	for i := range n {
		for _, s := range []string{"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down"} {
			names = append(names, fmt.Sprintf("blk.%d.%s.weight", i, s))
		}
	}
	return names
}

// typesOf runs ChooseType over a synthetic llama model (dim x ffn, n
// layers) in llama-quantize's order and returns name -> type.
func typesOf(t *testing.T, ft FileType, mi ModelInfo, dim, kv, ffn uint64, tied bool) map[string]ggml.Type {
	t.Helper()
	names := llamaNames(mi.Layers, tied)
	c := NewCounters(mi, names)
	out := map[string]ggml.Type{}
	for _, i := range Order(names) {
		n := names[i]
		var dims []uint64
		switch {
		case strings.HasSuffix(n, "norm.weight"):
			dims = []uint64{dim}
		case strings.Contains(n, "attn_k.") || strings.Contains(n, "attn_v."):
			dims = []uint64{dim, kv}
		case strings.Contains(n, "ffn_down"):
			dims = []uint64{ffn, dim}
		case strings.Contains(n, "ffn_"):
			dims = []uint64{dim, ffn}
		case n == "token_embd.weight" || n == "output.weight":
			dims = []uint64{dim, 32000}
		default:
			dims = []uint64{dim, dim}
		}
		typ, err := ChooseType(ft, mi, n, dims, ggml.F32, c)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out[n] = typ
	}
	return out
}

// TestMixes checks the mix rules on model shapes the shared test files do
// not cover. Expected types are worked out by hand from llama.cpp's
// llama_tensor_get_type_impl.
func TestMixes(t *testing.T) {
	llama8 := ModelInfo{Arch: "llama", Layers: 8, HeadCount: 32, HeadCountKV: 8} // GQA 4
	mha := ModelInfo{Arch: "llama", Layers: 8, HeadCount: 32, HeadCountKV: 32}
	cases := []struct {
		ft   FileType
		mi   ModelInfo
		tied bool
		want map[string]ggml.Type
	}{
		{MostlyQ2_K, llama8, false, map[string]ggml.Type{
			"blk.0.attn_v.weight": ggml.Q4_K, // GQA >= 4
			"blk.0.attn_q.weight": ggml.Q2_K, "blk.0.ffn_down.weight": ggml.Q3_K,
			"blk.0.attn_output.weight": ggml.Q3_K, "output.weight": ggml.Q6_K, "token_embd.weight": ggml.Q2_K,
			"blk.0.attn_norm.weight": ggml.F32}},
		{MostlyQ2_K, mha, false, map[string]ggml.Type{"blk.0.attn_v.weight": ggml.Q3_K}},
		{MostlyQ3_K_S, llama8, false, map[string]ggml.Type{
			"blk.0.attn_v.weight": ggml.Q3_K, "blk.0.ffn_down.weight": ggml.Q3_K, "output.weight": ggml.Q6_K}},
		{MostlyQ3_K_M, llama8, false, map[string]ggml.Type{
			"blk.0.attn_v.weight": ggml.Q5_K, "blk.1.attn_v.weight": ggml.Q5_K, "blk.2.attn_v.weight": ggml.Q4_K,
			"blk.0.ffn_down.weight":    ggml.Q4_K, // 0 < 8/16 is false
			"blk.0.attn_output.weight": ggml.Q4_K, "blk.0.ffn_up.weight": ggml.Q3_K}},
		{MostlyQ3_K_L, llama8, false, map[string]ggml.Type{
			"blk.3.attn_v.weight": ggml.Q5_K, "blk.3.ffn_down.weight": ggml.Q5_K, "blk.3.attn_output.weight": ggml.Q5_K,
			"blk.3.attn_q.weight": ggml.Q3_K}},
		{MostlyQ4_K_S, llama8, false, map[string]ggml.Type{
			"blk.3.attn_v.weight": ggml.Q5_K, "blk.4.attn_v.weight": ggml.Q4_K,
			"blk.0.ffn_down.weight": ggml.Q5_K, "blk.1.ffn_down.weight": ggml.Q4_K}},
		// use_more_bits(i, 8): i < 1, i >= 7, (i-1)%3 == 2 -> 0, 3, 6, 7
		{MostlyQ4_K_M, llama8, false, map[string]ggml.Type{
			"blk.0.attn_v.weight": ggml.Q6_K, "blk.1.attn_v.weight": ggml.Q4_K, "blk.3.attn_v.weight": ggml.Q6_K,
			"blk.6.attn_v.weight": ggml.Q6_K, "blk.7.ffn_down.weight": ggml.Q6_K, "blk.5.ffn_down.weight": ggml.Q4_K}},
		{MostlyQ5_K_S, llama8, false, map[string]ggml.Type{
			"blk.0.attn_v.weight": ggml.Q5_K, "blk.0.ffn_down.weight": ggml.Q5_K, "output.weight": ggml.Q6_K}},
		{MostlyQ6_K, llama8, false, map[string]ggml.Type{"blk.0.attn_v.weight": ggml.Q6_K, "output.weight": ggml.Q6_K}},
		{MostlyQ8_0, llama8, true, map[string]ggml.Type{"token_embd.weight": ggml.Q8_0, "blk.0.attn_v.weight": ggml.Q8_0}},
		// tied embeddings take the output rule: Q6_K
		{MostlyQ4_0, llama8, true, map[string]ggml.Type{"token_embd.weight": ggml.Q6_K, "blk.0.ffn_down.weight": ggml.Q4_0}},
		{MostlyQ4_0, llama8, false, map[string]ggml.Type{"token_embd.weight": ggml.Q4_0, "output.weight": ggml.Q6_K}},
		{MostlyF16, llama8, false, map[string]ggml.Type{"output.weight": ggml.F16, "blk.0.attn_norm.weight": ggml.F32}},
		{MostlyBF16, llama8, false, map[string]ggml.Type{"output.weight": ggml.BF16}},
		// falcon: output Q8_0; Q4_K_M ffn_down: Q6_K below n/16, Q5_K on more-bits layers
		{MostlyQ4_K_M, ModelInfo{Arch: "falcon", Layers: 32, HeadCount: 64, HeadCountKV: 8}, false, map[string]ggml.Type{
			"output.weight": ggml.Q8_0, "blk.0.ffn_down.weight": ggml.Q6_K, "blk.2.ffn_down.weight": ggml.Q5_K,
			"blk.5.ffn_down.weight": ggml.Q4_K}},
		// 70B: attn_v Q4_K/Q3_K -> Q5_K
		{MostlyQ4_K_M, ModelInfo{Arch: "llama", Layers: 80, HeadCount: 64, HeadCountKV: 8}, false, map[string]ggml.Type{
			"blk.12.attn_v.weight": ggml.Q6_K, "blk.11.attn_v.weight": ggml.Q5_K, "blk.9.attn_v.weight": ggml.Q6_K}},
		// 8 experts: attn_v and attn_k Q8_0, attn_output Q5_K
		{MostlyQ4_K_M, ModelInfo{Arch: "llama", Layers: 8, HeadCount: 32, HeadCountKV: 8, Experts: 8}, false, map[string]ggml.Type{
			"blk.1.attn_v.weight": ggml.Q8_0, "blk.1.attn_k.weight": ggml.Q8_0, "blk.1.attn_output.weight": ggml.Q5_K,
			"blk.7.ffn_down.weight": ggml.Q6_K, "blk.1.ffn_down.weight": ggml.Q4_K}},
	}
	for _, c := range cases {
		got := typesOf(t, c.ft, c.mi, 4096, 1024, 14336, c.tied)
		for n, want := range c.want {
			if got[n] != want {
				t.Errorf("%v %s/%d layers: %s = %v, want %v", c.ft, c.mi.Arch, c.mi.Layers, n, got[n], want)
			}
		}
	}
}

func TestFallback(t *testing.T) {
	mi := ModelInfo{Arch: "llama", Layers: 1, HeadCount: 4, HeadCountKV: 4}
	for _, c := range []struct {
		ft   FileType
		name string
		dims []uint64
		want ggml.Type
	}{
		{MostlyQ2_K, "blk.0.attn_q.weight", []uint64{64, 64}, ggml.Q4_0},
		{MostlyQ3_K_S, "blk.0.attn_q.weight", []uint64{96, 64}, ggml.Q4_0},
		{MostlyQ4_K_S, "blk.0.attn_q.weight", []uint64{64, 64}, ggml.Q5_0},
		{MostlyQ5_K_S, "blk.0.attn_q.weight", []uint64{64, 64}, ggml.Q5_1},
		{MostlyQ6_K, "blk.0.attn_q.weight", []uint64{64, 64}, ggml.Q8_0},
		{MostlyQ4_K_S, "blk.0.attn_q.weight", []uint64{48, 64}, ggml.F16}, // not even 32 fits
		{MostlyQ4_K_M, "output.weight", []uint64{64, 512}, ggml.Q8_0},     // output rule, no fallback
		{MostlyQ4_K_M, "blk.0.ffn_down.weight", []uint64{172, 64}, ggml.F16},
	} {
		names := []string{c.name}
		cnt := NewCounters(mi, names)
		got, err := ChooseType(c.ft, mi, c.name, c.dims, ggml.F32, cnt)
		if err != nil || got != c.want {
			t.Errorf("%v %s %v: %v, %v; want %v", c.ft, c.name, c.dims, got, err, c.want)
		}
	}
	// llama.cpp has no fallback for the legacy formats: it fails.
	_, err := ChooseType(MostlyQ8_0, mi, "blk.0.attn_q.weight", []uint64{48, 64}, ggml.F32, NewCounters(mi, nil))
	if !errors.Is(err, ErrNoFallback) || !strings.Contains(err.Error(), "blk.0.attn_q.weight") {
		t.Errorf("Q8_0 with rows of 48: %v, want ErrNoFallback naming the tensor", err)
	}
	if got := TypeFor(MostlyQ8_0, mi, "blk.0.attn_q.weight", []uint64{48, 64}, NewCounters(mi, nil)); got != ggml.F32 {
		t.Errorf("TypeFor with no fallback = %v, want F32", got)
	}
	// A MoE tensor must carry its layer in the name.
	moe := ModelInfo{Arch: "llama", Layers: 4, HeadCount: 8, HeadCountKV: 8, Experts: 8}
	_, err = ChooseType(MostlyQ4_K_M, moe, "ffn_down_exps.weight", []uint64{256, 256, 8}, ggml.F32, NewCounters(moe, nil))
	if !errors.Is(err, ErrLayer) {
		t.Errorf("MoE ffn_down without layer: %v, want ErrLayer", err)
	}
}

// TestChooseTypes: the one-call form agrees with the reference file's
// types, whatever order the specs come in.
func TestChooseTypes(t *testing.T) {
	models := shared.Dir(t, "models")
	ref, err := gguf.Open(models + "/tiny-Q4_K_M.gguf")
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	var specs []TensorSpec
	for i := len(ref.Tensors) - 1; i >= 0; i-- { // reversed on purpose
		ti := &ref.Tensors[i]
		specs = append(specs, TensorSpec{ti.Name, ti.Dims, ggml.F32})
	}
	mi := ModelInfoFromFile(ref)
	types, err := ChooseTypes(MostlyQ4_K_M, mi, specs)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range specs {
		want, _ := ref.Tensor(s.Name)
		if types[i] != want.Type {
			t.Errorf("%s: %v, want %v", s.Name, types[i], want.Type)
		}
	}
}
