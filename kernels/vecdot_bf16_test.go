package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestBF16PairsAccuracy checks the VDPBF16PS-order generic kernel against
// the float64 reference, as the generic kernels are checked.
func TestBF16PairsAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, n := range []int{32, 64, 96, 2048, 40} {
		for trial := 0; trial < 4; trial++ {
			w := randomWeights(r, ggml.BF16, n, []float32{0.05, 100, 1e-3, 1}[trial], 0)
			a := quantizeRow(t, ggml.BF16, randFloats(r, n, []float32{1, 1e-3, 30, 1}[trial]))
			got := vecDotBF16PairsGeneric(n, w, a)
			want, abs := refDot(t, ggml.BF16, w, ggml.BF16, a, n)
			if tol := dotTolerance(ggml.BF16, w, a, n, abs); math.Abs(float64(got)-want) > tol {
				t.Errorf("n=%d trial %d: got %v, want %v (±%g)", n, trial, got, want, tol)
			}
		}
	}
}

// TestBF16PairsDenormals runs the sets whose twin is genericBF16Pairs on
// rows with denormal values, denormal products and sums that pass through
// the denormal range: VDPBF16PS treats them as zero, and so must the twin.
func TestBF16PairsDenormals(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	tested := false
	for _, s := range implementations {
		if !s.available || s.twin != genericBF16Pairs {
			continue
		}
		tested = true
		const n = 64
		for trial := 0; trial < 200; trial++ {
			w := make([]byte, 2*n)
			a := make([]byte, 2*n)
			for i := 0; i < n; i++ {
				var wb, ab uint16
				switch r.IntN(4) {
				case 0: // a denormal input
					wb = uint16(r.IntN(0x7f) + 1)
				case 1: // a product far below the smallest normal
					wb = 0x1e00 | uint16(r.IntN(0x80))
				default:
					wb = uint16(math.Float32bits(float32(r.NormFloat64()*1e-19)) >> 16)
				}
				ab = uint16(math.Float32bits(float32(r.NormFloat64()*1e-19)) >> 16)
				if r.IntN(2) == 0 {
					wb |= 0x8000
				}
				w[2*i], w[2*i+1] = byte(wb), byte(wb>>8)
				a[2*i], a[2*i+1] = byte(ab), byte(ab>>8)
			}
			g, v := genericBF16Pairs.vecDot[ggml.BF16](n, w, a), s.vecDot[ggml.BF16](n, w, a)
			if math.Float32bits(g) != math.Float32bits(v) {
				t.Fatalf("%s trial %d: generic %v (%#x), %v (%#x)", s.name, trial, g, math.Float32bits(g), v, math.Float32bits(v))
			}
		}
	}
	if !tested {
		t.Skip("no available set multiplies BF16 in VDPBF16PS order")
	}
}
