package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/gollm/gollm/scheduler"
)

type completionRequest struct {
	genParams
	Prompt   json.RawMessage `json:"prompt"`
	Logprobs *int            `json:"logprobs"`
	Echo     bool            `json:"echo"`
	Suffix   *string         `json:"suffix"`
}

// parsePrompt accepts OpenAI's four prompt forms: a string, a list of
// strings, a list of token ids, a list of lists of token ids.
func parsePrompt(raw json.RawMessage, encode func(string) []int32) ([][]int32, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badParam("prompt", "prompt is required")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return [][]int32{encode(s)}, nil
	}
	var ids []int32
	if json.Unmarshal(raw, &ids) == nil && len(ids) > 0 {
		return [][]int32{ids}, nil
	}
	var ss []string
	if json.Unmarshal(raw, &ss) == nil && len(ss) > 0 {
		out := make([][]int32, len(ss))
		for i, s := range ss {
			out[i] = encode(s)
		}
		return out, nil
	}
	var idss [][]int32
	if json.Unmarshal(raw, &idss) == nil && len(idss) > 0 {
		return idss, nil
	}
	return nil, badParam("prompt", "prompt must be a string, a list of strings, a list of token ids or a list of such lists (not empty)")
}

// completionJob is a checked /v1/completions request.
type completionJob struct {
	req     completionRequest
	prompts [][]int32
	base    scheduler.Request
	n       int
	seed    uint64
}

// parseCompletion decodes and checks a /v1/completions body.
func (s *Server) parseCompletion(b *Backend, body io.Reader) (*completionJob, error) {
	j := &completionJob{}
	req := &j.req
	if err := decodeBody(body, req); err != nil {
		return nil, err
	}
	if req.Echo {
		return nil, badParam("echo", "echo is not supported")
	}
	if req.Suffix != nil && *req.Suffix != "" {
		return nil, badParam("suffix", "suffix is not supported")
	}
	var err error
	if j.base, j.n, j.seed, err = req.request(16, s.cfg.MaxN, b.Model.ContextSize()); err != nil {
		return nil, err
	}
	if lp := req.Logprobs; lp != nil {
		if *lp < 0 || *lp > 20 {
			return nil, badParam("logprobs", "logprobs must be in [0, 20], got %d", *lp)
		}
		j.base.Logprobs, j.base.TopLogprobs = true, *lp
	}
	tok := b.Model.Tokenizer
	if j.prompts, err = parsePrompt(req.Prompt, func(s string) []int32 { return tok.Encode(s, true, true) }); err != nil {
		return nil, err
	}
	vocab := int32(b.Model.Config.Vocab)
	for _, p := range j.prompts {
		for _, id := range p {
			if id < 0 || id >= vocab {
				return nil, badParam("prompt", "token id %d outside the vocabulary [0, %d)", id, vocab)
			}
		}
	}
	return j, nil
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	job, err := s.parseCompletion(b, r.Body)
	if err != nil {
		writeError(w, err)
		return
	}
	req, prompts, base, n, seed := &job.req, job.prompts, job.base, job.n, job.seed
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel() // ends whatever is still running when the handler returns
	cs, err := s.submit(ctx, b, prompts, n, base, seed, "prompt")
	if err != nil {
		writeError(w, err)
		return
	}
	id, created := newID("cmpl-"), time.Now().Unix()
	model := b.Name
	if !req.Stream {
		if err := s.collect(ctx, cs, base.Logprobs); err != nil {
			writeError(w, err)
			return
		}
		choices := make([]map[string]any, len(cs))
		for i, c := range cs {
			choices[i] = map[string]any{"index": c.index, "text": c.text.String(),
				"logprobs": completionLogprobs(c.tokens, base.Logprobs), "finish_reason": c.finish}
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "text_completion", "created": created,
			"model": model, "choices": choices, "usage": usageOf(cs), "timings": makeTimings(&cs[0].stats)})
		return
	}
	sse := newSSE(w, s.cfg.WriteTimeout)
	chunk := func(c *choice, text string, toks []scheduler.Token, finish any, t *timings) map[string]any {
		m := map[string]any{"id": id, "object": "text_completion", "created": created, "model": model,
			"choices": []map[string]any{{"index": c.index, "text": text, "logprobs": completionLogprobs(toks, base.Logprobs), "finish_reason": finish}}}
		if req.includeUsage() {
			m["usage"] = nil
		}
		if t != nil {
			m["timings"] = t
		}
		return m
	}
	left := len(cs)
	for up := range s.fanIn(ctx, cs) {
		if up.err == nil && up.u.Err != nil {
			up.err = up.u.Err
		}
		if up.err != nil {
			if !isCancel(up.err) || r.Context().Err() == nil {
				if !sse.started {
					writeError(w, up.err)
				} else {
					sse.streamError(up.err)
				}
			}
			return
		}
		if up.u.Text != "" || len(up.u.Tokens) > 0 && base.Logprobs {
			if err := sse.send(chunk(up.c, up.u.Text, up.u.Tokens, nil, nil)); err != nil {
				return
			}
		}
		if up.u.Done {
			if err := sse.send(chunk(up.c, "", nil, up.u.Finish, makeTimings(&up.u.Stats))); err != nil {
				return
			}
			if left--; left == 0 {
				break
			}
		}
	}
	if ctx.Err() != nil {
		return // the client left
	}
	if req.includeUsage() {
		if err := sse.send(map[string]any{"id": id, "object": "text_completion", "created": created, "model": model,
			"choices": []any{}, "usage": usageOf(cs)}); err != nil {
			return
		}
	}
	sse.raw([]byte("[DONE]"))
}

// completionLogprobs is the legacy completions logprobs object, or nil.
func completionLogprobs(toks []scheduler.Token, on bool) any {
	if !on {
		return nil
	}
	type lp struct {
		Tokens        []string             `json:"tokens"`
		TokenLogprobs []float32            `json:"token_logprobs"`
		TopLogprobs   []map[string]float32 `json:"top_logprobs"`
		TextOffset    []int                `json:"text_offset"`
	}
	out := lp{Tokens: []string{}, TokenLogprobs: []float32{}, TopLogprobs: []map[string]float32{}, TextOffset: []int{}}
	off := 0
	for _, t := range toks {
		out.Tokens = append(out.Tokens, t.Piece)
		out.TokenLogprobs = append(out.TokenLogprobs, t.Logprob)
		top := make(map[string]float32, len(t.Top))
		for _, a := range t.Top {
			top[a.Piece] = a.Logprob
		}
		out.TopLogprobs = append(out.TopLogprobs, top)
		out.TextOffset = append(out.TextOffset, off)
		off += len(t.Piece)
	}
	return out
}
