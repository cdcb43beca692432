package ggml

import (
	"errors"
	"testing"
)

func TestTensorBytes(t *testing.T) {
	cases := []struct {
		typ  Type
		dims []uint64
		want uint64
		err  error
	}{
		{F32, []uint64{4, 3}, 48, nil},
		{Q4_0, []uint64{64, 2}, 72, nil},
		{Q4_K, []uint64{256}, 144, nil},
		{Q4_0, []uint64{33}, 0, ErrBadShape},
		{Type(4), []uint64{32}, 0, ErrUnknownType},
		{F32, []uint64{1 << 40, 1 << 40}, 0, ErrBadShape},
		{F32, nil, 0, ErrBadShape},
	}
	for _, c := range cases {
		got, err := TensorBytes(c.typ, c.dims)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%v %v: err %v, want %v", c.typ, c.dims, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v %v: got %d, %v; want %d", c.typ, c.dims, got, err, c.want)
		}
	}
}

func TestParseTypeRoundTrip(t *testing.T) {
	for typ := range layouts {
		got, ok := ParseType(typ.String())
		if !ok || got != typ {
			t.Errorf("ParseType(%q) = %v, %v", typ.String(), got, ok)
		}
	}
	if _, ok := ParseType("q4_k"); !ok {
		t.Error("ParseType is not case-insensitive")
	}
}
