package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestVecDotGenericVsDequant checks every generic vec-dot kernel against the
// float64 dot product of quant's dequantized weight and activation rows, on
// both reference-quantized weights and raw random blocks.
func TestVecDotGenericVsDequant(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, wt := range weightTypes {
		at := vecDotType[wt]
		bs := max(blockSize(wt), blockSize(at))
		for _, nb := range []int{1, 2, 7} {
			n := nb * bs
			if bs == 1 {
				n = []int{1, 31, 172}[nb%3]
			}
			for trial := 0; trial < 6; trial++ {
				name := fmt.Sprintf("%v/n=%d/%d", wt, n, trial)
				var w []byte
				switch trial % 3 {
				case 0: // realistic: reference-quantized random floats
					w = quantizeRow(t, wt, randFloats(r, n, 0.05))
				case 1: // every bit pattern, zero blocks
					w = randomWeights(r, wt, n, 0.02, 3)
				case 2: // large scales
					w = randomWeights(r, wt, n, 100, 0)
				}
				x := randFloats(r, n, []float32{1, 1e-3, 30}[trial%3])
				a := quantizeRow(t, at, x)
				got := genericSet.vecDot[wt](n, w, a)
				want, abs := refDot(t, wt, w, at, a, n)
				if tol := dotTolerance(wt, w, a, n, abs); math.Abs(float64(got)-want) > tol {
					t.Errorf("%s: got %v, want %v (±%g)", name, got, want, tol)
				}
			}
		}
	}
}

// TestVecDotHandBuilt pins the arithmetic with a block whose dot product is
// known in closed form: Q4_0 codes all 9 (value +1*d) against Q8_0 codes all
// 2 gives 32*1*2*dw*da per block.
func TestVecDotHandBuilt(t *testing.T) {
	w := make([]byte, 18)
	putHalf(w, 0.5)
	for i := 2; i < 18; i++ {
		w[i] = 0x99
	}
	a := make([]byte, 34)
	putHalf(a, 0.25)
	for i := 2; i < 34; i++ {
		a[i] = 2
	}
	if got := genericSet.vecDot[ggml.Q4_0](32, w, a); got != 32*2*0.5*0.25 {
		t.Fatalf("Q4_0 x Q8_0 = %v, want %v", got, 32*2*0.5*0.25)
	}
	// Q8_K: d = 2, all codes 3; Q6_K: d = 0.5, scales 1, codes 33 (value 1).
	y := make([]byte, q8_KBytes)
	putF32(y, 2)
	for i := 4; i < 260; i++ {
		y[i] = 3
	}
	for j := 0; j < 16; j++ {
		y[260+2*j] = 48 // bsums: 16 codes of 3
	}
	x := make([]byte, q6_KBytes)
	for i := 0; i < 128; i++ {
		x[i] = 0x11 // low and high nibble 1
	}
	for i := 128; i < 192; i++ {
		x[i] = 0xAA // every 2-bit high pair = 2 -> +32
	}
	for i := 192; i < 208; i++ {
		x[i] = 1
	}
	putHalf(x[208:], 0.5)
	if got := genericSet.vecDot[ggml.Q6_K](256, x, y); got != 256*1*3*2*0.5 {
		t.Fatalf("Q6_K x Q8_K = %v, want %v", got, 256*3*2*0.5)
	}
}
