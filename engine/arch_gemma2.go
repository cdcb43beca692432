package engine

import (
	"fmt"
	"math"

	"github.com/gollm/gollm/kernels"
)

// gemma2: the embedding scaled by sqrt(Dim); RMSNorm before and after both
// attention and the FFN (the post-norms apply to the sub-block's output
// before it joins the residual stream); a GeGLU FFN (GELU, tanh
// approximation); the queries scaled before attention instead of the
// scores; attention scores soft-capped at 50*tanh(s/50) and the final
// logits at 30*tanh(l/30); sliding-window attention on every other layer.
// gemma3 (arch_gemma3.go) is the same block with q/k norms and no
// soft-caps.
func init() {
	register(Arch{Name: "gemma2", load: loadGemma(gemma2Params, attnOptional{}),
		describe: describeGemma(gemma2Params)})
}

func gemma2Params(l *loader, c *Config) gemmaParams {
	h := readGemmaParams(l, c, 2)
	h.attnSoftcap = float32(l.f.Float(c.Arch+".attn_logit_softcapping", 50))
	h.finalSoftcap = float32(l.f.Float(c.Arch+".final_logit_softcapping", 30))
	return h
}

// gemmaParams are the gemma block's hyper-parameters beyond Config.
type gemmaParams struct {
	window       int     // attention.sliding_window: positions a local layer sees
	pattern      int     // attention.sliding_window_pattern: every pattern-th layer is global
	localBase    float32 // RoPE base of the local layers
	attnSoftcap  float32 // 0: none
	finalSoftcap float32 // 0: none
	qScale       float32 // the queries' scale (query_pre_attn_scalar^-1/2)
}

// readGemmaParams reads the sliding window and the query scale;
// defaultPattern is llama.cpp's for the family when the file has none.
func readGemmaParams(l *loader, c *Config, defaultPattern int) gemmaParams {
	key := func(k string) string { return c.Arch + "." + k }
	h := gemmaParams{
		window:    int(l.f.Uint(key("attention.sliding_window"), 4096)),
		pattern:   int(l.f.Uint(key("attention.sliding_window_pattern"), uint64(defaultPattern))),
		localBase: c.RopeBase,
		qScale:    float32(1 / math.Sqrt(float64(c.HeadDim))),
	}
	// Gemma 2 27B and Gemma 3 27B scale the queries by
	// (embedding_length/head_count)^-1/2 (their query_pre_attn_scalar),
	// not head_size^-1/2; GGUF does not store it, llama.cpp recognizes the
	// model by its layer count, and so does this.
	if (c.Arch == "gemma2" && c.Layers == 46) || (c.Arch == "gemma3" && c.Layers == 62) {
		h.qScale = float32(1 / math.Sqrt(float64(c.Dim/c.Heads)))
	}
	return h
}

type gemmaModel struct {
	layers       []gemmaLayer
	global       attnParams
	local        attnParams
	embedScale   float32
	finalSoftcap float32
}

type gemmaLayer struct {
	attnNorm, postAttnNorm []float32 // [Dim]
	attn                   attnWeights
	ffnNorm, postFFNNorm   []float32 // [Dim]
	ffn                    ffnWeights
	local                  bool // sliding-window layer
}

// describeGemma lists the gemma block's particulars for Describe.
func describeGemma(params func(*loader, *Config) gemmaParams) func(*loader, *Config) []string {
	return func(l *loader, c *Config) []string {
		h := params(l, c)
		lines := []string{fmt.Sprintf("sliding window of %d positions on %d of every %d layers, local RoPE base %g",
			h.window, h.pattern-1, h.pattern, h.localBase)}
		if h.attnSoftcap != 0 || h.finalSoftcap != 0 {
			lines = append(lines, fmt.Sprintf("soft-caps: attention %g, final logits %g (0: none)", h.attnSoftcap, h.finalSoftcap))
		}
		return append(lines, fmt.Sprintf("queries scaled by %.4g, embedding by sqrt(%d), GeGLU FFN, post-norms", h.qScale, c.Dim))
	}
}

// loadGemma returns the loader of a gemma-block family.
func loadGemma(params func(*loader, *Config) gemmaParams, req attnOptional) func(*loader, *Config, loadEnv) (family, error) {
	return func(l *loader, c *Config, env loadEnv) (family, error) {
		return loadGemmaLayers(l, c, env, params(l, c), req)
	}
}

func loadGemmaLayers(l *loader, c *Config, env loadEnv, h gemmaParams, req attnOptional) (family, error) {
	if h.window <= 0 || h.pattern <= 0 {
		return nil, fmt.Errorf("%w: %s: sliding window %d and pattern %d must be positive", ErrBadModel, c.Arch, h.window, h.pattern)
	}
	f := &gemmaModel{layers: make([]gemmaLayer, c.Layers), finalSoftcap: h.finalSoftcap,
		embedScale: float32(math.Sqrt(float64(c.Dim)))}
	for i := range f.layers {
		p, ly := layerPrefix(i), &f.layers[i]
		ly.attnNorm = l.vector(p+"attn_norm.weight", c.Dim)
		ly.attn = l.attn(p, c, req)
		ly.postAttnNorm = l.vector(p+"post_attention_norm.weight", c.Dim)
		ly.ffnNorm = l.vector(p+"ffn_norm.weight", c.Dim)
		ly.ffn = l.ffn(p, c)
		ly.postFFNNorm = l.vector(p+"post_ffw_norm.weight", c.Dim)
		// llama.cpp's set_swa_pattern: layer i is local unless it is the
		// last of each group of pattern layers.
		ly.local = i%h.pattern < h.pattern-1
	}
	if l.err != nil {
		return nil, l.err
	}
	global, err := newRope(c, RopeNeoX, c.RopeBase, c.RopeScale, nil, env)
	if err != nil {
		return nil, err
	}
	local := global
	if h.localBase != c.RopeBase || c.RopeScale != 1 {
		// Local layers: their own base, never scaled.
		if local, err = newRope(c, RopeNeoX, h.localBase, 1, nil, env); err != nil {
			return nil, err
		}
	}
	f.global = attnParams{rope: global, qScale: h.qScale, softcap: h.attnSoftcap}
	f.local = f.global
	f.local.rope, f.local.window = local, h.window
	return f, nil
}

func (f *gemmaModel) forward(m *Model, phase Phase, p *pass) []float32 {
	ntok := len(p.tokens)
	x := m.beginPass(phase, p, f.embedScale)
	xn := m.state.xn[:len(x)]
	for l := range f.layers {
		ly := &f.layers[l]
		ap := &f.global
		if ly.local {
			ap = &f.local
		}
		// x += norm(Wo · attention(...norm(x)...)); the post-norm is timed
		// with attn_out.
		m.norm(l, OpAttnNorm, xn, x, ly.attnNorm, ntok)
		a := m.attention(l, &ly.attn, ap, xn, p)
		m.normRows(a, a, ly.postAttnNorm, ntok)
		kernels.Add(x, a)
		// x += norm(Wdown · (gelu(Wgate·norm(x)) * Wup·norm(x))); the
		// post-norm is timed with ffn_down.
		m.norm(l, OpFFNNorm, xn, x, ly.ffnNorm, ntok)
		o := m.ffn(l, &ly.ffn, actGELU, xn, ntok)
		m.normRows(o, o, ly.postFFNNorm, ntok)
		kernels.Add(x, o)
	}
	return m.logits(p, x, f.finalSoftcap)
}
