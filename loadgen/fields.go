package loadgen

import (
	"math"
	"strings"
)

// Field is one named figure of a Summary, in report order.
type Field struct {
	Key   string
	Value any // float64, int, string, map[string]int, or nil (JSON null)
}

// Fields lists s's figures under vLLM's bench serve result keys (and
// gollm's own for what vLLM lacks: the per-request speeds, the error kinds,
// cost and the server's timings).
func (s *Summary) Fields() []Field {
	rate := any("inf")
	if s.Level.Open() {
		rate = s.Level.RequestRate
	}
	burst := s.Level.Burstiness
	if burst == 0 {
		burst = 1
	}
	f := []Field{
		{"label", s.Level.String()},
		{"max_concurrency", s.Level.Concurrency},
		{"request_rate", rate},
		{"burstiness", burst},
		{"completed", s.Completed},
		{"failed", s.Failed},
		{"errors", s.Errors},
		{"total_input_tokens", s.TotalInputTokens},
		{"total_output_tokens", s.TotalOutputTokens},
		{"duration", s.Duration.Seconds()},
		{"request_throughput", s.RequestThroughput},
	}
	if s.SLO.Set() {
		f = append(f, Field{"request_goodput", s.RequestGoodput}, Field{"good_requests", s.GoodRequests}, Field{"goodput_slo", s.SLO.String()})
	} else {
		f = append(f, Field{"request_goodput", nil})
	}
	f = append(f,
		Field{"output_throughput", s.OutputThroughput},
		Field{"total_token_throughput", s.TotalTokenThroughput},
		Field{"max_output_tokens_per_s", s.MaxOutputTokensPerS},
		Field{"max_concurrent_requests", s.MaxConcurrentRequests},
	)
	for _, m := range []struct {
		name string
		st   *Stats
	}{{"ttft", &s.TTFT}, {"tpot", &s.TPOT}, {"itl", &s.ITL}, {"e2el", &s.E2EL}} {
		f = appendStats(f, m.name+"_ms", m.st, "mean", "median", "std", "p50", "p90", "p95", "p99")
	}
	f = appendStats(f, "request_output_tps", &s.RequestOutputTPS, "mean", "median", "std", "min", "max")
	f = appendStats(f, "request_decode_tps", &s.RequestDecodeTPS, "mean", "median", "std", "min", "max")
	if s.CostPerHour > 0 {
		f = append(f, Field{"cost_per_hour", s.CostPerHour}, Field{"cost_per_million_output_tokens", s.CostPerMillionOutputTokens})
	}
	if s.ServerRequests > 0 {
		f = append(f, Field{"server_requests", s.ServerRequests}, Field{"server_cached_tokens", s.ServerCachedTokens})
		f = appendStats(f, "server_prompt_ms", &s.ServerPromptMS, "mean", "median", "p99")
		f = appendStats(f, "server_predicted_tps", &s.ServerPredictedTPS, "mean", "median", "min")
		if s.ServerQueueMS.N > 0 {
			f = appendStats(f, "server_queue_ms", &s.ServerQueueMS, "mean", "median", "p99")
		}
	}
	return f
}

func appendStats(f []Field, name string, st *Stats, which ...string) []Field {
	for _, w := range which {
		var v float64
		switch w {
		case "mean":
			v = st.Mean
		case "median":
			v = st.Median
		case "std":
			v = st.Std
		case "p50":
			v = st.P50
		case "p90":
			v = st.P90
		case "p95":
			v = st.P95
		case "p99":
			v = st.P99
		case "min":
			v = st.Min
		case "max":
			v = st.Max
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		f = append(f, Field{w + "_" + name, v})
	}
	return f
}

// errorsString renders error counts as "http_500:3;timeout:1".
func errorsString(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+":"+itoa(m[k]))
	}
	return strings.Join(parts, ";")
}
