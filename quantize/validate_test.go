package quantize

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestValidateFloats checks the block- and word-at-a-time scans against a
// per-element definition, for every half/bfloat16 value in every lane (of a
// block, of the words after it, of the tail) and for float32 specials.
func TestValidateFloats(t *testing.T) {
	bad16 := map[ggml.Type]func(uint16) bool{
		ggml.F16:  func(h uint16) bool { return h&0x7c00 == 0x7c00 },
		ggml.BF16: func(h uint16) bool { return h&0x7f80 == 0x7f80 },
	}
	const n16 = 32 + 11 // a 64-byte block, 2 words, 3 tail elements
	buf := make([]byte, 2*n16)
	for typ, bad := range bad16 {
		for pos := 0; pos < n16; pos++ {
			for v := 0; v < 1<<16; v++ {
				clear(buf)
				binary.LittleEndian.PutUint16(buf[2*pos:], uint16(v))
				want := -1
				if bad(uint16(v)) {
					want = pos
				}
				if got := validate(typ, buf); got != want {
					t.Fatalf("%v: value %#04x at %d: validate = %d, want %d", typ, v, pos, got, want)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	specials := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, -0.0, 1e-45}
	const n32 = 16 + 5 // a 64-byte block, 2 words, 1 tail element
	f32 := make([]byte, 4*n32)
	for pos := 0; pos < n32; pos++ {
		for _, sp := range specials {
			for k := range n32 {
				binary.LittleEndian.PutUint32(f32[4*k:], math.Float32bits(float32(r.NormFloat64())))
			}
			binary.LittleEndian.PutUint32(f32[4*pos:], math.Float32bits(sp))
			want := -1
			if math.IsInf(float64(sp), 0) || math.IsNaN(float64(sp)) {
				want = pos
			}
			if got := validate(ggml.F32, f32); got != want {
				t.Errorf("F32 %v at %d: validate = %d, want %d", sp, pos, got, want)
			}
		}
	}
	// Block formats: only the fp16 scale fields count.
	q := make([]byte, 3*210) // three Q6_K blocks
	q[5] = 0xff              // quants may hold anything
	if got := validate(ggml.Q6_K, q); got != -1 {
		t.Errorf("Q6_K with finite scales: %d", got)
	}
	binary.LittleEndian.PutUint16(q[2*210+208:], 0x7c00) // d of block 2 = +Inf
	if got := validate(ggml.Q6_K, q); got != 2 {
		t.Errorf("Q6_K with an infinite d in block 2: %d", got)
	}
}
