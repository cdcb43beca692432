package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func target(fs *fakeServer) *Target {
	return &Target{BaseURL: fs.URL, Endpoint: EndpointCompletions, Model: "m", IgnoreEOS: true, Timeout: 5 * time.Second, HTTP: NewHTTPClient(8)}
}

var prompt = Prompt{Text: "hello", InputTokens: 3, OutputLen: 4}

// The client's TTFT, ITL and E2EL follow the server's scripted delays:
// never shorter, and not much longer on loopback.
func TestDoTimesTheStream(t *testing.T) {
	const ttft, itl = 60 * time.Millisecond, 30 * time.Millisecond
	fs := newFakeServer(t, func(int) fakeScript {
		sc := steady(4, ttft, itl)
		sc.timings = true
		return sc
	})
	tg := target(fs)
	tg.ExtraBody = map[string]any{"top_k": 1, "temperature": 0.5}
	r := tg.Do(context.Background(), prompt)
	if !r.OK() {
		t.Fatalf("%s: %v", r.ErrKind, r.Err)
	}
	// The server cannot send earlier than scripted, so the lower bounds are
	// exact; the upper ones only catch gross errors (a loaded machine
	// delays the fake server by a lot).
	const slack = 2 * time.Second
	if r.TTFT() < ttft || r.TTFT() > ttft+slack {
		t.Errorf("TTFT %v, scripted %v", r.TTFT(), ttft)
	}
	itls := r.ITL(nil)
	if len(itls) != 3 {
		t.Fatalf("ITL %v: want 3 gaps", itls)
	}
	var sum float64
	for _, g := range itls {
		sum += g
	}
	last := r.Arrivals[len(r.Arrivals)-1].At
	if !near(sum, ms(last-r.TTFT())) {
		t.Errorf("ITLs sum to %vms, the chunks span %v", sum, last-r.TTFT())
	}
	if last < ttft+3*itl {
		t.Errorf("last chunk at %v, scripted no earlier than %v", last, ttft+3*itl)
	}
	if min := ttft + 3*itl; r.Latency < last || r.Latency < min || r.Latency > min+slack {
		t.Errorf("E2EL %v, scripted %v", r.Latency, min)
	}
	if r.OutputTokens != 4 || r.PromptTokens != 11 {
		t.Errorf("tokens out %d in %d, want 4 and the usage's 11", r.OutputTokens, r.PromptTokens)
	}
	if r.Server == nil || r.Server.PromptMS != 12.5 || r.Server.PredictedN != 4 || r.Server.QueueMS == nil || *r.Server.QueueMS != 1.5 {
		t.Errorf("server timings %+v", r.Server)
	}
	body := fs.bodies[0]
	if body["max_tokens"] != 4.0 || body["ignore_eos"] != true || body["min_tokens"] != 4.0 || body["stream"] != true || body["prompt"] != "hello" || body["top_k"] != 1.0 || body["temperature"] != 0.5 {
		t.Errorf("request body %v", body)
	}
}

// Chunks that carry several tokens (usage > chunks): the tokens are shared
// by text length and each chunk's gap is split among its tokens.
func TestDoMultiTokenChunks(t *testing.T) {
	fs := newFakeServer(t, func(int) fakeScript {
		return fakeScript{usage: 6, chat: true, chunks: []fakeChunk{
			{wait: 10 * time.Millisecond, text: "a"}, {wait: 40 * time.Millisecond, text: "bb"}, {wait: 40 * time.Millisecond, text: "ccc"}}}
	})
	tg := target(fs)
	tg.Endpoint = EndpointChat
	r := tg.Do(context.Background(), prompt)
	if !r.OK() {
		t.Fatalf("%s: %v", r.ErrKind, r.Err)
	}
	// bytes 1,2,3 share 3 extra tokens: .5 1 1.5 -> 0 1 1, the last by the
	// first largest remainder: 2 2 2.
	for i, a := range r.Arrivals {
		if a.Tokens != 2 {
			t.Errorf("chunk %d: %d tokens, want 2", i, a.Tokens)
		}
	}
	itl := r.ITL(nil)
	if len(itl) != 4 {
		t.Fatalf("ITL %v: want 4 samples (2 chunks x 2 tokens)", itl)
	}
	g1 := ms(r.Arrivals[1].At - r.Arrivals[0].At)
	if !near(itl[0], g1/2) || !near(itl[1], g1/2) {
		t.Errorf("ITL %v, want the first gap %v halved", itl, g1)
	}
	if tpot, _ := r.TPOT(); tpot != (r.Latency-r.TTFT())/5 {
		t.Errorf("TPOT %v", tpot)
	}
	if m := fs.bodies[0]["messages"]; m == nil {
		t.Errorf("chat request without messages: %v", fs.bodies[0])
	}
}

// Each way a request can fail is counted by its kind, and Do returns.
func TestDoErrorKinds(t *testing.T) {
	cases := []struct {
		name string
		sc   fakeScript
		kind string
	}{
		{"500", fakeScript{status: http.StatusInternalServerError}, "http_500"},
		{"429", fakeScript{status: http.StatusTooManyRequests}, "http_429"},
		{"broken", func() fakeScript { s := steady(4, 0, 0); s.breakAfter = 2; return s }(), ErrKindBroken},
		{"no [DONE]", func() fakeScript { s := steady(2, 0, 0); s.noDone = true; return s }(), ErrKindBroken},
		{"error event", func() fakeScript { s := steady(4, 0, 0); s.errorAfter = 1; return s }(), ErrKindStreamError},
		{"stall", func() fakeScript { s := steady(2, 0, 0); s.stall = true; return s }(), ErrKindTimeout},
		{"stall before headers", fakeScript{chunks: []fakeChunk{{wait: time.Hour}}}, ErrKindTimeout},
		{"empty", fakeScript{usage: 0}, ErrKindEmpty},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := newFakeServer(t, func(int) fakeScript { return c.sc })
			tg := target(fs)
			if c.kind == ErrKindTimeout {
				tg.Timeout = 200 * time.Millisecond
			}
			start := time.Now()
			r := tg.Do(context.Background(), prompt)
			if r.ErrKind != c.kind {
				t.Errorf("kind %q (%v), want %q", r.ErrKind, r.Err, c.kind)
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
	// Nothing listening: a connection failure.
	fs := newFakeServer(t, nil)
	url := fs.URL
	fs.Close()
	r := (&Target{BaseURL: url, Endpoint: EndpointCompletions, Timeout: time.Second}).Do(context.Background(), prompt)
	if r.ErrKind != ErrKindConnect {
		t.Errorf("closed port: kind %q (%v)", r.ErrKind, r.Err)
	}
}

func TestFetchModel(t *testing.T) {
	fs := newFakeServer(t, nil)
	id, err := target(fs).FetchModel(context.Background())
	if err != nil || id != "fake-model" {
		t.Errorf("%q %v", id, err)
	}
}

type connCount struct{ n int }

type connKey struct{}

// A server that drops a kept-alive connection when the next request
// arrives on it (as one does that closed the connection while idle): the
// request is resent on a fresh connection, not counted as a failure.
func TestDoResendsOnStaleConnection(t *testing.T) {
	var seen atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		io.Copy(io.Discard, r.Body)
		cc := r.Context().Value(connKey{}).(*connCount)
		cc.n++
		if cc.n > 1 {
			if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\" w\"}]}\n\ndata: [DONE]\n\n")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h,
		ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, &connCount{})
		}}}
	srv.Start()
	defer srv.Close()
	tg := &Target{BaseURL: srv.URL, Endpoint: EndpointCompletions, Timeout: 5 * time.Second, HTTP: NewHTTPClient(1)}
	for i := range 3 {
		if r := tg.Do(context.Background(), prompt); !r.OK() {
			t.Fatalf("request %d: %s: %v", i, r.ErrKind, r.Err)
		}
	}
	if n := seen.Load(); n != 5 {
		t.Errorf("server saw %d requests, want 3 answered + 2 dropped", n)
	}
}
