package gguf

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/internal/tmpfile"
)

// Writer builds a GGUF v3 file: metadata in insertion order, then tensor
// infos and data in the order tensors were added. The layout is llama.cpp's
// (data section and every tensor padded to the alignment), so re-writing a
// file llama.cpp wrote reproduces it byte for byte.
type Writer struct {
	kv          []KV
	kvIndex     map[string]int
	tensors     []pendingTensor
	tensorIndex map[string]int
	alignment   uint64
}

type pendingTensor struct {
	info  TensorInfo
	data  []byte                // AddTensor
	write func(io.Writer) error // AddTensorFunc
}

// NewWriter returns an empty writer: version 3, alignment 32 unless
// general.alignment is set.
func NewWriter() *Writer {
	return &Writer{kvIndex: map[string]int{}, tensorIndex: map[string]int{}, alignment: defaultAlignment}
}

// Set stores a metadata value (see ValueOf for the Go types accepted; a
// Value, e.g. from another File, is stored verbatim). Setting an existing key
// replaces its value in place, keeping the key order. general.alignment must
// be a uint32 power of two, as llama.cpp requires.
func (w *Writer) Set(key string, x any) error {
	if key == "" {
		return fmt.Errorf("gguf: empty metadata key")
	}
	v, err := ValueOf(x)
	if err != nil {
		return fmt.Errorf("gguf: key %q: %w", key, err)
	}
	if err := checkValue(v, 0); err != nil {
		return fmt.Errorf("gguf: key %q: %w", key, err)
	}
	if key == alignmentKey {
		a, _ := v.Uint()
		if v.Type != TypeUint32 || a == 0 || a&(a-1) != 0 {
			return fmt.Errorf("gguf: %s = %s (%s): must be a uint32 power of two", key, v, v.Type)
		}
		w.alignment = a
	}
	if i, ok := w.kvIndex[key]; ok {
		w.kv[i].Value = v
		return nil
	}
	w.kvIndex[key] = len(w.kv)
	w.kv = append(w.kv, KV{Key: key, Value: v})
	return nil
}

// Delete removes key if present.
func (w *Writer) Delete(key string) {
	i, ok := w.kvIndex[key]
	if !ok {
		return
	}
	w.kv = append(w.kv[:i], w.kv[i+1:]...)
	delete(w.kvIndex, key)
	for j := i; j < len(w.kv); j++ {
		w.kvIndex[w.kv[j].Key] = j
	}
	if key == alignmentKey {
		w.alignment = defaultAlignment
	}
}

// checkValue rejects values a reader would refuse: unknown types and arrays
// nested deeper than maxArrayDepth.
func checkValue(v Value, depth int) error {
	if !v.Type.valid() {
		return fmt.Errorf("%w: unknown value type %d", ErrInvalid, uint32(v.Type))
	}
	if v.Type != TypeArray {
		return nil
	}
	if !v.ElemType.valid() {
		return fmt.Errorf("%w: unknown array element type %d", ErrInvalid, uint32(v.ElemType))
	}
	if depth >= maxArrayDepth {
		return fmt.Errorf("%w: arrays nested deeper than %d", ErrInvalid, maxArrayDepth)
	}
	for _, e := range v.arr {
		if err := checkValue(e, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// AddTensor adds a tensor whose bytes are in data (len(data) must be
// ggml.TensorBytes(typ, dims)). data is not copied: keep it unchanged until
// the file is written.
func (w *Writer) AddTensor(name string, typ ggml.Type, dims []uint64, data []byte) error {
	info, err := w.newTensor(name, typ, dims)
	if err != nil {
		return err
	}
	if uint64(len(data)) != info.Size {
		return fmt.Errorf("gguf: tensor %q: %d bytes of data, %s %v needs %d", name, len(data), typ, dims, info.Size)
	}
	w.addTensor(pendingTensor{info: info, data: data})
	return nil
}

// AddTensorFunc adds a tensor whose bytes write produces while the file is
// written, so that multi-gigabyte files need not be held in memory. write
// must write exactly the tensor's bytes; it is called once per WriteTo.
func (w *Writer) AddTensorFunc(name string, typ ggml.Type, dims []uint64, write func(io.Writer) error) error {
	if write == nil {
		return fmt.Errorf("gguf: tensor %q: nil write func", name)
	}
	info, err := w.newTensor(name, typ, dims)
	if err != nil {
		return err
	}
	w.addTensor(pendingTensor{info: info, write: write})
	return nil
}

func (w *Writer) newTensor(name string, typ ggml.Type, dims []uint64) (TensorInfo, error) {
	if _, dup := w.tensorIndex[name]; dup {
		return TensorInfo{}, fmt.Errorf("gguf: tensor %q: %w: duplicate tensor name", name, ErrInvalid)
	}
	size, err := tensorSize(typ, dims)
	if err != nil {
		return TensorInfo{}, fmt.Errorf("gguf: tensor %q: %w", name, err)
	}
	return TensorInfo{Name: name, Dims: append([]uint64(nil), dims...), Type: typ, Size: size}, nil
}

func (w *Writer) addTensor(p pendingTensor) {
	w.tensorIndex[p.info.Name] = len(w.tensors)
	w.tensors = append(w.tensors, p)
}

func alignUp(x, a uint64) uint64 {
	if r := x % a; r != 0 {
		x += a - r
	}
	return x
}

// WriteTo writes the file to out and returns the bytes written.
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	cw := &countingWriter{w: out}
	bw := bufio.NewWriterSize(cw, 1<<20)

	// Offsets are assigned here, not in AddTensor, because Set may still
	// change the alignment.
	var off uint64
	for i := range w.tensors {
		t := &w.tensors[i].info
		t.Offset = alignUp(off, w.alignment)
		off = t.Offset + t.Size
	}
	meta := w.appendMeta(nil)
	if _, err := bw.Write(meta); err != nil {
		return cw.n, fmt.Errorf("gguf: %w", err)
	}
	pos := uint64(len(meta))
	if err := writeZeros(bw, alignUp(pos, w.alignment)-pos); err != nil {
		return cw.n, fmt.Errorf("gguf: %w", err)
	}
	pos = 0 // from here on relative to the data section
	for i := range w.tensors {
		t := &w.tensors[i]
		if err := writeZeros(bw, t.info.Offset-pos); err != nil {
			return cw.n, fmt.Errorf("gguf: %w", err)
		}
		if err := t.writeData(bw); err != nil {
			return cw.n, fmt.Errorf("gguf: tensor %q: %w", t.info.Name, err)
		}
		pos = t.info.Offset + t.info.Size
	}
	if err := writeZeros(bw, alignUp(pos, w.alignment)-pos); err != nil {
		return cw.n, fmt.Errorf("gguf: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("gguf: %w", err)
	}
	return cw.n, nil
}

func (t *pendingTensor) writeData(out io.Writer) error {
	if t.write == nil {
		_, err := out.Write(t.data)
		return err
	}
	ew := &exactWriter{w: out, left: t.info.Size}
	if err := t.write(ew); err != nil {
		return err
	}
	if ew.over { // the func ignored the error of an oversized write
		return fmt.Errorf("%w: %d bytes", errTooMuch, t.info.Size)
	}
	if ew.left != 0 {
		return fmt.Errorf("write func wrote %d of %d bytes", t.info.Size-ew.left, t.info.Size)
	}
	return nil
}

// WriteFile is WriteFileContext without cancellation.
func (w *Writer) WriteFile(path string) error {
	return w.WriteFileContext(context.Background(), path)
}

// WriteFileContext writes the file to a temporary file next to path (see
// package internal/tmpfile: its name carries the process id, and leftovers
// of killed processes are removed first), syncs it and renames it to path,
// so path is never left half-written. A path that exists and is not a
// regular file (/dev/null, a named pipe) is written directly instead. On any error, and when ctx is done
// before the file is complete, the temporary file is removed and the error
// (ctx.Err() for a cancellation) returned. Cancellation is noticed at the
// next write reaching the file, at most about 1 MiB later, so tensor
// functions that compute for long between writes should watch ctx too.
func (w *Writer) WriteFileContext(ctx context.Context, path string) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("gguf: write %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return w.writeSpecial(ctx, path)
	}
	fh, err := tmpfile.Create(path)
	if err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	tmp := fh.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	_, err = w.WriteTo(&ctxWriter{ctx: ctx, w: fh})
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("gguf: write %s: %w", path, err)
	}
	return nil
}

// writeSpecial writes straight to an existing path that is not a regular
// file (/dev/null, a named pipe): renaming a temporary file over it would
// replace the device or pipe with a plain file.
func (w *Writer) writeSpecial(ctx context.Context, path string) error {
	fh, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	_, err = w.WriteTo(&ctxWriter{ctx: ctx, w: fh})
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("gguf: write %s: %w", path, err)
	}
	return nil
}

// ctxWriter fails writes once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// appendMeta encodes the header, the metadata and the tensor infos.
func (w *Writer) appendMeta(b []byte) []byte {
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(w.tensors)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(w.kv)))
	for _, kv := range w.kv {
		b = appendString(b, kv.Key)
		b = binary.LittleEndian.AppendUint32(b, uint32(kv.Value.Type))
		b = appendValue(b, kv.Value)
	}
	for i := range w.tensors {
		t := &w.tensors[i].info
		b = appendString(b, t.Name)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Dims)))
		for _, d := range t.Dims {
			b = binary.LittleEndian.AppendUint64(b, d)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(t.Type))
		b = binary.LittleEndian.AppendUint64(b, t.Offset)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// appendValue encodes v without its type tag.
func appendValue(b []byte, v Value) []byte {
	switch v.Type {
	case TypeString:
		return appendString(b, v.str)
	case TypeArray:
		b = binary.LittleEndian.AppendUint32(b, uint32(v.ElemType))
		b = binary.LittleEndian.AppendUint64(b, uint64(v.n))
		switch v.ElemType {
		case TypeString:
			for _, s := range v.strs {
				b = appendString(b, s)
			}
		case TypeArray:
			for _, e := range v.arr {
				b = appendValue(b, e)
			}
		default:
			b = append(b, v.raw...)
		}
		return b
	}
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], v.bits)
	return append(b, le[:v.Type.size()]...)
}

var zeros [4096]byte

func writeZeros(w io.Writer, n uint64) error {
	for n > 0 {
		k := min(n, uint64(len(zeros)))
		if _, err := w.Write(zeros[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

var errTooMuch = errors.New("write func wrote more than the tensor's size")

// exactWriter passes at most left bytes through and fails beyond, so a buggy
// write func cannot shift every following tensor.
type exactWriter struct {
	w    io.Writer
	left uint64
	over bool
}

func (e *exactWriter) Write(p []byte) (int, error) {
	if uint64(len(p)) > e.left {
		e.over = true
		return 0, fmt.Errorf("%w (%d bytes more)", errTooMuch, uint64(len(p))-e.left)
	}
	n, err := e.w.Write(p)
	e.left -= uint64(n)
	return n, err
}
