package quant

import "github.com/gollm/gollm/ggml"

// Q3_K block (ggml block_q3_K), 110 bytes for 256 values in 16 sub-blocks of
// 16: value = d*(scale_j - 32)*(q - 4*!hbit), with 6-bit scales and 3-bit
// quants (2 low bits in qs, the high bit in hmask).
const (
	q3kHmask  = 0   // [32]uint8: high bits; bit k of byte m is value 32k+m
	q3kQs     = 32  // [64]uint8: low 2 bits, four 32-value planes per 128
	q3kScales = 96  // [12]uint8: 16 packed 6-bit scales (offset by 32)
	q3kD      = 108 // f16 super-scale
	q3kBytes  = 110
)

func init() {
	register(Traits{
		Type: ggml.Q3_K, Name: "Q3_K", BlockSize: qkK, BlockBytes: q3kBytes,
		Dequantize: DequantizeRowQ3_K, Quantize: QuantizeRowQ3_K, VecDotType: ggml.Q8_K,
	})
}

// q3kScale decodes the 6-bit scale of sub-block j (0..15), minus 32: the low
// nibble is in byte j (j < 8) or the high nibble of byte j-8, the top two
// bits in bits 2*(j/4) of byte 8 + j%4.
func q3kScale(scales []byte, j int) int8 {
	var lo uint8
	if j < 8 {
		lo = scales[j] & 0xF
	} else {
		lo = scales[j-8] >> 4
	}
	hi := (scales[8+j%4] >> (2 * uint(j/4))) & 3
	return int8(lo|hi<<4) - 32
}

// DequantizeRowQ3_K is ggml's dequantize_row_q3_K: it decodes len(dst)/256
// blocks of src (only whole blocks present in both buffers).
func DequantizeRowQ3_K(src []byte, dst []float32) {
	nb := blockCount(len(dst), len(src), q3kBytes)
	for i := 0; i < nb; i++ {
		b := (*[q3kBytes]byte)(src[i*q3kBytes:])
		y := (*[qkK]float32)(dst[i*qkK:])
		dAll := getF16(b[q3kD:])
		hm := b[q3kHmask : q3kHmask+32]
		sc := b[q3kScales : q3kScales+12]
		out, is := 0, 0
		m := uint8(1)
		for n := 0; n < qkK; n += 128 {
			q := b[q3kQs+n/4 : q3kQs+n/4+32]
			for shift := uint(0); shift < 8; shift += 2 {
				for half := 0; half < 2; half++ {
					dl := dAll * float32(q3kScale(sc, is))
					is++
					for l := 16 * half; l < 16*half+16; l++ {
						v := int8((q[l] >> shift) & 3)
						if hm[l]&m == 0 {
							v -= 4
						}
						y[out] = dl * float32(v)
						out++
					}
				}
				m <<= 1
			}
		}
	}
}

// QuantizeRowQ3_K is ggml's quantize_row_q3_K_ref, byte for byte: the
// no-importance-matrix path llama-quantize takes. It encodes len(src)/256
// blocks into dst (only whole blocks present in both buffers).
func QuantizeRowQ3_K(src []float32, dst []byte) {
	nb := blockCount(len(src), len(dst), q3kBytes)
	var L [qkK]int8
	var scales [16]float32
	for i := 0; i < nb; i++ {
		x := (*[qkK]float32)(src[i*qkK:])
		b := (*[q3kBytes]byte)(dst[i*q3kBytes:])
		var maxScale, amax float32
		for j := 0; j < 16; j++ {
			scales[j] = makeQ3Quants(x[16*j:16*j+16], 4, L[16*j:16*j+16])
			if s := abs32(scales[j]); s > amax {
				amax = s
				maxScale = scales[j]
			}
		}

		sc := b[q3kScales : q3kScales+12]
		clear(sc)
		if maxScale != 0 {
			iscale := -32 / maxScale
			for j := 0; j < 16; j++ {
				l := int8(nearestInt(iscale * scales[j]))
				l = int8(clampInt(int(l), -32, 31) + 32)
				if j < 8 {
					sc[j] = uint8(l) & 0xF
				} else {
					sc[j-8] |= (uint8(l) & 0xF) << 4
				}
				l >>= 4
				sc[j%4+8] |= uint8(l) << (2 * uint(j/4))
			}
			putF16(b[q3kD:], 1/iscale)
		} else {
			putF16(b[q3kD:], 0)
		}

		dAll := getF16(b[q3kD:])
		for j := 0; j < 16; j++ {
			d := dAll * float32(q3kScale(sc, j))
			if d == 0 {
				continue // keep the levels of the search
			}
			for ii := 0; ii < 16; ii++ {
				L[16*j+ii] = int8(clampInt(nearestInt(x[16*j+ii]/d), -4, 3) + 4)
			}
		}

		hmask := b[q3kHmask : q3kHmask+32]
		clear(hmask)
		m, hm := 0, uint8(1)
		for j := 0; j < qkK; j++ {
			if L[j] > 3 {
				hmask[m] |= hm
				L[j] -= 4
			}
			if m++; m == qkK/8 {
				m = 0
				hm <<= 1
			}
		}
		qs := b[q3kQs : q3kQs+64]
		for j := 0; j < qkK; j += 128 {
			for l := 0; l < 32; l++ {
				qs[j/4+l] = uint8(L[j+l]) | uint8(L[j+l+32])<<2 | uint8(L[j+l+64])<<4 | uint8(L[j+l+96])<<6
			}
		}
	}
}
