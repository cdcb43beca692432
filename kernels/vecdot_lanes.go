package kernels

import "encoding/binary"

// Quantized dot products in the accumulation order of llama.cpp on AVX2.
//
// The integer part of a quantized dot product is exact whatever the order,
// but llama.cpp does not add it up in one integer: its AVX2 kernels keep
// eight int32 lanes (lane l holds the products of elements 4l..4l+3 of
// every group of 32), convert them to float and accumulate each lane with
// a fused multiply-add by the block scale, then sum the lanes. Matching that
// order makes the generic kernels give llama.cpp's results to the last bit.

// lanes8 returns the eight lane sums of w·a over one block of 32 int8s.
func lanes8(w []int8, a []byte) (l [8]int32) {
	for e := 0; e < 32; e++ {
		l[e>>2] += int32(w[e]) * int32(int8(a[e]))
	}
	return l
}

// fmaLanes adds d*lanes into acc lane by lane.
func fmaLanes(acc *[8]float32, d float32, lanes *[8]int32) {
	for l := range acc {
		acc[l] = fma32(d, float32(lanes[l]), acc[l])
	}
}

// Q8_0 and Q5_0 weights go through llamafile's tinyBLAS (tinyBLAS_Q0_AVX):
// per block, acc += (d_w * d_a) * lanes.

func vecDotQ8_0Q8_0Generic(n int, w, a []byte) float32 {
	var acc [8]float32
	var q [32]int8
	for i := 0; i < n/qk; i++ {
		x := w[i*q8_0Bytes : (i+1)*q8_0Bytes]
		y := a[i*q8_0Bytes : (i+1)*q8_0Bytes]
		for e := range q {
			q[e] = int8(x[2+e])
		}
		lanes := lanes8(q[:], y[2:])
		fmaLanes(&acc, f16at(x, 0)*f16at(y, 0), &lanes)
	}
	return hsum8(&acc)
}

func vecDotQ5_0Q8_0Generic(n int, w, a []byte) float32 {
	var acc [8]float32
	var q [32]int8
	for i := 0; i < n/qk; i++ {
		x := w[i*q5_0Bytes : (i+1)*q5_0Bytes]
		y := a[i*q8_0Bytes : (i+1)*q8_0Bytes]
		unpackQ5(x[2:6], x[6:22], &q, 16)
		lanes := lanes8(q[:], y[2:])
		fmaLanes(&acc, f16at(x, 0)*f16at(y, 0), &lanes)
	}
	return hsum8(&acc)
}

// Q4_1 and Q5_1 use ggml_vec_dot_q4_1_q8_1 / q5_1: acc += lanes * (d_w*d_a)
// per block, and the min terms m_w*s_a summed separately in float32 (fused:
// the compiler contracts summs += m*s).

func vecDotQ4_1Q8_1Generic(n int, w, a []byte) float32 {
	var acc [8]float32
	var q [32]int8
	var summs float32
	for i := 0; i < n/qk; i++ {
		x := w[i*q4_1Bytes : (i+1)*q4_1Bytes]
		y := a[i*q8_1Bytes : (i+1)*q8_1Bytes]
		summs = fma32(f16at(x, 2), f16at(y, 2), summs)
		for j := 0; j < 16; j++ {
			q[j] = int8(x[4+j] & 0x0F)
			q[j+16] = int8(x[4+j] >> 4)
		}
		lanes := lanes8(q[:], y[4:])
		fmaLanes(&acc, f16at(x, 0)*f16at(y, 0), &lanes)
	}
	return hsum8(&acc) + summs
}

func vecDotQ5_1Q8_1Generic(n int, w, a []byte) float32 {
	var acc [8]float32
	var q [32]int8
	var summs float32
	for i := 0; i < n/qk; i++ {
		x := w[i*q5_1Bytes : (i+1)*q5_1Bytes]
		y := a[i*q8_1Bytes : (i+1)*q8_1Bytes]
		summs = fma32(f16at(x, 2), f16at(y, 2), summs)
		unpackQ5(x[4:8], x[8:24], &q, 0)
		lanes := lanes8(q[:], y[4:])
		fmaLanes(&acc, f16at(x, 0)*f16at(y, 0), &lanes)
	}
	return hsum8(&acc) + summs
}

// unpackQ5 decodes the 32 quants of a Q5_0/Q5_1 block minus offset.
func unpackQ5(qhBytes, qs []byte, q *[32]int8, offset int32) {
	qh := binary.LittleEndian.Uint32(qhBytes)
	for j := 0; j < 16; j++ {
		q[j] = int8((int32(qs[j]&0x0F) | int32(qh>>j&1)<<4) - offset)
		q[j+16] = int8((int32(qs[j]>>4) | int32(qh>>(j+16)&1)<<4) - offset)
	}
}

// kLanes is the lane split of a K-quant super-block whose 256 quants are in
// q (element order) with one scale per 16 elements: lane l sums
// scale*q*a over the elements e with e%32 in [4l, 4l+4).
func kLanes(q *[qkK]int8, sc *[16]int32, a []byte) (l [8]int32) {
	for e := 0; e < qkK; e++ {
		l[(e&31)>>2] += sc[e>>4] * int32(q[e]) * int32(int8(a[e]))
	}
	return l
}
