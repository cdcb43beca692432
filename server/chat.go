package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gollm/gollm/chat"
	"github.com/gollm/gollm/scheduler"
)

type chatRequest struct {
	genParams
	Messages           json.RawMessage            `json:"messages"`
	Tools              json.RawMessage            `json:"tools"`
	Logprobs           bool                       `json:"logprobs"`
	TopLogprobs        *int                       `json:"top_logprobs"`
	ChatTemplateKwargs map[string]json.RawMessage `json:"chat_template_kwargs"`
}

// renderChat renders the conversation with the model's template and
// tokenizes it (special-token texts become their ids; a BOS is added only
// when the model wants one and the template did not write it).
func renderChat(b *Backend, req *chatRequest) ([]int32, bool, error) {
	if len(req.Messages) == 0 || string(req.Messages) == "null" {
		return nil, false, badParam("messages", "messages is required")
	}
	msgs, err := chat.ParseMessages(req.Messages)
	if err != nil {
		return nil, false, badParam("messages", "%v", err)
	}
	if len(msgs) == 0 {
		return nil, false, badParam("messages", "messages is empty")
	}
	tok := b.Model.Tokenizer
	bos, eos := tok.Token(tok.BOS()), tok.Token(tok.EOS())
	opts := chat.Options{AddGenerationPrompt: true, BOS: bos, EOS: eos, Kwargs: req.ChatTemplateKwargs}
	if len(req.Tools) > 0 && string(req.Tools) != "null" {
		opts.Tools = req.Tools
	}
	text, err := b.Template.Render(msgs, opts)
	if err != nil {
		var raise *chat.RaiseError
		if errors.As(err, &raise) {
			return nil, false, badParam("messages", "%v", err)
		}
		return nil, false, newError(http.StatusInternalServerError, "server_error", "chat template: %v", err)
	}
	addBOS := tok.AddBOS() && (bos == "" || !strings.HasPrefix(text, bos))
	ids := tok.Encode(text, false, true)
	if addBOS {
		ids = append([]int32{tok.BOS()}, ids...)
	}
	return ids, chat.OpensReasoning(text), nil
}

// chatJob is a checked /v1/chat/completions request.
type chatJob struct {
	req      chatRequest
	prompt   []int32
	thinking bool // the prompt opens a reasoning block
	base     scheduler.Request
	n        int
	seed     uint64
}

// parseChat decodes and checks a /v1/chat/completions body and renders its
// prompt.
func (s *Server) parseChat(b *Backend, body io.Reader) (*chatJob, error) {
	j := &chatJob{}
	req := &j.req
	if err := decodeBody(body, req); err != nil {
		return nil, err
	}
	var err error
	if j.base, j.n, j.seed, err = req.request(0, s.cfg.MaxN, b.Model.ContextSize()); err != nil {
		return nil, err
	}
	if req.TopLogprobs != nil {
		if *req.TopLogprobs < 0 || *req.TopLogprobs > 20 {
			return nil, badParam("top_logprobs", "top_logprobs must be in [0, 20], got %d", *req.TopLogprobs)
		}
		if !req.Logprobs {
			return nil, badParam("top_logprobs", "top_logprobs needs logprobs: true")
		}
		j.base.TopLogprobs = *req.TopLogprobs
	}
	j.base.Logprobs = req.Logprobs
	if j.prompt, j.thinking, err = renderChat(b, req); err != nil {
		return nil, err
	}
	return j, nil
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	job, err := s.parseChat(b, r.Body)
	if err != nil {
		writeError(w, err)
		return
	}
	req, prompt, thinking, base, n, seed := &job.req, job.prompt, job.thinking, job.base, job.n, job.seed
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	cs, err := s.submit(ctx, b, [][]int32{prompt}, n, base, seed, "messages")
	if err != nil {
		writeError(w, err)
		return
	}
	id, created, model := newID("chatcmpl-"), time.Now().Unix(), b.Name
	if !req.Stream {
		if err := s.collect(ctx, cs, base.Logprobs); err != nil {
			writeError(w, err)
			return
		}
		choices := make([]map[string]any, len(cs))
		for i, c := range cs {
			reasoning, answer := chat.SplitReasoning(c.text.String(), thinking)
			msg := map[string]any{"role": "assistant", "content": answer}
			if reasoning != "" {
				msg["reasoning_content"] = reasoning
			}
			choices[i] = map[string]any{"index": c.index, "message": msg,
				"logprobs": chatLogprobs(c.tokens, base.Logprobs), "finish_reason": c.finish}
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created,
			"model": model, "choices": choices, "usage": usageOf(cs), "timings": makeTimings(&cs[0].stats)})
		return
	}
	sse := newSSE(w, s.cfg.WriteTimeout)
	chunk := func(c *choice, delta map[string]any, toks []scheduler.Token, finish any, t *timings) map[string]any {
		m := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []map[string]any{{"index": c.index, "delta": delta, "logprobs": chatLogprobs(toks, base.Logprobs && len(toks) > 0), "finish_reason": finish}}}
		if req.includeUsage() {
			m["usage"] = nil
		}
		if t != nil {
			m["timings"] = t
		}
		return m
	}
	splitters := make(map[*choice]*chat.ReasoningSplitter, len(cs))
	for _, c := range cs {
		splitters[c] = chat.NewReasoningSplitter(thinking)
		if err := sse.send(chunk(c, map[string]any{"role": "assistant", "content": ""}, nil, nil, nil)); err != nil {
			return
		}
	}
	send := func(c *choice, reasoning, answer string, toks []scheduler.Token) error {
		if reasoning == "" && answer == "" && len(toks) == 0 {
			return nil
		}
		delta := map[string]any{}
		if reasoning != "" {
			delta["reasoning_content"] = reasoning
		}
		if answer != "" || reasoning == "" {
			delta["content"] = answer
		}
		return sse.send(chunk(c, delta, toks, nil, nil))
	}
	left := len(cs)
	for up := range s.fanIn(ctx, cs) {
		if up.err == nil && up.u.Err != nil {
			up.err = up.u.Err
		}
		if up.err != nil {
			if !isCancel(up.err) || r.Context().Err() == nil {
				sse.streamError(up.err)
			}
			return
		}
		sp := splitters[up.c]
		reasoning, answer := sp.Push(up.u.Text)
		var toks []scheduler.Token
		if base.Logprobs {
			toks = up.u.Tokens
		}
		if err := send(up.c, reasoning, answer, toks); err != nil {
			return
		}
		if up.u.Done {
			reasoning, answer := sp.Flush()
			if err := send(up.c, reasoning, answer, nil); err != nil {
				return
			}
			if err := sse.send(chunk(up.c, map[string]any{}, nil, up.u.Finish, makeTimings(&up.u.Stats))); err != nil {
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
		if err := sse.send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{}, "usage": usageOf(cs)}); err != nil {
			return
		}
	}
	sse.raw([]byte("[DONE]"))
}

// chatLogprobs is the chat logprobs object, or nil.
func chatLogprobs(toks []scheduler.Token, on bool) any {
	if !on {
		return nil
	}
	type alt struct {
		Token   string  `json:"token"`
		Logprob float32 `json:"logprob"`
		Bytes   []int   `json:"bytes"`
	}
	type entry struct {
		alt
		TopLogprobs []alt `json:"top_logprobs"`
	}
	bytesOf := func(s string) []int {
		out := make([]int, len(s))
		for i := 0; i < len(s); i++ {
			out[i] = int(s[i])
		}
		return out
	}
	content := make([]entry, 0, len(toks))
	for _, t := range toks {
		e := entry{alt: alt{t.Piece, t.Logprob, bytesOf(t.Piece)}, TopLogprobs: []alt{}}
		for _, a := range t.Top {
			e.TopLogprobs = append(e.TopLogprobs, alt{a.Piece, a.Logprob, bytesOf(a.Piece)})
		}
		content = append(content, e)
	}
	return map[string]any{"content": content}
}
