package loadgen

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Endpoints the client speaks.
const (
	EndpointCompletions = "/v1/completions"
	EndpointChat        = "/v1/chat/completions"
)

// Target is an OpenAI-compatible server and how to ask it. A Target is safe
// for concurrent use once set up (Do does not modify it).
type Target struct {
	BaseURL  string // e.g. http://127.0.0.1:8080
	Endpoint string // EndpointCompletions or EndpointChat
	Model    string // the "model" field; servers with one model ignore it
	APIKey   string // sent as a bearer token when not empty
	// IgnoreEOS asks for exactly the requested output length: it sends
	// ignore_eos and min_tokens, which vLLM, llama-server and gollm serve
	// honour and other servers ignore.
	IgnoreEOS bool
	// Timeout bounds a whole request (0: none).
	Timeout time.Duration
	// HTTP is the client to use (nil: one from NewHTTPClient(64)).
	HTTP *http.Client
	// ExtraBody holds fields added to (or replacing) every request body's,
	// e.g. sampling parameters or a logit_bias.
	ExtraBody map[string]any
}

// NewHTTPClient returns a client that keeps up to conns connections to the
// server open, so a run at that concurrency does not reconnect between
// requests (Go's default keeps 2).
func NewHTTPClient(conns int) *http.Client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns + 16,
		MaxIdleConnsPerHost: conns + 16,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ReadBufferSize:      32 << 10,
		WriteBufferSize:     16 << 10,
	}
	return &http.Client{Transport: tr}
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type requestBody struct {
	Model         string         `json:"model,omitempty"`
	Prompt        string         `json:"prompt,omitempty"`
	Messages      []chatMessage  `json:"messages,omitempty"`
	MaxTokens     int            `json:"max_tokens"`
	MinTokens     int            `json:"min_tokens,omitempty"`
	IgnoreEOS     bool           `json:"ignore_eos,omitempty"`
	Temperature   float64        `json:"temperature"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
}

// streamChunk holds the fields of a streamed chunk the client reads.
type streamChunk struct {
	Choices []struct {
		Text  string `json:"text"`
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Timings *ServerTimings  `json:"timings"`
	Error   json.RawMessage `json:"error"`
}

func (t *Target) body(p Prompt) ([]byte, error) {
	b := requestBody{
		Model:         t.Model,
		MaxTokens:     p.OutputLen,
		Stream:        true,
		StreamOptions: &streamOptions{IncludeUsage: true},
	}
	if t.IgnoreEOS {
		b.IgnoreEOS = true
		b.MinTokens = p.OutputLen
	}
	if t.Endpoint == EndpointChat {
		b.Messages = []chatMessage{{Role: "user", Content: p.Text}}
	} else {
		b.Prompt = p.Text
	}
	js, err := json.Marshal(b)
	if err != nil || len(t.ExtraBody) == 0 {
		return js, err
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, err
	}
	for k, v := range t.ExtraBody {
		m[k] = v
	}
	return json.Marshal(m)
}

// Do sends one streamed request and records what came back. It never
// returns an error: failures are recorded in the result by kind.
func (t *Target) Do(ctx context.Context, p Prompt) RequestResult {
	res := RequestResult{PromptTokens: p.InputTokens}
	body, err := t.body(p)
	if err != nil {
		return fail(res, ErrKindConnect, err)
	}
	if t.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(t.BaseURL, "/")+t.Endpoint, bytes.NewReader(body))
	if err != nil {
		return fail(res, ErrKindConnect, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	// A keep-alive connection the server closed while idle (between
	// levels, or during a slow warm-up) fails a POST before the server
	// sees it; with an idempotency key Go's transport resends such a
	// request on a fresh connection instead of failing it (it never
	// resends once the server may have read it).
	req.Header.Set("Idempotency-Key", idempotencyKey())
	if t.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.APIKey)
	}
	hc := t.HTTP
	if hc == nil {
		hc = defaultClient
	}
	res.Start = time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return fail(res, kindOf(ctx, ErrKindConnect), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		res.Latency = time.Since(res.Start)
		return fail(res, fmt.Sprintf("http_%d", resp.StatusCode),
			fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(msg)))
	}
	return t.readStream(ctx, resp.Body, res)
}

var defaultClient = NewHTTPClient(64)

var (
	dataPrefix = []byte("data:")
	doneMarker = []byte("[DONE]")
)

func (t *Target) readStream(ctx context.Context, body io.Reader, res RequestResult) RequestResult {
	br := bufio.NewReaderSize(body, 16<<10)
	var long []byte // a line longer than the buffer, assembled
	var usageOut int
	var chunk streamChunk
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if err != nil && !(err == io.EOF && len(line) > 0) {
			res.Latency = time.Since(res.Start)
			if err == io.EOF {
				return fail(res, ErrKindBroken, errors.New("the stream ended before [DONE]"))
			}
			return fail(res, kindOf(ctx, ErrKindBroken), err)
		}
		line = bytes.TrimSpace(line)
		if !bytes.HasPrefix(line, dataPrefix) {
			continue // blank line, comment, "event:" or "id:" field
		}
		data := bytes.TrimSpace(line[len(dataPrefix):])
		if bytes.Equal(data, doneMarker) {
			res.Latency = time.Since(res.Start)
			break
		}
		at := time.Since(res.Start)
		chunk = streamChunk{}
		if jerr := json.Unmarshal(data, &chunk); jerr != nil {
			res.Latency = at
			return fail(res, ErrKindBroken, fmt.Errorf("bad chunk %.80q: %v", data, jerr))
		}
		if len(chunk.Error) > 0 && !bytes.Equal(chunk.Error, []byte("null")) {
			res.Latency = at
			return fail(res, ErrKindStreamError, fmt.Errorf("server error mid-stream: %s", chunk.Error))
		}
		n := 0
		for i := range chunk.Choices {
			c := &chunk.Choices[i]
			n += len(c.Text) + len(c.Delta.Content) + len(c.Delta.ReasoningContent)
		}
		if n > 0 {
			res.Arrivals = append(res.Arrivals, Arrival{At: at, Tokens: 1, bytes: n})
		}
		if chunk.Usage != nil {
			usageOut = chunk.Usage.CompletionTokens
			if chunk.Usage.PromptTokens > 0 {
				res.PromptTokens = chunk.Usage.PromptTokens
			}
		}
		if chunk.Timings != nil {
			st := *chunk.Timings
			res.Server = &st
		}
		if err == io.EOF {
			res.Latency = time.Since(res.Start)
			return fail(res, ErrKindBroken, errors.New("the stream ended before [DONE]"))
		}
	}
	if len(res.Arrivals) == 0 {
		return fail(res, ErrKindEmpty, errors.New("the stream carried no content"))
	}
	res.OutputTokens = len(res.Arrivals)
	if usageOut > len(res.Arrivals) {
		res.OutputTokens = usageOut
		spreadTokens(res.Arrivals, usageOut)
	}
	return res
}

// spreadTokens shares n tokens among chunks that together carried more
// than one token each (a server that packs tokens into chunks): each chunk
// gets at least one, the rest in proportion to its text's length in bytes
// (largest remainders first), since the stream does not say which chunk
// carried how many.
func spreadTokens(as []Arrival, n int) {
	total := 0
	for _, a := range as {
		total += a.bytes
	}
	extra := n - len(as)
	type rem struct {
		i int
		r float64
	}
	rems := make([]rem, len(as))
	given := 0
	for i := range as {
		share := float64(extra) * float64(as[i].bytes) / float64(total)
		k := int(share)
		as[i].Tokens = 1 + k
		given += k
		rems[i] = rem{i, share - float64(k)}
	}
	slices.SortStableFunc(rems, func(a, b rem) int { return cmp.Compare(b.r, a.r) })
	for j := 0; given < extra; j++ {
		as[rems[j%len(rems)].i].Tokens++
		given++
	}
}

func fail(res RequestResult, kind string, err error) RequestResult {
	res.ErrKind = kind
	res.Err = err
	return res
}

// kindOf tells a timeout (the request's deadline passed) and a cancelled
// run from other failures.
func kindOf(ctx context.Context, other string) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ErrKindTimeout
	case errors.Is(ctx.Err(), context.Canceled):
		return ErrKindCanceled
	}
	return other
}

// FetchModel asks the server's /v1/models for the id of its first model
// ("" and the error when it has none or does not answer).
func (t *Target) FetchModel(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(t.BaseURL, "/")+"/v1/models", nil)
	if err != nil {
		return "", fmt.Errorf("loadgen: %w", err)
	}
	if t.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.APIKey)
	}
	hc := t.HTTP
	if hc == nil {
		hc = defaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("loadgen: listing models: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("loadgen: listing models: HTTP %d", resp.StatusCode)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&list); err != nil {
		return "", fmt.Errorf("loadgen: listing models: %w", err)
	}
	if len(list.Data) == 0 {
		return "", errors.New("loadgen: the server lists no models")
	}
	return list.Data[0].ID, nil
}

var idemSeq atomic.Uint64

var idemPrefix = strconv.FormatInt(time.Now().UnixNano(), 36)

func idempotencyKey() string {
	return "gollm-bench-" + idemPrefix + "-" + strconv.FormatUint(idemSeq.Add(1), 36)
}
