package gguf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/internal/tmpfile"
)

// TestWriterGoldenBytes checks the writer's layout against bytes assembled
// by hand from the GGUF spec.
func TestWriterGoldenBytes(t *testing.T) {
	w := NewWriter()
	if err := w.Set("k", uint32(7)); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("t", ggml.F32, []uint64{2}, []byte{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		t.Fatal(err)
	}
	want := "47475546" + "03000000" + // magic, version 3
		"0100000000000000" + "0100000000000000" + // n_tensors, n_kv
		"0100000000000000" + "6b" + "04000000" + "07000000" + // "k": uint32 7
		"0100000000000000" + "74" + "01000000" + "0200000000000000" + "00000000" + "0000000000000000" + // "t" [2] F32 @0
		strings.Repeat("00", 96-74) + // pad the infos to 32
		"0102030405060708" + strings.Repeat("00", 24) // data, padded
	got := hex.EncodeToString(writeBytes(t, w))
	if got != want {
		t.Fatalf("writer bytes\n got %s\nwant %s", got, want)
	}
}

func TestRoundTripEveryType(t *testing.T) {
	data := smallFile(t)
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Alignment != 32 || f.Size != uint64(len(data)) || f.DataOffset%32 != 0 {
		t.Errorf("header: version %d alignment %d size %d data offset %d", f.Version, f.Alignment, f.Size, f.DataOffset)
	}
	wantKeys := []string{"general.architecture", "u8", "i8", "u16", "i16", "u32", "i32", "f32", "b", "u64", "i64", "f64", "strs", "i32s", "nested"}
	var keys []string
	for _, kv := range f.KV {
		keys = append(keys, kv.Key)
	}
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("keys %q, want %q", keys, wantKeys)
	}
	types := map[string]ValueType{"u8": TypeUint8, "i8": TypeInt8, "u16": TypeUint16, "i16": TypeInt16, "u32": TypeUint32,
		"i32": TypeInt32, "f32": TypeFloat32, "b": TypeBool, "u64": TypeUint64, "i64": TypeInt64, "f64": TypeFloat64,
		"strs": TypeArray, "general.architecture": TypeString}
	for k, typ := range types {
		if v, _ := f.Get(k); v.Type != typ {
			t.Errorf("%s: type %s, want %s", k, v.Type, typ)
		}
	}
	if f.Architecture() != "llama" {
		t.Errorf("architecture %q", f.Architecture())
	}
	for _, c := range []struct {
		key  string
		u    uint64
		uok  bool
		i    int64
		iok  bool
		fl   float64
		text string
	}{
		{"u8", 200, true, 200, true, 200, "200"},
		{"i8", 0, false, -5, true, -5, "-5"},
		{"u16", 60000, true, 60000, true, 60000, "60000"},
		{"i16", 0, false, -30000, true, -30000, "-30000"},
		{"u32", 4000000000, true, 4000000000, true, 4e9, "4000000000"},
		{"i32", 0, false, -2000000000, true, -2e9, "-2000000000"},
		{"u64", 1<<63 + 5, true, 0, false, 1<<63 + 5, "9223372036854775813"},
		{"i64", 0, false, -1 << 62, true, -1 << 62, "-4611686018427387904"},
		{"f32", 0, false, 0, false, 1.5, "1.5"},
		{"f64", 0, false, 0, false, 2.25, "2.25"},
	} {
		v, _ := f.Get(c.key)
		if u, ok := v.Uint(); ok != c.uok || (ok && u != c.u) {
			t.Errorf("%s.Uint() = %d, %v", c.key, u, ok)
		}
		if i, ok := v.Int(); ok != c.iok || (ok && i != c.i) {
			t.Errorf("%s.Int() = %d, %v", c.key, i, ok)
		}
		if fl, ok := v.Float(); !ok || fl != c.fl {
			t.Errorf("%s.Float() = %g, %v", c.key, fl, ok)
		}
		if s := v.String(); s != c.text {
			t.Errorf("%s.String() = %q, want %q", c.key, s, c.text)
		}
	}
	if !f.Bool("b", false) || f.String("general.architecture", "") != "llama" || f.Uint("u32", 0) != 4000000000 ||
		f.Int("i8", 0) != -5 || f.Float("f32", 0) != 1.5 {
		t.Error("getters disagree with the values")
	}
	// Defaults for missing keys and wrong types.
	if f.String("u8", "def") != "def" || f.Uint("i8", 9) != 9 || f.Int("missing", 9) != 9 || f.Bool("u8", true) != true || f.Float("strs", 3) != 3 {
		t.Error("getters do not fall back to the default")
	}
	if s, ok := f.Strings("strs"); !ok || !slices.Equal(s, []string{"a", "", "héllo"}) {
		t.Errorf("Strings = %q, %v", s, ok)
	}
	if x, ok := f.Int32s("i32s"); !ok || !slices.Equal(x, []int32{-1, 2, 3}) {
		t.Errorf("Int32s = %v, %v", x, ok)
	}
	if x, ok := f.Float32s("i32s"); !ok || !slices.Equal(x, []float32{-1, 2, 3}) {
		t.Errorf("Float32s of an int array = %v, %v", x, ok)
	}
	if _, ok := f.Float32s("strs"); ok {
		t.Error("Float32s of a string array succeeded")
	}
	nested, _ := f.Get("nested")
	if nested.Type != TypeArray || nested.ElemType != TypeArray || nested.Len() != 2 {
		t.Fatalf("nested: %s", nested)
	}
	if s := nested.String(); s != "[2]array{[2]uint16{1, 2}, [1]uint16{3}}" {
		t.Errorf("nested.String() = %q", s)
	}
	inner, _ := nested.Array()
	if x, ok := inner[0].Int32s(); !ok || !slices.Equal(x, []int32{1, 2}) {
		t.Errorf("inner[0] = %v", x)
	}
	ta, ok := f.Tensor("a")
	tb, _ := f.Tensor("b")
	if !ok || ta.Type != ggml.F32 || !slices.Equal(ta.Dims, []uint64{3}) || ta.Size != 12 || ta.Offset != 0 {
		t.Errorf("tensor a = %+v", ta)
	}
	if tb.Offset != 32 || tb.Size != 32 || tb.Elements() != 8 {
		t.Errorf("tensor b = %+v", tb)
	}
	if got := f.TensorData(tb); len(got) != 32 || got[0] != 1 || got[31] != 32 {
		t.Errorf("tensor b data = %v", got)
	}
	if _, ok := f.Tensor("nope"); ok {
		t.Error("found a missing tensor")
	}
}

func TestValueEdgeCases(t *testing.T) {
	nan := math.Float32frombits(0x7fc00001)
	v, _ := ValueOf([]float32{nan, float32(math.Copysign(0, -1)), 1e-45})
	w := NewWriter()
	w.Set("fl", v)
	w.Set("empty", []string{})
	w.Set("emptyu8", []uint8{})
	w.Set("bools", []bool{true, false, true})
	w.Set("long", strings.Repeat("é", 40))
	w.Set("u32s", []uint32{1, 1 << 31})
	w.Set("neg", []int8{-1})
	f, err := Parse(writeBytes(t, w))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.Get("fl")
	if !got.Equal(v) {
		t.Errorf("NaN/-0 array changed: %s vs %s", got, v)
	}
	x, _ := got.Float32s()
	if math.Float32bits(x[0]) != 0x7fc00001 || math.Float32bits(x[1]) != 0x80000000 {
		t.Errorf("float bits changed: %x %x", math.Float32bits(x[0]), math.Float32bits(x[1]))
	}
	if e, _ := f.Get("empty"); e.Len() != 0 || e.ElemType != TypeString || e.String() != "[0]string{}" {
		t.Errorf("empty = %s", e)
	}
	if e, _ := f.Get("emptyu8"); e.Len() != 0 || e.ElemType != TypeUint8 {
		t.Errorf("emptyu8 = %s", e)
	}
	if b, _ := f.Get("bools"); b.String() != "[3]bool{true, false, true}" {
		t.Errorf("bools = %s", b)
	}
	if l, _ := f.Get("long"); !strings.HasSuffix(l.String(), `"...`) || len(l.String()) > 60 {
		t.Errorf("long string shown as %s", l)
	}
	if _, ok := f.Int32s("u32s"); ok {
		t.Error("Int32s accepted 1<<31")
	}
	if x, ok := f.Int32s("neg"); !ok || x[0] != -1 {
		t.Errorf("Int32s of int8 = %v %v", x, ok)
	}
	if s, _ := ValueOf([]string{"a", "b", "c", "d", "e"}); s.String() != `[5]string{"a", "b", "c", "d", ...}` {
		t.Errorf("abbreviation: %s", s)
	}
	if _, err := ValueOf(3); err == nil {
		t.Error("ValueOf(int) succeeded")
	}
	if _, err := ValueOf(struct{}{}); err == nil {
		t.Error("ValueOf(struct) succeeded")
	}
	if _, err := ValueOf([]Value{}); err == nil {
		t.Error("ValueOf(empty []Value) succeeded")
	}
	a, _ := ValueOf(uint8(1))
	b, _ := ValueOf(int8(1))
	if _, err := ValueOf([]Value{a, b}); err == nil {
		t.Error("mixed-type array accepted")
	}
	// An array of scalars built from Values encodes like a typed slice.
	av, _ := ValueOf([]Value{b, {Type: TypeInt8}})
	tv, _ := ValueOf([]int8{1, 0})
	if !av.Equal(tv) {
		t.Errorf("[]Value of int8 = %s, want %s", av, tv)
	}
}

func TestNestedArraysDeep(t *testing.T) {
	v, _ := ValueOf([]string{"x"})
	for range maxArrayDepth - 1 {
		v, _ = ValueOf([]Value{v, v})
	}
	w := NewWriter()
	if err := w.Set("deep", v); err != nil {
		t.Fatalf("depth %d refused: %v", maxArrayDepth, err)
	}
	f, err := Parse(writeBytes(t, w))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Get("deep"); !got.Equal(v) {
		t.Error("deep array changed")
	}
	tooDeep, _ := ValueOf([]Value{v})
	if err := w.Set("deeper", tooDeep); !errors.Is(err, ErrInvalid) {
		t.Errorf("nesting %d accepted: %v", maxArrayDepth+1, err)
	}
}

func TestAlignmentVariants(t *testing.T) {
	for _, a := range []uint32{1, 2, 8, 64, 4096} {
		w := NewWriter()
		if err := w.Set("general.alignment", a); err != nil {
			t.Fatal(err)
		}
		w.AddTensor("x", ggml.I8, []uint64{3}, []byte{1, 2, 3})
		w.AddTensor("y", ggml.I8, []uint64{5}, []byte{4, 5, 6, 7, 8})
		data := writeBytes(t, w)
		f, err := Parse(data)
		if err != nil {
			t.Fatalf("alignment %d: %v", a, err)
		}
		y, _ := f.Tensor("y")
		if f.Alignment != uint64(a) || f.DataOffset%uint64(a) != 0 || y.Offset != alignUp(3, uint64(a)) ||
			uint64(len(data))%uint64(a) != 0 || !bytes.Equal(f.TensorData(y), []byte{4, 5, 6, 7, 8}) {
			t.Errorf("alignment %d: data offset %d, y at %d, file %d bytes", a, f.DataOffset, y.Offset, len(data))
		}
	}
	w := NewWriter()
	for _, bad := range []any{uint32(0), uint32(3), uint64(32), "32"} {
		if err := w.Set("general.alignment", bad); err == nil {
			t.Errorf("alignment %v accepted", bad)
		}
	}
}

func TestVersions(t *testing.T) {
	data := smallFile(t)
	v2 := bytes.Clone(data)
	v2[4] = 2
	f, err := Parse(v2)
	if err != nil || f.Version != 2 {
		t.Fatalf("v2: %v", err)
	}
	ref, _ := Parse(data)
	if len(f.KV) != len(ref.KV) || !f.KV[12].Value.Equal(ref.KV[12].Value) || len(f.Tensors) != 2 {
		t.Error("v2 parse differs from v3")
	}
	for _, c := range []struct {
		version []byte
		msg     string
	}{
		{[]byte{1, 0, 0, 0}, "version 1"},
		{[]byte{4, 0, 0, 0}, "version 4"},
		{[]byte{0, 0, 0, 3}, "big-endian"},
		{[]byte{0, 0, 0, 2}, "big-endian"},
	} {
		bad := bytes.Clone(data)
		copy(bad[4:], c.version)
		_, err := Parse(bad)
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("version bytes %v: %v", c.version, err)
		}
	}
}

func TestWriterSetReplaces(t *testing.T) {
	w := NewWriter()
	w.Set("a", uint32(1))
	w.Set("b", uint32(2))
	w.Set("c", uint32(3))
	w.Set("a", "one")
	w.Delete("b")
	w.Delete("zzz")
	f, err := Parse(writeBytes(t, w))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.KV) != 2 || f.KV[0].Key != "a" || f.String("a", "") != "one" || f.KV[1].Key != "c" || f.Uint("c", 0) != 3 {
		t.Errorf("KVs %v", f.KV)
	}
}

func TestWriterRejects(t *testing.T) {
	w := NewWriter()
	if err := w.Set("", uint8(1)); err == nil {
		t.Error("empty key accepted")
	}
	if err := w.Set("x", 1); err == nil {
		t.Error("plain int accepted")
	}
	if err := w.Set("x", Value{Type: 13}); !errors.Is(err, ErrInvalid) {
		t.Errorf("value type 13: %v", err)
	}
	if err := w.AddTensor("t", ggml.F32, []uint64{2}, make([]byte, 7)); err == nil {
		t.Error("short data accepted")
	}
	if err := w.AddTensor("t", ggml.Type(99), []uint64{2}, nil); !errors.Is(err, ggml.ErrUnknownType) {
		t.Errorf("type 99: %v", err)
	}
	if err := w.AddTensor("t", ggml.F32, []uint64{1, 1, 1, 1, 1}, make([]byte, 4)); !errors.Is(err, ErrInvalid) {
		t.Errorf("5 dims: %v", err)
	}
	if err := w.AddTensor("t", ggml.Q4_0, []uint64{33}, make([]byte, 18)); !errors.Is(err, ggml.ErrBadShape) {
		t.Errorf("row not a block multiple: %v", err)
	}
	if err := w.AddTensor("t", ggml.F32, []uint64{1}, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("t", ggml.F32, []uint64{1}, make([]byte, 4)); !errors.Is(err, ErrInvalid) {
		t.Errorf("duplicate name: %v", err)
	}
}

func TestAddTensorFunc(t *testing.T) {
	payload := func(n int) func(io.Writer) error {
		return func(w io.Writer) error {
			for i := 0; i < n; i += 5 { // many small writes
				if _, err := w.Write(bytes.Repeat([]byte{byte(i)}, min(5, n-i))); err != nil {
					return err
				}
			}
			return nil
		}
	}
	w := NewWriter()
	w.AddTensorFunc("s", ggml.F32, []uint64{4, 3}, payload(48))
	w.AddTensor("after", ggml.I8, []uint64{1}, []byte{42})
	f, err := Parse(writeBytes(t, w))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := f.Tensor("s")
	if d := f.TensorData(s); len(d) != 48 || d[47] != 45 {
		t.Errorf("streamed data %v", d)
	}
	after, _ := f.Tensor("after")
	if d := f.TensorData(after); d[0] != 42 {
		t.Errorf("tensor after the streamed one: %v", d)
	}
	ignoring := func(w io.Writer) error { // writes 50 bytes, drops the error of the last write
		w.Write(make([]byte, 48))
		w.Write(make([]byte, 2))
		return nil
	}
	w = NewWriter()
	w.AddTensorFunc("s", ggml.F32, []uint64{4, 3}, ignoring)
	if _, err := w.WriteTo(io.Discard); !errors.Is(err, errTooMuch) {
		t.Errorf("oversized write with the error ignored: %v", err)
	}
	for _, n := range []int{47, 49} {
		w := NewWriter()
		w.AddTensorFunc("s", ggml.F32, []uint64{4, 3}, payload(n))
		if _, err := w.WriteTo(io.Discard); err == nil || !strings.Contains(err.Error(), `"s"`) {
			t.Errorf("write func of %d bytes for 48: %v", n, err)
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.gguf")
	w := NewWriter()
	w.Set("general.architecture", "llama")
	w.AddTensor("t", ggml.F32, []uint64{2}, make([]byte, 8))
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Architecture() != "llama" {
		t.Error("architecture lost")
	}

	// A failing write (disk full, a broken generator) leaves neither the
	// temporary file nor a file at the target path.
	boom := errors.New("disk full")
	w2 := NewWriter()
	w2.AddTensorFunc("t", ggml.F32, []uint64{1 << 20}, func(w io.Writer) error {
		w.Write(make([]byte, 1000))
		return boom
	})
	other := filepath.Join(dir, "other.gguf")
	if err := w2.WriteFile(other); !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
	for _, p := range []string{other, tmpfile.Name(other)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
	if err := w2.WriteFile(filepath.Join(dir, "no-such-dir", "x.gguf")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}
