// Package ggml names the tensor element types of the GGML/GGUF ecosystem and
// their storage layout (elements per block, bytes per block).
//
// The type ids are the on-disk ids of GGUF tensor infos, so they must never be
// renumbered. Layout is format knowledge that both the GGUF parser (to validate
// tensor sizes) and the quantization code need; it lives here so that neither
// has to import the other. What a type *means* (how to dequantize it) lives in
// package quant.
package ggml

import (
	"errors"
	"fmt"
	"math/bits"
)

// Type is a ggml tensor element type id, as stored in GGUF tensor infos.
type Type uint32

// The ggml type ids. Gaps (4, 5, 31-33, 36-38) are ids ggml removed; they stay
// unknown so that files using them are rejected rather than misread.
const (
	F32     Type = 0
	F16     Type = 1
	Q4_0    Type = 2
	Q4_1    Type = 3
	Q5_0    Type = 6
	Q5_1    Type = 7
	Q8_0    Type = 8
	Q8_1    Type = 9
	Q2_K    Type = 10
	Q3_K    Type = 11
	Q4_K    Type = 12
	Q5_K    Type = 13
	Q6_K    Type = 14
	Q8_K    Type = 15
	IQ2_XXS Type = 16
	IQ2_XS  Type = 17
	IQ3_XXS Type = 18
	IQ1_S   Type = 19
	IQ4_NL  Type = 20
	IQ3_S   Type = 21
	IQ2_S   Type = 22
	IQ4_XS  Type = 23
	I8      Type = 24
	I16     Type = 25
	I32     Type = 26
	I64     Type = 27
	F64     Type = 28
	IQ1_M   Type = 29
	BF16    Type = 30
	TQ1_0   Type = 34
	TQ2_0   Type = 35
	MXFP4   Type = 39
)

// QK_K is the super-block size of the K-quants.
const QK_K = 256

// Layout is the storage layout of one type: BlockSize elements are stored in
// BlockBytes bytes. Rows must hold a whole number of blocks.
type Layout struct {
	Name       string
	BlockSize  int
	BlockBytes int
}

var layouts = map[Type]Layout{
	F32:     {"F32", 1, 4},
	F16:     {"F16", 1, 2},
	Q4_0:    {"Q4_0", 32, 18},
	Q4_1:    {"Q4_1", 32, 20},
	Q5_0:    {"Q5_0", 32, 22},
	Q5_1:    {"Q5_1", 32, 24},
	Q8_0:    {"Q8_0", 32, 34},
	Q8_1:    {"Q8_1", 32, 36},
	Q2_K:    {"Q2_K", QK_K, 84},
	Q3_K:    {"Q3_K", QK_K, 110},
	Q4_K:    {"Q4_K", QK_K, 144},
	Q5_K:    {"Q5_K", QK_K, 176},
	Q6_K:    {"Q6_K", QK_K, 210},
	Q8_K:    {"Q8_K", QK_K, 292},
	IQ2_XXS: {"IQ2_XXS", QK_K, 66},
	IQ2_XS:  {"IQ2_XS", QK_K, 74},
	IQ3_XXS: {"IQ3_XXS", QK_K, 98},
	IQ1_S:   {"IQ1_S", QK_K, 50},
	IQ4_NL:  {"IQ4_NL", 32, 18},
	IQ3_S:   {"IQ3_S", QK_K, 110},
	IQ2_S:   {"IQ2_S", QK_K, 82},
	IQ4_XS:  {"IQ4_XS", QK_K, 136},
	I8:      {"I8", 1, 1},
	I16:     {"I16", 1, 2},
	I32:     {"I32", 1, 4},
	I64:     {"I64", 1, 8},
	F64:     {"F64", 1, 8},
	IQ1_M:   {"IQ1_M", QK_K, 56},
	BF16:    {"BF16", 1, 2},
	TQ1_0:   {"TQ1_0", QK_K, 54},
	TQ2_0:   {"TQ2_0", QK_K, 66},
	MXFP4:   {"MXFP4", 32, 17},
}

// ErrUnknownType is returned for a type id that ggml does not define.
var ErrUnknownType = errors.New("unknown ggml type")

// ErrBadShape is returned when a row length is not a whole number of blocks or
// a size overflows.
var ErrBadShape = errors.New("bad tensor shape")

// LayoutOf returns the layout of t, or false for an unknown id.
func LayoutOf(t Type) (Layout, bool) {
	l, ok := layouts[t]
	return l, ok
}

// Known reports whether t is a type id ggml defines.
func (t Type) Known() bool { _, ok := layouts[t]; return ok }

// String returns ggml's name for t ("Q4_K"), or "type(N)" for an unknown id.
func (t Type) String() string {
	if l, ok := layouts[t]; ok {
		return l.Name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// ParseType maps a ggml type name (case-insensitive) to its id.
func ParseType(name string) (Type, bool) {
	for t, l := range layouts {
		if equalFold(l.Name, name) {
			return t, true
		}
	}
	return 0, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// RowBytes returns the bytes of a row of n elements of type t. It fails when
// t is unknown or n is not a multiple of the block size.
func RowBytes(t Type, n int64) (int64, error) {
	l, ok := layouts[t]
	if !ok {
		return 0, fmt.Errorf("%w: %d", ErrUnknownType, uint32(t))
	}
	if n < 0 || n%int64(l.BlockSize) != 0 {
		return 0, fmt.Errorf("%w: row of %d elements is not a multiple of the %s block size %d", ErrBadShape, n, l.Name, l.BlockSize)
	}
	return n / int64(l.BlockSize) * int64(l.BlockBytes), nil
}

// TensorBytes returns the bytes of a tensor of type t and shape dims (ggml
// order: dims[0] is the row length). It checks for overflow, so that a hostile
// file cannot make it wrap around.
func TensorBytes(t Type, dims []uint64) (uint64, error) {
	if len(dims) == 0 {
		return 0, fmt.Errorf("%w: no dimensions", ErrBadShape)
	}
	l, ok := layouts[t]
	if !ok {
		return 0, fmt.Errorf("%w: %d", ErrUnknownType, uint32(t))
	}
	if dims[0]%uint64(l.BlockSize) != 0 {
		return 0, fmt.Errorf("%w: row of %d elements is not a multiple of the %s block size %d", ErrBadShape, dims[0], l.Name, l.BlockSize)
	}
	total := dims[0] / uint64(l.BlockSize) * uint64(l.BlockBytes)
	if dims[0] != 0 && total/uint64(l.BlockBytes) != dims[0]/uint64(l.BlockSize) {
		return 0, fmt.Errorf("%w: size overflows", ErrBadShape)
	}
	for _, d := range dims[1:] {
		hi, lo := bits.Mul64(total, d)
		if hi != 0 || lo > 1<<62 {
			return 0, fmt.Errorf("%w: size of %v overflows", ErrBadShape, dims)
		}
		total = lo
	}
	if total > 1<<62 {
		return 0, fmt.Errorf("%w: size of %v overflows", ErrBadShape, dims)
	}
	return total, nil
}
