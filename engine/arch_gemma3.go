package engine

// gemma3: gemma2's block (arch_gemma2.go) with a per-head RMSNorm on q and
// k before RoPE, no attention soft-cap (a final one only if the file has
// it), five local layers to one global one by default, and the local
// layers' RoPE base from rope.freq_base_swa (10000 when absent, as
// llama.cpp assumes for this family) without the global layers' scaling.
func init() {
	register(Arch{Name: "gemma3", load: loadGemma(gemma3Params, attnOptional{qkNorm: true}),
		describe: describeGemma(gemma3Params)})
}

func gemma3Params(l *loader, c *Config) gemmaParams {
	h := readGemmaParams(l, c, 6)
	h.localBase = float32(l.f.Float(c.Arch+".rope.freq_base_swa", 10000))
	h.finalSoftcap = float32(l.f.Float(c.Arch+".final_logit_softcapping", 0))
	return h
}
