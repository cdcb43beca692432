package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValueType is the type id of a GGUF metadata value.
type ValueType uint32

// The GGUF metadata value types, with their on-disk ids.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var typeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32",
	"float32", "bool", "string", "array", "uint64", "int64", "float64"}

// String returns the GGUF spec name of t ("uint32"), or "ValueType(N)".
func (t ValueType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("ValueType(%d)", uint32(t))
}

// valid reports whether t is one of the 13 defined ids.
func (t ValueType) valid() bool { return t <= TypeFloat64 }

// size returns the encoded size of a fixed-size type, 0 for string and array.
func (t ValueType) size() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

func (t ValueType) isInt() bool {
	switch t {
	case TypeUint8, TypeInt8, TypeUint16, TypeInt16, TypeUint32, TypeInt32, TypeUint64, TypeInt64:
		return true
	}
	return false
}

func (t ValueType) isSigned() bool {
	return t == TypeInt8 || t == TypeInt16 || t == TypeInt32 || t == TypeInt64
}

func (t ValueType) isNumeric() bool { return t.isInt() || t == TypeFloat32 || t == TypeFloat64 }

// Value is one metadata value. Values own their memory (nothing points into
// the file's mapping), so they stay valid after File.Close and can be handed
// to Writer.Set as they are. Values are immutable; the slices the accessors
// return are fresh copies.
type Value struct {
	Type     ValueType
	ElemType ValueType // element type; meaningful only when Type == TypeArray

	bits uint64   // fixed-size scalar: its little-endian bits, zero-extended
	str  string   // TypeString
	n    int      // array length
	raw  []byte   // array of a fixed-size type: the encoded elements
	strs []string // array of strings
	arr  []Value  // array of arrays
}

// signExtend interprets the zero-extended bits of an integer of type t.
func signExtend(t ValueType, bits uint64) int64 {
	switch t {
	case TypeInt8:
		return int64(int8(bits))
	case TypeInt16:
		return int64(int16(bits))
	case TypeInt32:
		return int64(int32(bits))
	}
	return int64(bits)
}

func scalarUint(t ValueType, bits uint64) (uint64, bool) {
	if !t.isInt() {
		return 0, false
	}
	if t.isSigned() {
		i := signExtend(t, bits)
		return uint64(i), i >= 0
	}
	return bits, true
}

func scalarInt(t ValueType, bits uint64) (int64, bool) {
	if !t.isInt() {
		return 0, false
	}
	if t.isSigned() {
		return signExtend(t, bits), true
	}
	return int64(bits), bits <= math.MaxInt64
}

func scalarFloat(t ValueType, bits uint64) (float64, bool) {
	switch {
	case t == TypeFloat32:
		return float64(math.Float32frombits(uint32(bits))), true
	case t == TypeFloat64:
		return math.Float64frombits(bits), true
	case t.isSigned():
		return float64(signExtend(t, bits)), true
	case t.isInt():
		return float64(bits), true
	}
	return 0, false
}

// elemBits returns the zero-extended bits of element i of a fixed-size array.
func (v Value) elemBits(i int) uint64 {
	sz := v.ElemType.size()
	b := v.raw[i*sz : (i+1)*sz]
	switch sz {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// Uint returns an integer value of any width; false for negative values and
// non-integers.
func (v Value) Uint() (uint64, bool) { return scalarUint(v.Type, v.bits) }

// Int returns an integer value of any width; false for a uint64 above
// MaxInt64 and for non-integers.
func (v Value) Int() (int64, bool) { return scalarInt(v.Type, v.bits) }

// Float returns any numeric value (integer or float) as float64.
func (v Value) Float() (float64, bool) { return scalarFloat(v.Type, v.bits) }

// Bool returns a bool value. Any non-zero byte reads as true.
func (v Value) Bool() (bool, bool) { return v.bits != 0, v.Type == TypeBool }

// Str returns a string value.
func (v Value) Str() (string, bool) { return v.str, v.Type == TypeString }

// Len returns the number of elements of an array, 0 for scalars.
func (v Value) Len() int {
	if v.Type != TypeArray {
		return 0
	}
	return v.n
}

// Strings returns a copy of an array of strings.
func (v Value) Strings() ([]string, bool) {
	if v.Type != TypeArray || v.ElemType != TypeString {
		return nil, false
	}
	return slices.Clone(v.strs), true
}

// Float32s converts an array of any numeric type to float32.
func (v Value) Float32s() ([]float32, bool) {
	if v.Type != TypeArray || !v.ElemType.isNumeric() {
		return nil, false
	}
	out := make([]float32, v.n)
	if v.ElemType == TypeFloat32 {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(v.raw[4*i:]))
		}
		return out, true
	}
	for i := range out {
		f, _ := scalarFloat(v.ElemType, v.elemBits(i))
		out[i] = float32(f)
	}
	return out, true
}

// Int32s converts an array of any integer type to int32; false when an
// element does not fit.
func (v Value) Int32s() ([]int32, bool) {
	if v.Type != TypeArray || !v.ElemType.isInt() {
		return nil, false
	}
	out := make([]int32, v.n)
	for i := range out {
		x, ok := scalarInt(v.ElemType, v.elemBits(i))
		if !ok || x < math.MinInt32 || x > math.MaxInt32 {
			return nil, false
		}
		out[i] = int32(x)
	}
	return out, true
}

// Array returns the elements of any array as Values (scalars for arrays of
// scalars, arrays for nested arrays).
func (v Value) Array() ([]Value, bool) {
	if v.Type != TypeArray {
		return nil, false
	}
	switch v.ElemType {
	case TypeArray:
		return slices.Clone(v.arr), true
	case TypeString:
		out := make([]Value, v.n)
		for i, s := range v.strs {
			out[i] = Value{Type: TypeString, str: s}
		}
		return out, true
	}
	out := make([]Value, v.n)
	for i := range out {
		out[i] = Value{Type: v.ElemType, bits: v.elemBits(i)}
	}
	return out, true
}

// Equal reports whether v and o have the same type and content, bit for bit
// (so NaN equals the same NaN, and -0 differs from +0).
func (v Value) Equal(o Value) bool {
	if v.Type != o.Type {
		return false
	}
	switch v.Type {
	case TypeString:
		return v.str == o.str
	case TypeArray:
		if v.ElemType != o.ElemType || v.n != o.n {
			return false
		}
		switch v.ElemType {
		case TypeString:
			return slices.Equal(v.strs, o.strs)
		case TypeArray:
			return slices.EqualFunc(v.arr, o.arr, Value.Equal)
		}
		return string(v.raw) == string(o.raw)
	}
	return v.bits == o.bits
}

// String returns a short human-readable form: numbers and quoted strings,
// long strings cut, arrays as "[512]string{"<unk>", "<s>", "</s>", ...}".
func (v Value) String() string {
	var b strings.Builder
	v.format(&b, shortForm)
	return b.String()
}

// FullString is String without the cuts: every byte of every string (a
// chat template whole) and every element of every array.
func (v Value) FullString() string {
	var b strings.Builder
	v.format(&b, fullForm)
	return b.String()
}

// form limits what format shows; 0 means no limit.
type form struct{ elems, bytes int }

var (
	shortForm = form{elems: 4, bytes: 48} // String's cuts
	fullForm  = form{}
)

func (v Value) format(b *strings.Builder, f form) {
	switch {
	case v.Type == TypeString:
		s := v.str
		cut := f.bytes > 0 && len(s) > f.bytes
		if cut {
			n := f.bytes
			for n > 0 && !utf8.RuneStart(s[n]) {
				n--
			}
			s = s[:n]
		}
		b.WriteString(strconv.Quote(s))
		if cut {
			b.WriteString("...")
		}
	case v.Type == TypeBool:
		b.WriteString(strconv.FormatBool(v.bits != 0))
	case v.Type == TypeFloat32:
		b.WriteString(strconv.FormatFloat(float64(math.Float32frombits(uint32(v.bits))), 'g', -1, 32))
	case v.Type == TypeFloat64:
		b.WriteString(strconv.FormatFloat(math.Float64frombits(v.bits), 'g', -1, 64))
	case v.Type.isSigned():
		b.WriteString(strconv.FormatInt(signExtend(v.Type, v.bits), 10))
	case v.Type.isInt():
		b.WriteString(strconv.FormatUint(v.bits, 10))
	case v.Type == TypeArray:
		fmt.Fprintf(b, "[%d]%s{", v.n, v.ElemType)
		shown := v
		if f.elems > 0 {
			shown = v.head(f.elems)
		}
		elems, _ := shown.Array()
		for i, e := range elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.format(b, f)
		}
		if shown.n < v.n {
			b.WriteString(", ...")
		}
		b.WriteString("}")
	default:
		fmt.Fprintf(b, "<%s>", v.Type)
	}
}

// head returns the array of the first n elements of v (v itself if shorter).
func (v Value) head(n int) Value {
	if v.n <= n {
		return v
	}
	h := v
	h.n = n
	switch v.ElemType {
	case TypeString:
		h.strs = v.strs[:n]
	case TypeArray:
		h.arr = v.arr[:n]
	default:
		h.raw = v.raw[:n*v.ElemType.size()]
	}
	return h
}

// ValueOf converts a Go value to a metadata Value: the sized integer types,
// float32, float64, bool, string, slices of those, a Value (returned as is),
// or a []Value whose elements all have the same type (an array of arrays
// when they are arrays). Plain int and uint are refused: the GGUF type
// matters to readers (llama.cpp checks it), so the caller must choose it.
func ValueOf(x any) (Value, error) {
	switch x := x.(type) {
	case Value:
		return x, nil
	case uint8:
		return Value{Type: TypeUint8, bits: uint64(x)}, nil
	case int8:
		return Value{Type: TypeInt8, bits: uint64(uint8(x))}, nil
	case uint16:
		return Value{Type: TypeUint16, bits: uint64(x)}, nil
	case int16:
		return Value{Type: TypeInt16, bits: uint64(uint16(x))}, nil
	case uint32:
		return Value{Type: TypeUint32, bits: uint64(x)}, nil
	case int32:
		return Value{Type: TypeInt32, bits: uint64(uint32(x))}, nil
	case uint64:
		return Value{Type: TypeUint64, bits: x}, nil
	case int64:
		return Value{Type: TypeInt64, bits: uint64(x)}, nil
	case float32:
		return Value{Type: TypeFloat32, bits: uint64(math.Float32bits(x))}, nil
	case float64:
		return Value{Type: TypeFloat64, bits: math.Float64bits(x)}, nil
	case bool:
		var b uint64
		if x {
			b = 1
		}
		return Value{Type: TypeBool, bits: b}, nil
	case string:
		return Value{Type: TypeString, str: x}, nil
	case []string:
		return Value{Type: TypeArray, ElemType: TypeString, n: len(x), strs: slices.Clone(x)}, nil
	case []uint8:
		return fixedArray(TypeUint8, len(x), x), nil
	case []int8:
		return fixedArray(TypeInt8, len(x), x), nil
	case []uint16:
		return fixedArray(TypeUint16, len(x), x), nil
	case []int16:
		return fixedArray(TypeInt16, len(x), x), nil
	case []uint32:
		return fixedArray(TypeUint32, len(x), x), nil
	case []int32:
		return fixedArray(TypeInt32, len(x), x), nil
	case []uint64:
		return fixedArray(TypeUint64, len(x), x), nil
	case []int64:
		return fixedArray(TypeInt64, len(x), x), nil
	case []float32:
		return fixedArray(TypeFloat32, len(x), x), nil
	case []float64:
		return fixedArray(TypeFloat64, len(x), x), nil
	case []bool:
		return fixedArray(TypeBool, len(x), x), nil
	case []Value:
		return arrayOfValues(x)
	case int, uint:
		return Value{}, fmt.Errorf("gguf: %T has no fixed GGUF type; convert it to a sized integer type", x)
	}
	return Value{}, fmt.Errorf("gguf: cannot store a %T as a metadata value", x)
}

// fixedArray encodes a slice of a fixed-size type little-endian.
func fixedArray(et ValueType, n int, s any) Value {
	raw, err := binary.Append(make([]byte, 0, n*et.size()), binary.LittleEndian, s)
	if err != nil {
		panic("gguf: encoding a fixed-size slice failed: " + err.Error()) // unreachable: s is a slice of a fixed-size type
	}
	return Value{Type: TypeArray, ElemType: et, n: n, raw: raw}
}

// arrayOfValues builds an array from Values of one type.
func arrayOfValues(vs []Value) (Value, error) {
	if len(vs) == 0 {
		return Value{}, fmt.Errorf("gguf: an empty []Value has no element type; use a typed empty slice")
	}
	et := vs[0].Type
	if !et.valid() {
		return Value{}, fmt.Errorf("gguf: array element of unknown type %s", et)
	}
	out := Value{Type: TypeArray, ElemType: et, n: len(vs)}
	for i, e := range vs {
		if e.Type != et {
			return Value{}, fmt.Errorf("gguf: array element %d is a %s, element 0 a %s: GGUF arrays hold one type", i, e.Type, et)
		}
	}
	switch et {
	case TypeString:
		out.strs = make([]string, len(vs))
		for i, e := range vs {
			out.strs[i] = e.str
		}
	case TypeArray:
		out.arr = slices.Clone(vs)
	default:
		sz := et.size()
		out.raw = make([]byte, 0, len(vs)*sz)
		var le [8]byte
		for _, e := range vs {
			binary.LittleEndian.PutUint64(le[:], e.bits) // the low sz bytes are the element
			out.raw = append(out.raw, le[:sz]...)
		}
	}
	return out, nil
}
