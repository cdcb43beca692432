// Package engine holds the model architectures and runs them: loading weights
// from GGUF, the forward pass over a batch of tokens, the KV cache, the
// generation loop and its timers.
package engine

import "errors"

var (
	// ErrUnknownArch: the file's general.architecture is not registered.
	ErrUnknownArch = errors.New("unsupported architecture")
	// ErrBadModel: missing tensors, wrong shapes or impossible hyper-parameters.
	ErrBadModel = errors.New("invalid model")
	// ErrContextFull: the tokens do not fit in the context window.
	ErrContextFull = errors.New("context window exceeded")
)
