package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

// quantInputs returns activation rows that exercise the quantizers: normal
// values at several scales, all-zero blocks, exact .5 ties after scaling
// (amax 127 makes the multiplier 1), huge and tiny magnitudes. Blocks whose
// amax is so small that 127/amax overflows (below ~4e-37) are left out: ggml
// turns them into garbage codes too, and activations never get there.
func quantInputs(r *rand.Rand, n int) [][]float32 {
	var rows [][]float32
	for _, scale := range []float32{1, 1e-6, 1e6, 1e-30} {
		rows = append(rows, randFloats(r, n, scale))
	}
	z := randFloats(r, n, 1)
	clear(z[:min(n, 256)])
	rows = append(rows, z)
	ties := make([]float32, n)
	for i := range ties {
		ties[i] = float32(r.IntN(254)-127) + 0.5
		if i%32 == 0 {
			ties[i] = 127
		}
	}
	rows = append(rows, ties)
	// Two elements of equal largest magnitude and opposite signs per 256:
	// Q8_K must take the first one's sign.
	pm := randFloats(r, n, 0.1)
	for b := 0; b+256 <= n; b += 256 {
		i, j := b+r.IntN(128), b+128+r.IntN(128)
		s := float32(1 - 2*r.IntN(2))
		pm[i], pm[j] = 3*s, -3*s
	}
	rows = append(rows, pm)
	return rows
}

// TestQuantizeImplsVsGeneric checks that every implementation's activation
// quantizers produce the generic bytes exactly.
func TestQuantizeImplsVsGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, s := range simdSets(t) {
		for _, at := range []ggml.Type{ggml.Q8_0, ggml.Q8_1, ggml.Q8_K, ggml.F16, ggml.BF16} {
			bs := blockSize(at)
			for _, nb := range []int{1, 3, 8} {
				n := nb * max(bs, 32)
				for i, x := range quantInputs(r, n) {
					want := make([]byte, rowBytes(at, n))
					genericSet.quantize[at](x, want)
					got := make([]byte, len(want)+3)
					s.quantize[at](x[:n], got[1:1+len(want)])
					if !bytes.Equal(got[1:1+len(want)], want) {
						t.Errorf("%s %v nb=%d input %d: bytes differ from generic", s.name, at, nb, i)
					}
					if got[0] != 0 || got[len(got)-1] != 0 {
						t.Errorf("%s %v: wrote outside its block", s.name, at)
					}
				}
			}
		}
	}
}

func BenchmarkQuantize(b *testing.B) {
	r := rand.New(rand.NewPCG(33, 34))
	const n = 4096
	x := randFloats(r, n, 1)
	for _, s := range implementations {
		if !s.available {
			continue
		}
		for _, at := range []ggml.Type{ggml.Q8_0, ggml.Q8_1, ggml.Q8_K, ggml.F16} {
			if s != genericSet && sameFunc(s.quantize[at], genericSet.quantize[at]) {
				continue
			}
			y := make([]byte, rowBytes(at, n))
			f := s.quantize[at]
			b.Run(fmt.Sprintf("%s/%v", s.name, at), func(b *testing.B) {
				b.SetBytes(4 * n)
				c0 := processCPU()
				for b.Loop() {
					f(x, y)
				}
				reportCPU(b, c0)
			})
		}
	}
}

// TestQuantizeBF16Bits runs every set's BF16 activation quantizer on
// random bit patterns (NaNs, infinities, denormals included), exact
// rounding ties and a tail, against quant.FP32ToBF16.
func TestQuantizeBF16Bits(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	x := make([]float32, 4099)
	for i := range x {
		x[i] = math.Float32frombits(r.Uint32())
	}
	for i, u := range []uint32{0x3f808000, 0x3f818000, 0xbf808000, 0xbf818000, 0x7f7fffff, 0xff7fffff,
		0x7f800000, 0xff800000, 0x7f800001, 0x7fc00001, 0xffc12345, 0x7fff8000, 0x00008000, 0x80018000} {
		for l := 0; l < 8; l++ { // in every lane of an 8-value group
			x[64*i+9*l] = math.Float32frombits(u)
		}
	}
	want := make([]byte, 2*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint16(want[2*i:], quant.FP32ToBF16(v))
	}
	for _, s := range implementations {
		if !s.available {
			continue
		}
		got := make([]byte, len(want))
		s.quantize[ggml.BF16](x, got)
		for i := range x {
			if g, w := binary.LittleEndian.Uint16(got[2*i:]), binary.LittleEndian.Uint16(want[2*i:]); g != w {
				t.Fatalf("%s: %#08x -> %#04x, want %#04x", s.name, math.Float32bits(x[i]), g, w)
			}
		}
	}
}
