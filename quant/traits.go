// Package quant knows every supported tensor block format bit-exactly as ggml
// does: one type-traits row per ggml type (layout, dequantize, reference
// quantize, the activation type its dot product pairs with). Generic code asks
// the table; tests loop over it. No threads, no SIMD here: this is the oracle
// the fast kernels are checked against.
package quant

import (
	"errors"
	"fmt"

	"github.com/gollm/gollm/ggml"
)

// Traits is one row of the type-traits table.
type Traits struct {
	Type       ggml.Type
	Name       string
	BlockSize  int // elements per block
	BlockBytes int // bytes per block

	// Dequantize decodes len(dst) elements from src. len(dst) is a multiple of
	// BlockSize and src holds exactly len(dst)/BlockSize blocks.
	Dequantize func(src []byte, dst []float32)

	// Quantize encodes src into dst with ggml's reference (no importance
	// matrix) quantizer, byte for byte. len(src) is a multiple of BlockSize and
	// dst holds exactly len(src)/BlockSize blocks. Nil when the type has no
	// quantizer here.
	Quantize func(src []float32, dst []byte)

	// VecDotType is the type ggml quantizes activations to before a dot
	// product with a row of this type (Q8_0 for Q4_0/Q5_0/Q8_0, Q8_1 for
	// Q4_1/Q5_1, Q8_K for the K-quants, F32 for float types).
	VecDotType ggml.Type
}

// ErrUnsupportedType is returned for a type gollm cannot decode.
var ErrUnsupportedType = errors.New("unsupported tensor type")

var table = map[ggml.Type]*Traits{}

// register adds a row to the table; each format file calls it from init.
func register(t Traits) {
	l, ok := ggml.LayoutOf(t.Type)
	if !ok || l.BlockSize != t.BlockSize || l.BlockBytes != t.BlockBytes || l.Name != t.Name {
		panic(fmt.Sprintf("quant: traits of %v disagree with the ggml layout", t.Type))
	}
	if _, dup := table[t.Type]; dup {
		panic(fmt.Sprintf("quant: %v registered twice", t.Type))
	}
	row := t
	table[t.Type] = &row
}

// Lookup returns the traits of t, or an error wrapping ErrUnsupportedType.
func Lookup(t ggml.Type) (*Traits, error) {
	if tr, ok := table[t]; ok {
		return tr, nil
	}
	return nil, fmt.Errorf("%w %v", ErrUnsupportedType, t)
}

// Supported reports whether t can be dequantized.
func Supported(t ggml.Type) bool { _, ok := table[t]; return ok }

// All returns every registered type, in ascending id order.
func All() []*Traits {
	out := make([]*Traits, 0, len(table))
	for id := ggml.Type(0); id < 64; id++ {
		if tr, ok := table[id]; ok {
			out = append(out, tr)
		}
	}
	return out
}
