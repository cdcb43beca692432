package engine

// llama covers Llama 2/3, TinyLlama, Mistral and SmolLM: they all ship as
// general.architecture = "llama" with the normal (adjacent-pair) RoPE.
func init() { Register(Arch{Name: "llama", Rope: RopeNormal}) }
