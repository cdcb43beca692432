package engine

// qwen3: llama's block plus a per-head RMSNorm on q and k (before RoPE),
// NeoX RoPE, and a head size (attention.key_length) that need not be
// embedding_length / head_count.
func init() {
	register(Arch{Name: "qwen3", load: loadLlama(RopeNeoX, attnOptional{qkNorm: true})})
}
