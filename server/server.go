// Package server is gollm's OpenAI-compatible HTTP API: thin net/http
// handlers over a scheduler.Scheduler. /v1/completions and
// /v1/chat/completions (streamed as server-sent events or not), /v1/models,
// llama-server's /health, /tokenize and /detokenize, and Prometheus
// metrics under vLLM's names with a gollm: prefix on /metrics.
//
// Errors have OpenAI's body {"error":{"message","type","param","code"}}.
// Handlers never wait on the scheduler's goroutine except for their own
// request's output, and a slow reader only slows its own stream.
package server

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gollm/gollm/chat"
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/scheduler"
)

// Config is the server's configuration.
type Config struct {
	APIKey       string        // non-empty: /v1/*, /tokenize and /detokenize need "Authorization: Bearer KEY"
	MaxBodyBytes int64         // request body limit; <= 0: 8 MiB
	WriteTimeout time.Duration // per write to a client; <= 0: 30 s (a client that stops reading is dropped)
	MaxN         int           // most choices per request (n times the prompts); <= 0: 16
}

// Backend is what the server serves once the model is loaded.
type Backend struct {
	Model    *engine.Model
	Sched    *scheduler.Scheduler
	Name     string         // the model id clients name
	Template *chat.Template // the chat template
	Created  time.Time
}

// Server is the HTTP API; see the package documentation.
type Server struct {
	cfg     Config
	backend atomic.Pointer[Backend]
	metrics *Metrics
	mux     *http.ServeMux
}

// New returns a server that answers 503 (loading) until SetBackend.
func New(cfg Config, metrics *Metrics) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 8 << 20
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.MaxN <= 0 {
		cfg.MaxN = 16
	}
	s := &Server{cfg: cfg, metrics: metrics, mux: http.NewServeMux()}
	s.mux.HandleFunc("/health", s.method("GET", s.health))
	s.mux.HandleFunc("/v1/health", s.method("GET", s.health))
	s.mux.Handle("/metrics", metrics.Handler())
	s.mux.HandleFunc("/v1/models", s.method("GET", s.auth(s.ready(s.models))))
	s.mux.HandleFunc("/v1/completions", s.method("POST", s.auth(s.ready(s.completions))))
	s.mux.HandleFunc("/v1/chat/completions", s.method("POST", s.auth(s.ready(s.chatCompletions))))
	s.mux.HandleFunc("/tokenize", s.method("POST", s.auth(s.ready(s.tokenize))))
	s.mux.HandleFunc("/detokenize", s.method("POST", s.auth(s.ready(s.detokenize))))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, newError(http.StatusNotFound, "not_found_error", "no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	return s
}

// SetBackend makes the server ready to serve b.
func (s *Server) SetBackend(b *Backend) { s.backend.Store(b) }

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	s.mux.ServeHTTP(w, r)
}

func (s *Server) method(m string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m {
			w.Header().Set("Allow", m)
			writeError(w, newError(http.StatusMethodNotAllowed, "invalid_request_error", "%s %s: use %s", r.Method, r.URL.Path, m))
			return
		}
		h(w, r)
	}
}

// auth checks the bearer key in constant time.
func (s *Server) auth(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.APIKey == "" {
		return h
	}
	want := []byte("Bearer " + s.cfg.APIKey)
	return func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, newError(http.StatusUnauthorized, "authentication_error", "invalid or missing API key (Authorization: Bearer KEY)"))
			return
		}
		h(w, r)
	}
}

func (s *Server) ready(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.backend.Load() == nil {
			writeError(w, loadingError())
			return
		}
		h(w, r)
	}
}

func loadingError() *apiError {
	e := newError(http.StatusServiceUnavailable, "unavailable_error", "Loading model")
	e.Code = http.StatusServiceUnavailable
	return e
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if s.backend.Load() == nil {
		writeError(w, loadingError())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	b := s.backend.Load()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{
		"id": b.Name, "object": "model", "created": b.Created.Unix(), "owned_by": "gollm",
		"meta": map[string]any{"n_ctx": b.Model.ContextSize(), "n_vocab": b.Model.Config.Vocab},
	}}})
}

// decodeBody decodes a JSON request body into v (unknown fields are
// ignored, as OpenAI's clients send fields a server may not know; the
// Content-Type is not checked, as `curl -d` sends a form type).
func decodeBody(body io.Reader, v any) error {
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		if toAPIError(err).status == http.StatusRequestEntityTooLarge {
			return err
		}
		return newError(http.StatusBadRequest, "invalid_request_error", "invalid JSON body: %v", err)
	}
	if dec.More() {
		return newError(http.StatusBadRequest, "invalid_request_error", "invalid JSON body: data after the object")
	}
	return nil
}

type tokenizeRequest struct {
	Content    string `json:"content"`
	AddSpecial bool   `json:"add_special"`
	ParseSpec  *bool  `json:"parse_special"`
	WithPieces bool   `json:"with_pieces"`
}

func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) {
	var req tokenizeRequest
	if err := decodeBody(r.Body, &req); err != nil {
		writeError(w, err)
		return
	}
	tok := s.backend.Load().Model.Tokenizer
	ids := tok.Encode(req.Content, req.AddSpecial, req.ParseSpec == nil || *req.ParseSpec)
	if !req.WithPieces {
		if ids == nil {
			ids = []int32{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"tokens": ids})
		return
	}
	type piece struct {
		ID    int32  `json:"id"`
		Piece string `json:"piece"`
	}
	out := make([]piece, len(ids))
	for i, id := range ids {
		out[i] = piece{id, string(tok.PieceSpecial(id, true))}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}

func (s *Server) detokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tokens []int32 `json:"tokens"`
	}
	if err := decodeBody(r.Body, &req); err != nil {
		writeError(w, err)
		return
	}
	m := s.backend.Load().Model
	for _, id := range req.Tokens {
		if id < 0 || int(id) >= m.Tokenizer.VocabSize() {
			writeError(w, badParam("tokens", "token id %d outside the vocabulary [0, %d)", id, m.Tokenizer.VocabSize()))
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"content": m.Tokenizer.Detokenize(req.Tokens, false, true)})
}
