package server

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/scheduler"
)

// vLLM's histogram buckets (vllm/v1/metrics/loggers.py).
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5,
		7.5, 10, 20, 40, 80, 160, 640, 2560}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5,
		10, 20, 40, 80}
	requestBuckets = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240,
		480, 960, 1920, 7680}
	iterationBuckets = []float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
)

// tokenBuckets are vLLM's 1-2-5 steps up to the context size.
func tokenBuckets(maxLen int) []float64 {
	var out []float64
	for m := 1; ; m *= 10 {
		for _, k := range []int{1, 2, 5} {
			if k*m > maxLen {
				return out
			}
			out = append(out, float64(k*m))
		}
	}
}

// Metrics are the server's Prometheus metrics: vLLM's names under a
// gollm: prefix, and the engine's time per (phase, op). It implements
// scheduler.Observer.
type Metrics struct {
	reg *prometheus.Registry

	ttft, itlHist, e2e, queue, prefill, decode *prometheus.HistogramVec
	promptLen, genLen, iteration               *prometheus.HistogramVec
	promptTokens, genTokens                    *prometheus.CounterVec
	success                                    *prometheus.CounterVec
	preemptions, prefixQueries, prefixHit      *prometheus.CounterVec
	stepSeconds, forwardSeconds                *prometheus.CounterVec
	model                                      string
}

// NewMetrics registers the metrics for a model called model with a
// context of ctxLen tokens; sched (set later with SetScheduler) feeds the
// gauges.
func NewMetrics(model string, ctxLen int) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), model: model}
	labels := []string{"model_name"}
	hist := func(name, help string, b []float64) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gollm:" + name, Help: help, Buckets: b}, labels)
		m.reg.MustRegister(h)
		return h
	}
	counter := func(name, help string, extra ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gollm:" + name, Help: help}, append(labels, extra...))
		m.reg.MustRegister(c)
		return c
	}
	m.ttft = hist("time_to_first_token_seconds", "Time from arrival to the first token.", ttftBuckets)
	m.itlHist = hist("inter_token_latency_seconds", "Time between consecutive tokens of a request.", itlBuckets)
	m.e2e = hist("e2e_request_latency_seconds", "Time from arrival to the end of a request.", requestBuckets)
	m.queue = hist("request_queue_time_seconds", "Time a request waited before its first forward pass.", requestBuckets)
	m.prefill = hist("request_prefill_time_seconds", "Time from a request's first forward pass to its first token.", requestBuckets)
	m.decode = hist("request_decode_time_seconds", "Time from a request's first token to its end.", requestBuckets)
	m.promptLen = hist("request_prompt_tokens", "Prompt tokens per request.", tokenBuckets(ctxLen))
	m.genLen = hist("request_generation_tokens", "Generated tokens per request.", tokenBuckets(ctxLen))
	m.iteration = hist("iteration_tokens_total", "Tokens per forward pass (decode tokens plus prompt chunks).", iterationBuckets)
	m.promptTokens = counter("prompt_tokens_total", "Prompt tokens of finished requests (prefix-cache hits included).")
	m.genTokens = counter("generation_tokens_total", "Generated tokens of finished requests.")
	m.success = counter("request_success_total", "Requests that finished, by reason.", "finished_reason")
	m.preemptions = counter("num_preemptions_total", "Requests preempted (KV blocks freed, recomputed later).")
	m.prefixQueries = counter("prefix_cache_queries_total", "Prompt tokens looked up in the prefix cache.")
	m.prefixHit = counter("prefix_cache_hits_total", "Prompt tokens found in the prefix cache.")
	m.stepSeconds = counter("step_seconds_total", "Scheduler step time, forward passes included.")
	m.forwardSeconds = counter("forward_seconds_total", "Time inside forward passes; step_seconds_total minus this is scheduler overhead.")
	// Counters exist (at 0) from the start, as vLLM's do.
	for _, c := range []*prometheus.CounterVec{m.promptTokens, m.genTokens, m.preemptions, m.prefixQueries, m.prefixHit, m.stepSeconds, m.forwardSeconds} {
		c.WithLabelValues(model)
	}
	for _, reason := range []string{scheduler.FinishStop, scheduler.FinishLength, "abort"} {
		m.success.WithLabelValues(model, reason)
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// SetScheduler exports the scheduler's load as gauges and the engine's
// per-op times as counters.
func (m *Metrics) SetScheduler(s *scheduler.Scheduler) {
	gauge := func(name, help string, f func() float64) {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gollm:" + name, Help: help,
			ConstLabels: prometheus.Labels{"model_name": m.model}}, f))
	}
	gauge("num_requests_running", "Requests in forward passes (prefilling or decoding).", func() float64 { return float64(s.Load().Running) })
	gauge("num_requests_waiting", "Requests waiting for admission.", func() float64 { return float64(s.Load().Waiting) })
	gauge("kv_cache_usage_perc", "Fraction of KV-cache blocks held by requests (0-1; unused cached prefixes count as free).", func() float64 { return s.Load().KVUsage })
	m.reg.MustRegister(&opCollector{s: s, model: m.model, desc: prometheus.NewDesc("gollm:op_seconds_total",
		"Engine time per forward-pass phase and op (summed over layers).", []string{"phase", "op"}, prometheus.Labels{"model_name": m.model})})
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Registry is the metrics' registry (tests read it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Step implements scheduler.Observer.
func (m *Metrics) Step(st scheduler.StepStats) {
	m.iteration.WithLabelValues(m.model).Observe(float64(st.Tokens))
	m.stepSeconds.WithLabelValues(m.model).Add(st.Total.Seconds())
	m.forwardSeconds.WithLabelValues(m.model).Add(st.Forward.Seconds())
}

// Preempted implements scheduler.Observer.
func (m *Metrics) Preempted() { m.preemptions.WithLabelValues(m.model).Inc() }

// PrefixQuery implements scheduler.Observer.
func (m *Metrics) PrefixQuery(queried, hit int) {
	m.prefixQueries.WithLabelValues(m.model).Add(float64(queried))
	m.prefixHit.WithLabelValues(m.model).Add(float64(hit))
}

func (m *Metrics) itl(d time.Duration) { m.itlHist.WithLabelValues(m.model).Observe(d.Seconds()) }

// finished records a request's end.
func (m *Metrics) finished(u *scheduler.Update) {
	st := &u.Stats
	reason := u.Finish
	if u.Err != nil {
		reason = "abort"
	}
	m.success.WithLabelValues(m.model, reason).Inc()
	m.promptTokens.WithLabelValues(m.model).Add(float64(st.PromptTokens))
	m.genTokens.WithLabelValues(m.model).Add(float64(st.GeneratedTokens))
	m.e2e.WithLabelValues(m.model).Observe(st.E2E().Seconds())
	m.promptLen.WithLabelValues(m.model).Observe(float64(st.PromptTokens))
	m.genLen.WithLabelValues(m.model).Observe(float64(st.GeneratedTokens))
	if !st.Scheduled.IsZero() {
		m.queue.WithLabelValues(m.model).Observe(st.Queue().Seconds())
	}
	if !st.FirstToken.IsZero() {
		m.ttft.WithLabelValues(m.model).Observe(st.TTFT().Seconds())
		m.prefill.WithLabelValues(m.model).Observe(st.Prefill().Seconds())
		m.decode.WithLabelValues(m.model).Observe(st.Decode().Seconds())
	}
}

// opCollector exports the scheduler's snapshot of the engine's per-op
// times.
type opCollector struct {
	s     *scheduler.Scheduler
	model string
	desc  *prometheus.Desc
}

func (c *opCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *opCollector) Collect(ch chan<- prometheus.Metric) {
	ops := c.s.OpTimes()
	for p := engine.Phase(0); p < engine.NumPhases; p++ {
		for op := engine.Op(0); op < engine.NumOps; op++ {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, ops[p][op].Seconds(), p.String(), op.String())
		}
	}
}
