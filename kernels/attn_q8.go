package kernels

import "github.com/gollm/gollm/quant"

// The one-row attention helpers of a q8_0 KV cache (llama.cpp's VKQ32
// path: scores as Q8_0 dot products, each value row dequantized to f32
// and added with its weight), and the split decode's dequantizers. The
// value step read each row through quant.DequantizeRowQ8_0 and a scalar
// Axpy (60% of a q8_0 cache's prompt time at depth); AxpyQ8_0Rows does
// both in one pass with the same roundings, over a run of rows.

// VecDotQ8_0Rows sets out[r] = VecDot(ggml.Q8_0, n, k[r*stride:], q) for
// every r < len(out), with the same bits: the scores of a q8_0 cache's
// rows (one KV head's slice of each, stride bytes apart) against a query
// quantized to Q8_0, in one call (one VecDot call per row cost as much as
// its arithmetic). n is a multiple of 32.
func VecDotQ8_0Rows(out []float32, n int, k []byte, stride int, q []byte) {
	if n%32 != 0 {
		panic("kernels: VecDotQ8_0Rows needs a multiple of 32 values")
	}
	if len(out) == 0 {
		return
	}
	if n == 0 {
		clear(out)
		return
	}
	nb := n / 32
	_ = k[(len(out)-1)*stride+nb*34-1]
	_ = q[nb*34-1]
	active.vecDotQ8_0Rows(out, nb, k, stride, q)
}

// AxpyQ8_0Rows runs, for each row r < len(vs) in order, Scale(y, ms[r])
// where ms[r] != 1 and then y[i] += vs[r] * x[i] for the values x of the
// Q8_0 row v[r*stride:] (dequantized as quant.DequantizeRowQ8_0 does, then
// Axpy's roundings), with the bits of those steps row by row: the value
// step of a q8_0 cache's rows (one KV head's slice of each, stride bytes
// apart) and the online softmax's rescales between them, in one call.
// len(y) is a multiple of 32; ms holds len(vs) factors.
func AxpyQ8_0Rows(y []float32, v []byte, stride int, ms, vs []float32) {
	if len(y)%32 != 0 {
		panic("kernels: AxpyQ8_0Rows needs a multiple of 32 values")
	}
	if len(vs) == 0 || len(y) == 0 {
		for r := range vs {
			if ms[r] != 1 {
				Scale(y, ms[r])
			}
		}
		return
	}
	_ = ms[len(vs)-1]
	_ = v[(len(vs)-1)*stride+len(y)/32*34-1]
	active.axpyQ8_0Rows(y, v, stride, ms, vs)
}

// VecDotQ8_0Rows2 is VecDotQ8_0Rows for two queries of one KV head (q1
// into out1, q2 into out2, len(out1) rows), each row's quants read once
// for both; the same bits as two VecDotQ8_0Rows calls.
func VecDotQ8_0Rows2(out1, out2 []float32, n int, k []byte, stride int, q1, q2 []byte) {
	if n%32 != 0 || len(out2) < len(out1) {
		panic("kernels: VecDotQ8_0Rows2 needs a multiple of 32 values and outputs for every row")
	}
	if len(out1) == 0 {
		return
	}
	if n == 0 {
		clear(out1)
		clear(out2[:len(out1)])
		return
	}
	nb := n / 32
	_ = k[(len(out1)-1)*stride+nb*34-1]
	_, _ = q1[nb*34-1], q2[nb*34-1]
	active.vecDotQ8_0Rows2(out1, out2[:len(out1)], nb, k, stride, q1, q2)
}

// AxpyQ8_0Rows2 is AxpyQ8_0Rows for two heads of one KV head (y1 with
// ms1 and vs1, y2 with ms2 and vs2, len(vs1) rows, len(y2) == len(y1)),
// each value row dequantized once for both; the same bits as two
// AxpyQ8_0Rows calls.
func AxpyQ8_0Rows2(y1, y2 []float32, v []byte, stride int, ms1, vs1, ms2, vs2 []float32) {
	rows := len(vs1)
	if len(y1)%32 != 0 || len(y2) != len(y1) || len(ms1) < rows || len(ms2) < rows || len(vs2) < rows {
		panic("kernels: AxpyQ8_0Rows2 needs two equal multiples of 32 values and factors for every row")
	}
	if rows == 0 || len(y1) == 0 {
		AxpyQ8_0Rows(y1, v, stride, ms1[:rows], vs1)
		AxpyQ8_0Rows(y2, v, stride, ms2[:rows], vs2[:rows])
		return
	}
	_ = v[(rows-1)*stride+len(y1)/32*34-1]
	active.axpyQ8_0Rows2(y1, y2, v, stride, ms1[:rows], vs1, ms2[:rows], vs2[:rows])
}

// DequantizeQ8_0Heads writes heads KV heads' values of rows cached Q8_0
// rows: head h's n values of row i, src[i*srcStride+h*headStride:] (n/32
// blocks), go to dst[h*tileLen+i*dstStride:][:n], with
// quant.DequantizeRowQ8_0's bits. n is a multiple of 32. Each cached row
// is read once, from its first head's slice to its last (in address
// order, as AttnWidenKHeads reads an f16 cache), in one call: per row and
// head, two calls of a one-row dequantizer cost about as much as the
// dequantizing (a q8_0 cache's split decode).
func DequantizeQ8_0Heads(dst []float32, tileLen, dstStride int, src []byte, srcStride, headStride, heads, rows, n int) {
	if n%32 != 0 {
		panic("kernels: DequantizeQ8_0Heads needs a multiple of 32 values")
	}
	if rows <= 0 || n <= 0 || heads <= 0 {
		return
	}
	_ = dst[(heads-1)*tileLen+(rows-1)*dstStride+n-1]
	_ = src[(rows-1)*srcStride+(heads-1)*headStride+n/32*34-1]
	active.dequantQ8_0Rows(dst, tileLen, 0, 0, dstStride, src, srcStride, headStride, heads, rows, n/32)
}

// AttnDequantKHeadsQ8_0 is DequantizeQ8_0Heads into K tiles of row length
// dim (AttnPutKRow's layout, whose 8-value runs of a row lie 16 floats
// apart): head h's n values of cached row i go to row row+i of the tile
// k[h*tileLen:] (tileLen >= AttnKTileLen(row+rows, dim)); n is a multiple
// of 32 and at most dim.
func AttnDequantKHeadsQ8_0(k []float32, tileLen, dim, row int, src []byte, srcStride, headStride, heads, rows, n int) {
	if n%32 != 0 || n > dim || dim%8 != 0 || row < 0 || tileLen < AttnKTileLen(row+rows, dim) {
		panic("kernels: AttnDequantKHeadsQ8_0 needs n%32 == 0, n <= dim, dim%8 == 0, row >= 0 and tiles of the rows")
	}
	if rows <= 0 || n <= 0 || heads <= 0 {
		return
	}
	_ = k[(heads-1)*tileLen+AttnKTileLen(row+rows, dim)-1]
	_ = src[(rows-1)*srcStride+(heads-1)*headStride+n/32*34-1]
	active.dequantQ8_0Rows(k, tileLen, dim, row, 0, src, srcStride, headStride, heads, rows, n/32)
}

// axpyQ8_0Generic sets y[i] += a * x[i] for the values x of the Q8_0 row
// src (x = d*q as quant.DequantizeRowQ8_0 computes it, then a*x rounded,
// then the sum rounded: dequantizing and Axpy's bits): one row of
// AxpyQ8_0Rows.
func axpyQ8_0Generic(y []float32, a float32, src []byte) {
	var x [32]float32
	for b := 0; b < len(y)/32; b++ {
		quant.DequantizeRowQ8_0(src[b*34:(b+1)*34], x[:])
		for j, v := range x {
			y[b*32+j] += float32(a * v) // the conversion keeps a*v rounded (no fused add)
		}
	}
}

// vecDotQ8_0RowsLanes is VecDotQ8_0Rows's loop over the lane-order Q8_0
// kernel, the generic set's.
func vecDotQ8_0RowsLanes(out []float32, nb int, k []byte, stride int, q []byte) {
	for r := range out {
		out[r] = vecDotQ8_0Q8_0Generic(32*nb, k[r*stride:r*stride+nb*34], q)
	}
}

func axpyQ8_0RowsGeneric(y []float32, v []byte, stride int, ms, vs []float32) {
	for r, a := range vs {
		if ms[r] != 1 {
			Scale(y, ms[r])
		}
		axpyQ8_0Generic(y, a, v[r*stride:])
	}
}

// vecDotQ8_0Rows2Twice and axpyQ8_0Rows2Twice are the two-head kernels
// of the generic set: the one-head kernels twice.
func vecDotQ8_0Rows2Twice(out1, out2 []float32, nb int, k []byte, stride int, q1, q2 []byte) {
	vecDotQ8_0RowsLanes(out1, nb, k, stride, q1)
	vecDotQ8_0RowsLanes(out2, nb, k, stride, q2)
}

func axpyQ8_0Rows2Twice(y1, y2 []float32, v []byte, stride int, ms1, vs1, ms2, vs2 []float32) {
	axpyQ8_0RowsGeneric(y1, v, stride, ms1, vs1)
	axpyQ8_0RowsGeneric(y2, v, stride, ms2, vs2)
}

// dequantQ8_0RowsGeneric is the loop of DequantizeQ8_0Heads (kDim 0) and
// AttnDequantKHeadsQ8_0 (kDim the tiles' row length): blocks blocks per
// head and row.
func dequantQ8_0RowsGeneric(dst []float32, tileLen, kDim, row, dstStride int, src []byte, srcStride, headStride, heads, rows, blocks int) {
	var x [32]float32
	run := 8 // floats from one run of 8 values to the next
	if kDim > 0 {
		run = 16
	}
	for i := 0; i < rows; i++ {
		base := i * dstStride
		if kDim > 0 {
			base = kTileIndex(row+i, 0, kDim)
		}
		for h := 0; h < heads; h++ {
			s, d := src[i*srcStride+h*headStride:], dst[h*tileLen+base:]
			for b := 0; b < blocks; b++ {
				quant.DequantizeRowQ8_0(s[b*34:(b+1)*34], x[:])
				for c := range 4 {
					copy(d[(4*b+c)*run:][:8], x[8*c:8*c+8])
				}
			}
		}
	}
}
