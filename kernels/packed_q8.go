package kernels

import (
	"encoding/binary"
	"math"
)

// Packed layouts of the 32-element block types and of their Q8_0
// activations (see packed.go).

// q8_0Quad is the quad layout of Q8_0 activations. Per block column (160
// bytes): the four tokens' scales as float32 (16 bytes), the sums of their
// 32 quants as int32 (16 bytes), then for each 4-element piece c = 0..7
// the four tokens' quants 4c..4c+3 (16 bytes per piece, token-minor).
var q8_0Quad = &actPacker{blockBytes: q8_0QuadBytes, pack: packQ8_0Quad}

const q8_0QuadBytes = 160

func packQ8_0Quad(dst, src []byte, rowBytes, n int) {
	nb := rowBytes / q8_0Bytes
	dst = dst[:nb*q8_0QuadBytes]
	for b := 0; b < nb; b++ {
		o := dst[b*q8_0QuadBytes : (b+1)*q8_0QuadBytes]
		for t := 0; t < 4; t++ {
			if t >= n {
				binary.LittleEndian.PutUint32(o[4*t:], 0)
				binary.LittleEndian.PutUint32(o[16+4*t:], 0)
				for c := 0; c < 8; c++ {
					binary.LittleEndian.PutUint32(o[32+16*c+4*t:], 0)
				}
				continue
			}
			y := src[t*rowBytes+b*q8_0Bytes : t*rowBytes+(b+1)*q8_0Bytes]
			binary.LittleEndian.PutUint32(o[4*t:], math.Float32bits(f16at(y, 0)))
			var sum int32
			for _, v := range y[2:] {
				sum += int32(int8(v))
			}
			binary.LittleEndian.PutUint32(o[16+4*t:], uint32(sum))
			for c := 0; c < 8; c++ {
				copy(o[32+16*c+4*t:32+16*c+4*t+4], y[2+4*c:2+4*c+4])
			}
		}
	}
}

// q4_0GroupBytes is one block column of a packed Q4_0 group: the eight
// rows' f16 scales (16 bytes), then for each piece c = 0..3 the eight rows'
// quant bytes 4c..4c+3 (32 bytes per piece, row-minor). Byte j of a Q4_0
// block holds elements j (low nibble) and j+16 (high nibble), so piece c
// carries elements 4c..4c+3 and 16+4c..16+4c+3: activation pieces c and
// 4+c.
const q4_0GroupBytes = 16 + 4*32

func packQ4_0Group(dst, src []byte, rowBytes int) {
	nb := rowBytes / q4_0Bytes
	dst = dst[:nb*q4_0GroupBytes]
	for b := 0; b < nb; b++ {
		o := dst[b*q4_0GroupBytes : (b+1)*q4_0GroupBytes]
		for r := 0; r < packRows; r++ {
			x := src[r*rowBytes+b*q4_0Bytes : r*rowBytes+(b+1)*q4_0Bytes]
			copy(o[2*r:2*r+2], x[0:2])
			for c := 0; c < 4; c++ {
				copy(o[16+32*c+4*r:16+32*c+4*r+4], x[2+4*c:2+4*c+4])
			}
		}
	}
}
