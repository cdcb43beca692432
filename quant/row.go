package quant

import (
	"fmt"

	"github.com/gollm/gollm/ggml"
)

// DequantizeRow decodes len(dst) elements of type t from src after checking
// that len(dst) is a whole number of blocks and src holds exactly those
// blocks. Errors wrap ErrUnsupportedType or ggml.ErrBadShape.
func DequantizeRow(t ggml.Type, src []byte, dst []float32) error {
	tr, err := Lookup(t)
	if err != nil {
		return err
	}
	if tr.Dequantize == nil {
		return fmt.Errorf("%w %v: no dequantizer", ErrUnsupportedType, t)
	}
	if err := checkRow(tr, len(dst), len(src)); err != nil {
		return err
	}
	tr.Dequantize(src, dst)
	return nil
}

// QuantizeRow encodes src as type t into dst with ggml's reference
// quantizer, after the same size checks as DequantizeRow.
func QuantizeRow(t ggml.Type, src []float32, dst []byte) error {
	tr, err := Lookup(t)
	if err != nil {
		return err
	}
	if tr.Quantize == nil {
		return fmt.Errorf("%w %v: no quantizer", ErrUnsupportedType, t)
	}
	if err := checkRow(tr, len(src), len(dst)); err != nil {
		return err
	}
	tr.Quantize(src, dst)
	return nil
}

func checkRow(tr *Traits, elems, nbytes int) error {
	if elems%tr.BlockSize != 0 {
		return fmt.Errorf("%w: %d elements is not a multiple of the %s block size %d",
			ggml.ErrBadShape, elems, tr.Name, tr.BlockSize)
	}
	if want := elems / tr.BlockSize * tr.BlockBytes; nbytes != want {
		return fmt.Errorf("%w: %d %s elements need %d bytes, got %d",
			ggml.ErrBadShape, elems, tr.Name, want, nbytes)
	}
	return nil
}
