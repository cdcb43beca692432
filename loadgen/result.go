package loadgen

import "time"

// Error kinds: how a request failed. A run counts them and goes on.
const (
	ErrKindTimeout     = "timeout"       // the request took longer than Target.Timeout
	ErrKindConnect     = "connection"    // no connection, or it failed before a response
	ErrKindBroken      = "broken_stream" // the stream ended before [DONE] or carried bad data
	ErrKindStreamError = "stream_error"  // the server sent an error event mid-stream
	ErrKindEmpty       = "empty_output"  // a complete stream with no content
	ErrKindCanceled    = "canceled"      // the run was interrupted
	// HTTP errors are "http_<status>", e.g. "http_429", "http_500".
)

// Arrival is a streamed chunk that carried content.
type Arrival struct {
	At     time.Duration // since the request was sent
	Tokens int           // tokens the chunk carried (at least 1)
	bytes  int           // its text's length, to share tokens by
}

// ServerTimings are the server's own account of a request, from
// llama-server's (and gollm serve's) "timings" object.
type ServerTimings struct {
	CacheN      int     `json:"cache_n"`
	PromptN     int     `json:"prompt_n"`
	PromptMS    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
	// QueueMS is the time the request waited for a slot, when the server
	// reports it (gollm serve does; llama-server does not).
	QueueMS *float64 `json:"queue_ms,omitempty"`
}

// RequestResult is one request as the client saw it.
type RequestResult struct {
	Start   time.Time     // when the request was sent
	Latency time.Duration // send to the end of the stream (E2EL)
	// Arrivals are the content chunks in order; Arrivals[0].At is the TTFT.
	Arrivals []Arrival
	// OutputTokens is usage.completion_tokens when the server sent usage,
	// else one per content chunk.
	OutputTokens int
	// PromptTokens is usage.prompt_tokens when sent, else the workload's count.
	PromptTokens int
	Server       *ServerTimings // nil when the server sends none
	ErrKind      string         // "" for success
	Err          error
}

// OK reports whether the request succeeded.
func (r *RequestResult) OK() bool { return r.ErrKind == "" }

// TTFT is the time to the first content chunk.
func (r *RequestResult) TTFT() time.Duration {
	if len(r.Arrivals) == 0 {
		return 0
	}
	return r.Arrivals[0].At
}

// TPOT is (latency - TTFT) / (output tokens - 1), vLLM's time per output
// token after the first; ok is false for fewer than two tokens.
func (r *RequestResult) TPOT() (d time.Duration, ok bool) {
	if r.OutputTokens < 2 || len(r.Arrivals) == 0 {
		return 0, false
	}
	return (r.Latency - r.TTFT()) / time.Duration(r.OutputTokens-1), true
}

// ITL appends the request's inter-token latencies to dst: for each content
// chunk after the first, the gap since the previous chunk divided evenly
// over the tokens it carried (a chunk of k tokens after a gap g counts k
// latencies of g/k, so packed chunks do not inflate ITL). Tokens that came
// in the first chunk with the first token are part of TTFT, not ITL.
func (r *RequestResult) ITL(dst []float64) []float64 {
	for i := 1; i < len(r.Arrivals); i++ {
		a := r.Arrivals[i]
		gap := (a.At - r.Arrivals[i-1].At).Seconds() * 1000
		k := max(a.Tokens, 1)
		for range k {
			dst = append(dst, gap/float64(k))
		}
	}
	return dst
}
