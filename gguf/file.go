// Package gguf reads and writes GGUF v2/v3 files, the model format of
// llama.cpp: a header, typed metadata (key/value pairs), tensor infos, and
// an aligned data section holding the tensors.
//
// Open maps the file read-only and parses only the metadata, so opening a
// multi-gigabyte model costs the same as opening a small one; TensorData
// returns slices of the mapping, never copies. Every structure is validated
// against the file size before anything is allocated, so a corrupt or
// hostile file yields an error (see ErrInvalid and friends), never a panic
// or a huge allocation.
package gguf

import (
	"fmt"

	"github.com/gollm/gollm/ggml"
)

// KV is one metadata pair.
type KV struct {
	Key   string
	Value Value
}

// TensorInfo describes one tensor of a file.
type TensorInfo struct {
	Name   string
	Dims   []uint64 // ggml order: Dims[0] is the row length (contiguous)
	Type   ggml.Type
	Offset uint64 // relative to the start of the data section
	Size   uint64 // bytes
}

// Elements returns the number of elements (the product of Dims).
func (t *TensorInfo) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// File is a parsed GGUF file. It is safe for concurrent use by readers;
// Close must not race with them.
type File struct {
	Version    uint32
	Alignment  uint64
	DataOffset uint64 // file offset of the data section (past Size when a file without tensor data ends unpadded)
	Size       uint64 // file bytes
	KV         []KV   // in file order
	Tensors    []TensorInfo

	data        []byte // the whole file: the mapping, or the caller's buffer
	kvIndex     map[string]int
	tensorIndex map[string]int
	closer      func() error
	mapped      bool // data is a file mapping Release may advise on
}

// Open maps the file at path read-only (or reads it where mmap is not
// available) and parses it. The File must be closed; tensor data slices stay
// valid until then. As with any mapping, the file must not be truncated
// while it is open: touching pages past its new end faults (SIGBUS).
func Open(path string) (*File, error) {
	data, closer, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	f, err := parse(data)
	if err != nil {
		if closer != nil {
			closer()
		}
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	f.closer = closer
	f.mapped = closer != nil
	return f, nil
}

// Close releases the mapping. Slices returned by TensorData before Close
// then point to unmapped memory: using them is the caller's bug and faults.
// Metadata values (KV, Get, the getters) are copies and stay valid. Close is
// idempotent; for a File from Parse it only drops the reference to the
// buffer.
func (f *File) Close() error {
	f.data = nil
	f.mapped = false
	if f.closer == nil {
		return nil
	}
	c := f.closer
	f.closer = nil
	return c()
}

// Get returns the value of key. (The zero Value is a uint8 0, because that
// type's id is 0: check the bool.)
func (f *File) Get(key string) (Value, bool) {
	i, ok := f.kvIndex[key]
	if !ok {
		return Value{}, false
	}
	return f.KV[i].Value, true
}

// String returns the string value of key, or def when it is absent or not
// a string.
func (f *File) String(key, def string) string {
	if v, ok := f.Get(key); ok {
		if s, ok := v.Str(); ok {
			return s
		}
	}
	return def
}

// Uint returns the integer value of key (any integer type, not negative),
// or def.
func (f *File) Uint(key string, def uint64) uint64 {
	if v, ok := f.Get(key); ok {
		if x, ok := v.Uint(); ok {
			return x
		}
	}
	return def
}

// Int returns the integer value of key (any integer type that fits int64),
// or def.
func (f *File) Int(key string, def int64) int64 {
	if v, ok := f.Get(key); ok {
		if x, ok := v.Int(); ok {
			return x
		}
	}
	return def
}

// Float returns the numeric value of key (float or integer), or def.
func (f *File) Float(key string, def float64) float64 {
	if v, ok := f.Get(key); ok {
		if x, ok := v.Float(); ok {
			return x
		}
	}
	return def
}

// Bool returns the bool value of key, or def.
func (f *File) Bool(key string, def bool) bool {
	if v, ok := f.Get(key); ok {
		if x, ok := v.Bool(); ok {
			return x
		}
	}
	return def
}

// Strings returns a copy of the string array of key.
func (f *File) Strings(key string) ([]string, bool) {
	v, _ := f.Get(key)
	return v.Strings()
}

// Float32s returns the numeric array of key converted to float32.
func (f *File) Float32s(key string) ([]float32, bool) {
	v, _ := f.Get(key)
	return v.Float32s()
}

// Int32s returns the integer array of key converted to int32 (false if an
// element does not fit).
func (f *File) Int32s(key string) ([]int32, bool) {
	v, _ := f.Get(key)
	return v.Int32s()
}

// Architecture returns general.architecture ("llama", "qwen2", ...), or "".
func (f *File) Architecture() string { return f.String("general.architecture", "") }

// Tensor returns the info of the named tensor. The pointer refers into
// f.Tensors.
func (f *File) Tensor(name string) (*TensorInfo, bool) {
	i, ok := f.tensorIndex[name]
	if !ok {
		return nil, false
	}
	return &f.Tensors[i], true
}

// TensorData returns the bytes of t (len == t.Size) as a slice of the
// mapping: no copy, read-only memory for an opened file (writing to it
// faults). It returns nil after Close or for a t that does not lie inside
// this file.
func (f *File) TensorData(t *TensorInfo) []byte {
	if f.data == nil || t == nil {
		return nil
	}
	size := uint64(len(f.data))
	if t.Size == 0 {
		return []byte{}
	}
	if f.DataOffset > size || t.Offset > size-f.DataOffset || t.Size > size-f.DataOffset-t.Offset {
		return nil
	}
	start := f.DataOffset + t.Offset
	end := start + t.Size
	return f.data[start:end:end]
}
