package gguf

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// exercise touches everything a caller might use on a parsed file, so that
// the fuzzer and the corruption tests also check the accessors.
func exercise(t testing.TB, f *File) {
	for _, kv := range f.KV {
		v := kv.Value
		_ = v.String()
		v.Uint()
		v.Int()
		v.Float()
		v.Bool()
		v.Str()
		v.Strings()
		v.Float32s()
		v.Int32s()
		v.Array()
		_ = v.Len()
	}
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		if d := f.TensorData(ti); uint64(len(d)) != ti.Size {
			t.Fatalf("tensor %q: TensorData has %d bytes, Size %d", ti.Name, len(d), ti.Size)
		}
		ti.Elements()
	}
}

func TestTruncatedEveryPrefix(t *testing.T) {
	data := smallFile(t)
	if _, err := Parse(data); err != nil {
		t.Fatal(err)
	}
	truncated := 0
	for n := range len(data) {
		f, err := Parse(bytes.Clone(data[:n]))
		if err == nil {
			t.Fatalf("prefix of %d/%d bytes parsed: %d tensors", n, len(data), len(f.Tensors))
		}
		if errors.Is(err, ErrTruncated) {
			truncated++
		}
	}
	if truncated != len(data) {
		t.Errorf("only %d of %d prefixes reported ErrTruncated", truncated, len(data))
	}
}

func TestFlippedBytes(t *testing.T) {
	data := smallFile(t)
	for pos := range len(data) {
		for _, mask := range []byte{0x01, 0x80, 0xff, 0x10} {
			bad := bytes.Clone(data)
			bad[pos] ^= mask
			if f, err := Parse(bad); err == nil {
				exercise(t, f)
			}
		}
	}
}

func expectErr(t *testing.T, name string, data []byte, want ...error) error {
	t.Helper()
	f, err := Parse(data)
	if err == nil {
		t.Errorf("%s: parsed (%d kv, %d tensors)", name, len(f.KV), len(f.Tensors))
		return nil
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("%s: error %q does not wrap %q", name, err, w)
		}
	}
	return err
}

func TestMalformedHeaders(t *testing.T) {
	expectErr(t, "empty", nil, ErrTruncated)
	expectErr(t, "magic", []byte("GGML\x03\x00\x00\x00"), ErrBadMagic)
	expectErr(t, "no counts", []byte("GGUF\x03\x00\x00\x00"), ErrTruncated)

	// Counts no file of this size could hold are rejected before anything
	// is allocated (a 1<<60 allocation would crash the test).
	expectErr(t, "n_kv", header(0, 1<<60).b, ErrInvalid)
	expectErr(t, "n_kv max", header(0, ^uint64(0)).b, ErrInvalid)
	expectErr(t, "n_tensors", header(1<<60, 0).b, ErrInvalid)
	expectErr(t, "key length", header(0, 1).u64(1<<62).bytes(make([]byte, 16)...).b, ErrInvalid)
	expectErr(t, "string length", header(0, 1).str("k").u32(uint32(TypeString)).u64(^uint64(0)).b, ErrInvalid)
	expectErr(t, "u8 array length", header(0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeUint8)).u64(1<<62).b, ErrInvalid)
	expectErr(t, "u64 array length", header(0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeUint64)).u64(1<<61).b, ErrInvalid)
	expectErr(t, "string array length", header(0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(1<<61).b, ErrInvalid)
	expectErr(t, "string in array", header(0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(1).u64(1<<41).bytes(make([]byte, 64)...).b, ErrInvalid)
	expectErr(t, "nested array length", header(0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeArray)).u64(1<<61).b, ErrInvalid)
	// A count the whole file could hold but the rest cannot: truncation.
	expectErr(t, "short array", header(0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeUint8)).u64(30).bytes(1, 2).b, ErrTruncated)

	expectErr(t, "value type 13", header(0, 1).str("k").u32(13).u64(0).b, ErrInvalid)
	expectErr(t, "array element type 13", header(0, 1).str("k").u32(uint32(TypeArray)).u32(13).u64(0).b, ErrInvalid)
	expectErr(t, "duplicate key", header(0, 2).str("k").u32(uint32(TypeUint8)).bytes(1).str("k").u32(uint32(TypeUint8)).bytes(2).b, ErrInvalid)

	deep := header(0, 1).str("k").u32(uint32(TypeArray))
	for range maxArrayDepth {
		deep.u32(uint32(TypeArray)).u64(1)
	}
	deep.u32(uint32(TypeUint8)).u64(0)
	expectErr(t, "nesting", deep.b, ErrInvalid)

	for _, a := range []struct {
		typ ValueType
		val []byte
	}{{TypeUint32, []byte{0, 0, 0, 0}}, {TypeUint32, []byte{48, 0, 0, 0}}, {TypeInt32, []byte{0xe0, 0xff, 0xff, 0xff}}, {TypeFloat32, []byte{0, 0, 0, 0x42}}} {
		r := header(0, 1).str("general.alignment").u32(uint32(a.typ)).bytes(a.val...)
		expectErr(t, "alignment "+a.typ.String(), r.b, ErrInvalid)
	}
}

// tensorFile builds a file with the given tensor infos followed by a data
// section of dataBytes zeros.
func tensorFile(dataBytes int, infos func(r *rawFile), n uint64) []byte {
	r := header(n, 0)
	infos(r)
	r.pad(32)
	r.bytes(make([]byte, dataBytes)...)
	return r.b
}

func TestMalformedTensors(t *testing.T) {
	one := func(name string, typ ggml.Type, off uint64, dims ...uint64) func(r *rawFile) {
		return func(r *rawFile) { r.tensorInfo(name, typ, off, dims...) }
	}
	// Sanity: the builder makes valid files.
	if _, err := Parse(tensorFile(64, one("x", ggml.F32, 0, 4, 4), 1)); err != nil {
		t.Fatal(err)
	}

	err := expectErr(t, "unknown type", tensorFile(64, one("blk.3.attn_q.weight", 99, 0, 4), 1), ggml.ErrUnknownType)
	if err != nil && err.Error() != `gguf: tensor "blk.3.attn_q.weight": unknown ggml type 99` {
		t.Errorf("unknown type message: %q", err)
	}
	expectErr(t, "removed type 4", tensorFile(64, one("x", 4, 0, 32), 1), ggml.ErrUnknownType)
	expectErr(t, "0 dims", tensorFile(64, one("x", ggml.F32, 0), 1), ErrInvalid)
	expectErr(t, "5 dims", tensorFile(64, one("x", ggml.F32, 0, 1, 1, 1, 1, 1), 1), ErrInvalid)
	expectErr(t, "dims overflow", tensorFile(64, one("x", ggml.F32, 0, 1<<40, 1<<40), 1), ErrInvalid, ggml.ErrBadShape)
	expectErr(t, "elements overflow", tensorFile(64, one("x", ggml.I8, 0, 1<<32, 1<<32), 1), ErrInvalid)
	expectErr(t, "zero dim hides overflow", tensorFile(64, one("x", ggml.F32, 0, 0, 1<<40, 1<<40), 1), ErrInvalid)
	expectErr(t, "dim 2^63", tensorFile(64, one("x", ggml.I8, 0, 1<<63), 1), ErrInvalid)
	expectErr(t, "block multiple", tensorFile(64, one("x", ggml.Q4_0, 0, 33), 1), ErrInvalid, ggml.ErrBadShape)
	expectErr(t, "past EOF", tensorFile(63, one("x", ggml.F32, 0, 4, 4), 1), ErrTruncated, ErrInvalid)
	expectErr(t, "offset past EOF", tensorFile(64, one("x", ggml.F32, 1<<62, 1), 1), ErrTruncated, ErrInvalid)
	expectErr(t, "offset wraps", tensorFile(64, one("x", ggml.F32, ^uint64(0)-31, 16), 1), ErrInvalid)
	expectErr(t, "misaligned", tensorFile(64, one("x", ggml.F32, 4, 1), 1), ErrInvalid)
	expectErr(t, "duplicate names", tensorFile(64, func(r *rawFile) {
		r.tensorInfo("x", ggml.F32, 0, 1).tensorInfo("x", ggml.F32, 32, 1)
	}, 2), ErrInvalid)
	expectErr(t, "overlap", tensorFile(128, func(r *rawFile) {
		r.tensorInfo("a", ggml.F32, 0, 16).tensorInfo("b", ggml.F32, 32, 8)
	}, 2), ErrInvalid)
	expectErr(t, "overlap out of order", tensorFile(128, func(r *rawFile) {
		r.tensorInfo("b", ggml.F32, 64, 8).tensorInfo("c", ggml.F32, 96, 1).tensorInfo("a", ggml.F32, 0, 24)
	}, 3), ErrInvalid)

	// Out of order but disjoint is fine, and so is an empty tensor (a zero
	// dim) inside the data section, even at another tensor's offset.
	f, err := Parse(tensorFile(128, func(r *rawFile) {
		r.tensorInfo("b", ggml.F32, 64, 8).tensorInfo("a", ggml.F32, 0, 16).tensorInfo("z", ggml.F32, 32, 0, 5)
	}, 3))
	if err != nil {
		t.Fatal(err)
	}
	z, _ := f.Tensor("z")
	if z.Size != 0 || z.Elements() != 0 || f.TensorData(z) == nil || len(f.TensorData(z)) != 0 {
		t.Errorf("empty tensor: %+v", z)
	}
	exercise(t, f)
}

// A file without tensors may end right after its metadata, unpadded (the
// shared vocab files do).
func TestNoTensorsUnpadded(t *testing.T) {
	r := header(0, 1).str("general.architecture").u32(uint32(TypeString)).str("gpt2")
	f, err := Parse(r.b)
	if err != nil {
		t.Fatal(err)
	}
	if f.DataOffset < f.Size || f.Architecture() != "gpt2" {
		t.Errorf("data offset %d, size %d", f.DataOffset, f.Size)
	}
	// A zero-size tensor fits too; a tensor with bytes does not.
	if _, err := Parse(header(1, 0).tensorInfo("z", ggml.F32, 0, 0).b); err != nil {
		t.Errorf("empty tensor in an unpadded file: %v", err)
	}
	expectErr(t, "tensor in unpadded file", header(1, 0).tensorInfo("x", ggml.F32, 0, 1).b, ErrTruncated)
}

func TestErrorsHaveContext(t *testing.T) {
	data := smallFile(t)
	// Cut inside the value of "f64" (the 12th key).
	i := bytes.Index(data, []byte("f64"))
	_, err := Parse(data[:i+3+4+3])
	if err == nil || !strings.Contains(err.Error(), `"f64"`) || !strings.HasPrefix(err.Error(), "gguf: ") {
		t.Errorf("error lacks the key: %v", err)
	}
}

// A 2 GiB alignment is legal: without tensor data the file stays tiny (the
// fuzzer's rewrite of such a file stalled on 2 GiB of padding before it
// learned to skip it); with a tensor the data section is past the end.
func TestHugeAlignment(t *testing.T) {
	r := header(0, 1).str("general.alignment").u32(uint32(TypeUint32)).u32(1 << 31)
	f, err := Parse(r.b)
	if err != nil || f.Alignment != 1<<31 || f.DataOffset != 1<<31 {
		t.Fatalf("%v, alignment %d, data offset %d", err, f.Alignment, f.DataOffset)
	}
	r = header(1, 1).str("general.alignment").u32(uint32(TypeUint32)).u32(1<<31).tensorInfo("x", ggml.F32, 0, 1)
	expectErr(t, "tensor past a huge alignment", append(r.b, make([]byte, 64)...), ErrTruncated)
}
