package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gollm/gollm/internal/shared"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/gollm/gollm/chat"
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/scheduler"
)

const testModel = "stories260K"

type testServer struct {
	url     string
	api     *Server
	hs      *http.Server
	sched   *scheduler.Scheduler
	model   *engine.Model
	metrics *Metrics
	hits    atomic.Int64 // HTTP requests seen
	status  sync.Map     // status code -> *atomic.Int64
}

func loadModel(t testing.TB, opt engine.Options) *engine.Model {
	t.Helper()
	path := shared.Dir(t, "models", "stories260K.gguf")
	m, err := engine.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// startServer serves stories260K on 127.0.0.1:0.
func startServer(t *testing.T, cfg Config, scfg scheduler.Config, opt engine.Options) *testServer {
	t.Helper()
	if opt.Threads == 0 {
		opt.Threads = 2
	}
	if opt.Context == 0 {
		opt.Context = 256
	}
	opt.Timers = true
	m := loadModel(t, opt)
	ts := &testServer{model: m, metrics: NewMetrics(testModel, m.ContextSize())}
	if extra := scfg.Observer; extra != nil {
		scfg.Observer = teeObserver{ts.metrics, extra}
	} else {
		scfg.Observer = ts.metrics
	}
	sched, err := scheduler.New(m, scfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.sched = sched
	ts.metrics.SetScheduler(sched)
	ts.api = New(cfg, ts.metrics)
	tmpl, err := chat.Builtin(chat.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	ts.api.SetBackend(&Backend{Model: m, Sched: sched, Name: testModel, Template: tmpl, Created: time.Now()})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.url = "http://" + ln.Addr().String()
	ts.hs = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.hits.Add(1)
		rec := &statusRecorder{ResponseWriter: w, status: 200}
		ts.api.ServeHTTP(rec, r)
		c, _ := ts.status.LoadOrStore(rec.status, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}), ReadHeaderTimeout: 5 * time.Second}
	go ts.hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		Shutdown(ctx, ts.hs, sched)
	})
	return ts
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int)        { r.status = code; r.ResponseWriter.WriteHeader(code) }
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (ts *testServer) count(status int) int64 {
	if c, ok := ts.status.Load(status); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

func (ts *testServer) client(opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(ts.url + "/v1/"), option.WithAPIKey("none")}, opts...)...)
}

// idle waits until no request runs and no block is held by one.
func (ts *testServer) idle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l := ts.sched.Load()
		if l.Running == 0 && l.Waiting == 0 && l.KVUsage == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not idle: %+v", l)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (ts *testServer) metricsText(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(ts.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// metricValue returns the value of the sample whose line starts with prefix.
func metricValue(text, prefix string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			var v float64
			if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err == nil {
				return v, true
			}
		}
	}
	return 0, false
}

func TestCompletions(t *testing.T) {
	ts := startServer(t, Config{}, scheduler.Config{}, engine.Options{})
	c := ts.client()
	ctx := context.Background()
	params := openai.CompletionNewParams{
		Model:       testModel,
		Prompt:      openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once upon a time")},
		MaxTokens:   openai.Int(24),
		Temperature: openai.Float(0),
		Logprobs:    openai.Int(2),
	}
	resp, err := c.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0].Text == "" || resp.Choices[0].FinishReason != "length" {
		t.Fatalf("choices %+v", resp.Choices)
	}
	if resp.Usage.CompletionTokens != 24 || resp.Usage.PromptTokens == 0 {
		t.Fatalf("usage %+v", resp.Usage)
	}
	if lp := resp.Choices[0].Logprobs; len(lp.Tokens) != 24 || len(lp.TopLogprobs[0]) != 2 || lp.TokenLogprobs[0] > 0 {
		t.Fatalf("logprobs %+v", lp)
	}
	var tm timings
	if f, ok := resp.JSON.ExtraFields["timings"]; !ok || json.Unmarshal([]byte(f.Raw()), &tm) != nil || tm.PredictedN != 24 || tm.PromptN == 0 || tm.TTFTMS <= 0 {
		t.Fatalf("timings %q", resp.JSON.ExtraFields["timings"].Raw())
	}

	// Streamed: the same text (temperature 0), usage last.
	params.Logprobs = openai.Int(0)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := c.Completions.NewStreaming(ctx, params)
	var text strings.Builder
	var finish string
	var usage openai.CompletionUsage
	chunks := 0
	for stream.Next() {
		ch := stream.Current()
		chunks++
		for _, choice := range ch.Choices {
			text.WriteString(choice.Text)
			if choice.FinishReason != "" {
				finish = string(choice.FinishReason)
			}
		}
		if len(ch.Choices) == 0 {
			usage = ch.Usage
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if text.String() != resp.Choices[0].Text || finish != "length" || usage.CompletionTokens != 24 || chunks < 3 {
		t.Fatalf("stream: %q (%d chunks, finish %q, usage %+v), want %q", text.String(), chunks, finish, usage, resp.Choices[0].Text)
	}

	// Several prompts, n choices each, token-id prompts, stop strings.
	resp, err = c.Completions.New(ctx, openai.CompletionNewParams{
		Model:       testModel,
		Prompt:      openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"Lily", "The cat"}},
		MaxTokens:   openai.Int(8),
		N:           openai.Int(2),
		Seed:        openai.Int(7),
		Temperature: openai.Float(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 4 {
		t.Fatalf("%d choices, want 4", len(resp.Choices))
	}
	ids := ts.model.Tokenizer.Encode("Once upon a time", true, false)
	ids64 := make([]int64, len(ids))
	for i, id := range ids {
		ids64[i] = int64(id)
	}
	resp2, err := c.Completions.New(ctx, openai.CompletionNewParams{Model: testModel, MaxTokens: openai.Int(24), Temperature: openai.Float(0),
		Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfTokens: ids64}})
	if err != nil {
		t.Fatal(err)
	}
	full := resp2.Choices[0].Text
	stop := strings.Fields(full)[2]
	resp2, err = c.Completions.New(ctx, openai.CompletionNewParams{Model: testModel, MaxTokens: openai.Int(24), Temperature: openai.Float(0),
		Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfTokens: ids64}, Stop: openai.CompletionNewParamsStopUnion{OfString: openai.String(stop)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp2.Choices[0]; got.FinishReason != "stop" || !strings.HasPrefix(full, got.Text) || strings.Contains(got.Text, stop) {
		t.Fatalf("stop %q: %q (%s), full text %q", stop, got.Text, got.FinishReason, full)
	}
	ts.idle(t)
}

func TestChatCompletions(t *testing.T) {
	ts := startServer(t, Config{}, scheduler.Config{}, engine.Options{})
	c := ts.client()
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:       testModel,
		Messages:    []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You tell stories."), openai.UserMessage("Tell me about Lily.")},
		MaxTokens:   openai.Int(16),
		Temperature: openai.Float(0),
	}
	resp, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0].Message.Content == "" || resp.Choices[0].FinishReason != "length" || resp.Usage.CompletionTokens != 16 {
		t.Fatalf("response %+v", resp)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if got := acc.Choices[0].Message.Content; got != resp.Choices[0].Message.Content || acc.Usage.CompletionTokens != 16 {
		t.Fatalf("stream %q (usage %+v), want %q", got, acc.Usage, resp.Choices[0].Message.Content)
	}
}

func rawPost(t *testing.T, url, body string, header ...string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &v)
	return resp, v
}

// errorBody checks OpenAI's error shape and returns the error object.
func errorBody(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	e, ok := v["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %v", v)
	}
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := e[k]; !ok {
			t.Fatalf("error object without %q: %v", k, e)
		}
	}
	return e
}

func TestErrors(t *testing.T) {
	ts := startServer(t, Config{MaxBodyBytes: 1 << 16}, scheduler.Config{}, engine.Options{Context: 64})
	for _, c := range []struct {
		path, body string
		status     int
		param      string
	}{
		{"/v1/completions", "{bad", 400, ""},
		{"/v1/completions", `{"prompt":"x","temperature":-1}`, 400, "temperature"},
		{"/v1/completions", `{"prompt":"x","top_p":2}`, 400, "top_p"},
		{"/v1/completions", `{"prompt":"x","n":100}`, 400, "n"},
		{"/v1/completions", `{"prompt":"x","max_tokens":0}`, 400, "max_tokens"},
		{"/v1/completions", `{"prompt":"x","stop":3}`, 400, "stop"},
		{"/v1/completions", `{"prompt":[1, 99999]}`, 400, "prompt"},
		{"/v1/completions", `{}`, 400, "prompt"},
		{"/v1/completions", `{"prompt":"` + strings.Repeat("Once upon a time ", 30) + `"}`, 400, "prompt"},
		{"/v1/chat/completions", `{"messages":"hi"}`, 400, "messages"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"top_logprobs":3}`, 400, "top_logprobs"},
		{"/v1/completions", `{"prompt":"` + strings.Repeat("x", 1<<17) + `"}`, 413, ""},
		{"/v1/nothing", `{}`, 404, ""},
	} {
		resp, v := rawPost(t, ts.url+c.path, c.body)
		if resp.StatusCode != c.status {
			t.Errorf("%s %.60s: status %d, want %d (%v)", c.path, c.body, resp.StatusCode, c.status, v)
			continue
		}
		e := errorBody(t, v)
		if c.param != "" && e["param"] != c.param {
			t.Errorf("%s %.60s: param %v, want %s", c.path, c.body, e["param"], c.param)
		}
	}
	// A prompt longer than the context names both counts.
	_, v := rawPost(t, ts.url+"/v1/completions", `{"prompt":"`+strings.Repeat("Once upon a time ", 30)+`"}`)
	if e := errorBody(t, v); e["code"] != "context_length_exceeded" || e["n_ctx"] != float64(64) || e["n_prompt_tokens"] == nil {
		t.Errorf("prompt too long: %v", e)
	}
	// Through the client: a typed error.
	_, err := clientNew(ts.client(option.WithMaxRetries(0)), context.Background(), openai.CompletionNewParams{Model: testModel,
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")}, TopP: openai.Float(5)})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Param != "top_p" {
		t.Errorf("client error: %v", err)
	}
	ts.idle(t)
}

func TestAuthAndHealth(t *testing.T) {
	api := New(Config{APIKey: "sekrit"}, NewMetrics(testModel, 256))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: api}
	go hs.Serve(ln)
	defer hs.Close()
	url := "http://" + ln.Addr().String()
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("health while loading: %d", resp.StatusCode)
	}
	if resp, v := rawPost(t, url+"/v1/completions", `{"prompt":"x"}`, "Authorization", "Bearer sekrit"); resp.StatusCode != 503 || errorBody(t, v)["type"] != "unavailable_error" {
		t.Fatalf("completion while loading: %d %v", resp.StatusCode, v)
	}
	m := loadModel(t, engine.Options{Threads: 1, Context: 128})
	sched, err := scheduler.New(m, scheduler.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer sched.Close()
	tmpl, _ := chat.Builtin(chat.DefaultName)
	api.SetBackend(&Backend{Model: m, Sched: sched, Name: testModel, Template: tmpl})
	resp, err = http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"ok"`)) {
		t.Fatalf("health: %d %s", resp.StatusCode, b)
	}
	for _, auth := range []string{"", "Bearer wrong", "sekrit"} {
		if resp, v := rawPost(t, url+"/v1/completions", `{"prompt":"x"}`, "Authorization", auth); resp.StatusCode != 401 || errorBody(t, v)["type"] != "authentication_error" {
			t.Errorf("auth %q: %d %v", auth, resp.StatusCode, v)
		}
	}
	if resp, _ := rawPost(t, url+"/v1/completions", `{"prompt":"x","max_tokens":2}`, "Authorization", "Bearer sekrit"); resp.StatusCode != 200 {
		t.Errorf("with the key: %d", resp.StatusCode)
	}
	if resp, v := rawPost(t, url+"/tokenize", `{"content":"Lily","with_pieces":true}`, "Authorization", "Bearer sekrit"); resp.StatusCode != 200 || v["tokens"] == nil {
		t.Errorf("tokenize: %d %v", resp.StatusCode, v)
	}
	if resp, v := rawPost(t, url+"/detokenize", `{"tokens":[1, 400]}`, "Authorization", "Bearer sekrit"); resp.StatusCode != 200 || v["content"] == nil {
		t.Errorf("detokenize: %d %v", resp.StatusCode, v)
	}
}

// TestQueueFullRetry: with one slot and a queue of one, concurrent
// requests get 429 with Retry-After, and the official client's retries
// get every one of them served.
func TestQueueFullRetry(t *testing.T) {
	// Each step slowed to 2 ms: stories260K decodes 30 tokens in well under
	// a millisecond, so six clients started together could otherwise be
	// served one after another without ever finding the queue full.
	ts := startServer(t, Config{}, scheduler.Config{MaxRunning: 1, MaxQueue: 1, Observer: slowSteps{2 * time.Millisecond}}, engine.Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := clientNew(ts.client(option.WithMaxRetries(5)), context.Background(), openai.CompletionNewParams{Model: testModel,
				Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once")}, MaxTokens: openai.Int(30), Temperature: openai.Float(0)})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if ts.count(429) == 0 {
		t.Fatal("no request was refused with 429")
	}
	// The raw refusal carries Retry-After.
	if ts.count(200) != 6 {
		t.Fatalf("%d requests served, want 6", ts.count(200))
	}
}

// TestManyClients: 32 streaming clients, a third of them hanging up
// mid-stream; afterwards nothing runs and no block is held.
func TestManyClients(t *testing.T) {
	ts := startServer(t, Config{}, scheduler.Config{MaxRunning: 8, MaxQueue: 64}, engine.Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := ts.client()
			stream := c.Completions.NewStreaming(ctx, openai.CompletionNewParams{Model: testModel,
				Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once upon a time")}, MaxTokens: openai.Int(40), Seed: openai.Int(int64(i))},
				option.WithJSONSet("ignore_eos", true))
			n := 0
			for stream.Next() {
				if n++; i%3 == 0 && n == 2 {
					cancel()
				}
			}
			if err := stream.Err(); err != nil && i%3 != 0 {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ts.idle(t)
	text := ts.metricsText(t)
	if v, ok := metricValue(text, `gollm:request_success_total{finished_reason="length"`); !ok || v < 21 {
		t.Errorf("request_success_total length = %v", v)
	}
	// Every handler has returned: shutdown does not wait.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := Shutdown(ctx, ts.hs, ts.sched); err != nil {
		t.Fatalf("shutdown after the clients left: %v", err)
	}
}

// TestPrefixCacheMetrics: a repeated long prompt is served from the prefix
// cache, visible in /metrics and in usage's cached tokens.
func TestPrefixCacheMetrics(t *testing.T) {
	ts := startServer(t, Config{}, scheduler.Config{}, engine.Options{})
	prompt := strings.Repeat("Lily went to the park with her mom. ", 6)
	var cached []int64
	for i := 0; i < 2; i++ {
		resp, err := clientNew(ts.client(), context.Background(), openai.CompletionNewParams{Model: testModel,
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)}, MaxTokens: openai.Int(4), Temperature: openai.Float(0)})
		if err != nil {
			t.Fatal(err)
		}
		cached = append(cached, resp.Usage.PromptTokensDetails.CachedTokens)
	}
	if cached[0] != 0 || cached[1] < 32 {
		t.Fatalf("cached tokens %v, want 0 then >= 32", cached)
	}
	text := ts.metricsText(t)
	hits, _ := metricValue(text, "gollm:prefix_cache_hits_total")
	queries, _ := metricValue(text, "gollm:prefix_cache_queries_total")
	if hits != float64(cached[1]) || queries < 2*hits {
		t.Fatalf("prefix cache metrics: hits %v, queries %v", hits, queries)
	}
	for _, name := range []string{"gollm:time_to_first_token_seconds_bucket", "gollm:inter_token_latency_seconds_bucket", "gollm:e2e_request_latency_seconds_bucket",
		"gollm:request_queue_time_seconds_bucket", "gollm:request_prefill_time_seconds_bucket", "gollm:request_decode_time_seconds_bucket",
		"gollm:request_prompt_tokens_bucket", "gollm:request_generation_tokens_bucket", "gollm:iteration_tokens_total_bucket",
		"gollm:prompt_tokens_total", "gollm:generation_tokens_total", "gollm:num_preemptions_total", "gollm:num_requests_running",
		"gollm:num_requests_waiting", "gollm:kv_cache_usage_perc", `gollm:op_seconds_total{model_name="stories260K",op="ffn_down",phase="decode"}`} {
		if !strings.Contains(text, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	if v, _ := metricValue(text, `gollm:op_seconds_total{model_name="stories260K",op="ffn_down",phase="decode"}`); v <= 0 {
		t.Errorf("op_seconds_total ffn_down decode = %v", v)
	}
}

// TestDeterministicHTTP: temperature 0, 16 prompts one at a time and all
// at once through the API: the same text and logprobs.
func TestDeterministicHTTP(t *testing.T) {
	ts := startServer(t, Config{}, scheduler.Config{BatchTokens: 32}, engine.Options{})
	var prompts []string
	for i := 0; i < 16; i++ {
		prompts = append(prompts, strings.Repeat([]string{"Lily ", "The big dog ", "One day, ", "Tom and Sue "}[i%4], 1+i))
	}
	run := func(p string) (string, []float64) {
		resp, err := clientNew(ts.client(), context.Background(), openai.CompletionNewParams{Model: testModel,
			Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(p)}, MaxTokens: openai.Int(12), Temperature: openai.Float(0),
			Logprobs: openai.Int(0)}, option.WithJSONSet("ignore_eos", true))
		if err != nil {
			t.Error(err)
			return "", nil
		}
		return resp.Choices[0].Text, resp.Choices[0].Logprobs.TokenLogprobs
	}
	type out struct {
		text string
		lp   []float64
	}
	alone := make([]out, len(prompts))
	for i, p := range prompts {
		alone[i].text, alone[i].lp = run(p)
	}
	together := make([]out, len(prompts))
	var wg sync.WaitGroup
	for i, p := range prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			together[i].text, together[i].lp = run(p)
		}()
	}
	wg.Wait()
	for i := range prompts {
		if alone[i].text != together[i].text || fmt.Sprint(alone[i].lp) != fmt.Sprint(together[i].lp) {
			t.Errorf("prompt %d: alone %q %v, together %q %v", i, alone[i].text, alone[i].lp, together[i].text, together[i].lp)
		}
	}
}

// TestGracefulShutdown: a running stream finishes after shutdown starts;
// new requests are refused.
func TestGracefulShutdown(t *testing.T) {
	ts := startServer(t, Config{}, scheduler.Config{}, engine.Options{})
	c := ts.client()
	stream := c.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{Model: testModel,
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once")}, MaxTokens: openai.Int(150)},
		option.WithJSONSet("ignore_eos", true))
	if !stream.Next() {
		t.Fatal(stream.Err())
	}
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- Shutdown(ctx, ts.hs, ts.sched)
	}()
	time.Sleep(20 * time.Millisecond)
	if _, err := http.Post(ts.url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x"}`)); err == nil {
		t.Error("a new request was accepted during shutdown")
	}
	finish := ""
	for stream.Next() {
		for _, c := range stream.Current().Choices {
			if c.FinishReason != "" {
				finish = string(c.FinishReason)
			}
		}
	}
	if err := stream.Err(); err != nil || finish != "length" {
		t.Fatalf("running stream during shutdown: finish %q, %v", finish, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// FuzzRequestDecoding: no request body makes the decoding and checking of
// a completion or chat request panic, and every refusal is a 4xx error.
func FuzzRequestDecoding(f *testing.F) {
	for _, s := range []string{`{"prompt":"x"}`, `{"prompt":[1,2,3],"n":2,"stop":["a","b"]}`, `{"prompt":[[1],[2]],"logprobs":3}`,
		`{"messages":[{"role":"user","content":"hi"}],"top_logprobs":2,"logprobs":true}`, `{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`,
		`{"prompt":null,"temperature":1e308}`, `[]`, `{"max_tokens":-1}`, `{"messages":[{"role":"tool"}],"tools":[{}]}`, `{"stop":{}}`} {
		f.Add([]byte(s))
	}
	m := loadModel(f, engine.Options{Threads: 1, Context: 64})
	tmpl, err := chat.Builtin(chat.DefaultName)
	if err != nil {
		f.Fatal(err)
	}
	s := New(Config{}, NewMetrics(testModel, 64))
	b := &Backend{Model: m, Name: testModel, Template: tmpl}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, parse := range []func() error{
			func() error { _, err := s.parseCompletion(b, bytes.NewReader(body)); return err },
			func() error { _, err := s.parseChat(b, bytes.NewReader(body)); return err },
		} {
			if err := parse(); err != nil {
				if st := toAPIError(err).status; st < 400 || st >= 500 {
					t.Fatalf("body %q: status %d: %v", body, st, err)
				}
			}
		}
	})
}

func clientNew(c openai.Client, ctx context.Context, p openai.CompletionNewParams, opts ...option.RequestOption) (*openai.Completion, error) {
	return c.Completions.New(ctx, p, opts...)
}

// teeObserver passes the scheduler's events to two observers.
type teeObserver [2]scheduler.Observer

func (o teeObserver) Step(s scheduler.StepStats) { o[0].Step(s); o[1].Step(s) }
func (o teeObserver) Preempted()                 { o[0].Preempted(); o[1].Preempted() }
func (o teeObserver) PrefixQuery(queried, hit int) {
	o[0].PrefixQuery(queried, hit)
	o[1].PrefixQuery(queried, hit)
}

// slowSteps sleeps after every step: a test's stand-in for a model slow
// enough that requests overlap (it blocks the scheduler goroutine, which a
// real Observer must not).
type slowSteps struct{ d time.Duration }

func (o slowSteps) Step(scheduler.StepStats) { time.Sleep(o.d) }
func (slowSteps) Preempted()                 {}
func (slowSteps) PrefixQuery(int, int)       {}
