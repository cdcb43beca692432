package quantize

import (
	"errors"
	"fmt"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/quant"
)

// ErrRequantize is returned for an input tensor that is already quantized
// and would need converting, unless Options.AllowRequantize is set
// (requantizing compounds the errors of both formats).
var ErrRequantize = errors.New("tensor is already quantized (requantizing it must be allowed explicitly)")

// ErrUnsupported is returned for a conversion gollm cannot do: a source type
// it cannot decode or a target type it cannot encode.
var ErrUnsupported = errors.New("unsupported conversion")

// Options tunes Run and MakePlan.
type Options struct {
	// Threads quantizing each tensor; <= 0 means one per CPU, like
	// llama-quantize's default.
	Threads int
	// AllowRequantize dequantizes already-quantized tensors first instead of
	// failing with ErrRequantize.
	AllowRequantize bool
	// Progress, if set, is called from Run's writing goroutine after each
	// piece of work with the input bytes processed so far and in total.
	Progress func(done, total int64)
	// Overrides are llama-quantize's per-tensor options; the zero value
	// applies the file type's mix unchanged.
	Overrides Overrides
}

// TensorPlan is what happens to one tensor.
type TensorPlan struct {
	Name        string
	Dims        []uint64
	From, To    ggml.Type
	BytesBefore uint64
	BytesAfter  uint64

	src int // index into the input file's Tensors
}

// Converted reports whether the tensor is re-encoded (rather than copied).
func (tp *TensorPlan) Converted() bool { return tp.From != tp.To }

// Plan is the whole conversion: tensors in output order.
type Plan struct {
	FileType    FileType
	Model       ModelInfo
	Tensors     []TensorPlan
	BytesBefore uint64
	BytesAfter  uint64
	Elements    uint64 // weights in the model, for bits per weight
	Fallbacks   int    // tensors whose shape forced a fallback type
}

// BitsPerWeight returns the average bits per weight before and after.
func (p *Plan) BitsPerWeight() (before, after float64) {
	if p.Elements == 0 {
		return 0, 0
	}
	n := float64(p.Elements)
	return float64(p.BytesBefore) * 8 / n, float64(p.BytesAfter) * 8 / n
}

// MakePlan decides every tensor's type, as llama-quantize would, without
// reading tensor data. Tensors come out in llama-quantize's order (see
// Order), which is also the order Run writes them in.
func MakePlan(f *gguf.File, ft FileType, opt Options) (*Plan, error) {
	if _, ok := ft.DefaultType(); !ok {
		return nil, fmt.Errorf("quantize: %w: %v", ErrUnknownFileType, ft)
	}
	if err := opt.Overrides.check(); err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	mi := ModelInfoFromFile(f)
	names := make([]string, len(f.Tensors))
	for i := range f.Tensors {
		names[i] = f.Tensors[i].Name
	}
	c := NewCounters(mi, names)
	p := &Plan{FileType: ft, Model: mi, Tensors: make([]TensorPlan, 0, len(names))}
	for _, i := range Order(names) {
		ti := &f.Tensors[i]
		to, err := chooseType(ft, mi, ti.Name, ti.Dims, ti.Type, c, &opt.Overrides)
		if err != nil {
			return nil, fmt.Errorf("quantize: %w", err)
		}
		after, err := ggml.TensorBytes(to, ti.Dims)
		if err != nil {
			return nil, fmt.Errorf("quantize: tensor %s as %v: %w", ti.Name, to, err)
		}
		tp := TensorPlan{Name: ti.Name, Dims: ti.Dims, From: ti.Type, To: to,
			BytesBefore: ti.Size, BytesAfter: after, src: i}
		if err := checkConversion(&tp, opt); err != nil {
			return nil, fmt.Errorf("quantize: tensor %s: %w", ti.Name, err)
		}
		p.Tensors = append(p.Tensors, tp)
		p.BytesBefore += tp.BytesBefore
		p.BytesAfter += tp.BytesAfter
		p.Elements += ti.Elements()
	}
	p.Fallbacks = c.Fallbacks
	return p, nil
}

// checkConversion refuses what Run could not do, so that a plan that
// succeeds can be carried out.
func checkConversion(tp *TensorPlan, opt Options) error {
	if !tp.Converted() {
		return nil
	}
	from, err := quant.Lookup(tp.From)
	if err != nil || from.Dequantize == nil {
		return fmt.Errorf("%w: cannot decode %v", ErrUnsupported, tp.From)
	}
	if isQuantized(tp.From) && !opt.AllowRequantize {
		return fmt.Errorf("%w: %v -> %v", ErrRequantize, tp.From, tp.To)
	}
	to, err := quant.Lookup(tp.To)
	if err != nil || to.Quantize == nil {
		return fmt.Errorf("%w: cannot encode %v", ErrUnsupported, tp.To)
	}
	return nil
}
