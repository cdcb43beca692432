package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// wantVecDot is what ggml's CPU type_traits table pairs each type with.
var wantVecDot = map[ggml.Type]ggml.Type{
	ggml.F32: ggml.F32, ggml.F16: ggml.F16, ggml.BF16: ggml.BF16,
	ggml.Q4_0: ggml.Q8_0, ggml.Q5_0: ggml.Q8_0, ggml.Q8_0: ggml.Q8_0,
	ggml.Q4_1: ggml.Q8_1, ggml.Q5_1: ggml.Q8_1, ggml.Q8_1: ggml.Q8_1,
	ggml.Q2_K: ggml.Q8_K, ggml.Q3_K: ggml.Q8_K, ggml.Q4_K: ggml.Q8_K,
	ggml.Q5_K: ggml.Q8_K, ggml.Q6_K: ggml.Q8_K,
}

func TestTableRows(t *testing.T) {
	if len(All()) == 0 {
		t.Fatal("empty table")
	}
	for _, tr := range All() {
		l, ok := ggml.LayoutOf(tr.Type)
		if !ok || l.Name != tr.Name || l.BlockSize != tr.BlockSize || l.BlockBytes != tr.BlockBytes {
			t.Errorf("%v: traits %q %d/%d, ggml layout %+v", tr.Type, tr.Name, tr.BlockSize, tr.BlockBytes, l)
		}
		if tr.Dequantize == nil {
			t.Errorf("%v: no dequantizer", tr.Type)
		}
		if w, ok := wantVecDot[tr.Type]; ok && tr.VecDotType != w {
			t.Errorf("%v: VecDotType %v, want %v", tr.Type, tr.VecDotType, w)
		}
		if !Supported(tr.VecDotType) {
			t.Errorf("%v: VecDotType %v is not in the table", tr.Type, tr.VecDotType)
		}
		if got, err := Lookup(tr.Type); err != nil || got != tr {
			t.Errorf("%v: Lookup = %v, %v", tr.Type, got, err)
		}
	}
}

// blockStats are what the reference quantizers look at in a block.
type blockStats struct {
	amax, min, max float64
	extreme        float64 // the element of largest magnitude, with its sign
}

func statsOf(x []float32) blockStats {
	st := blockStats{min: math.Inf(1), max: math.Inf(-1)}
	for _, v := range x {
		f := float64(v)
		if math.Abs(f) > st.amax {
			st.amax, st.extreme = math.Abs(f), f
		}
		st.min, st.max = math.Min(st.min, f), math.Max(st.max, f)
	}
	return st
}

// roundTripBound is the largest |x - dequantize(quantize(x))| a type may
// produce for element x of a block, derived from how its reference quantizer
// picks the scale: half a step, except where a code is clamped.
func roundTripBound(tr *Traits, st blockStats, x float64) float64 {
	const h = 1.0 / 2048              // relative rounding error of an fp16 scale
	const tinyFP16 = 64.0 / (1 << 24) // subnormal fp16 scales times codes up to 63
	rng := st.max - st.min
	// symmetric is Q4_0/Q5_0: step amax/half, codes -half..half-1 relative to
	// the extreme's sign, so only the opposite extreme (beyond half-0.5 steps)
	// clamps and may be off by a whole step.
	symmetric := func(half float64) float64 {
		step := st.amax / half
		b := step / 2
		if x*st.extreme < 0 && math.Abs(x) > (half-0.5)*step*(1-h) {
			b = step
		}
		return b + st.amax*2*h + tinyFP16
	}
	switch tr.Type {
	case ggml.F32:
		return 0
	case ggml.F16:
		return math.Abs(x)*h + 1.0/(1<<25)
	case ggml.BF16:
		return math.Abs(x) / 256
	case ggml.Q4_0:
		return symmetric(8)
	case ggml.Q5_0:
		return symmetric(16)
	case ggml.Q8_0, ggml.Q8_1:
		return st.amax/254 + st.amax*h + tinyFP16
	case ggml.Q4_1:
		return rng/30 + (rng+math.Abs(st.min))*h + tinyFP16
	case ggml.Q5_1:
		return rng/62 + (rng+math.Abs(st.min))*h + tinyFP16
	}
	// Types tested in detail elsewhere (the K-quants): a loose sanity bound
	// from the bits per weight, to catch garbage, NaNs and sign errors.
	bits := math.Floor(8 * float64(tr.BlockBytes) / float64(tr.BlockSize))
	return 3*st.amax/math.Exp2(bits) + tinyFP16
}

type roundTripCase struct {
	name string
	gen  func(r *rand.Rand, k int) float32
}

var roundTripCases = []roundTripCase{
	{"gauss", func(r *rand.Rand, _ int) float32 { return float32(r.NormFloat64()) }},
	{"uniform", func(r *rand.Rand, _ int) float32 { return float32(2*r.Float64() - 1) }},
	{"positive", func(r *rand.Rand, _ int) float32 { return float32(r.Float64() + 0.5) }},
	{"huge", func(r *rand.Rand, _ int) float32 { return float32(3e4 * r.NormFloat64() / 4) }},
	{"tiny", func(r *rand.Rand, _ int) float32 { return float32(1e-3 * r.NormFloat64()) }},
	{"zero", func(*rand.Rand, int) float32 { return 0 }},
	{"constant", func(*rand.Rand, int) float32 { return -0.75 }},
	{"one hot", func(_ *rand.Rand, k int) float32 {
		if k%37 == 5 {
			return -2
		}
		return 0
	}},
}

func TestTableRoundTrip(t *testing.T) {
	for _, tr := range All() {
		if tr.Quantize == nil {
			continue
		}
		for _, c := range roundTripCases {
			t.Run(fmt.Sprintf("%s/%s", tr.Name, c.name), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(tr.Type), 7))
				n := 4 * 256 // whole blocks for every block size in the table
				x := make([]float32, n)
				for k := range x {
					x[k] = c.gen(r, k)
				}
				q := make([]byte, n/tr.BlockSize*tr.BlockBytes)
				if err := QuantizeRow(tr.Type, x, q); err != nil {
					t.Fatal(err)
				}
				y := make([]float32, n)
				if err := DequantizeRow(tr.Type, q, y); err != nil {
					t.Fatal(err)
				}
				for b := 0; b < n; b += tr.BlockSize {
					xb, yb := x[b:b+tr.BlockSize], y[b:b+tr.BlockSize]
					st := statsOf(xb)
					for k := range xb {
						bound := roundTripBound(tr, st, float64(xb[k]))
						err := math.Abs(float64(yb[k]) - float64(xb[k]))
						if !(err <= bound) { // also catches NaN
							t.Fatalf("elem %d: %v -> %v, error %g > bound %g", b+k, xb[k], yb[k], err, bound)
						}
					}
				}
			})
		}
	}
}

// The legacy and float rows are the oracle the kernels compare against on
// every test run: they must not allocate.
func TestLegacyRowsDoNotAllocate(t *testing.T) {
	x := make([]float32, 256)
	for i := range x {
		x[i] = float32(i%17) - 8.25
	}
	y := make([]float32, len(x))
	for typ := range legacyTypes {
		tr, err := Lookup(typ)
		if err != nil {
			t.Fatal(err)
		}
		q := make([]byte, len(x)/tr.BlockSize*tr.BlockBytes)
		if n := testing.AllocsPerRun(10, func() {
			tr.Quantize(x, q)
			tr.Dequantize(q, y)
		}); n != 0 {
			t.Errorf("%v: %v allocations per row", typ, n)
		}
	}
}

func BenchmarkLegacyRows(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i%97)/48 - 1
	}
	y := make([]float32, len(x))
	for _, typ := range []ggml.Type{ggml.F16, ggml.Q4_0, ggml.Q4_1, ggml.Q5_0, ggml.Q5_1, ggml.Q8_0, ggml.Q8_1} {
		tr, _ := Lookup(typ)
		q := make([]byte, len(x)/tr.BlockSize*tr.BlockBytes)
		tr.Quantize(x, q)
		b.Run("quantize/"+tr.Name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				tr.Quantize(x, q)
			}
		})
		b.Run("dequantize/"+tr.Name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				tr.Dequantize(q, y)
			}
		})
	}
}
