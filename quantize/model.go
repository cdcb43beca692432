package quantize

import (
	"github.com/gollm/gollm/gguf"
)

// ModelInfo holds the hyper-parameters llama-quantize's type rules look at.
type ModelInfo struct {
	Arch        string // general.architecture
	Layers      int    // {arch}.block_count: n_ffn_down etc. in llama.cpp
	HeadCount   int    // {arch}.attention.head_count (layer 0 when per-layer)
	HeadCountKV int    // {arch}.attention.head_count_kv; defaults to HeadCount
	Experts     int    // {arch}.expert_count; 0 for dense models
}

// GQA returns n_head / n_head_kv (0 when n_head_kv is 0), as llama.cpp's
// hparams.n_gqa() for layer 0.
func (mi ModelInfo) GQA() int {
	if mi.HeadCountKV == 0 {
		return 0
	}
	return mi.HeadCount / mi.HeadCountKV
}

// is70B reports whether llama.cpp classifies the model as LLM_TYPE_70B, the
// one model size the rules single out (its attn_v gets more bits). The
// classification lives in each architecture's hparams loader; these are the
// architectures that can yield 70B.
func (mi ModelInfo) is70B() bool {
	switch mi.Arch {
	case "llama":
		return mi.Experts != 8 && mi.Layers == 80 && mi.HeadCount != mi.HeadCountKV
	case "qwen2", "deci":
		return mi.Layers == 80
	case "jais2":
		return mi.Layers == 68
	}
	return false
}

// ModelInfoFromFile reads the hyper-parameters from f's metadata. Missing
// keys read as 0, as llama-quantize would not get that far for such a file
// but the rules still need an answer.
func ModelInfoFromFile(f *gguf.File) ModelInfo {
	arch := f.Architecture()
	mi := ModelInfo{
		Arch:    arch,
		Layers:  int(f.Uint(arch+".block_count", 0)),
		Experts: int(f.Uint(arch+".expert_count", 0)),
	}
	mi.HeadCount = firstInt(f, arch+".attention.head_count", 0)
	mi.HeadCountKV = firstInt(f, arch+".attention.head_count_kv", mi.HeadCount)
	return mi
}

// firstInt reads a key that is either a scalar or a per-layer array (some
// architectures vary the head count by layer); for an array it returns
// element 0, the layer llama.cpp's n_gqa() looks at.
func firstInt(f *gguf.File, key string, def int) int {
	v, ok := f.Get(key)
	if !ok {
		return def
	}
	if x, ok := v.Int(); ok {
		return int(x)
	}
	if xs, ok := v.Int32s(); ok && len(xs) > 0 {
		return int(xs[0])
	}
	return def
}
