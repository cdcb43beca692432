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
	rules         []ruleArg // --tensor-type and --tensor-type-file, in command-line order
	outputType    string
	tokenEmbdType string
	pure          bool
	leaveOutput   bool
}

func (f *overrideFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.Var(&ruleFlag{&f.rules, false}, "tensor-type",
		"PATTERN=TYPE: tensors whose name matches the regular expression PATTERN get TYPE (repeatable; the first match wins)")
	fl.Var(&ruleFlag{&f.rules, true}, "tensor-type-file",
		"file of PATTERN=TYPE rules separated by spaces or newlines (repeatable, in order with --tensor-type)")
	fl.StringVar(&f.outputType, "output-tensor-type", "", "type of output.weight (e.g. q8_0, f16)")
	fl.StringVar(&f.tokenEmbdType, "token-embedding-type", "", "type of token_embd.weight (e.g. q8_0, f16)")
	fl.BoolVar(&f.pure, "pure", false, "no k-quant mixes: every quantized tensor gets the type's default")
	fl.BoolVar(&f.leaveOutput, "leave-output-tensor", false, "copy output.weight unchanged")
}

// overrides parses the flags; the errors are usage errors.
func (f *overrideFlags) overrides() (quantize.Overrides, error) {
	ov := quantize.Overrides{Pure: f.pure, LeaveOutput: f.leaveOutput}
	for _, a := range f.rules {
		texts := []string{a.value}
		if a.file {
			b, err := os.ReadFile(a.value)
			if err != nil {
				return ov, fmt.Errorf("--tensor-type-file: %w", err)
			}
			texts = strings.Fields(string(b))
		}
		for _, s := range texts {
			r, err := quantize.ParseTensorTypeRule(s)
			if err != nil {
				if a.file {
					return ov, fmt.Errorf("--tensor-type-file %s: %w", a.value, err)
				}
				return ov, fmt.Errorf("--tensor-type: %w", err)
			}
			ov.TensorTypes = append(ov.TensorTypes, r)
		}
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

// ruleArg is one --tensor-type rule or --tensor-type-file path.
type ruleArg struct {
	value string
	file  bool
}

// ruleFlag appends to one list for both flags, so that the rules keep the
// order they were given in (the first match wins), as in llama-quantize.
type ruleFlag struct {
	list *[]ruleArg
	file bool
}

func (r *ruleFlag) Set(s string) error {
	*r.list = append(*r.list, ruleArg{s, r.file})
	return nil
}

func (r *ruleFlag) String() string { return "" }

func (r *ruleFlag) Type() string {
	if r.file {
		return "file"
	}
	return "PATTERN=TYPE"
}
