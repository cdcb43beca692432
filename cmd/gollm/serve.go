package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gollm/gollm/chat"
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/scheduler"
	"github.com/gollm/gollm/server"
)

type serveFlags struct {
	model           modelFlags
	host            string
	port            int
	parallel        int
	batchTokens     int
	maxQueue        int
	apiKey          string
	pprofAddr       string
	shutdownTimeout time.Duration
	alias           string
	chatTemplate    string
	noPrefixCache   bool
}

func serveCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve -m model.gguf",
		Short: "Serve a model over an OpenAI-compatible HTTP API with continuous batching",
		Long: `Serve a model over an OpenAI-compatible HTTP API: /v1/completions, /v1/chat/completions
(streamed or not), /v1/models, /health, /tokenize, /detokenize and Prometheus metrics on
/metrics. Requests are batched continuously (one forward pass holds a token of every running
request plus prompt chunks of new ones), full KV blocks are cached by prefix, and a request's
results do not depend on what else is running.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), &f) },
	}
	f.model.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.host, "host", "127.0.0.1", "address to listen on")
	fl.IntVar(&f.port, "port", 8080, "port to listen on")
	fl.IntVar(&f.parallel, "parallel", 16, "most requests in flight at once (prefilling or decoding); -np in llama-server")
	fl.IntVar(&f.batchTokens, "batch-tokens", 512, "tokens per forward pass: decode tokens plus prompt chunks")
	fl.IntVar(&f.maxQueue, "max-queue", 256, "requests waiting for a slot before new ones get 429")
	fl.StringVar(&f.apiKey, "api-key", "", "require Authorization: Bearer KEY on the API (not on /health and /metrics)")
	fl.StringVar(&f.pprofAddr, "pprof-addr", "", "serve net/http/pprof on this loopback address, e.g. 127.0.0.1:6060 (profiles carry phase/layer/op labels)")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, how long running requests may finish before they are cancelled")
	fl.StringVar(&f.alias, "alias", "", "model id the API reports and accepts (default: the file name)")
	fl.StringVar(&f.chatTemplate, "chat-template", "", "chat template: a built-in name ("+strings.Join(chat.BuiltinNames(), ", ")+") or a Jinja file (default: the model's own, else "+chat.DefaultName+")")
	fl.BoolVar(&f.noPrefixCache, "no-prefix-cache", false, "do not keep finished requests' KV blocks for reuse by later prompts")
	return cmd
}

func (f *serveFlags) validate() error {
	switch {
	case f.port < 0 || f.port > 65535:
		return usageErr("--port %d outside 0-65535", f.port)
	case f.parallel <= 0:
		return usageErr("--parallel must be positive, got %d", f.parallel)
	case f.batchTokens < f.parallel:
		return usageErr("--batch-tokens (%d) must be at least --parallel (%d): every running request decodes a token per pass", f.batchTokens, f.parallel)
	case f.maxQueue <= 0:
		return usageErr("--max-queue must be positive, got %d", f.maxQueue)
	case f.shutdownTimeout < 0:
		return usageErr("--shutdown-timeout must not be negative")
	case f.model.path == "":
		return usageErr("-m/--model is required")
	}
	if f.pprofAddr != "" {
		host, _, err := net.SplitHostPort(f.pprofAddr)
		if err != nil {
			return usageErr("--pprof-addr %q: %v", f.pprofAddr, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return usageErr("--pprof-addr %q: profiles are served on a loopback address only", f.pprofAddr)
		}
	}
	return nil
}

func runServe(ctx context.Context, f *serveFlags) error {
	if err := f.validate(); err != nil {
		return err
	}
	if f.model.batch == 0 || f.model.batch < f.batchTokens {
		f.model.batch = f.batchTokens
	}
	name := f.alias
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(f.model.path), filepath.Ext(f.model.path))
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Listen first: /health answers 503 while the model loads.
	ln, err := net.Listen("tcp", net.JoinHostPort(f.host, strconv.Itoa(f.port)))
	if err != nil {
		return err
	}
	ctxLen := f.model.ctx
	if ctxLen == 0 {
		ctxLen = 4096 // the engine's default is min(trained, 4096)
	}
	if f.model.kvSize == 0 {
		// A context per running request; memory is taken as used, so a
		// large cap costs nothing until it fills.
		f.model.kvSize = max(4, f.parallel) * ctxLen
	}
	metrics := server.NewMetrics(name, ctxLen)
	api := server.New(server.Config{APIKey: f.apiKey}, metrics)
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second}
	srvErr := make(chan error, 1)
	go func() { srvErr <- srv.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "gollm serve: listening on http://%s (loading %s)\n", ln.Addr(), f.model.path)

	if f.pprofAddr != "" {
		if err := servePprof(f.pprofAddr); err != nil {
			srv.Close()
			return err
		}
	}
	m, err := f.model.load(true)
	if err != nil {
		srv.Close()
		return err
	}
	defer m.Close()
	if f.pprofAddr != "" {
		m.EnableProfileLabels()
	}
	tmpl, err := chatTemplate(m, f.chatTemplate)
	if err != nil {
		srv.Close()
		return err
	}
	sched, err := scheduler.New(m, scheduler.Config{MaxRunning: f.parallel, BatchTokens: f.batchTokens,
		MaxQueue: f.maxQueue, NoPrefixCache: f.noPrefixCache, Observer: metrics})
	if err != nil {
		srv.Close()
		return err
	}
	metrics.SetScheduler(sched)
	api.SetBackend(&server.Backend{Model: m, Sched: sched, Name: name, Template: tmpl, Created: time.Now()})
	fmt.Fprintf(os.Stderr, "gollm serve: ready: %s, context %d, %d threads, --parallel %d, --batch-tokens %d, chat template %s\n",
		name, m.ContextSize(), m.Threads(), f.parallel, min(f.batchTokens, m.BatchCapacity()), tmpl.Name())

	select {
	case err := <-srvErr:
		sched.Close()
		return err
	case <-ctx.Done():
	}
	// Graceful shutdown: stop accepting, let running requests finish up to
	// the timeout, then cancel the rest.
	fmt.Fprintf(os.Stderr, "gollm serve: shutting down (up to %v for running requests)\n", f.shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	server.Shutdown(sctx, srv, sched) // cancelled requests are not an error: exit 0
	return nil
}

// chatTemplate picks the template: a flag naming a built-in or a file, the
// model's own, or the default built-in.
func chatTemplate(m *engine.Model, flag string) (*chat.Template, error) {
	switch {
	case flag != "" && chat.IsBuiltin(flag):
		return chat.Builtin(flag)
	case flag != "":
		b, err := os.ReadFile(flag)
		if err != nil {
			return nil, fmt.Errorf("chat template: %w", err)
		}
		return chat.Parse(filepath.Base(flag), string(b))
	}
	if src := m.File.String("tokenizer.chat_template", ""); src != "" {
		t, err := chat.Parse("model", src)
		if err == nil {
			return t, nil
		}
		fmt.Fprintf(os.Stderr, "gollm serve: the model's chat template does not parse (%v); using %s\n", oneLine(err), chat.DefaultName)
	}
	return chat.Builtin(chat.DefaultName)
}

// servePprof serves net/http/pprof on its own listener (never on the API's).
func servePprof(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "gollm serve: pprof: %v\n", err)
		}
	}()
	fmt.Fprintf(os.Stderr, "gollm serve: pprof on http://%s/debug/pprof/\n", ln.Addr())
	return nil
}
