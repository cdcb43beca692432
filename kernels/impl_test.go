package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

func sameFunc(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }

// simdSets returns the available non-generic implementations.
func simdSets(t testing.TB) []*kernelSet {
	var out []*kernelSet
	for _, s := range implementations {
		if s != genericSet && s.available {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Logf("no SIMD implementation available (%v compiled in); comparing generic with itself", Implementations())
		out = append(out, genericSet)
	}
	return out
}

// clampQ8 replaces -128 in the int8 quants of Q8_0 blocks by -127: ggml's
// quantizers never produce it and the SIMD sign trick relies on that.
func clampQ8(b []byte) {
	for blk := 0; blk+q8_0Bytes <= len(b); blk += q8_0Bytes {
		for i := blk + 2; i < blk+q8_0Bytes; i++ {
			if b[i] == 0x80 {
				b[i] = 0x81
			}
		}
	}
}

// TestVecDotImplsVsGeneric runs every available implementation against the
// generic one on random data: several block counts, unaligned offsets inside
// larger buffers, large and tiny scales, zero blocks.
func TestVecDotImplsVsGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, s := range simdSets(t) {
		for _, wt := range weightTypes {
			f := s.vecDot[wt]
			at := vecDotType[wt]
			bs := max(blockSize(wt), blockSize(at))
			for i, nb := range []int{1, 2, 3, 7, 16, 64} {
				n := nb * bs
				if bs == 1 { // float rows: SIMD groups of 8 and odd tails
					n = []int{1, 7, 8, 64, 172, 2048}[i]
				}
				for trial := 0; trial < 8; trial++ {
					wscale := []float32{0.05, 1e-4, 300, 0.01}[trial%4]
					xscale := []float32{1, 1e-5, 1e4, 0.3}[trial/2%4]
					w := randomWeights(r, wt, n, wscale, 3)
					if wt == ggml.Q8_0 {
						clampQ8(w)
					}
					x := randFloats(r, n, xscale)
					if trial%3 == 0 && n >= 2*bs {
						clear(x[bs : 2*bs]) // an all-zero activation block
					}
					a := quantizeRow(t, at, x)
					// Unaligned copies inside larger buffers.
					wo, ao := 1+trial%7, 3+trial%5
					wbuf := make([]byte, len(w)+wo+9)
					abuf := make([]byte, len(a)+ao+5)
					copy(wbuf[wo:], w)
					copy(abuf[ao:], a)
					got := f(n, wbuf[wo:wo+len(w)], abuf[ao:ao+len(a)])
					want := twinOf(s).vecDot[wt](n, w, a)
					_, abs := refDot(t, wt, w, at, a, n)
					tol := 2 * dotTolerance(wt, w, a, n, abs)
					if math.Abs(float64(got)-float64(want)) > tol {
						t.Errorf("%s %v n=%d trial %d: got %v, generic %v (±%g)", s.name, wt, n, trial, got, want, tol)
					}
				}
			}
		}
	}
}

// TestVecDotExtremeCodes uses the largest codes: Q8_0 weights and
// activations of ±127 (the sign trick's edge) and saturating K-quant sums.
func TestVecDotExtremeCodes(t *testing.T) {
	for _, s := range simdSets(t) {
		for _, wt := range weightTypes {
			at := vecDotType[wt]
			bs := max(blockSize(wt), blockSize(at))
			n := 4 * bs
			for _, sign := range []float32{1, -1} {
				x := make([]float32, n)
				for i := range x {
					x[i] = sign * 1000 * float32(1-2*(i/3%2)) // ±1000 alternating in runs
				}
				a := quantizeRow(t, at, x)
				w := quantizeRow(t, wt, x)
				got := s.vecDot[wt](n, w, a)
				want := twinOf(s).vecDot[wt](n, w, a)
				_, abs := refDot(t, wt, w, at, a, n)
				if tol := 2 * dotTolerance(wt, w, a, n, abs); math.Abs(float64(got)-float64(want)) > tol {
					t.Errorf("%s %v sign %v: got %v, generic %v (±%g)", s.name, wt, sign, got, want, tol)
				}
			}
		}
	}
}

func BenchmarkVecDot(b *testing.B) {
	r := rand.New(rand.NewPCG(23, 24))
	const n = 4096
	for _, s := range implementations {
		if !s.available {
			continue
		}
		for _, wt := range weightTypes {
			if s != genericSet && sameFunc(s.vecDot[wt], genericSet.vecDot[wt]) {
				continue
			}
			at := vecDotType[wt]
			w := randomWeights(r, wt, n, 0.05, 0)
			a := make([]byte, rowBytes(at, n))
			genericSet.quantize[at](randFloats(r, n, 1), a)
			f := s.vecDot[wt]
			b.Run(fmt.Sprintf("%s/%v", s.name, wt), func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				c0 := processCPU()
				for b.Loop() {
					f(n, w, a)
				}
				reportCPU(b, c0)
			})
		}
	}
}

// TestVecDot4VsVecDot checks every multi-token kernel (four tokens, and
// four rows x two or four tokens where the type has them) against calls
// of the same implementation's single-token kernel (bit for bit), with
// strided, unaligned activation rows and outputs.
func TestVecDot4VsVecDot(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, s := range simdSets(t) {
		for _, wt := range weightTypes {
			f4 := s.vecDot4[wt]
			if f4 == nil {
				continue
			}
			at := vecDotType[wt]
			bs := max(blockSize(wt), blockSize(at))
			for i, nb := range []int{1, 2, 5, 8} {
				n := nb * bs
				if bs == 1 {
					n = []int{8, 64, 172, 2048}[i]
				}
				w := randomWeights(r, wt, n, []float32{0.05, 200}[nb%2], 4)
				if wt == ggml.Q8_0 {
					clampQ8(w)
				}
				arow := rowBytes(at, n)
				stride := arow + 3 + nb // rows not packed, not aligned
				abuf := make([]byte, 1+3*stride+arow)
				for k := 0; k < 4; k++ {
					copy(abuf[1+k*stride:], quantizeRow(t, at, randFloats(r, n, []float32{1, 1e-3, 50, 0}[k])))
				}
				const ostride = 7
				out := make([]float32, 3*ostride+2)
				f4(n, w, abuf[1:], stride, out[1:], ostride)
				for k := 0; k < 4; k++ {
					a := abuf[1+k*stride : 1+k*stride+arow]
					// Same per-token float order as the single kernel
					// (Q4_K: its four-token order), to the bit.
					want := s.tokenDot(wt, k, 4)(n, w, a)
					if got := out[1+k*ostride]; got != want {
						t.Errorf("%s %v nb=%d token %d: x4 %v, single %v", s.name, wt, nb, k, got, want)
					}
				}
				if out[0] != 0 || out[len(out)-1] != 0 {
					t.Errorf("%s %v: x4 kernel wrote outside its outputs", s.name, wt)
				}
				for ntok, f := range map[int]vecDotR4xNFunc{2: s.vecDotR4x2[wt], 4: s.vecDotR4x4[wt]} {
					if f == nil {
						continue
					}
					// Four rows (the same one, wstride 0) x the first ntok
					// tokens.
					const rstride, tstride = 3, 13
					out2 := make([]float32, 2+3*rstride+(ntok-1)*tstride+1)
					f(n, w, 0, abuf[1:], stride, out2[1:], rstride, tstride)
					for k := 0; k < ntok; k++ {
						want := s.tokenDot(wt, k, ntok)(n, w, abuf[1+k*stride:1+k*stride+arow])
						for row := 0; row < 4; row++ {
							if got := out2[1+row*rstride+k*tstride]; got != want {
								t.Errorf("%s %v nb=%d row %d token %d: r4x%d %v, single %v", s.name, wt, nb, row, k, ntok, got, want)
							}
						}
					}
					if out2[0] != 0 || out2[len(out2)-1] != 0 {
						t.Errorf("%s %v: r4x%d kernel wrote outside its outputs", s.name, wt, ntok)
					}
				}
			}
		}
	}
}

// TestVecDotR4VsVecDot checks every four-row kernel against four calls of
// the same implementation's single-row kernel; the float order is the same,
// so the results must be identical.
func TestVecDotR4VsVecDot(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for _, s := range simdSets(t) {
		for _, wt := range weightTypes {
			fr := s.vecDotR4[wt]
			if fr == nil {
				continue
			}
			at := vecDotType[wt]
			bs := max(blockSize(wt), blockSize(at))
			for i, nb := range []int{1, 2, 5, 8} {
				n := nb * bs
				if bs == 1 {
					n = []int{8, 64, 172, 2048}[i]
				}
				wrow := rowBytes(wt, n)
				stride := wrow + 5 + nb
				wbuf := make([]byte, 3+3*stride+wrow)
				for k := 0; k < 4; k++ {
					w := randomWeights(r, wt, n, []float32{0.05, 300, 1e-4, 0}[k], 3)
					if wt == ggml.Q8_0 {
						clampQ8(w)
					}
					copy(wbuf[3+k*stride:], w)
				}
				abuf := make([]byte, rowBytes(at, n)+1)
				a := abuf[1:]
				copy(a, quantizeRow(t, at, randFloats(r, n, 2)))
				for _, ostride := range []int{1, 3} {
					out := make([]float32, 3*ostride+3)
					fr(n, wbuf[3:], stride, a, out[1:], ostride)
					for k := 0; k < 4; k++ {
						want := s.vecDot[wt](n, wbuf[3+k*stride:3+k*stride+wrow], a)
						if got := out[1+k*ostride]; got != want {
							t.Errorf("%s %v nb=%d row %d ostride %d: r4 %v, single %v", s.name, wt, nb, k, ostride, got, want)
						}
					}
					for i, v := range out {
						if (i-1)%ostride != 0 && v != 0 || i == 0 && v != 0 || i == len(out)-1 && v != 0 {
							t.Errorf("%s %v ostride %d: r4 kernel wrote out[%d] outside its outputs", s.name, wt, ostride, i)
						}
					}
				}
			}
		}
	}
}

// BenchmarkVecDotRows compares, per weight row of 4096 elements, the
// single-row kernel with the four-row and the four-token kernels, and
// times decode's four-row kernel (rows4decode).
func BenchmarkVecDotRows(b *testing.B) {
	r := rand.New(rand.NewPCG(29, 30))
	const n = 4096
	s := active
	for _, wt := range weightTypes {
		if s.vecDotR4[wt] == nil && s.vecDot4[wt] == nil && s.vecDot2x4[wt] == nil {
			continue
		}
		at := vecDotType[wt]
		wrow := rowBytes(wt, n)
		w := randomWeights(r, wt, 4*n, 0.05, 0)
		arow := rowBytes(at, n)
		a := make([]byte, 4*arow)
		genericSet.quantize[at](randFloats(r, 4*n, 1), a)
		out := make([]float32, 4)
		b.Run(fmt.Sprintf("%s/%v/single", s.name, wt), func(b *testing.B) {
			b.SetBytes(int64(wrow))
			c0 := processCPU()
			for b.Loop() {
				out[0] = s.vecDot[wt](n, w[:wrow], a[:arow])
			}
			reportCPU(b, c0)
		})
		if f := s.vecDotR4[wt]; f != nil {
			b.Run(fmt.Sprintf("%s/%v/rows4", s.name, wt), func(b *testing.B) {
				b.SetBytes(int64(4 * wrow))
				c0 := processCPU()
				for b.Loop() {
					f(n, w, wrow, a[:arow], out, 1)
				}
				reportCPU(b, c0)
			})
		}
		// decode's four-row kernel in the one-token order: on the token
		// widened to float32 (a.x4[:4n], as MatMul gives it) or as it is.
		if f, f32 := s.vecDot1R4[wt], s.vecDot1R4F32[wt]; f != nil || f32 != nil {
			tok := a[:arow]
			if f32 != nil {
				f, tok = f32, make([]byte, 4*n)
				q := s.actQuad[at]
				qa := make([]byte, n/blockSize(at)*q.blockBytes)
				q.pack(qa, a, arow, 1)
				copy(tok, qa)
			}
			b.Run(fmt.Sprintf("%s/%v/rows4decode", s.name, wt), func(b *testing.B) {
				b.SetBytes(int64(4 * wrow))
				c0 := processCPU()
				for b.Loop() {
					f(n, w, wrow, tok, out, 1)
				}
				reportCPU(b, c0)
			})
		}
		if f := s.vecDot2x4[wt]; f != nil {
			b.Run(fmt.Sprintf("%s/%v/rows2tokens4", s.name, wt), func(b *testing.B) {
				b.SetBytes(int64(2 * wrow))
				out8 := make([]float32, 8)
				var qa []byte // the half-precision tiles read no quad
				if q := s.actQuad[at]; q != nil {
					qa = make([]byte, n/blockSize(at)*q.blockBytes)
					q.pack(qa, a, arow, 4)
				}
				c0 := processCPU()
				for b.Loop() {
					f(n, w, wrow, a, arow, qa, out8, 2)
				}
				reportCPU(b, c0)
			})
		}
		if f := s.vecDot4x4[wt]; f != nil {
			b.Run(fmt.Sprintf("%s/%v/rows4tokens4", s.name, wt), func(b *testing.B) {
				b.SetBytes(int64(4 * wrow))
				out16 := make([]float32, 16)
				var qa []byte
				if q := s.actQuad[at]; q != nil {
					qa = make([]byte, n/blockSize(at)*q.blockBytes)
					q.pack(qa, a, arow, 4)
				}
				c0 := processCPU()
				for b.Loop() {
					f(n, w, wrow, a, arow, qa, out16, 4)
				}
				reportCPU(b, c0)
			})
		}
		if f := s.vecDot4[wt]; f != nil {
			b.Run(fmt.Sprintf("%s/%v/tokens4", s.name, wt), func(b *testing.B) {
				b.SetBytes(int64(wrow))
				c0 := processCPU()
				for b.Loop() {
					f(n, w[:wrow], a, arow, out, 1)
				}
				reportCPU(b, c0)
			})
		}
	}
}

// TestReadStreams checks every implementation's stream reader against the
// generic one (the same wrapping sum) on sizes with and without a partial
// cache line per quarter, and on an unaligned start.
func TestReadStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	buf := make([]byte, 1+4*64*37+100)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	defer SetImpl(active.name)
	for _, s := range implementations {
		if !s.available {
			continue
		}
		if err := SetImpl(s.name); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 255, 256, 4 * 64 * 37, len(buf) - 1} {
			b := buf[1 : 1+n]
			q := n / 4 / 64 * 64
			var want uint64
			for k := 0; k < 4; k++ {
				for i := 0; i < q; i += 8 {
					want += uint64(b[k*q+i]) | uint64(b[k*q+i+1])<<8 | uint64(b[k*q+i+2])<<16 | uint64(b[k*q+i+3])<<24 |
						uint64(b[k*q+i+4])<<32 | uint64(b[k*q+i+5])<<40 | uint64(b[k*q+i+6])<<48 | uint64(b[k*q+i+7])<<56
				}
			}
			if got := ReadStreams(b); got != want {
				t.Errorf("%s: ReadStreams of %d bytes = %#x, want %#x", s.name, n, got, want)
			}
		}
	}
}

// TestSetImplInstallsKSearch checks that switching implementations also
// switches quant's k-quant search kernels: the generic set (--kernels
// generic) must leave quant on its scalar search.
func TestSetImplInstallsKSearch(t *testing.T) {
	defer SetImpl(active.name)
	for _, s := range implementations {
		if !s.available {
			continue
		}
		if err := SetImpl(s.name); err != nil {
			t.Fatal(err)
		}
		got := quant.SetKSearchKernels(quant.KSearchKernels{})
		quant.SetKSearchKernels(got)
		if (got.QKX2 == nil) != (s.kSearch.QKX2 == nil) || (got.Levels == nil) != (s.kSearch.Levels == nil) {
			t.Errorf("%s: quant has search kernels %v, the set %v", s.name, got.QKX2 != nil, s.kSearch.QKX2 != nil)
		}
		if s == genericSet && (got.QKX2 != nil || got.QKX2Pair != nil || got.Q6K != nil || got.Levels != nil) {
			t.Errorf("generic: SIMD k-quant searches still installed")
		}
	}
}
