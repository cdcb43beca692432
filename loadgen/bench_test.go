package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkStreamChunks measures the load generator's own ceiling: 64
// concurrent streams from an in-process server that answers instantly
// (each request 32 content chunks, each flushed on its own, as a token
// server does). The figure is chunks/s through the client; the server's
// work shares the same cores.
func BenchmarkStreamChunks(b *testing.B) {
	const chunks, conc = 32, 64
	chunk := []byte(`data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" word","logprobs":null,"finish_reason":null}]}` + "\n\n")
	tail := []byte(`data: {"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":32}}` + "\n\ndata: [DONE]\n\n")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for range chunks {
			w.Write(chunk)
			fl.Flush()
		}
		w.Write(tail)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	srv.Start()
	defer srv.Close()
	w, err := NewRandom(FixedVocab{}, 8, 0, 0, chunks, 1)
	if err != nil {
		b.Fatal(err)
	}
	tg := &Target{BaseURL: srv.URL, Endpoint: EndpointCompletions, IgnoreEOS: true, Timeout: time.Minute, HTTP: NewHTTPClient(conc)}
	r, err := NewRunner(Config{Target: tg, Workload: w, NumPrompts: max(b.N, conc)})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	res, err := r.Run(context.Background(), Level{Concurrency: conc})
	el := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	got := 0
	for _, q := range res.Requests {
		if !q.OK() {
			b.Fatalf("request failed: %s %v", q.ErrKind, q.Err)
		}
		got += len(q.Arrivals)
	}
	if got != len(res.Requests)*chunks {
		b.Fatal(fmt.Sprintf("%d chunks, want %d", got, len(res.Requests)*chunks))
	}
	b.ReportMetric(float64(got)/el.Seconds(), "chunks/s")
}
