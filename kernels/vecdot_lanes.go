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

// Q6_K and Q3_K follow ggml_vec_dot_q6_K_q8_K / q3_K on AVX2: per
// super-block, d = d_a * d_w and acc += d * kLanes.

func vecDotQ6_KQ8_KGeneric(n int, w, a []byte) float32 {
	var acc [8]float32
	var q [qkK]int8
	var sc [16]int32
	for i := 0; i < n/qkK; i++ {
		x := w[i*q6_KBytes : (i+1)*q6_KBytes]
		y := a[i*q8_KBytes : (i+1)*q8_KBytes]
		// Per half of 128 elements: ql 64 bytes, qh 32 bytes. Element
		// 32t+l takes a nibble of ql (low for t=0,1; high for t=2,3; byte
		// l for t even, l+32 for t odd) and bits 2t..2t+1 of qh[l]. The
		// quants stay unsigned (0..63): ggml applies the -32 offset once per
		// block through the activation block sums, lane l taking sub-blocks
		// 2l and 2l+1.
		for h := 0; h < 2; h++ {
			ql := x[64*h : 64*h+64]
			qh := x[128+32*h : 128+32*h+32]
			e := q[128*h:]
			for l := 0; l < 32; l++ {
				e[l] = int8(ql[l]&0x0F | (qh[l]>>0&3)<<4)
				e[l+32] = int8(ql[l+32]&0x0F | (qh[l]>>2&3)<<4)
				e[l+64] = int8(ql[l]>>4 | (qh[l]>>4&3)<<4)
				e[l+96] = int8(ql[l+32]>>4 | (qh[l]>>6&3)<<4)
			}
		}
		for j := range sc {
			sc[j] = int32(int8(x[192+j]))
		}
		lanes := kLanes(&q, &sc, y[4:])
		for l := range lanes {
			lanes[l] -= 32 * (sc[2*l]*q8KBsum(y, 2*l) + sc[2*l+1]*q8KBsum(y, 2*l+1))
		}
		fmaLanes(&acc, f32at(y, 0)*f16at(x, 208), &lanes)
	}
	return hsum8(&acc)
}

func vecDotQ3_KQ8_KGeneric(n int, w, a []byte) float32 {
	var acc [8]float32
	var q [qkK]int8
	var sc8 [16]int8
	var sc [16]int32
	for i := 0; i < n/qkK; i++ {
		x := w[i*q3_KBytes : (i+1)*q3_KBytes]
		y := a[i*q8_KBytes : (i+1)*q8_KBytes]
		hm := x[0:32]
		qs := x[32:96]
		// Element e = 128c + 32s + l: low bits 2s..2s+1 of qs[32c+l]; minus
		// 4 unless bit 4c+s of hmask[l] is set.
		for c := 0; c < 2; c++ {
			for s := 0; s < 4; s++ {
				bit := byte(1) << (4*c + s)
				for l := 0; l < 32; l++ {
					v := int8(qs[32*c+l] >> (2 * s) & 3)
					if hm[l]&bit == 0 {
						v -= 4
					}
					q[128*c+32*s+l] = v
				}
			}
		}
		unpackQ3KScales(x[96:108], &sc8)
		for j := range sc {
			sc[j] = int32(sc8[j]) - 32
		}
		lanes := kLanes(&q, &sc, y[4:])
		fmaLanes(&acc, f32at(y, 0)*f16at(x, 108), &lanes)
	}
	return hsum8(&acc)
}

// Q2_K follows ggml_vec_dot_q2_K_q8_K on AVX2: per super-block the min
// terms go into the same eight lanes first (lane l: m(2l)*bsums[2l] +
// m(2l+1)*bsums[2l+1], fused with -d_a*dmin_w), then the scaled quants
// (kLanes, fused with d_a*d_w); one horizontal sum at the end.

func vecDotQ2_KQ8_KGeneric(n int, w, a []byte) float32 {
	var acc [8]float32
	var q [qkK]int8
	var sc [16]int32
	for i := 0; i < n/qkK; i++ {
		x := w[i*q2_KBytes : (i+1)*q2_KBytes]
		y := a[i*q8_KBytes : (i+1)*q8_KBytes]
		scb := x[0:16]
		qs := x[16:80]
		// Element e = 128c + 32s + l is bits 2s..2s+1 of qs[32c+l].
		for c := 0; c < 2; c++ {
			for s := 0; s < 4; s++ {
				for l := 0; l < 32; l++ {
					q[128*c+32*s+l] = int8(qs[32*c+l] >> (2 * s) & 3)
				}
			}
		}
		var mins [8]int32
		for l := range mins {
			mins[l] = int32(scb[2*l]>>4)*q8KBsum(y, 2*l) + int32(scb[2*l+1]>>4)*q8KBsum(y, 2*l+1)
		}
		for j := range sc {
			sc[j] = int32(scb[j] & 0x0F)
		}
		yd := f32at(y, 0)
		fmaLanes(&acc, -yd*f16at(x, 82), &mins)
		lanes := kLanes(&q, &sc, y[4:])
		fmaLanes(&acc, yd*f16at(x, 80), &lanes)
	}
	return hsum8(&acc)
}

// unpackQ5K decodes the 256 quants (0..31) of a Q5_K block: sub-block 2k
// is the low nibbles of qs[32k..32k+31] plus bit 2k of qh as bit 4, 2k+1
// the high nibbles plus bit 2k+1.
func unpackQ5K(x []byte, q *[qkK]int8) {
	qh := x[16:48]
	qs := x[48:176]
	for k := 0; k < 4; k++ {
		for l := 0; l < 32; l++ {
			b := qs[32*k+l]
			q[64*k+l] = int8(b&0x0F | (qh[l]>>(2*k)&1)<<4)
			q[64*k+32+l] = int8(b>>4 | (qh[l]>>(2*k+1)&1)<<4)
		}
	}
}

// k4Lanes is the lane split of a Q4_K/Q5_K super-block (quants in q, one
// 6-bit scale per 32 elements from the packed scale bytes sc): lane l sums
// scale*q*a over the elements e with e%32 in [4l, 4l+4). mins returns the
// eight 6-bit mins.
func k4Lanes(q *[qkK]int8, sc []byte, a []byte) (l [8]int32, mins [8]int32) {
	for j := 0; j < 8; j++ {
		d, m := scaleMinK4(j, sc)
		mins[j] = int32(m)
		for e := 32 * j; e < 32*j+32; e++ {
			l[(e&31)>>2] += int32(d) * int32(q[e]) * int32(int8(a[e]))
		}
	}
	return l, mins
}

// Q5_K follows ggml_vec_dot_q5_K_q8_K on AVX2 (llama.cpp does not repack
// Q5_K on x86): acc += (d_a*d_w) * k4Lanes per super-block, and the min
// terms summed as one exact integer per block into a float scalar, summs =
// fma(-d_a*dmin_w, float(Σ m(j)*P(j)), summs) (C's `summs += dmin * x`,
// contracted by the compiler); result hsum8(acc) + summs.

func vecDotQ5_KQ8_KGeneric(n int, w, a []byte) float32 {
	var acc [8]float32
	var summs float32
	var q [qkK]int8
	for i := 0; i < n/qkK; i++ {
		x := w[i*q5_KBytes : (i+1)*q5_KBytes]
		y := a[i*q8_KBytes : (i+1)*q8_KBytes]
		unpackQ5K(x, &q)
		lanes, mins := k4Lanes(&q, x[4:16], y[4:])
		var summ int32
		for j, m := range mins {
			summ += m * (q8KBsum(y, 2*j) + q8KBsum(y, 2*j+1))
		}
		yd := f32at(y, 0)
		summs = fma32(-yd*f16at(x, 2), float32(summ), summs)
		fmaLanes(&acc, yd*f16at(x, 0), &lanes)
	}
	return hsum8(&acc) + summs
}
