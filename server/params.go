package server

import (
	"encoding/json"
	"math/rand/v2"

	"github.com/gollm/gollm/sampler"
	"github.com/gollm/gollm/scheduler"
)

// genParams are the sampling and length parameters completions and chat
// completions share (OpenAI's, plus llama-server's and vLLM's top_k,
// min_p, repeat_penalty, ignore_eos).
type genParams struct {
	Model               string          `json:"model"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	TopK                *int            `json:"top_k"`
	MinP                *float64        `json:"min_p"`
	Seed                *int64          `json:"seed"`
	Stop                json.RawMessage `json:"stop"`
	PresencePenalty     *float64        `json:"presence_penalty"`
	FrequencyPenalty    *float64        `json:"frequency_penalty"`
	RepeatPenalty       *float64        `json:"repeat_penalty"`
	N                   *int            `json:"n"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// request checks the parameters and builds the scheduler request (without
// its prompt) and the number of choices. defMax is the max_tokens default
// (<= 0: until the end of generation).
func (p *genParams) request(defMax, maxN, ctx int) (scheduler.Request, int, uint64, error) {
	var r scheduler.Request
	r.MaxTokens = defMax
	for _, mt := range []struct {
		name string
		v    *int
	}{{"max_tokens", p.MaxTokens}, {"max_completion_tokens", p.MaxCompletionTokens}} {
		if mt.v != nil {
			if *mt.v < 1 {
				return r, 0, 0, badParam(mt.name, "%s must be at least 1, got %d", mt.name, *mt.v)
			}
			r.MaxTokens = *mt.v
		}
	}
	cfg := sampler.Config{Temperature: 1, PenaltyLastN: -1, HistoryCap: ctx}
	if v := p.Temperature; v != nil {
		if *v < 0 || *v > 100 {
			return r, 0, 0, badParam("temperature", "temperature must be in [0, 100], got %v", *v)
		}
		cfg.Temperature = float32(*v)
	}
	if v := p.TopP; v != nil {
		if *v <= 0 || *v > 1 {
			return r, 0, 0, badParam("top_p", "top_p must be in (0, 1], got %v", *v)
		}
		cfg.TopP = float32(*v)
	}
	if v := p.TopK; v != nil {
		if *v < -1 {
			return r, 0, 0, badParam("top_k", "top_k must be >= -1 (-1 or 0: off), got %d", *v)
		}
		cfg.TopK = max(*v, 0)
	}
	if v := p.MinP; v != nil {
		if *v < 0 || *v > 1 {
			return r, 0, 0, badParam("min_p", "min_p must be in [0, 1], got %v", *v)
		}
		cfg.MinP = float32(*v)
	}
	for _, pen := range []struct {
		name string
		v    *float64
		dst  *float32
		min  float64
	}{{"presence_penalty", p.PresencePenalty, &cfg.PresencePenalty, 0}, {"frequency_penalty", p.FrequencyPenalty, &cfg.FrequencyPenalty, 0},
		{"repeat_penalty", p.RepeatPenalty, &cfg.RepeatPenalty, 0}} {
		if pen.v != nil {
			if *pen.v < pen.min || *pen.v > 10 {
				return r, 0, 0, badParam(pen.name, "%s must be in [0, 10] here, got %v", pen.name, *pen.v)
			}
			*pen.dst = float32(*pen.v)
		}
	}
	n := 1
	if p.N != nil {
		if *p.N < 1 || *p.N > maxN {
			return r, 0, 0, badParam("n", "n must be in [1, %d], got %d", maxN, *p.N)
		}
		n = *p.N
	}
	seed := rand.Uint64()
	if p.Seed != nil {
		seed = uint64(*p.Seed)
	}
	stops, err := parseStop(p.Stop)
	if err != nil {
		return r, 0, 0, err
	}
	if err := cfg.Validate(); err != nil {
		return r, 0, 0, badParam("temperature", "%v", err)
	}
	r.Sampling, r.Stop, r.IgnoreEOS = cfg, stops, p.IgnoreEOS
	return r, n, seed, nil
}

// parseStop accepts a string or a list of strings (at most 16).
func parseStop(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil, nil
		}
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badParam("stop", "stop must be a string or a list of strings")
	}
	if len(list) > 16 {
		return nil, badParam("stop", "at most 16 stop strings, got %d", len(list))
	}
	out := list[:0]
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

func (p *genParams) includeUsage() bool {
	return p.StreamOptions != nil && p.StreamOptions.IncludeUsage
}
