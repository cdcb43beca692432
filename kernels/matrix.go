package kernels

import (
	"fmt"
	"sync/atomic"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

// Matrix is a weight tensor: Rows rows of Cols elements of Type, row-major,
// each row ggml.RowBytes(Type, Cols) bytes. For a GGUF tensor, Cols is
// Dims[0] and Rows is Dims[1]. Data usually points into a memory-mapped
// file; the kernels only read it.
type Matrix struct {
	Type       ggml.Type
	Rows, Cols int
	Data       []byte

	rowBytes int
	pack     matrixPack // row-interleaved copy for packed kernels (packed.go)

	// tokenwise: every token of a batch gets the one-token order (see
	// SetTokenwise).
	tokenwise bool

	// minExp is 1 + the smallest exponent of the nonzero BF16 weights
	// (bf16MinExp), 0 until computed.
	minExp atomic.Int32
}

// SetTokenwise makes MatMul multiply every token of a batch in the order it
// uses for a single token, for the weight types whose one-token order
// differs (f16, f32: ggml_vec_dot instead of tinyBLAS). llama.cpp
// multiplies expert matrices (ggml_mul_mat_id) that way, a token at a
// time; call it before the matrix is shared between goroutines.
func (m *Matrix) SetTokenwise() { m.tokenwise = true }

// NewMatrix validates a weight tensor: a type some kernel multiplies, a row
// length that is a whole number of blocks, and data of exactly the tensor's
// size. Errors wrap quant.ErrUnsupportedType or ggml.ErrBadShape.
func NewMatrix(t ggml.Type, rows, cols int, data []byte) (*Matrix, error) {
	if !SupportsType(t) {
		return nil, fmt.Errorf("kernels: no matmul kernel for %v weights: %w", t, quant.ErrUnsupportedType)
	}
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("kernels: %v matrix of %d x %d: %w", t, rows, cols, ggml.ErrBadShape)
	}
	rb, err := ggml.RowBytes(t, int64(cols))
	if err != nil {
		return nil, fmt.Errorf("kernels: %v matrix of %d x %d: %w", t, rows, cols, err)
	}
	if want := rb * int64(rows); int64(len(data)) != want {
		return nil, fmt.Errorf("kernels: %v matrix of %d x %d needs %d bytes, got %d: %w",
			t, rows, cols, want, len(data), ggml.ErrBadShape)
	}
	return &Matrix{Type: t, Rows: rows, Cols: cols, Data: data, rowBytes: int(rb)}, nil
}

// SupportsType reports whether weights of type t can be multiplied.
func SupportsType(t ggml.Type) bool {
	return int(t) < maxType && genericSet.vecDot[t] != nil
}

// VecDotType returns the type activations are quantized to before they
// multiply weights of type t, and false for a type with no kernel.
func VecDotType(t ggml.Type) (ggml.Type, bool) {
	if !SupportsType(t) {
		return 0, false
	}
	return vecDotType[t], true
}

// RowBytes returns the bytes of one row.
func (m *Matrix) RowBytes() int {
	if m.rowBytes == 0 {
		rb, _ := ggml.RowBytes(m.Type, int64(m.Cols))
		return int(rb)
	}
	return m.rowBytes
}

// Row returns the bytes of row r.
func (m *Matrix) Row(r int) []byte {
	rb := m.RowBytes()
	return m.Data[r*rb : (r+1)*rb]
}
