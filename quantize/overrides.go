package quantize

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/gollm/gollm/ggml"
)

// This file holds llama-quantize's per-tensor overrides (--tensor-type,
// --output-tensor-type, --token-embedding-type, --pure,
// --leave-output-tensor) as typed options, applied the way
// llama_tensor_get_type in llama.cpp's src/llama-quant.cpp applies them.

// ErrBadRule is returned by ParseTensorTypeRule for text that is not
// PATTERN=TYPE with a valid regular expression.
var ErrBadRule = errors.New("malformed tensor type rule")

// TensorTypeRule gives the tensors whose names match Pattern the type
// Type instead of the one the file type's mix rules would choose.
type TensorTypeRule struct {
	// Pattern is searched for anywhere in the tensor name (as std::regex_search
	// does: "ffn_down" matches blk.0.ffn_down.weight; anchor it with ^ or $).
	Pattern *regexp.Regexp
	Type    ggml.Type
}

func (r TensorTypeRule) String() string {
	if r.Pattern == nil {
		return "<nil>=" + r.Type.String()
	}
	return r.Pattern.String() + "=" + r.Type.String()
}

// Overrides are llama-quantize's per-tensor options. The zero value changes
// nothing: every tensor gets the file type's mix.
//
// The order of precedence is llama-quantize's: a tensor that is never
// quantized (norms, biases, output.weight with LeaveOutput) keeps its type;
// then TokenEmbeddingType for token_embd.weight and OutputType for
// output.weight apply as they are, with no fallback for odd row lengths.
// For the F32, F16 and BF16 file types nothing else applies (llama-quantize
// ignores TensorTypes and Pure there). Otherwise the first TensorTypes rule
// whose pattern matches sets the type; without a match the mix rules choose
// it, or with Pure the file type's default type; the result then falls back
// to a compatible type when the row length is not a multiple of its block.
// OutputType also reaches token_embd.weight when the model has no
// output.weight (tied embeddings) and TokenEmbeddingType is unset, since the
// mix rules treat it as the output matrix.
type Overrides struct {
	// TensorTypes are tried in order; the first match wins.
	TensorTypes []TensorTypeRule
	// OutputType, if set, is the type of output.weight.
	OutputType *ggml.Type
	// TokenEmbeddingType, if set, is the type of token_embd.weight (and of
	// per_layer_token_embd.weight).
	TokenEmbeddingType *ggml.Type
	// Pure gives every quantized tensor the default type of the file type,
	// without the mixes' upgrades (output.weight included, unless OutputType
	// is set).
	Pure bool
	// LeaveOutput copies output.weight unchanged.
	LeaveOutput bool
}

// writable lists the tensor types llama-quantize can produce
// (ggml_quantize_chunk) that gollm can also encode: the only types an
// override may name.
var writable = []ggml.Type{
	ggml.F32, ggml.F16, ggml.BF16,
	ggml.Q4_0, ggml.Q4_1, ggml.Q5_0, ggml.Q5_1, ggml.Q8_0,
	ggml.Q2_K, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K,
}

func isWritable(t ggml.Type) bool {
	for _, w := range writable {
		if w == t {
			return true
		}
	}
	return false
}

func writableNames() string {
	names := make([]string, len(writable))
	for i, t := range writable {
		names[i] = strings.ToLower(t.String())
	}
	return strings.Join(names, ", ")
}

// ParseTensorType maps a ggml type name (case-insensitive, as llama-quantize
// takes them: "q8_0", "F16", "q4_k") to a type an override can name. The
// error wraps ErrUnsupported for a type gollm cannot write and lists those it
// can.
func ParseTensorType(name string) (ggml.Type, error) {
	t, ok := ggml.ParseType(strings.TrimSpace(name))
	if !ok {
		return 0, fmt.Errorf("%w: unknown tensor type %q (types: %s)", ErrUnsupported, name, writableNames())
	}
	if !isWritable(t) {
		return 0, fmt.Errorf("%w: cannot write tensors of type %v (types: %s)", ErrUnsupported, t, writableNames())
	}
	return t, nil
}

// ParseTensorTypeRule parses llama-quantize's PATTERN=TYPE: the text before
// the first '=' is a regular expression, lower-cased first as llama-quantize
// does (so \D means \d there too); TYPE is a ggml type name. Go's regexp
// syntax (RE2) stands in for ECMAScript's: the same for the patterns tensor
// names call for, but look-arounds and back-references are refused.
func ParseTensorTypeRule(s string) (TensorTypeRule, error) {
	pat, typ, ok := strings.Cut(s, "=")
	switch {
	case !ok:
		return TensorTypeRule{}, fmt.Errorf("%w %q: want PATTERN=TYPE", ErrBadRule, s)
	case pat == "":
		return TensorTypeRule{}, fmt.Errorf("%w %q: missing tensor name pattern", ErrBadRule, s)
	case typ == "":
		return TensorTypeRule{}, fmt.Errorf("%w %q: missing type", ErrBadRule, s)
	}
	re, err := regexp.Compile(strings.ToLower(pat))
	if err != nil {
		return TensorTypeRule{}, fmt.Errorf("%w %q: %v", ErrBadRule, s, err)
	}
	t, err := ParseTensorType(typ)
	if err != nil {
		return TensorTypeRule{}, fmt.Errorf("tensor type rule %q: %w", s, err)
	}
	return TensorTypeRule{Pattern: re, Type: t}, nil
}

// check refuses overrides that could not be carried out.
func (ov *Overrides) check() error {
	for i, r := range ov.TensorTypes {
		if r.Pattern == nil {
			return fmt.Errorf("%w: rule %d has no pattern", ErrBadRule, i)
		}
		if !isWritable(r.Type) {
			return fmt.Errorf("rule %v: %w: cannot write tensors of type %v", r, ErrUnsupported, r.Type)
		}
	}
	for _, c := range []struct {
		what string
		t    *ggml.Type
	}{{"output tensor", ov.OutputType}, {"token embedding", ov.TokenEmbeddingType}} {
		if c.t != nil && !isWritable(*c.t) {
			return fmt.Errorf("%s type: %w: cannot write tensors of type %v", c.what, ErrUnsupported, *c.t)
		}
	}
	return nil
}

// manualType returns the type of the first rule matching name.
func (ov *Overrides) manualType(name string) (ggml.Type, bool) {
	for _, r := range ov.TensorTypes {
		if r.Pattern.MatchString(name) {
			return r.Type, true
		}
	}
	return 0, false
}
