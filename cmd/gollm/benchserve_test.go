package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// openAIStub streams four one-word chunks per completion, with usage, and
// answers every fifth request with HTTP 503.
func openAIStub(t *testing.T) string {
	t.Helper()
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"data":[{"id":"stub"}]}`)
			return
		}
		io.Copy(io.Discard, r.Body)
		if n.Add(1)%5 == 0 {
			http.Error(w, `{"error":{"code":503,"message":"busy"}}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for range 4 {
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\" w\"}]}\n\n")
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4}}\n\ndata: [DONE]\n\n")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
	srv.Config.SetKeepAlivesEnabled(true)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestBenchServeSweep(t *testing.T) {
	url := openAIStub(t)
	dir := t.TempDir()
	save, png := filepath.Join(dir, "a.json"), filepath.Join(dir, "sweep.png")
	stdout, stderr, code := run(t, "bench", "serve", "--base-url", url, "-c", "1,2", "--num-prompts", "4",
		"--input-len", "16", "--output-len", "4", "--warmup", "0", "-o", "json", "--save", save, "--plot", png,
		"--goodput", "ttft:1000", "--cost-per-hour", "1.5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Model  string           `json:"model_id"`
		Levels []map[string]any `json:"levels"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Model != "stub" || len(rep.Levels) != 2 {
		t.Fatalf("model %q, %d levels", rep.Model, len(rep.Levels))
	}
	// 8 requests, the 5th a 503: the table counts it and stderr explains it.
	var completed, failed float64
	for _, l := range rep.Levels {
		completed += l["completed"].(float64)
		failed += l["failed"].(float64)
	}
	if completed != 7 || failed != 1 || !strings.Contains(stderr, "http_503") {
		t.Errorf("completed %v failed %v; stderr %q", completed, failed, stderr)
	}
	if _, ok := rep.Levels[0]["cost_per_million_output_tokens"]; !ok {
		t.Error("no cost figure")
	}
	if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("chart: %v", err)
	}
	out, stderr, code := run(t, "bench", "serve", "--compare", save, save)
	if code != 0 || !strings.Contains(out, "| output_throughput |") || !strings.Contains(out, "1.00x") {
		t.Errorf("compare exit %d: %s%s", code, out, stderr)
	}
}

func TestBenchServeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--endpoint", "/v2/x"},
		{"-c", "0"},
		{"-c", "two"},
		{"-o", "xml"},
		{"--plot", "x.pdf"},
		{"--goodput", "ttft"},
		{"--request-rate", "-1"},
		{"--input-len-range", "1"},
		{"--compare", "only-one.json"},
		{"stray-arg"},
	} {
		_, stderr, code := run(t, append([]string{"bench", "serve", "--base-url", "http://127.0.0.1:1"}, args...)...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
	// An unreachable server is a failed run (exit 1), not a crash.
	_, stderr, code := run(t, "bench", "serve", "--base-url", "http://127.0.0.1:1", "--num-prompts", "1", "--warmup", "0")
	if code != 1 || !strings.Contains(stderr, "connection") {
		t.Errorf("unreachable: exit %d, %q", code, stderr)
	}
}

// End to end: gollm serve on a small ../shared model, measured by gollm
// bench serve. Every request completes with exactly --output-len tokens
// (ignore_eos honoured) and the server's timings come back.
func TestBenchServeAgainstGollmServe(t *testing.T) {
	model, err := filepath.Abs("../../../shared/models/stories260K.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(model); err != nil {
		t.Skip("../shared not found: skipping the gollm serve end-to-end test")
	}
	srv := exec.Command(gollmBin(t), "serve", "-m", model, "--port", "0", "--parallel", "4")
	errPipe, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), "listening on "); ok {
				addr <- strings.Fields(a)[0]
			}
		}
		close(addr)
	}()
	var url string
	select {
	case url = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("gollm serve did not say where it listens")
	}
	if url == "" {
		t.Fatal("gollm serve exited before listening")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gollm serve not healthy: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stdout, stderr, code := run(t, "bench", "serve", "--base-url", url, "-m", model, "-c", "1,4",
		"--num-prompts", "4", "--input-len", "16", "--output-len", "12", "--warmup", "1", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Levels []map[string]any `json:"levels"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	for _, l := range rep.Levels {
		if l["completed"] != 4.0 || l["failed"] != 0.0 || l["total_output_tokens"] != 48.0 {
			t.Errorf("%v: completed %v failed %v output tokens %v (errors %v)", l["label"], l["completed"], l["failed"], l["total_output_tokens"], l["errors"])
		}
		if l["server_requests"] != 4.0 || l["mean_server_predicted_tps"] == nil || l["mean_server_queue_ms"] == nil {
			t.Errorf("%v: no server timings: %v", l["label"], l)
		}
		if ttft, _ := l["mean_ttft_ms"].(float64); ttft <= 0 {
			t.Errorf("%v: TTFT %v", l["label"], l["mean_ttft_ms"])
		}
	}
}
