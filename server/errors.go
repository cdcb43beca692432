package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gollm/gollm/scheduler"
)

// apiError is an error with OpenAI's body:
// {"error":{"message","type","param","code"}}. Extra fields (llama-server's
// n_prompt_tokens and n_ctx for a prompt too long) go next to them.
type apiError struct {
	status  int
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    any     `json:"code"`
	// With a prompt longer than the context.
	NPromptTokens int `json:"n_prompt_tokens,omitempty"`
	NCtx          int `json:"n_ctx,omitempty"`
}

func (e *apiError) Error() string { return e.Message }

// badParam is a 400 naming the parameter.
func badParam(param, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...),
		Type: "invalid_request_error", Param: &param}
}

func newError(status int, typ, format string, args ...any) *apiError {
	return &apiError{status: status, Type: typ, Message: fmt.Sprintf(format, args...)}
}

// writeError writes err as an OpenAI error body with its status: an
// *apiError as it is, scheduler errors mapped to their statuses, anything
// else as a 500.
func writeError(w http.ResponseWriter, err error) {
	e := toAPIError(err)
	if e.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(1))
	}
	writeJSON(w, e.status, map[string]any{"error": e})
}

func toAPIError(err error) *apiError {
	var e *apiError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &tooBig):
		return newError(http.StatusRequestEntityTooLarge, "invalid_request_error", "request body larger than %d bytes", tooBig.Limit)
	case errors.Is(err, scheduler.ErrQueueFull):
		return newError(http.StatusTooManyRequests, "rate_limit_error", "server busy: the request queue is full, retry later")
	case errors.Is(err, scheduler.ErrClosed):
		return newError(http.StatusServiceUnavailable, "unavailable_error", "server shutting down")
	case errors.Is(err, scheduler.ErrPromptTooLong), errors.Is(err, scheduler.ErrBadRequest):
		return newError(http.StatusBadRequest, "invalid_request_error", "%v", err)
	}
	return newError(http.StatusInternalServerError, "server_error", "%v", err)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"encoding the response failed","type":"server_error","param":null,"code":null}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
