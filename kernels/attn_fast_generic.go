package kernels

import (
	"math"

	"github.com/gollm/gollm/quant"
)

// The generic (oracle) versions of the long-context attention kernels
// (attn_fast.go). SIMD versions must produce the same bits, so each loop
// here spells out the lane structure the vector code has.

func f16RowsToF32Generic(dst []float32, dstStride int, src []uint16, srcStride, rows, n int) {
	for r := 0; r < rows; r++ {
		d, s := dst[r*dstStride:r*dstStride+n], src[r*srcStride:r*srcStride+n]
		for i, h := range s {
			d[i] = quant.FP16ToFP32(h)
		}
	}
}

func attnWidenKGeneric(k []float32, dim, row int, src []uint16, srcStride, rows, n int) {
	attnWidenKFrom(k, dim, row, src, srcStride, rows, 0, n)
}

func attnWidenKHeadsGeneric(k []float32, tileLen, dim, row int, src []uint16, srcStride, headStride, heads, rows, n int) {
	for h := 0; h < heads; h++ {
		attnWidenKFrom(k[h*tileLen:], dim, row, src[h*headStride:], srcStride, rows, 0, n)
	}
}

// attnWidenKFrom widens elements d0..n-1 of each row (SIMD tails).
func attnWidenKFrom(k []float32, dim, row int, src []uint16, srcStride, rows, d0, n int) {
	for i := 0; i < rows; i++ {
		for d := d0; d < n; d++ {
			k[kTileIndex(row+i, d, dim)] = quant.FP16ToFP32(src[i*srcStride+d])
		}
	}
}

// attnPrefetchGeneric: Go has no prefetch instruction.
func attnPrefetchGeneric(src []byte, stride, rows, n int) {}

func attnScoresGeneric(s []float32, sStride int, q, k []float32, heads, rows8, dim int) {
	for g := 0; g < heads; g++ {
		qg := q[g*dim : (g+1)*dim]
		for r0 := 0; r0 < rows8; r0 += 8 {
			var acc [8][8]float32 // [row][lane]
			for d := 0; d < dim; d += 8 {
				for i := range acc {
					kr := k[kTileIndex(r0+i, d, dim):][:8]
					for l := range acc[i] {
						acc[i][l] = fma32(kr[l], qg[d+l], acc[i][l])
					}
				}
			}
			for i := range acc {
				s[g*sStride+r0+i] = transposeSum8(&acc[i])
			}
		}
	}
}

// transposeSum8 is the sum one row's lanes get from the transpose-style
// reduction of eight row accumulators: pairs two apart within each 128-bit
// half, then neighbours, then the two halves.
func transposeSum8(a *[8]float32) float32 {
	return ((a[0] + a[2]) + (a[1] + a[3])) + ((a[4] + a[6]) + (a[5] + a[7]))
}

// maxps is one lane of MAXPS: a if a > b, else b (b when either is NaN).
func maxps(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

// minps is one lane of MINPS: a if a < b, else b.
func minps(a, b float32) float32 {
	if a < b {
		return a
	}
	return b
}

func attnSoftmaxGeneric(s []float32, sStride, heads, rows int, scale float32, m, l, alpha []float32) {
	negInf := float32(math.Inf(-1))
	for g := 0; g < heads; g++ {
		sg := s[g*sStride:]
		// The tile's maximum: lanes over the rows (padding lanes -Inf),
		// then across lanes (max is exact: the order does not matter).
		bm := negInf
		for r := 0; r < rows; r++ {
			bm = maxps(sg[r], bm)
		}
		mNew := maxps(m[g], bm)
		a := expFast((m[g] - mNew) * scale)
		var sum [8]float32
		for r0 := 0; r0 < rows; r0 += 8 {
			for i := 0; i < 8; i++ {
				var p float32
				if r0+i < rows {
					p = expFast((sg[r0+i] - mNew) * scale)
				}
				sg[r0+i] = p
				sum[i] += p
			}
		}
		// hsum8 (vecdot_float.go): ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)).
		m[g], l[g], alpha[g] = mNew, fma32(l[g], a, hsum8(&sum)), a
	}
}

func attnAccumVGeneric(acc, p []float32, pStride int, v []float32, heads, rows, dim int, alpha []float32) {
	for g := 0; g < heads; g++ {
		ag, pg := acc[g*dim:(g+1)*dim], p[g*pStride:]
		for d := range ag {
			x := ag[d] * alpha[g]
			for r := 0; r < rows; r++ {
				x = fma32(pg[r], v[r*dim+d], x)
			}
			ag[d] = x
		}
	}
}

// Constants of expFast: Cephes expf (range reduction by n = round(x/ln2)
// with ln2 split in two, a degree-5 polynomial for e^r - 1 - r).
const (
	expFastLo    = -86.0
	expFastHi    = 88.0
	expFastLog2e = 1.44269504088896341
	expFastC1    = 0.693359375
	expFastC2    = -2.12194440e-4
	expFastP0    = 1.9875691500e-4
	expFastP1    = 1.3981999507e-3
	expFastP2    = 8.3334519073e-3
	expFastP3    = 4.1665795894e-2
	expFastP4    = 1.6666665459e-1
	expFastP5    = 5.0000001201e-1
)

// expFast is e^x in f32, the vector code's operations lane by lane:
// clamp, n = roundeven(x*log2e), r = x - n*C1 - n*C2 (two FMAs), y =
// ((((P0 r + P1) r + P2) r + P3) r + P4) r + P5 (Horner, FMAs), y = y*r² +
// r, y = y + 1, and 2^n added to y's exponent bits. The clamp keeps n in
// [-125, 127], so the result is always a normal float.
func expFast(x float32) float32 {
	x = minps(maxps(x, expFastLo), expFastHi)
	n := float32(math.RoundToEven(float64(x * expFastLog2e)))
	r := fma32(n, -expFastC1, x)
	r = fma32(n, -expFastC2, r)
	y := fma32(expFastP0, r, expFastP1)
	y = fma32(y, r, expFastP2)
	y = fma32(y, r, expFastP3)
	y = fma32(y, r, expFastP4)
	y = fma32(y, r, expFastP5)
	y = fma32(y, r*r, r)
	y += 1
	return math.Float32frombits(math.Float32bits(y) + uint32(int32(n))<<23)
}
