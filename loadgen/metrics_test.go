package loadgen

import (
	"math"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The percentiles and std of numpy (np.percentile linear, np.std ddof=0).
func TestStatsMatchNumpy(t *testing.T) {
	xs := []float64{7, 1, 10, 3, 2, 9, 4, 6, 5, 8} // 1..10 shuffled
	s := StatsOf(xs)
	want := map[string][2]float64{
		"mean": {s.Mean, 5.5}, "std": {s.Std, 2.8722813232690143}, "median": {s.Median, 5.5},
		"p90": {s.P90, 9.1}, "p95": {s.P95, 9.55}, "p99": {s.P99, 9.91}, "min": {s.Min, 1}, "max": {s.Max, 10},
	}
	for k, v := range want {
		if !near(v[0], v[1]) {
			t.Errorf("%s = %v, want %v", k, v[0], v[1])
		}
	}
	if xs[0] != 7 {
		t.Error("StatsOf sorted its input")
	}
	if one := StatsOf([]float64{4}); one.P99 != 4 || one.Std != 0 || one.N != 1 {
		t.Errorf("one sample: %+v", one)
	}
	if z := StatsOf(nil); z.N != 0 || z.Mean != 0 {
		t.Errorf("no samples: %+v", z)
	}
}

func msd(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// TTFT is the first content chunk, TPOT (E2EL-TTFT)/(N-1), and ITL per
// token: a chunk of k tokens after a gap g counts k gaps of g/k.
func TestRequestMetricsDefinitions(t *testing.T) {
	r := RequestResult{
		Latency: msd(300),
		Arrivals: []Arrival{
			{At: msd(100), Tokens: 1},
			{At: msd(150), Tokens: 1},
			{At: msd(250), Tokens: 2},
		},
		OutputTokens: 4,
	}
	if r.TTFT() != msd(100) {
		t.Errorf("TTFT %v", r.TTFT())
	}
	tpot, ok := r.TPOT()
	if !ok || math.Abs(ms(tpot)-200.0/3) > 1e-5 { // Duration keeps whole nanoseconds
		t.Errorf("TPOT %v %v, want 66.67ms", tpot, ok)
	}
	itl := r.ITL(nil)
	want := []float64{50, 50, 50}
	if len(itl) != len(want) {
		t.Fatalf("ITL %v, want %v", itl, want)
	}
	for i := range want {
		if !near(itl[i], want[i]) {
			t.Fatalf("ITL %v, want %v", itl, want)
		}
	}
	one := RequestResult{Latency: msd(10), Arrivals: []Arrival{{At: msd(10), Tokens: 1}}, OutputTokens: 1}
	if _, ok := one.TPOT(); ok {
		t.Error("TPOT of a one-token request should be undefined")
	}
}

func TestSpreadTokens(t *testing.T) {
	as := []Arrival{{bytes: 1}, {bytes: 3}, {bytes: 4}}
	spreadTokens(as, 5) // extra 2: shares .25 .75 1 -> 0 0 1, then the largest remainder (.75)
	if as[0].Tokens != 1 || as[1].Tokens != 2 || as[2].Tokens != 2 {
		t.Errorf("tokens %d %d %d, want 1 2 2", as[0].Tokens, as[1].Tokens, as[2].Tokens)
	}
}

// A level's figures from hand-made requests: span, throughputs, goodput,
// error kinds, the per-request speeds, the peak concurrency and tokens/s.
func TestSummarizeExact(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mk := func(start, lat float64, out, in int, at ...float64) RequestResult {
		r := RequestResult{Start: t0.Add(msd(start)), Latency: msd(lat), OutputTokens: out, PromptTokens: in}
		for _, a := range at {
			r.Arrivals = append(r.Arrivals, Arrival{At: msd(a), Tokens: 1})
		}
		return r
	}
	a := mk(0, 1000, 5, 10, 200, 400, 600, 800, 1000) // TTFT 200, TPOT 200
	b := mk(500, 1500, 3, 20, 900, 1200, 1500)        // TTFT 900, TPOT 300
	c := mk(1200, 300, 0, 30)                         // failed
	c.ErrKind, c.Err = "http_500", errTest
	d := mk(100, 50, 0, 5)
	d.ErrKind, d.Err = ErrKindTimeout, errTest
	b.Server = &ServerTimings{PromptN: 20, PromptMS: 800, PredictedN: 3, PredictedMS: 600, CacheN: 4}
	res := &LevelResult{Level: Level{Concurrency: 2}, Requests: []RequestResult{a, d, b, c}}
	s := Summarize(res, SLO{TTFT: msd(500)}, 36)

	if s.Completed != 2 || s.Failed != 2 || s.Errors["http_500"] != 1 || s.Errors[ErrKindTimeout] != 1 {
		t.Errorf("completed %d failed %d errors %v", s.Completed, s.Failed, s.Errors)
	}
	// The span runs from the first send (0) to the last end (b: 500+1500).
	if s.Duration != 2*time.Second {
		t.Errorf("duration %v, want 2s", s.Duration)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"request_throughput", s.RequestThroughput, 2.0 / 2},
		{"output_throughput", s.OutputThroughput, 8.0 / 2},
		{"total_token_throughput", s.TotalTokenThroughput, (8.0 + 30) / 2},
		{"request_goodput", s.RequestGoodput, 1.0 / 2}, // only a meets ttft <= 500
		{"mean_ttft", s.TTFT.Mean, 550},
		{"p99_ttft", s.TTFT.P99, 200 + 0.99*700},
		{"mean_tpot", s.TPOT.Mean, 250},
		{"mean_e2el", s.E2EL.Mean, 1250},
		{"itl n", float64(s.ITL.N), 4 + 2},
		{"mean_itl", s.ITL.Mean, (4*200 + 2*300) / 6.0},
		{"mean_request_output_tps", s.RequestOutputTPS.Mean, (5.0/1 + 3/1.5) / 2},
		{"mean_request_decode_tps", s.RequestDecodeTPS.Mean, (1/0.2 + 1/0.3) / 2},
		{"cost", s.CostPerMillionOutputTokens, 36 / (4.0 * 3600) * 1e6},
		// a [0,1000) b [500,2000) c [1200,1500) d [100,150): a+d at 100,
		// a+b at 500, b+c at 1200: at most 2.
		{"max_concurrent", float64(s.MaxConcurrentRequests), 2},
		{"server_prompt_ms", s.ServerPromptMS.Mean, 800},
		{"server_predicted_tps", s.ServerPredictedTPS.Mean, 5},
		{"server_cached", float64(s.ServerCachedTokens), 4},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Tokens per second bucket: a's arrivals at 200..1000 fall in second 0
	// (4) and 1 (1 at exactly 1000ms); b's at 1400, 1700, 2000 in 1, 1, 2.
	if s.MaxOutputTokensPerS != 4 {
		t.Errorf("max output tokens/s %v, want 4", s.MaxOutputTokensPerS)
	}
}

type testErr string

func (e testErr) Error() string { return string(e) }

var errTest = testErr("scripted")

func TestParseSLO(t *testing.T) {
	s, err := ParseSLO("ttft:500,tpot:50 e2el:2000")
	if err != nil || s.TTFT != msd(500) || s.TPOT != msd(50) || s.E2EL != msd(2000) {
		t.Fatalf("%+v %v", s, err)
	}
	if s.String() != "ttft:500,tpot:50,e2el:2000" {
		t.Errorf("String %q", s.String())
	}
	for _, bad := range []string{"ttft", "ttft:-1", "foo:5", "ttft:x"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if z, err := ParseSLO(""); err != nil || z.Set() {
		t.Errorf("empty SLO: %+v %v", z, err)
	}
	// TPOT bound: a one-token request has no TPOT and passes it.
	one := RequestResult{Latency: msd(10), Arrivals: []Arrival{{At: msd(10), Tokens: 1}}, OutputTokens: 1}
	if !(SLO{TPOT: msd(1)}).Met(&one) {
		t.Error("one-token request failed a TPOT bound")
	}
}
