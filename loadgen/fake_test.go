package loadgen

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeChunk is one scripted content chunk: wait, then send text.
type fakeChunk struct {
	wait time.Duration
	text string
}

// fakeScript is how the fake server answers one request.
type fakeScript struct {
	status     int // non-200: an error answer, no stream
	chunks     []fakeChunk
	usage      int  // completion_tokens in the usage chunk (0: no usage chunk)
	timings    bool // llama-server style timings on the usage chunk
	breakAfter int  // > 0: drop the connection after this many chunks
	errorAfter int  // > 0: send an error event after this many chunks
	noDone     bool // end the body cleanly without [DONE]
	stall      bool // after the chunks, hang until the client goes away
	chat       bool // chat.completion.chunk deltas instead of text
}

// fakeServer is an in-process OpenAI-compatible server on 127.0.0.1 whose
// answers are scripted per request number (0-based, in order of arrival).
type fakeServer struct {
	*httptest.Server
	script   func(n int) fakeScript
	count    atomic.Int64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	mu       sync.Mutex
	bodies   []map[string]any
}

func newFakeServer(t testing.TB, script func(n int) fakeScript) *fakeServer {
	t.Helper()
	fs := &fakeServer{script: script}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs.Server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: fs}}
	fs.Start()
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"fake-model","object":"model"}]}`)
		return
	}
	n := int(fs.count.Add(1) - 1)
	cur := fs.inFlight.Add(1)
	// Leave the in-flight count before the answer's last bytes go out: the
	// client may send its next request as soon as it reads them.
	leave := sync.OnceFunc(func() { fs.inFlight.Add(-1) })
	defer leave()
	for {
		m := fs.maxIn.Load()
		if cur <= m || fs.maxIn.CompareAndSwap(m, cur) {
			break
		}
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fs.mu.Lock()
	fs.bodies = append(fs.bodies, body)
	fs.mu.Unlock()
	sc := fs.script(n)
	if sc.status != 0 && sc.status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		leave()
		w.WriteHeader(sc.status)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"scripted failure","type":"server_error"}}`, sc.status)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	for i, c := range sc.chunks {
		if c.wait > 0 {
			select {
			case <-time.After(c.wait):
			case <-r.Context().Done():
				return
			}
		}
		if sc.breakAfter > 0 && i == sc.breakAfter {
			hj, _, err := http.NewResponseController(w).Hijack()
			leave()
			if err == nil {
				hj.Close()
			}
			return
		}
		if sc.errorAfter > 0 && i == sc.errorAfter {
			leave()
			fmt.Fprint(w, "data: {\"error\":{\"code\":500,\"message\":\"scripted mid-stream error\",\"type\":\"server_error\"}}\n\n")
			fl.Flush()
			return
		}
		tb, _ := json.Marshal(c.text)
		if sc.chat {
			fmt.Fprintf(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}],\"usage\":null}\n\n", tb)
		} else {
			fmt.Fprintf(w, "data: {\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":%s,\"finish_reason\":null}]}\n\n", tb)
		}
		fl.Flush()
	}
	if sc.stall {
		<-r.Context().Done()
		return
	}
	leave()
	if sc.usage > 0 {
		tim := ""
		if sc.timings {
			tim = `,"timings":{"cache_n":3,"prompt_n":10,"prompt_ms":12.5,"predicted_n":4,"predicted_ms":40,"queue_ms":1.5}`
		}
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":%d}%s}\n\n", sc.usage, tim)
	}
	if !sc.noDone {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
	fl.Flush()
}

// steady is a script of n one-word chunks, the first after ttft and the
// others itl apart, with usage.
func steady(n int, ttft, itl time.Duration) fakeScript {
	sc := fakeScript{usage: n}
	for i := range n {
		w := itl
		if i == 0 {
			w = ttft
		}
		sc.chunks = append(sc.chunks, fakeChunk{wait: w, text: " w"})
	}
	return sc
}
