package loadgen

import (
	"slices"
	"time"
)

// Summary is a level's figures, named as vLLM's bench serve names them
// where it has the figure. Latencies are in milliseconds.
type Summary struct {
	Level     Level
	Completed int
	Failed    int
	Errors    map[string]int // failed requests by kind

	TotalInputTokens  int
	TotalOutputTokens int
	// Duration is the wall-clock span of the measured requests: from the
	// first one's sending to the last one's end. Every throughput divides
	// by it.
	Duration time.Duration

	RequestThroughput    float64 // completed requests/s
	OutputThroughput     float64 // output tokens/s of the system
	TotalTokenThroughput float64 // (input + output) tokens/s
	SLO                  SLO
	GoodRequests         int
	RequestGoodput       float64 // good requests/s (when SLO is set)
	// MaxOutputTokensPerS is the most output tokens that arrived within one
	// second (seconds counted from the first request's sending).
	MaxOutputTokensPerS float64
	// MaxConcurrentRequests is the most requests in flight at once.
	MaxConcurrentRequests int

	TTFT, TPOT, ITL, E2EL Stats // ms
	// RequestOutputTPS is each request's output tokens / E2EL: the speed a
	// user sees, waiting included.
	RequestOutputTPS Stats
	// RequestDecodeTPS is each request's (output tokens - 1) / (E2EL -
	// TTFT): its generation speed after the first token (1/TPOT), the
	// client's twin of the server's predicted tok/s.
	RequestDecodeTPS Stats

	// CostPerMillionOutputTokens is CostPerHour / (OutputThroughput * 3600)
	// * 1e6 (0 when no cost is given).
	CostPerHour                float64
	CostPerMillionOutputTokens float64

	// The server's own timings, from the requests that carried them.
	ServerRequests     int
	ServerPromptMS     Stats // prompt processing time
	ServerPredictedTPS Stats // predicted_n / predicted_ms, per request
	ServerQueueMS      Stats // when the server reports queue time
	ServerCachedTokens int   // sum of cache_n: prompt tokens served from the cache

	// Samples for the distribution charts (not in the JSON).
	TTFTSamples, ITLSamples []float64
}

// Summarize computes a level's figures from its measured requests.
func Summarize(res *LevelResult, slo SLO, costPerHour float64) Summary {
	s := Summary{Level: res.Level, SLO: slo, CostPerHour: costPerHour, Errors: map[string]int{}}
	var first, last time.Time
	var e2el, tpot, reqTPS, decTPS, sPrompt, sPred, sQueue []float64
	for i := range res.Requests {
		r := &res.Requests[i]
		if !r.Start.IsZero() {
			end := r.Start.Add(r.Latency)
			if first.IsZero() || r.Start.Before(first) {
				first = r.Start
			}
			if end.After(last) {
				last = end
			}
		}
		if !r.OK() {
			s.Failed++
			s.Errors[r.ErrKind]++
			continue
		}
		s.Completed++
		s.TotalInputTokens += r.PromptTokens
		s.TotalOutputTokens += r.OutputTokens
		if slo.Set() && slo.Met(r) {
			s.GoodRequests++
		}
		s.TTFTSamples = append(s.TTFTSamples, ms(r.TTFT()))
		s.ITLSamples = r.ITL(s.ITLSamples)
		e2el = append(e2el, ms(r.Latency))
		if t, ok := r.TPOT(); ok {
			tpot = append(tpot, ms(t))
			if t > 0 {
				decTPS = append(decTPS, 1/t.Seconds())
			}
		}
		if r.Latency > 0 {
			reqTPS = append(reqTPS, float64(r.OutputTokens)/r.Latency.Seconds())
		}
		if st := r.Server; st != nil {
			s.ServerRequests++
			s.ServerCachedTokens += st.CacheN
			sPrompt = append(sPrompt, st.PromptMS)
			if st.PredictedMS > 0 {
				sPred = append(sPred, float64(st.PredictedN)/st.PredictedMS*1000)
			}
			if st.QueueMS != nil {
				sQueue = append(sQueue, *st.QueueMS)
			}
		}
	}
	if !first.IsZero() {
		s.Duration = last.Sub(first)
	}
	if sec := s.Duration.Seconds(); sec > 0 {
		s.RequestThroughput = float64(s.Completed) / sec
		s.OutputThroughput = float64(s.TotalOutputTokens) / sec
		s.TotalTokenThroughput = float64(s.TotalInputTokens+s.TotalOutputTokens) / sec
		s.RequestGoodput = float64(s.GoodRequests) / sec
	}
	if costPerHour > 0 && s.OutputThroughput > 0 {
		s.CostPerMillionOutputTokens = costPerHour / (s.OutputThroughput * 3600) * 1e6
	}
	s.MaxOutputTokensPerS = maxTokensPerSecond(res.Requests, first)
	s.MaxConcurrentRequests = maxInFlight(res.Requests)
	s.TTFT = StatsOf(s.TTFTSamples)
	s.ITL = StatsOf(s.ITLSamples)
	s.TPOT = StatsOf(tpot)
	s.E2EL = StatsOf(e2el)
	s.RequestOutputTPS = StatsOf(reqTPS)
	s.RequestDecodeTPS = StatsOf(decTPS)
	s.ServerPromptMS = StatsOf(sPrompt)
	s.ServerPredictedTPS = StatsOf(sPred)
	s.ServerQueueMS = StatsOf(sQueue)
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// maxTokensPerSecond counts the output tokens of successful requests in
// one-second buckets from t0 and returns the fullest bucket.
func maxTokensPerSecond(reqs []RequestResult, t0 time.Time) float64 {
	buckets := map[int64]int{}
	best := 0
	for i := range reqs {
		r := &reqs[i]
		if !r.OK() {
			continue
		}
		off := r.Start.Sub(t0)
		for _, a := range r.Arrivals {
			b := int64((off + a.At) / time.Second)
			buckets[b] += a.Tokens
			best = max(best, buckets[b])
		}
	}
	return float64(best)
}

// maxInFlight is the most requests whose [start, end) spans overlap.
func maxInFlight(reqs []RequestResult) int {
	type ev struct {
		t time.Time
		d int
	}
	var evs []ev
	for i := range reqs {
		r := &reqs[i]
		if r.Start.IsZero() {
			continue
		}
		evs = append(evs, ev{r.Start, 1}, ev{r.Start.Add(r.Latency), -1})
	}
	// Ends sort before starts at the same instant: back-to-back requests of
	// one client are not concurrent.
	slices.SortFunc(evs, func(a, b ev) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		return a.d - b.d
	})
	cur, best := 0, 0
	for _, e := range evs {
		cur += e.d
		best = max(best, cur)
	}
	return best
}
