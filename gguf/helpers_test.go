package gguf

import (
	"encoding/binary"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// rawFile assembles GGUF bytes field by field, for files the Writer refuses
// to produce (hostile counts, bad types, overlaps, ...).
type rawFile struct{ b []byte }

func (r *rawFile) u32(x uint32) *rawFile { r.b = binary.LittleEndian.AppendUint32(r.b, x); return r }
func (r *rawFile) u64(x uint64) *rawFile { r.b = binary.LittleEndian.AppendUint64(r.b, x); return r }
func (r *rawFile) str(s string) *rawFile { r.u64(uint64(len(s))); r.b = append(r.b, s...); return r }
func (r *rawFile) bytes(p ...byte) *rawFile {
	r.b = append(r.b, p...)
	return r
}

// header starts a v3 file with the given counts.
func header(nTensors, nKV uint64) *rawFile {
	r := &rawFile{b: []byte("GGUF")}
	return r.u32(3).u64(nTensors).u64(nKV)
}

// tensorInfo appends one tensor info.
func (r *rawFile) tensorInfo(name string, typ ggml.Type, off uint64, dims ...uint64) *rawFile {
	r.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		r.u64(d)
	}
	return r.u32(uint32(typ)).u64(off)
}

// pad appends zeros up to a multiple of a.
func (r *rawFile) pad(a int) *rawFile {
	for len(r.b)%a != 0 {
		r.b = append(r.b, 0)
	}
	return r
}

// smallFile returns a valid file exercising every value type and two
// tensors, whose last tensor ends exactly at the end of the file (so that
// every strict prefix is invalid).
func smallFile(t testing.TB) []byte {
	t.Helper()
	w := NewWriter()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Set("general.architecture", "llama"))
	must(w.Set("u8", uint8(200)))
	must(w.Set("i8", int8(-5)))
	must(w.Set("u16", uint16(60000)))
	must(w.Set("i16", int16(-30000)))
	must(w.Set("u32", uint32(4000000000)))
	must(w.Set("i32", int32(-2000000000)))
	must(w.Set("f32", float32(1.5)))
	must(w.Set("b", true))
	must(w.Set("u64", uint64(1<<63+5)))
	must(w.Set("i64", int64(-1<<62)))
	must(w.Set("f64", 2.25))
	must(w.Set("strs", []string{"a", "", "héllo"}))
	must(w.Set("i32s", []int32{-1, 2, 3}))
	inner1, _ := ValueOf([]uint16{1, 2})
	inner2, _ := ValueOf([]uint16{3})
	must(w.Set("nested", []Value{inner1, inner2}))
	must(w.AddTensor("a", ggml.F32, []uint64{3}, make([]byte, 12)))
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(i + 1)
	}
	must(w.AddTensor("b", ggml.F32, []uint64{4, 2}, b))
	return writeBytes(t, w)
}

func writeBytes(t testing.TB, w *Writer) []byte {
	t.Helper()
	var buf bytesBuffer
	n, err := w.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(buf.b)) {
		t.Fatalf("WriteTo reported %d bytes, wrote %d", n, len(buf.b))
	}
	return buf.b
}

type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
