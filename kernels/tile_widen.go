package kernels

import (
	"encoding/binary"
	"math"

	"github.com/gollm/gollm/quant"
)

// Half-precision weight rows widened to float32 once per row unit, for the
// AVX2 3 x 4 prefill tiles on Intel CPUs (tileRewrite; tile_widen_amd64.go).
//
// The AVX2 F16 and BF16 tiles keep llama.cpp's 8-lane order: one
// multiply-add per 8 products, plus the widening of each row's 8 weights
// (VCVTPH2PS for F16, a zero-extension and a shift for BF16) and for F16
// of each token's. On Intel cores the conversions run on the ports of the
// multiply-adds (0 and 1), so the 3 x 4 F16 tile spends 19 operations
// there per 12 multiply-adds. Rows widened once per row unit (which all
// the batch's tokens then read) leave the 12 multiply-adds alone: the same
// bits, 1.25-1.3x the tile's speed on an Intel Xeon. On AMD Zen3 the
// conversions take other pipes and the tile ran at the multiply-adds' peak
// already (an f32 tile measured no faster there).

// widenF16Rows writes n rows of F16 (src, rowBytes apart) as float32 rows
// (dst, 2*rowBytes apart): the generic twin of the rewrite.
func widenF16Rows(dst, src []byte, rowBytes, n int) {
	for r := 0; r < n; r++ {
		s, d := src[r*rowBytes:(r+1)*rowBytes], dst[2*r*rowBytes:2*(r+1)*rowBytes]
		for i := 0; i+2 <= rowBytes; i += 2 {
			binary.LittleEndian.PutUint32(d[2*i:], math.Float32bits(quant.FP16ToFP32(binary.LittleEndian.Uint16(s[i:]))))
		}
	}
}

// widenBF16Rows is widenF16Rows for BF16 rows (a BF16 is the high half of
// its float32).
func widenBF16Rows(dst, src []byte, rowBytes, n int) {
	for r := 0; r < n; r++ {
		s, d := src[r*rowBytes:(r+1)*rowBytes], dst[2*r*rowBytes:2*(r+1)*rowBytes]
		for i := 0; i+2 <= rowBytes; i += 2 {
			binary.LittleEndian.PutUint32(d[2*i:], uint32(binary.LittleEndian.Uint16(s[i:]))<<16)
		}
	}
}
