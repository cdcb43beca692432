package quant

import "github.com/gollm/gollm/ggml"

// Q2_K block (ggml block_q2_K), 84 bytes for 256 values in 16 sub-blocks of
// 16: value = d*(scales[j]&15)*q - dmin*(scales[j]>>4), q in 0..3.
const (
	q2kScales = 0  // [16]uint8: low nibble scale, high nibble min
	q2kQs     = 16 // [64]uint8: 2-bit quants, four 32-value planes per 128
	q2kD      = 80 // f16 super-scale of the scales
	q2kDmin   = 82 // f16 super-scale of the mins
	q2kBytes  = 84
)

func init() {
	register(Traits{
		Type: ggml.Q2_K, Name: "Q2_K", BlockSize: qkK, BlockBytes: q2kBytes,
		Dequantize: DequantizeRowQ2_K, Quantize: QuantizeRowQ2_K, VecDotType: ggml.Q8_K,
	})
}

// DequantizeRowQ2_K is ggml's dequantize_row_q2_K: it decodes len(dst)/256
// blocks of src (only whole blocks present in both buffers).
func DequantizeRowQ2_K(src []byte, dst []float32) {
	nb := blockCount(len(dst), len(src), q2kBytes)
	for i := 0; i < nb; i++ {
		b := (*[q2kBytes]byte)(src[i*q2kBytes:])
		y := (*[qkK]float32)(dst[i*qkK:])
		d := getF16(b[q2kD:])
		min := getF16(b[q2kDmin:])
		out, is := 0, 0
		for n := 0; n < qkK; n += 128 {
			q := b[q2kQs+n/4 : q2kQs+n/4+32]
			for shift := uint(0); shift < 8; shift += 2 {
				for half := 0; half < 2; half++ {
					sc := b[q2kScales+is]
					is++
					dl := d * float32(sc&0xF)
					ml := min * float32(sc>>4)
					for l := 0; l < 16; l++ {
						y[out] = float32(dl*float32((q[16*half+l]>>shift)&3)) - ml
						out++
					}
				}
			}
		}
	}
}

// QuantizeRowQ2_K is ggml's quantize_row_q2_K_ref, byte for byte: the
// no-importance-matrix path llama-quantize takes. It encodes len(src)/256
// blocks into dst (only whole blocks present in both buffers).
func QuantizeRowQ2_K(src []float32, dst []byte) {
	const q4scale = float32(15)
	nb := blockCount(len(src), len(dst), q2kBytes)
	var L [qkK]uint8
	var weights [qkK]float32
	var mins, scales [16]float32
	for i := 0; i < nb; i++ {
		x := (*[qkK]float32)(src[i*qkK:])
		b := (*[q2kBytes]byte)(dst[i*q2kBytes:])
		var maxScale, maxMin float32
		for l, v := range x {
			weights[l] = abs32(v)
		}
		for j := 0; j < 16; j += 2 {
			scales[j], mins[j], scales[j+1], mins[j+1] = makeQKX2Pair(
				x[16*j:16*j+16], weights[16*j:16*j+16], L[16*j:16*j+16],
				x[16*j+16:16*j+32], weights[16*j+16:16*j+32], L[16*j+16:16*j+32],
				3, -0.5, 0.1, 15, true)
		}
		for j := 0; j < 16; j++ {
			if scales[j] > maxScale {
				maxScale = scales[j]
			}
			if mins[j] > maxMin {
				maxMin = mins[j]
			}
		}

		sc := b[q2kScales : q2kScales+16]
		if maxScale > 0 {
			iscale := q4scale / maxScale
			for j := range sc {
				sc[j] = uint8(nearestInt(iscale * scales[j]))
			}
			putF16(b[q2kD:], maxScale/q4scale)
		} else {
			for j := range sc {
				sc[j] = 0
			}
			putF16(b[q2kD:], 0)
		}
		if maxMin > 0 {
			iscale := q4scale / maxMin
			for j := range sc {
				sc[j] |= uint8(nearestInt(iscale*mins[j]) << 4)
			}
			putF16(b[q2kDmin:], maxMin/q4scale)
		} else {
			putF16(b[q2kDmin:], 0)
		}

		dAll := getF16(b[q2kD:])
		mAll := getF16(b[q2kDmin:])
		for j := 0; j < 16; j++ {
			d := dAll * float32(sc[j]&0xF)
			if d == 0 {
				continue // keep the levels of the search
			}
			dm := mAll * float32(sc[j]>>4)
			for ii := 0; ii < 16; ii++ {
				L[16*j+ii] = uint8(clampInt(nearestInt((x[16*j+ii]+dm)/d), 0, 3))
			}
		}

		qs := b[q2kQs : q2kQs+64]
		for j := 0; j < qkK; j += 128 {
			for l := 0; l < 32; l++ {
				qs[j/4+l] = L[j+l] | L[j+l+32]<<2 | L[j+l+64]<<4 | L[j+l+96]<<6
			}
		}
	}
}
