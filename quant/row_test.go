package quant

import (
	"errors"
	"strings"
	"testing"

	"github.com/gollm/gollm/ggml"
)

func TestRowChecks(t *testing.T) {
	cases := []struct {
		name  string
		typ   ggml.Type
		elems int
		bytes int
		err   error
	}{
		{"ok", ggml.Q4_0, 64, 36, nil},
		{"ok f16", ggml.F16, 3, 6, nil},
		{"partial block", ggml.Q4_0, 33, 18, ggml.ErrBadShape},
		{"short buffer", ggml.Q8_0, 32, 33, ggml.ErrBadShape},
		{"long buffer", ggml.Q8_0, 32, 35, ggml.ErrBadShape},
		{"removed id", ggml.Type(4), 32, 18, ErrUnsupportedType},
		{"unknown id", ggml.Type(1000), 32, 18, ErrUnsupportedType},
	}
	for _, c := range cases {
		derr := DequantizeRow(c.typ, make([]byte, c.bytes), make([]float32, c.elems))
		qerr := QuantizeRow(c.typ, make([]float32, c.elems), make([]byte, c.bytes))
		for _, err := range []error{derr, qerr} {
			if c.err == nil {
				if err != nil {
					t.Errorf("%s: %v", c.name, err)
				}
				continue
			}
			if !errors.Is(err, c.err) {
				t.Errorf("%s: err %v, want %v", c.name, err, c.err)
			} else if c.err == ggml.ErrBadShape && !strings.Contains(err.Error(), c.typ.String()) {
				t.Errorf("%s: error %q does not name the type", c.name, err)
			}
		}
	}
}

func TestRowDispatch(t *testing.T) {
	x := make([]float32, 32)
	x[3] = -8
	b := make([]byte, 18)
	if err := QuantizeRow(ggml.Q4_0, x, b); err != nil {
		t.Fatal(err)
	}
	y := make([]float32, 32)
	if err := DequantizeRow(ggml.Q4_0, b, y); err != nil {
		t.Fatal(err)
	}
	if y[3] != -8 || y[0] != 0 {
		t.Errorf("round trip %v", y[:4])
	}
}
