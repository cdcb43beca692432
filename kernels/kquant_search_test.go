package kernels

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/quant"
)

// Numerators of the searches' candidates, as quant computes them (see
// quant.KSearchKernels): make_qkx2_quants' rmin + rdelta*is + nmax for
// Q4_K (-1, 0.1, 15, 20 steps) and Q5_K (-0.5, 0.1, 31, 15 steps);
// make_qx_quants' -32, then -(32 + 0.1*is), is = -9..9 without 0.
func qkx2TestNums(nmax int, rmin, rdelta float32, nstep int) []float32 {
	nums := make([]float32, nstep+1)
	for is := range nums {
		nums[is] = rmin + float32(rdelta*float32(is)) + float32(nmax)
	}
	return nums
}

var (
	q4kTestNums = qkx2TestNums(15, -1, 0.1, 20)
	q5kTestNums = qkx2TestNums(31, -0.5, 0.1, 15)
	q6kTestNums = func() []float32 {
		nums := []float32{-32}
		for is := -9; is <= 9; is++ {
			if is != 0 {
				nums = append(nums, -(32 + float32(float32(0.1)*float32(is))))
			}
		}
		return nums
	}()
)

// kSearchBlockKinds are the super-block shapes the search kernels are
// tested on: ordinary weights and the corners of the algorithms (constant
// and zero sub-blocks, all-positive and all-negative data, sub-blocks so
// small that their scale rounds to zero, rounding ties, huge and tiny
// magnitudes, non-finite values).
var kSearchBlockKinds = []string{
	"normal", "uniform", "heavy", "positive", "negative", "zeros",
	"constant", "mixed", "sparse", "ties", "f16", "huge", "tiny", "nonfinite",
}

func kSearchBlock(r *rand.Rand, kind string) *[256]float32 {
	var x [256]float32
	sigma := math.Exp(r.NormFloat64() * 3)
	for i := range x {
		v := r.NormFloat64() * sigma
		switch kind {
		case "uniform":
			v = (r.Float64()*2 - 1) * sigma
		case "heavy":
			v *= math.Exp(r.NormFloat64() * 2)
		case "positive":
			v = math.Abs(v) + sigma*0.01
		case "negative":
			v = -math.Abs(v) - sigma*0.01
		case "zeros":
			v = 0
		case "constant":
			v = float64(int(i/32)-4) * sigma
		case "mixed":
			v *= math.Pow(10, float64(-((i/16)*7)%12))
		case "sparse":
			if r.IntN(8) != 0 {
				v = 0
			}
		case "ties":
			v = float64(r.IntN(33)-16) / 8
		case "f16":
			v = float64(quant.FP16ToFP32(quant.FP32ToFP16(float32(r.NormFloat64() * 0.02))))
		case "huge":
			v *= 1e30
		case "tiny":
			v *= 1e-35
		case "nonfinite":
			switch r.IntN(64) {
			case 0:
				v = math.NaN()
			case 1:
				v = math.Inf(1 - 2*r.IntN(2))
			}
		}
		x[i] = float32(v)
	}
	return &x
}

func TestKSearchGenericRowsMatchScalar(t *testing.T) {
	testKSearchRows(t, quant.KSearchKernels{QKX2: qkx2Block8Generic, QKX2Pair: qkx2Block8x2Generic, Q6K: q6kBlock16Generic, Levels: kLevelsGeneric})
}

// testKSearchRows quantizes rows of every kind to Q4_K, Q5_K and Q6_K with
// the kernels k installed and without any, and requires the same bytes
// (quant's scalar search is checked against ggml's outputs in quant).
func testKSearchRows(t *testing.T, k quant.KSearchKernels) {
	prev := quant.SetKSearchKernels(quant.KSearchKernels{})
	defer quant.SetKSearchKernels(prev)
	r := rand.New(rand.NewPCG(7, 11))
	types := []struct {
		name  string
		bytes int
		q     func([]float32, []byte)
	}{
		{"Q4_K", 144, quant.QuantizeRowQ4_K},
		{"Q5_K", 176, quant.QuantizeRowQ5_K},
		{"Q6_K", 210, quant.QuantizeRowQ6_K},
	}
	const nb = 7 // odd: pair kernels leave the last block to the single one
	for _, kind := range kSearchBlockKinds {
		for rep := 0; rep < 6; rep++ {
			row := make([]float32, 0, 256*nb)
			for b := 0; b < nb; b++ {
				// Mostly this kind, some blocks of others: a row mixes
				// blocks that take the kernel and blocks it declines.
				kb := kind
				if r.IntN(4) == 0 {
					kb = kSearchBlockKinds[r.IntN(len(kSearchBlockKinds))]
				}
				row = append(row, kSearchBlock(r, kb)[:]...)
			}
			for _, ty := range types {
				want := make([]byte, nb*ty.bytes)
				got := make([]byte, nb*ty.bytes)
				quant.SetKSearchKernels(quant.KSearchKernels{})
				ty.q(row, want)
				quant.SetKSearchKernels(k)
				ty.q(row, got)
				if !bytes.Equal(got, want) {
					for b := 0; b < nb; b++ {
						if g, w := got[b*ty.bytes:(b+1)*ty.bytes], want[b*ty.bytes:(b+1)*ty.bytes]; !bytes.Equal(g, w) {
							t.Fatalf("%s %s rep %d block %d differs from the scalar search:\n got %x\nwant %x\nx %v",
								ty.name, kind, rep, b, g, w, row[256*b:256*b+256])
						}
					}
				}
			}
		}
	}
}

// BenchmarkKSearchRows quantizes 64 super-blocks of normal data with the
// installed search kernels (none in purego builds) and with none.
func BenchmarkKSearchRows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x := randFloats(r, 256*64, 0.02)
	for _, ty := range []struct {
		name  string
		bytes int
		q     func([]float32, []byte)
	}{
		{"Q4_K", 144, quant.QuantizeRowQ4_K},
		{"Q5_K", 176, quant.QuantizeRowQ5_K},
		{"Q6_K", 210, quant.QuantizeRowQ6_K},
	} {
		dst := make([]byte, 64*ty.bytes)
		for _, k := range []string{"installed", "scalar"} {
			b.Run(ty.name+"/"+k, func(b *testing.B) {
				if k == "scalar" {
					prev := quant.SetKSearchKernels(quant.KSearchKernels{})
					defer quant.SetKSearchKernels(prev)
				}
				b.SetBytes(int64(4 * len(x)))
				for b.Loop() {
					ty.q(x, dst)
				}
			})
		}
	}
}
