package synth

import "math"

// Presets of the families beyond llama/qwen2/qwen3: gemma2, gemma3, phi3
// and qwen3moe, at real shapes, with small test shapes of each.

func init() {
	for _, s := range []Shape{
		{Name: "gemma2-2b", Arch: "gemma2", Dim: 2304, Layers: 26, Heads: 8, KVHeads: 4, HeadDim: 256, FFN: 9216,
			Vocab: 256000, Context: 8192, RopeBase: 10000, NormEps: 1e-6, Tied: true,
			Window: 4096, WindowPattern: 2, AttnSoftcap: 50, FinalSoftcap: 30, ParamsNote: "Gemma 2 2B"},
		{Name: "gemma3-1b", Arch: "gemma3", Dim: 1152, Layers: 26, Heads: 4, KVHeads: 1, HeadDim: 256, FFN: 6912,
			Vocab: 262144, Context: 32768, RopeBase: 1000000, LocalRopeBase: 10000, NormEps: 1e-6, Tied: true, QKNorm: true,
			Window: 512, WindowPattern: 6, ParamsNote: "Gemma 3 1B"},
		{Name: "phi3.5-mini", Arch: "phi3", Dim: 3072, Layers: 32, Heads: 32, KVHeads: 32, FFN: 8192,
			Vocab: 32064, Context: 131072, OrigContext: 4096, RopeBase: 10000, NormEps: 1e-5, ParamsNote: "Phi-3.5 mini"},
		{Name: "qwen3-30b-a3b", Arch: "qwen3moe", Dim: 2048, Layers: 48, Heads: 32, KVHeads: 4, HeadDim: 128, FFN: 6144,
			Experts: 128, ExpertsUsed: 8, ExpertFFN: 768, Vocab: 151936, Context: 40960, RopeBase: 1000000, NormEps: 1e-6,
			QKNorm: true, ParamsNote: "Qwen3 30B-A3B"},
		// Qwen3-30B-A3B's layers and experts with 12 of its 48 layers: its
		// decode reads what the full model's reads per layer, in a file of
		// a quarter of the size (benchmarks on small machines).
		{Name: "qwen3-30b-a3b-12l", Arch: "qwen3moe", Dim: 2048, Layers: 12, Heads: 32, KVHeads: 4, HeadDim: 128, FFN: 6144,
			Experts: 128, ExpertsUsed: 8, ExpertFFN: 768, Vocab: 151936, Context: 40960, RopeBase: 1000000, NormEps: 1e-6,
			QKNorm: true, ParamsNote: "Qwen3 30B-A3B, 12 of 48 layers"},

		// Test shapes: every code path of each family, a few hundred kB.
		{Name: "tiny-gemma2", Arch: "gemma2", Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64, FFN: 512,
			Vocab: 1024, Context: 512, RopeBase: 10000, NormEps: 1e-6, Tied: true,
			Window: 8, WindowPattern: 2, AttnSoftcap: 50, FinalSoftcap: 30, ParamsNote: "test shape"},
		{Name: "tiny-gemma3", Arch: "gemma3", Dim: 256, Layers: 3, Heads: 4, KVHeads: 1, HeadDim: 64, FFN: 512,
			Vocab: 1024, Context: 512, RopeBase: 1000000, LocalRopeBase: 10000, NormEps: 1e-6, Tied: true, QKNorm: true,
			Window: 8, WindowPattern: 3, ParamsNote: "test shape"},
		{Name: "tiny-phi3", Arch: "phi3", Dim: 256, Layers: 2, Heads: 4, KVHeads: 4, FFN: 512,
			Vocab: 1024, Context: 4096, OrigContext: 256, RopeBase: 10000, NormEps: 1e-5, ParamsNote: "test shape"},
		{Name: "tiny-mixtral", Arch: "llama", Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
			Experts: 4, ExpertsUsed: 2, ExpertFFN: 512, Vocab: 1024, Context: 512, RopeBase: 10000, NormEps: 1e-5,
			ParamsNote: "test shape"},
		{Name: "tiny-qwen2moe", Arch: "qwen2moe", Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
			Experts: 8, ExpertsUsed: 2, ExpertFFN: 128, SharedFFN: 384, Vocab: 1024, Context: 512, RopeBase: 1000000,
			NormEps: 1e-6, QKVBias: true, ParamsNote: "test shape"},
		{Name: "tiny-qwen3moe", Arch: "qwen3moe", Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64, FFN: 512,
			Experts: 8, ExpertsUsed: 2, ExpertFFN: 128, Vocab: 1024, Context: 512, RopeBase: 1000000, NormEps: 1e-6,
			QKNorm: true, ParamsNote: "test shape"},
	} {
		Presets[s.Name] = s
	}
}

type (
	matFunc func(name string, cols, rows uint64) tensorSpec
	vecFunc func(name string, n uint64, fill func([]float32, *rng)) tensorSpec
)

// archLayers lists the tensors of one layer of each family here, in
// llama.cpp's file order.
var archLayers = map[string]func(s Shape, p string, mat matFunc, vec vecFunc) []tensorSpec{
	"gemma2":   gemmaLayer,
	"gemma3":   gemmaLayer,
	"phi3":     phi3Layer,
	"qwen3moe": moeLayer,
	"qwen2moe": moeLayer,
}

// layerFunc returns the shape's layer tensor list, nil for the llama
// block's (write.go): llama with experts is Mixtral's layout.
func (s Shape) layerFunc() func(s Shape, p string, mat matFunc, vec vecFunc) []tensorSpec {
	if s.Experts > 0 {
		return moeLayer
	}
	return archLayers[s.Arch]
}

func onesFill(row []float32, _ *rng) {
	for i := range row {
		row[i] = 1
	}
}

func weightFill(row []float32, r *rng) { r.uniform(row, 0.02*math.Sqrt(3)) }

func gemmaLayer(s Shape, p string, mat matFunc, vec vecFunc) []tensorSpec {
	hd := uint64(s.headDim())
	d, f := uint64(s.Dim), uint64(s.FFN)
	q, kv := uint64(s.Heads)*hd, uint64(s.KVHeads)*hd
	out := []tensorSpec{vec(p+"attn_norm.weight", d, onesFill),
		mat(p+"attn_q.weight", d, q), mat(p+"attn_k.weight", d, kv), mat(p+"attn_v.weight", d, kv)}
	if s.QKNorm {
		out = append(out, vec(p+"attn_q_norm.weight", hd, onesFill), vec(p+"attn_k_norm.weight", hd, onesFill))
	}
	return append(out, mat(p+"attn_output.weight", q, d), vec(p+"post_attention_norm.weight", d, onesFill),
		vec(p+"ffn_norm.weight", d, onesFill), mat(p+"ffn_gate.weight", d, f), mat(p+"ffn_up.weight", d, f),
		mat(p+"ffn_down.weight", f, d), vec(p+"post_ffw_norm.weight", d, onesFill))
}

// phi3Layer: fused q/k/v and gate/up.
func phi3Layer(s Shape, p string, mat matFunc, vec vecFunc) []tensorSpec {
	hd := uint64(s.headDim())
	d, f := uint64(s.Dim), uint64(s.FFN)
	q, kv := uint64(s.Heads)*hd, uint64(s.KVHeads)*hd
	return []tensorSpec{vec(p+"attn_norm.weight", d, onesFill), mat(p+"attn_qkv.weight", d, q+2*kv),
		mat(p+"attn_output.weight", q, d), vec(p+"ffn_norm.weight", d, onesFill),
		mat(p+"ffn_up.weight", d, 2*f), mat(p+"ffn_down.weight", f, d)}
}

// moeLayer: llama's or qwen3's attention, a router and 3-D expert tensors
// (qwen3moe, Mixtral).
func moeLayer(s Shape, p string, mat matFunc, vec vecFunc) []tensorSpec {
	hd := uint64(s.headDim())
	d, f, n := uint64(s.Dim), uint64(s.ExpertFFN), uint64(s.Experts)
	q, kv := uint64(s.Heads)*hd, uint64(s.KVHeads)*hd
	exps := func(name string, cols, rows uint64) tensorSpec {
		return tensorSpec{name: p + name, dims: []uint64{cols, rows, n}, fill: weightFill}
	}
	router := mat(p+"ffn_gate_inp.weight", d, n)
	router.isVec = true // llama.cpp keeps the router in F32
	out := []tensorSpec{vec(p+"attn_norm.weight", d, onesFill),
		mat(p+"attn_q.weight", d, q), mat(p+"attn_k.weight", d, kv), mat(p+"attn_v.weight", d, kv)}
	if s.QKVBias {
		small := func(row []float32, r *rng) { r.uniform(row, 0.01) }
		out = append(out, vec(p+"attn_q.bias", q, small), vec(p+"attn_k.bias", kv, small), vec(p+"attn_v.bias", kv, small))
	}
	if s.QKNorm {
		out = append(out, vec(p+"attn_q_norm.weight", hd, onesFill), vec(p+"attn_k_norm.weight", hd, onesFill))
	}
	out = append(out, mat(p+"attn_output.weight", q, d), vec(p+"ffn_norm.weight", d, onesFill), router,
		exps("ffn_gate_exps.weight", d, f), exps("ffn_up_exps.weight", d, f), exps("ffn_down_exps.weight", f, d))
	if s.SharedFFN > 0 { // qwen2moe's shared expert
		sf := uint64(s.SharedFFN)
		out = append(out, vec(p+"ffn_gate_inp_shexp.weight", d, weightFill),
			mat(p+"ffn_gate_shexp.weight", d, sf), mat(p+"ffn_up_shexp.weight", d, sf), mat(p+"ffn_down_shexp.weight", sf, d))
	}
	return out
}

// globalTensors are the tensors before the layers: phi3's RoPE factors.
func (s Shape) globalTensors(vec vecFunc) []tensorSpec {
	if s.Arch != "phi3" || s.OrigContext == 0 {
		return nil
	}
	n := uint64(s.headDim() / 2)
	// Long factors grow from 1 over the pairs, as LongRoPE's do.
	long := func(row []float32, _ *rng) {
		for i := range row {
			row[i] = 1 + 40*float32(i)/float32(len(row))
		}
	}
	return []tensorSpec{vec("rope_factors_long.weight", n, long), vec("rope_factors_short.weight", n, onesFill)}
}

// archMetadata is the family's metadata beyond the llama keys.
func (s Shape) archMetadata() []struct {
	k string
	v any
} {
	a := s.Arch
	var kvs []struct {
		k string
		v any
	}
	add := func(k string, v any) {
		kvs = append(kvs, struct {
			k string
			v any
		}{a + "." + k, v})
	}
	if s.Window > 0 {
		add("attention.sliding_window", uint32(s.Window))
		add("attention.sliding_window_pattern", uint32(s.WindowPattern))
	}
	if s.LocalRopeBase > 0 {
		add("rope.freq_base_swa", s.LocalRopeBase)
	}
	if s.AttnSoftcap > 0 {
		add("attn_logit_softcapping", s.AttnSoftcap)
	}
	if s.FinalSoftcap > 0 {
		add("final_logit_softcapping", s.FinalSoftcap)
	}
	if s.OrigContext > 0 {
		add("rope.scaling.original_context_length", uint32(s.OrigContext))
	}
	if s.Experts > 0 {
		add("expert_count", uint32(s.Experts))
		add("expert_used_count", uint32(s.ExpertsUsed))
		add("expert_feed_forward_length", uint32(s.ExpertFFN))
	}
	if s.SharedFFN > 0 {
		add("expert_shared_feed_forward_length", uint32(s.SharedFFN))
	}
	return kvs
}

// ActiveParams is the number of weights one token multiplies by: Params
// without the experts it is not routed to.
func (s Shape) ActiveParams() int64 {
	n := s.Params()
	if s.Experts > 0 {
		per := int64(s.Dim) * int64(s.ExpertFFN) * 3
		n -= int64(s.Layers) * per * int64(s.Experts-s.ExpertsUsed)
	}
	return n
}

// phi3Specials are Phi-3's chat tokens, the last of its vocabulary's
// pieces: llama.cpp looks some of them up when it loads a phi3 file.
var phi3Specials = []string{"<|endoftext|>", "<|assistant|>", "<|placeholder1|>", "<|placeholder2|>", "<|placeholder3|>",
	"<|placeholder4|>", "<|system|>", "<|end|>", "<|placeholder5|>", "<|placeholder6|>", "<|user|>"}

// specialTokens replaces the vocabulary's last pieces by the family's
// special tokens.
func (s Shape) specialTokens(tokens []string, scores []float32, types []int32) {
	if s.Arch != "phi3" || len(tokens) < 512 {
		return
	}
	base := len(tokens) - len(phi3Specials)
	for i, t := range phi3Specials {
		tokens[base+i], scores[base+i], types[base+i] = t, 0, tokControl
	}
}
