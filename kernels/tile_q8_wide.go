package kernels

import (
	"encoding/binary"
	"math"
)

// Q8_0 rows widened to int16 once per row unit, for the AVX2 2 x 4 Q8_0
// prefill tile on Intel CPUs and AMD Zen4 (tileRewrite; widenQ8RowsFirst).
//
// The set's own Q8_0 tile (tile_amd64.s) keeps tinyBLAS's lane order, lane
// l of a block the sum of the products of bytes 4l..4l+3, which on AVX2
// costs a sign step, VPMADDUBSW and VPMADDWD per pair and block before the
// conversion and the multiply-add: five operations on an Intel core's
// ports 0 and 1. With both sides widened to int16, split into their even
// and their odd bytes, two VPMADDWD give the even and the odd halves of
// every lane and one VPADDD (which may take port 5) their sum: the same
// integers, four operations on ports 0 and 1. Tokens are widened once per
// batch (their quad layout, q8_0QuadWide), rows once per row unit. (Q5_0
// rows decoded and widened into the same tile ran TinyLlama pp512 within
// noise of the packed Q5_0 kernels, 54.8 against 52.1 tok/s: not kept.)

// wideQ8Bytes is a widened Q8_0 block's int16 values: the 16 even bytes,
// then the 16 odd ones.
const wideQ8Bytes = 64

// widenQ8Block writes the 32 int8 quants q as int16 at d: element k of
// the first half is q[2k], of the second q[2k+1].
func widenQ8Block(d, q []byte) {
	_ = q[31]
	_ = d[wideQ8Bytes-1]
	for k := 0; k < 16; k++ {
		binary.LittleEndian.PutUint16(d[2*k:], uint16(int8(q[2*k])))
		binary.LittleEndian.PutUint16(d[32+2*k:], uint16(int8(q[2*k+1])))
	}
}

// widenQ8_0Rows writes n Q8_0 rows (src, rowBytes apart) widened (dst,
// 2*rowBytes apart): each row's blocks as int16 (widenQ8Block, 64 bytes a
// block), then the blocks' scales as float32. The generic twin of the
// rewrite.
func widenQ8_0Rows(dst, src []byte, rowBytes, n int) {
	nb := rowBytes / q8_0Bytes
	for r := 0; r < n; r++ {
		s, d := src[r*rowBytes:(r+1)*rowBytes], dst[2*r*rowBytes:2*(r+1)*rowBytes]
		for b := 0; b < nb; b++ {
			x := s[b*q8_0Bytes : (b+1)*q8_0Bytes]
			widenQ8Block(d[wideQ8Bytes*b:], x[2:])
			binary.LittleEndian.PutUint32(d[wideQ8Bytes*nb+4*b:], math.Float32bits(f16at(x, 0)))
		}
	}
}

// q8_0QuadWide is the quad layout of Q8_0 activations that the widened
// tile reads. Per block column (288 bytes): the four tokens' scales as
// float32, twice (32 bytes: both halves of a 256-bit register), then each
// token's quants widened (widenQ8Block, 64 bytes a token).
var q8_0QuadWide = &actPacker{blockBytes: q8_0QuadWideBytes, pack: packQ8_0QuadWide}

const q8_0QuadWideBytes = 32 + 4*wideQ8Bytes

func packQ8_0QuadWide(dst, src []byte, rowBytes, n int) {
	nb := rowBytes / q8_0Bytes
	dst = dst[:nb*q8_0QuadWideBytes]
	for b := 0; b < nb; b++ {
		o := dst[b*q8_0QuadWideBytes : (b+1)*q8_0QuadWideBytes]
		for t := 0; t < 4; t++ {
			if t >= n {
				clear(o[4*t : 4*t+4])
				clear(o[16+4*t : 16+4*t+4])
				clear(o[32+wideQ8Bytes*t : 32+wideQ8Bytes*(t+1)])
				continue
			}
			y := src[t*rowBytes+b*q8_0Bytes : t*rowBytes+(b+1)*q8_0Bytes]
			d := math.Float32bits(f16at(y, 0))
			binary.LittleEndian.PutUint32(o[4*t:], d)
			binary.LittleEndian.PutUint32(o[16+4*t:], d)
			widenQ8Block(o[32+wideQ8Bytes*t:], y[2:])
		}
	}
}
