package quantize

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/gollm/gollm/ggml"
)

// ErrInvalidData is returned for tensor data holding NaN or infinity where
// ggml_validate_row_data would reject it: llama-quantize checks every input
// tensor when loading and every quantized result, and refuses such files.
var ErrInvalidData = errors.New("tensor data is not finite")

// halfFields gives, per block format, the byte offsets of the fp16 scale
// fields in one block: what ggml's validation inspects for that type.
var halfFields = map[ggml.Type][]int{
	ggml.Q4_0: {0},      // d
	ggml.Q4_1: {0, 2},   // d, m
	ggml.Q5_0: {0},      // d
	ggml.Q5_1: {0, 2},   // d, m
	ggml.Q8_0: {0},      // d
	ggml.Q2_K: {80, 82}, // d, dmin after scales[16] and qs[64]
	ggml.Q3_K: {108},    // d after hmask[32], qs[64], scales[12]
	ggml.Q4_K: {0, 2},   // d, dmin
	ggml.Q5_K: {0, 2},   // d, dmin
	ggml.Q6_K: {208},    // d after ql[128], qh[64], scales[16]
	ggml.Q8_K: {},       // f32 d, checked below
}

// validate checks data of type t as ggml_validate_row_data does: every
// value of the float formats, the scale fields of the block formats. It
// returns the index of the first bad element or block, or -1.
func validate(t ggml.Type, data []byte) int {
	switch t {
	case ggml.F32:
		return firstNonFinite(data, 4, 0x7f800000_7f800000)
	case ggml.F16:
		return firstNonFinite(data, 2, 0x7c00_7c00_7c00_7c00)
	case ggml.BF16:
		return firstNonFinite(data, 2, 0x7f80_7f80_7f80_7f80)
	case ggml.Q8_K:
		for b, i := 0, 0; i+292 <= len(data); b, i = b+1, i+292 {
			if f := math.Float32frombits(binary.LittleEndian.Uint32(data[i:])); math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return b
			}
		}
		return -1
	}
	offs, ok := halfFields[t]
	if !ok {
		return -1 // integer and other formats: nothing to check
	}
	l, _ := ggml.LayoutOf(t)
	for b, i := 0, 0; i+l.BlockBytes <= len(data); b, i = b+1, i+l.BlockBytes {
		for _, o := range offs {
			if binary.LittleEndian.Uint16(data[i+o:])&0x7c00 == 0x7c00 {
				return b
			}
		}
	}
	return -1
}

// validateErr wraps a failed validate for tensor name at row row.
func validateErr(name string, t ggml.Type, row int64, what string) error {
	return fmt.Errorf("%w: %s row %d (%s %v)", ErrInvalidData, name, row, what, t)
}

// firstNonFinite returns the index of the first element of size bytes
// (2 or 4) whose exponent bits, given by mask (repeated for each lane of a
// 64-bit word), are all set: an infinity or NaN. Whole words are tested at
// once, since this runs over every input byte; only a word with a hit is
// looked at lane by lane.
func firstNonFinite(data []byte, size int, mask uint64) int {
	i := 0
	// Blocks of 64 bytes are first tested together: each word's exponent
	// fields are masked and bumped by their lowest bit, which carries into
	// the field's top bit exactly when all of them were set (a field never
	// carries out of its lane). Branch-free per word; only a block with a
	// hit is looked at word by word below.
	carry := (mask & -mask) // the lowest exponent bit of the first lane
	if size == 2 {
		carry *= 0x0001_0001_0001_0001
	} else {
		carry *= 0x00000001_00000001
	}
	top := mask + carry // the bit above each lane's exponent field
	for ; i+64 <= len(data); i += 64 {
		b := (*[64]byte)(data[i:])
		var acc uint64
		for k := 0; k < 64; k += 8 {
			acc |= binary.LittleEndian.Uint64(b[k:])&mask + carry
		}
		if acc&top != 0 {
			break
		}
	}
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		if hasFullLane(x&mask, mask, size) {
			break
		}
	}
	for ; i+size <= len(data); i += size {
		var x uint64
		if size == 2 {
			x = uint64(binary.LittleEndian.Uint16(data[i:]))
		} else {
			x = uint64(binary.LittleEndian.Uint32(data[i:]))
		}
		lane := mask & (1<<(8*size) - 1)
		if x&lane == lane {
			return i / size
		}
	}
	return -1
}

// hasFullLane reports whether some lane of m equals the lane of mask, i.e.
// whether m^mask has a zero lane: the classic has-zero-byte test on lanes
// of 16 or 32 bits (its false positives only ever sit above a true zero
// lane, so "some lane is zero" is answered exactly).
func hasFullLane(m, mask uint64, size int) bool {
	t := m ^ mask
	var lo, hi uint64
	if size == 2 {
		lo, hi = 0x0001_0001_0001_0001, 0x8000_8000_8000_8000
	} else {
		lo, hi = 0x00000001_00000001, 0x80000000_80000000
	}
	return (t-lo)&^t&hi != 0
}
