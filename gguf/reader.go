package gguf

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/gollm/gollm/ggml"
)

// Layout constants of the format.
const (
	magic            = "GGUF"
	defaultAlignment = 32
	alignmentKey     = "general.alignment"
	maxDims          = 4 // GGML_MAX_DIMS

	// maxArrayDepth bounds the nesting of arrays of arrays, so a hostile
	// file cannot drive the recursion arbitrarily deep. Real files nest at
	// most once.
	maxArrayDepth = 8

	// The fewest bytes one item can occupy in the file. Counts are checked
	// against them before anything is allocated.
	minKVBytes         = 8 + 4 + 1         // key length, value type, a 1-byte value
	minTensorInfoBytes = 8 + 4 + 8 + 4 + 8 // name length, n_dims, one dim, type, offset
	minArrayBytes      = 4 + 8             // element type, length
	minStringBytes     = 8                 // length

	// plausibleBytes separates a corrupt count from a truncated file: a
	// count that needs more than 1 TiB is not from a real file.
	plausibleBytes = 1 << 40
)

// Parse reads a GGUF v2 or v3 file held in data. It validates the whole
// structure (see the package errors) but does not copy tensor data: the
// returned File refers into data, which must not be modified while the File
// is in use. Metadata values are copied out and do not refer into data.
func Parse(data []byte) (*File, error) {
	f, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	return f, nil
}

// parse does the work of Parse; its errors carry context but no "gguf:"
// prefix, which the callers add (with the path when there is one).
func parse(data []byte) (*File, error) {
	d := &decoder{buf: data}
	m, err := d.take(4, "magic")
	if err != nil {
		return nil, err
	}
	if string(m) != magic {
		return nil, fmt.Errorf("%w: file starts with %q", ErrBadMagic, m)
	}
	version, err := d.u32("version")
	if err != nil {
		return nil, err
	}
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	nTensors, err := d.u64("tensor count")
	if err != nil {
		return nil, err
	}
	nKV, err := d.u64("metadata count")
	if err != nil {
		return nil, err
	}

	f := &File{Version: version, Size: uint64(len(data)), data: data}
	if err := f.readKVs(d, nKV); err != nil {
		return nil, err
	}
	if err := f.setAlignment(); err != nil {
		return nil, err
	}
	if err := f.readTensorInfos(d, nTensors); err != nil {
		return nil, err
	}
	// The data section starts at the first aligned offset after the infos.
	// No overflow: d.off <= len(data) < 2^63 and Alignment <= 2^63.
	f.DataOffset = uint64(d.off)
	if r := f.DataOffset % f.Alignment; r != 0 {
		f.DataOffset += f.Alignment - r
	}
	if err := f.checkTensorData(); err != nil {
		return nil, err
	}
	return f, nil
}

func checkVersion(v uint32) error {
	switch {
	case v == 2 || v == 3:
		// v2 and v3 share the layout; v3 only allowed big-endian files.
		return nil
	case v == 1:
		return fmt.Errorf("%w: version 1 (32-bit counts) is not supported; re-convert the model", ErrVersion)
	case bits.ReverseBytes32(v) == 2 || bits.ReverseBytes32(v) == 3:
		return fmt.Errorf("%w: the file is big-endian (version %d byte-swapped); only little-endian files are supported", ErrVersion, bits.ReverseBytes32(v))
	}
	return fmt.Errorf("%w: version %d", ErrVersion, v)
}

func (f *File) readKVs(d *decoder, count uint64) error {
	n, err := d.count(count, minKVBytes, "metadata count")
	if err != nil {
		return err
	}
	f.KV = make([]KV, 0, n)
	f.kvIndex = make(map[string]int, n)
	for i := range n {
		key, err := d.str("key")
		if err != nil {
			return fmt.Errorf("kv %d: %w", i, err)
		}
		if _, dup := f.kvIndex[key]; dup {
			return fmt.Errorf("kv %d: %w: duplicate key %q", i, ErrInvalid, key)
		}
		t, err := d.u32("value type")
		if err != nil {
			return fmt.Errorf("kv %d %q: %w", i, key, err)
		}
		v, err := d.value(ValueType(t), 0)
		if err != nil {
			return fmt.Errorf("kv %d %q: %w", i, key, err)
		}
		f.kvIndex[key] = len(f.KV)
		f.KV = append(f.KV, KV{Key: key, Value: v})
	}
	return nil
}

func (f *File) setAlignment() error {
	f.Alignment = defaultAlignment
	v, ok := f.Get(alignmentKey)
	if !ok {
		return nil
	}
	a, ok := v.Uint()
	if !ok || a == 0 || a&(a-1) != 0 {
		return fmt.Errorf("%w: %s = %s (%s): must be a non-zero power of two", ErrInvalid, alignmentKey, v, v.Type)
	}
	f.Alignment = a
	return nil
}

func (f *File) readTensorInfos(d *decoder, count uint64) error {
	n, err := d.count(count, minTensorInfoBytes, "tensor count")
	if err != nil {
		return err
	}
	f.Tensors = make([]TensorInfo, n)
	f.tensorIndex = make(map[string]int, n)
	dims := make([]uint64, 0, maxDims*n) // one backing array for all shapes
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if t.Name, err = d.str("name"); err != nil {
			return fmt.Errorf("tensor %d: %w", i, err)
		}
		if _, dup := f.tensorIndex[t.Name]; dup {
			return fmt.Errorf("tensor %d: %w: duplicate tensor name %q", i, ErrInvalid, t.Name)
		}
		f.tensorIndex[t.Name] = i
		nd, err := d.u32("dimension count")
		if err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		if nd == 0 || nd > maxDims {
			return fmt.Errorf("tensor %q: %w: %d dimensions, want 1 to %d", t.Name, ErrInvalid, nd, maxDims)
		}
		start := len(dims)
		for range nd {
			x, err := d.u64("dimension")
			if err != nil {
				return fmt.Errorf("tensor %q: %w", t.Name, err)
			}
			dims = append(dims, x)
		}
		t.Dims = dims[start:len(dims):len(dims)]
		typ, err := d.u32("type")
		if err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		t.Type = ggml.Type(typ)
		if t.Offset, err = d.u64("offset"); err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		if err := f.checkInfo(t); err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
	}
	return nil
}

// checkInfo validates one tensor info on its own and sets its Size.
func (f *File) checkInfo(t *TensorInfo) error {
	size, err := tensorSize(t.Type, t.Dims)
	if err != nil {
		return err
	}
	t.Size = size
	if t.Offset%f.Alignment != 0 {
		return fmt.Errorf("%w: offset %d is not a multiple of the alignment %d", ErrInvalid, t.Offset, f.Alignment)
	}
	return nil
}

// tensorSize returns the bytes of a tensor, checking the type id and that
// the shape is one ggml can represent. Shared by the reader and the writer.
func tensorSize(typ ggml.Type, dims []uint64) (uint64, error) {
	if len(dims) == 0 || len(dims) > maxDims {
		return 0, fmt.Errorf("%w: %d dimensions, want 1 to %d", ErrInvalid, len(dims), maxDims)
	}
	if !typ.Known() {
		return 0, fmt.Errorf("%w %d", ggml.ErrUnknownType, uint32(typ))
	}
	// ggml stores dims as int64: the element count must fit too, even when
	// a zero dim makes the tensor empty.
	var elems uint64 = 1
	for _, x := range dims {
		if x == 0 {
			continue
		}
		hi, lo := bits.Mul64(elems, x)
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("%w: %w: shape %v overflows int64", ErrInvalid, ggml.ErrBadShape, dims)
		}
		elems = lo
	}
	size, err := ggml.TensorBytes(typ, dims)
	if err != nil {
		return 0, fmt.Errorf("%w: %s %v: %w", ErrInvalid, typ, dims, err)
	}
	return size, nil
}

// checkTensorData checks that every tensor lies inside the file and that no
// two tensors share bytes.
func (f *File) checkTensorData() error {
	var dataLen uint64 // bytes after DataOffset; files without tensors may end before it
	if f.DataOffset < f.Size {
		dataLen = f.Size - f.DataOffset
	}
	order := make([]int, 0, len(f.Tensors)) // tensors holding bytes
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if t.Offset > dataLen || t.Size > dataLen-t.Offset {
			return fmt.Errorf("tensor %q: %w (%w): its %d bytes at data offset %d end past the end of the file (%d bytes, data section %d bytes)",
				t.Name, ErrTruncated, ErrInvalid, t.Size, t.Offset, f.Size, dataLen)
		}
		if t.Size > 0 {
			order = append(order, i)
		}
	}
	byOffset := func(a, b int) int { return cmp.Compare(f.Tensors[a].Offset, f.Tensors[b].Offset) }
	if !slices.IsSortedFunc(order, byOffset) { // writers emit tensors in offset order
		slices.SortStableFunc(order, byOffset)
	}
	for k := 1; k < len(order); k++ {
		p, q := &f.Tensors[order[k-1]], &f.Tensors[order[k]]
		if p.Offset+p.Size > q.Offset {
			return fmt.Errorf("%w: tensors %q [%d, %d) and %q [%d, %d) overlap", ErrInvalid,
				p.Name, p.Offset, p.Offset+p.Size, q.Name, q.Offset, q.Offset+q.Size)
		}
	}
	return nil
}

// decoder reads little-endian fields from a buffer, checking every length
// against what is left before slicing or allocating.
type decoder struct {
	buf []byte
	off int
}

func (d *decoder) left() int { return len(d.buf) - d.off }

func (d *decoder) take(n int, what string) ([]byte, error) {
	if n > d.left() {
		return nil, fmt.Errorf("%w: %s needs %d bytes at offset %d, %d left", ErrTruncated, what, n, d.off, d.left())
	}
	b := d.buf[d.off : d.off+n : d.off+n]
	d.off += n
	return b, nil
}

func (d *decoder) u32(what string) (uint32, error) {
	b, err := d.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64(what string) (uint64, error) {
	b, err := d.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// countAt converts a count of items of at least unit bytes each, read at
// offset at, to an int, failing when the bytes left cannot hold that many.
// Nothing is allocated before this check, so a hostile count costs nothing.
// The error wraps ErrInvalid when the count implies more than
// plausibleBytes (no real file is that large: the count is corrupt), and
// ErrTruncated otherwise (the file may have been cut short).
func (d *decoder) countAt(n uint64, unit, at int, what string) (int, error) {
	left := uint64(len(d.buf) - at)
	if n <= left/uint64(unit) {
		return int(n), nil
	}
	if n > plausibleBytes/uint64(unit) {
		return 0, fmt.Errorf("%w: %s %d at offset %d is absurd (items of at least %d bytes; %d bytes left)",
			ErrInvalid, what, n, at, unit, left)
	}
	return 0, fmt.Errorf("%w: %s %d at offset %d needs at least %d bytes, %d left", ErrTruncated, what, n, at, n*uint64(unit), left)
}

func (d *decoder) count(n uint64, unit int, what string) (int, error) {
	return d.countAt(n, unit, d.off, what)
}

// str reads a length-prefixed string and copies it out of the buffer.
func (d *decoder) str(what string) (string, error) {
	n, err := d.u64(what + " length")
	if err != nil {
		return "", err
	}
	l, err := d.count(n, 1, what+" length")
	if err != nil {
		return "", err
	}
	b, err := d.take(l, what)
	return string(b), err
}

// value reads a value of type t at array nesting depth.
func (d *decoder) value(t ValueType, depth int) (Value, error) {
	switch {
	case t == TypeString:
		s, err := d.str("string")
		return Value{Type: t, str: s}, err
	case t == TypeArray:
		return d.array(depth)
	case t.size() > 0:
		b, err := d.take(t.size(), t.String()+" value")
		if err != nil {
			return Value{}, err
		}
		var le [8]byte
		copy(le[:], b)
		return Value{Type: t, bits: binary.LittleEndian.Uint64(le[:])}, nil
	}
	return Value{}, fmt.Errorf("%w: unknown value type %d at offset %d", ErrInvalid, uint32(t), d.off-4)
}

func (d *decoder) array(depth int) (Value, error) {
	if depth >= maxArrayDepth {
		return Value{}, fmt.Errorf("%w: arrays nested deeper than %d at offset %d", ErrInvalid, maxArrayDepth, d.off)
	}
	et, err := d.u32("array element type")
	if err != nil {
		return Value{}, err
	}
	n, err := d.u64("array length")
	if err != nil {
		return Value{}, err
	}
	v := Value{Type: TypeArray, ElemType: ValueType(et)}
	switch v.ElemType {
	case TypeString:
		v.strs, err = d.strings(n)
		v.n = len(v.strs)
		return v, err
	case TypeArray:
		if v.n, err = d.count(n, minArrayBytes, "array-of-arrays length"); err != nil {
			return Value{}, err
		}
		v.arr = make([]Value, v.n)
		for i := range v.arr {
			if v.arr[i], err = d.array(depth + 1); err != nil {
				return Value{}, fmt.Errorf("element %d: %w", i, err)
			}
		}
		return v, nil
	}
	sz := v.ElemType.size()
	if sz == 0 {
		return Value{}, fmt.Errorf("%w: array of unknown element type %d at offset %d", ErrInvalid, et, d.off-12)
	}
	if v.n, err = d.count(n, sz, v.ElemType.String()+" array length"); err != nil {
		return Value{}, err
	}
	b, _ := d.take(v.n*sz, "") // fits: count checked it
	v.raw = bytes.Clone(b)
	return v, nil
}

// strings reads n length-prefixed strings. It validates all lengths first,
// then copies the whole run once and slices the strings out of that copy: a
// 150k-token vocabulary costs two allocations, not 150k.
func (d *decoder) strings(count uint64) ([]string, error) {
	n, err := d.count(count, minStringBytes, "string array length")
	if err != nil {
		return nil, err
	}
	start, pos := d.off, d.off
	for i := range n {
		if len(d.buf)-pos < 8 {
			return nil, fmt.Errorf("%w: string %d of %d: length needs 8 bytes at offset %d, %d left", ErrTruncated, i, n, pos, len(d.buf)-pos)
		}
		l, err := d.countAt(binary.LittleEndian.Uint64(d.buf[pos:]), 1, pos+8, "string length")
		if err != nil {
			return nil, fmt.Errorf("string %d of %d: %w", i, n, err)
		}
		pos += 8 + l
	}
	blob := string(d.buf[start:pos])
	out := make([]string, n)
	p := 0
	for i := range out {
		l := int(binary.LittleEndian.Uint64(d.buf[start+p:]))
		out[i] = blob[p+8 : p+8+l]
		p += 8 + l
	}
	d.off = pos
	return out, nil
}
