package quantize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gollm/gollm/gguf"
)

// ErrSamePath is returned when the output would overwrite the input.
var ErrSamePath = errors.New("output file is the input file")

// QuantizationVersion is the value of general.quantization_version that
// llama.cpp writes (GGML_QNT_VERSION): the version of the block formats.
const QuantizationVersion = 2

// droppedKeys are not copied: llama-quantize rewrites the first two (at the
// end of the metadata) and removes the split keys, since it writes one file.
var droppedKeys = map[string]bool{
	"general.quantization_version": true,
	"general.file_type":            true,
	"split.no":                     true,
	"split.count":                  true,
	"split.tensors.count":          true,
}

// Run converts in to type ft and writes the result to outPath atomically
// (a temporary file renamed into place; on any error, including a full
// disk, nothing is left behind, and leftovers of killed runs are removed
// first: see gguf.Writer.WriteFileContext). The output matches llama-quantize's byte
// for byte: the metadata in input order, then general.quantization_version
// and general.file_type; tensors in llama-quantize's order (see Order).
// Run cannot see in's path: use QuantizeFile to also refuse overwriting
// the input.
//
// Cancelling ctx stops the conversion within a chunk of rows (a few MiB)
// and removes the temporary file; the error is then ctx.Err(), wrapped.
func Run(ctx context.Context, in *gguf.File, outPath string, ft FileType, opt Options) (*Plan, error) {
	p, err := MakePlan(in, ft, opt)
	if err != nil {
		return nil, err
	}
	w := gguf.NewWriter()
	for _, kv := range in.KV {
		if droppedKeys[kv.Key] {
			continue
		}
		if err := w.Set(kv.Key, kv.Value); err != nil {
			return nil, fmt.Errorf("quantize: %w", err)
		}
	}
	if err := w.Set("general.quantization_version", uint32(QuantizationVersion)); err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	if err := w.Set("general.file_type", uint32(ft)); err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	cv := newConverter(ctx, in, p, opt)
	for i := range p.Tensors {
		tp := &p.Tensors[i]
		err := w.AddTensorFunc(tp.Name, tp.To, tp.Dims, func(out io.Writer) error { return cv.write(out, tp) })
		if err != nil {
			return nil, fmt.Errorf("quantize: %w", err)
		}
	}
	if err := w.WriteFileContext(ctx, outPath); err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	return p, nil
}

// QuantizeFile is Run on the file at inPath, after CheckPaths.
func QuantizeFile(ctx context.Context, inPath, outPath string, ft FileType, opt Options) (*Plan, error) {
	if err := CheckPaths(inPath, outPath); err != nil {
		return nil, err
	}
	f, err := gguf.Open(inPath)
	if err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	defer f.Close()
	return Run(ctx, f, outPath, ft, opt)
}

// CheckPaths refuses an output path that names the input file, whether
// spelled the same after cleaning or reaching it through a link.
func CheckPaths(inPath, outPath string) error {
	ai, err1 := filepath.Abs(inPath)
	ao, err2 := filepath.Abs(outPath)
	if err1 == nil && err2 == nil && ai == ao {
		return fmt.Errorf("quantize: %w: %s", ErrSamePath, outPath)
	}
	si, err := os.Stat(inPath)
	if err != nil {
		return fmt.Errorf("quantize: %w", err)
	}
	if so, err := os.Stat(outPath); err == nil && os.SameFile(si, so) {
		return fmt.Errorf("quantize: %w: %s and %s", ErrSamePath, inPath, outPath)
	}
	return nil
}
