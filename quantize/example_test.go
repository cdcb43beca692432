package quantize_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quantize"
)

// Quantize to Q8_0 with the ffn_down tensors kept in F16, as
// `llama-quantize --tensor-type ffn_down=f16 IN OUT Q8_0` would, and the
// output matrix in Q6_K.
func ExampleQuantizeFile() {
	rule, err := quantize.ParseTensorTypeRule("ffn_down=f16")
	if err != nil {
		log.Fatal(err)
	}
	out := ggml.Q6_K
	opt := quantize.Options{Overrides: quantize.Overrides{
		TensorTypes: []quantize.TensorTypeRule{rule},
		OutputType:  &out,
	}}
	plan, err := quantize.QuantizeFile(context.Background(), "model-f16.gguf", "model-q8_0.gguf", quantize.MostlyQ8_0, opt)
	if err != nil {
		log.Fatal(err)
	}
	_, bpw := plan.BitsPerWeight()
	fmt.Printf("%d tensors, %.2f bits per weight\n", len(plan.Tensors), bpw)
}

func ExampleParseTensorTypeRule() {
	// The pattern is a regular expression searched in tensor names, lower-cased
	// first as llama-quantize does; the type name is case-blind.
	rule, err := quantize.ParseTensorTypeRule(`BLK\.[0-3]\.attn_v=Q8_0`)
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"blk.2.attn_v.weight", "blk.12.attn_v.weight", "blk.2.attn_q.weight"} {
		fmt.Println(name, rule.Pattern.MatchString(name))
	}
	fmt.Println(rule)
	// Output:
	// blk.2.attn_v.weight true
	// blk.12.attn_v.weight false
	// blk.2.attn_q.weight false
	// blk\.[0-3]\.attn_v=Q8_0
}
