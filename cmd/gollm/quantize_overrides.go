package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quantize"
	"github.com/spf13/cobra"
)

// overrideFlags are llama-quantize's per-tensor options, spelled as its
// flags, turned into quantize.Overrides.
type overrideFlags struct {
	tensorTypes     []string
	tensorTypeFiles []string
	outputType      string
	tokenEmbdType   string
	pure            bool
	leaveOutput     bool
}

func (f *overrideFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.tensorTypes, "tensor-type", nil,
		"PATTERN=TYPE: tensors whose name matches the regular expression PATTERN get TYPE (repeatable; the first match wins)")
	fl.StringArrayVar(&f.tensorTypeFiles, "tensor-type-file", nil,
		"file of PATTERN=TYPE rules separated by spaces or newlines, tried after the --tensor-type rules")
	fl.StringVar(&f.outputType, "output-tensor-type", "", "type of output.weight (e.g. q8_0, f16)")
	fl.StringVar(&f.tokenEmbdType, "token-embedding-type", "", "type of token_embd.weight (e.g. q8_0, f16)")
	fl.BoolVar(&f.pure, "pure", false, "no k-quant mixes: every quantized tensor gets the type's default")
	fl.BoolVar(&f.leaveOutput, "leave-output-tensor", false, "copy output.weight unchanged")
}

// overrides parses the flags; the errors are usage errors.
func (f *overrideFlags) overrides() (quantize.Overrides, error) {
	ov := quantize.Overrides{Pure: f.pure, LeaveOutput: f.leaveOutput}
	rules := append([]string(nil), f.tensorTypes...)
	for _, path := range f.tensorTypeFiles {
		b, err := os.ReadFile(path)
		if err != nil {
			return ov, fmt.Errorf("--tensor-type-file: %w", err)
		}
		rules = append(rules, strings.Fields(string(b))...)
	}
	for _, s := range rules {
		r, err := quantize.ParseTensorTypeRule(s)
		if err != nil {
			return ov, fmt.Errorf("--tensor-type: %w", err)
		}
		ov.TensorTypes = append(ov.TensorTypes, r)
	}
	var err error
	if ov.OutputType, err = optionalType("--output-tensor-type", f.outputType); err != nil {
		return ov, err
	}
	if ov.TokenEmbeddingType, err = optionalType("--token-embedding-type", f.tokenEmbdType); err != nil {
		return ov, err
	}
	return ov, nil
}

func optionalType(flag, name string) (*ggml.Type, error) {
	if name == "" {
		return nil, nil
	}
	t, err := quantize.ParseTensorType(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return &t, nil
}
