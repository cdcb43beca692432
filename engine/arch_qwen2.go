package engine

// qwen2: llama's block plus q/k/v biases, NeoX RoPE, often tied embeddings.
func init() {
	register(Arch{Name: "qwen2", load: loadLlama(RopeNeoX, attnOptional{biases: true})})
}
