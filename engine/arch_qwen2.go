package engine

// qwen2: llama's block plus q/k/v biases, NeoX RoPE, often tied embeddings.
func init() {
	Register(Arch{Name: "qwen2", Rope: RopeNeoX,
		Required: []string{"attn_q.bias", "attn_k.bias", "attn_v.bias"}})
}
