package engine

import (
	"math"
	"testing"

	"github.com/gollm/gollm/kernels"
)

// TestPackModesAgree: whenever and however the weights get packed (at load,
// in the background while the model runs, on first use), the logits are the
// same bits, because packed and row-major kernels compute the same sums.
func TestPackModesAgree(t *testing.T) {
	for _, typ := range []string{"Q4_0", "Q4_K_M", "Q8_0"} {
		var ref []float32
		for _, mode := range []string{PackLazy, PackAtLoad, PackBackground} {
			m := tinyModel(t, typ, Options{Threads: 2, Context: 64, Pack: mode})
			ids := m.Tokenizer.Encode("The sun was shining and the birds were singing", true, false)
			got, err := m.Eval(ids, true)
			if err != nil {
				t.Fatal(err)
			}
			next, err := m.Eval([]int32{ids[1]}, false) // one decode step too
			if err != nil {
				t.Fatal(err)
			}
			got = append(append([]float32(nil), got...), next...)
			m.WaitPacked()
			if done, _ := m.PackStatus(); !done {
				t.Fatalf("%s %s: packing not done after WaitPacked", typ, mode)
			}
			if mode != PackLazy {
				for i, mat := range m.Weights.forwardOrder() {
					if mat.ReplacedData() == nil && mat.Rows >= 8 && (mat.Type.String() == "Q4_0" || mat.Type.String() == "Q4_K") && kernels.Impl() != "generic" {
						t.Fatalf("%s %s: matrix %d (%v) not packed", typ, mode, i, mat.Type)
					}
				}
			}
			if ref == nil {
				ref = got
				continue
			}
			for i := range ref {
				if math.Float32bits(got[i]) != math.Float32bits(ref[i]) {
					t.Fatalf("%s: pack mode %s: logit %d = %v, lazy packing gives %v", typ, mode, i, got[i], ref[i])
				}
			}
		}
	}
}

func TestParsePackMode(t *testing.T) {
	for in, want := range map[string]string{"": PackAtLoad, "LOAD": PackAtLoad, "background": PackBackground, "lazy": PackLazy} {
		if got, err := ParsePackMode(in); err != nil || got != want {
			t.Errorf("ParsePackMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParsePackMode("eager"); err == nil {
		t.Error("ParsePackMode(eager): no error")
	}
}
