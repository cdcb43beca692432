package gguf

import "errors"

// Sentinel errors. Every error this package returns wraps one of them (or
// ggml.ErrUnknownType for an unknown tensor type id, or ggml.ErrBadShape
// together with ErrInvalid for a shape the type cannot store), so callers
// can branch with errors.Is while the message keeps the context: which key,
// which tensor, which byte offset.
var (
	// ErrBadMagic: the file does not start with "GGUF".
	ErrBadMagic = errors.New("not a GGUF file (bad magic)")

	// ErrVersion: the version is not 2 or 3 (v1 used 32-bit counts and is
	// not read), or the file is big-endian.
	ErrVersion = errors.New("unsupported GGUF version")

	// ErrTruncated: the file ends before a structure it declares. Tensor
	// data past the end of the file wraps both ErrTruncated and ErrInvalid.
	ErrTruncated = errors.New("truncated file")

	// ErrInvalid: the file is corrupt or hostile: counts the file size
	// cannot back, bad dimensions, overlapping tensors, duplicate keys or
	// tensor names, bad alignment, unknown value types, arrays nested too
	// deep.
	ErrInvalid = errors.New("invalid file")
)
