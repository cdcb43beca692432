package kernels

import (
	"encoding/binary"
	"math"
)

// q8_1QuadScales is the quad layout of Q8_1 activations that the Q4_1 and
// Q5_1 prefill tiles read beside the token rows: per block column (32
// bytes) the four tokens' scales d, then their block sums s, as float32.
// The tiles take each token's d once per block for all their rows, and
// the four tokens' s in one vector for each row's min term, instead of
// converting them from f16 for every row and token. Decode reads none.
var q8_1QuadScales = &actPacker{blockBytes: q8_1QuadScalesBytes, pack: packQ8_1QuadScales, prefillOnly: true}

const q8_1QuadScalesBytes = 32

func packQ8_1QuadScales(dst, src []byte, rowBytes, n int) {
	nb := rowBytes / q8_1Bytes
	dst = dst[:nb*q8_1QuadScalesBytes]
	if n < 4 {
		clear(dst) // the missing tokens' blocks are zero
	}
	for b := 0; b < nb; b++ {
		o := dst[b*q8_1QuadScalesBytes : (b+1)*q8_1QuadScalesBytes]
		for t := 0; t < n; t++ {
			y := src[t*rowBytes+b*q8_1Bytes : t*rowBytes+(b+1)*q8_1Bytes]
			binary.LittleEndian.PutUint32(o[4*t:], math.Float32bits(f16at(y, 0)))
			binary.LittleEndian.PutUint32(o[16+4*t:], math.Float32bits(f16at(y, 2)))
		}
	}
}
