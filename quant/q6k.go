package quant

import (
	"encoding/binary"

	"github.com/gollm/gollm/ggml"
)

// Q6_K block (ggml block_q6_K), 210 bytes for 256 values in 16 sub-blocks of
// 16: value = d*scales[j]*(q - 32) with 8-bit signed scales and 6-bit quants
// (low 4 bits in ql, high 2 bits in qh).
const (
	q6kQl     = 0   // [128]uint8: per 128 values, 64 bytes: nibbles of values l, l+32 (low) and l+64, l+96 (high)
	q6kQh     = 128 // [64]uint8: per 128 values, 32 bytes: 2-bit pairs of values l, l+32, l+64, l+96
	q6kScales = 192 // [16]int8
	q6kD      = 208 // f16 super-scale
	q6kBytes  = 210
)

func init() {
	register(Traits{
		Type: ggml.Q6_K, Name: "Q6_K", BlockSize: qkK, BlockBytes: q6kBytes,
		Dequantize: DequantizeRowQ6_K, Quantize: QuantizeRowQ6_K, VecDotType: ggml.Q8_K,
	})
}

// DequantizeRowQ6_K is ggml's dequantize_row_q6_K: it decodes len(dst)/256
// blocks of src (only whole blocks present in both buffers).
func DequantizeRowQ6_K(src []byte, dst []float32) {
	nb := blockCount(len(dst), len(src), q6kBytes)
	for i := 0; i < nb; i++ {
		b := (*[q6kBytes]byte)(src[i*q6kBytes:])
		y := (*[qkK]float32)(dst[i*qkK:])
		d := getF16(b[q6kD:])
		for n := 0; n < 2; n++ {
			ql := (*[64]byte)(b[q6kQl+64*n:])
			qh := (*[32]byte)(b[q6kQh+32*n:])
			sc := (*[8]byte)(b[q6kScales+8*n:])
			yy := (*[128]float32)(y[128*n:])
			for l := 0; l < 32; l++ {
				is := l / 16
				q1 := int8(ql[l]&0xF|(qh[l]>>0&3)<<4) - 32
				q2 := int8(ql[l+32]&0xF|(qh[l]>>2&3)<<4) - 32
				q3 := int8(ql[l]>>4|(qh[l]>>4&3)<<4) - 32
				q4 := int8(ql[l+32]>>4|(qh[l]>>6&3)<<4) - 32
				yy[l] = d * float32(int8(sc[is])) * float32(q1)
				yy[l+32] = d * float32(int8(sc[is+2])) * float32(q2)
				yy[l+64] = d * float32(int8(sc[is+4])) * float32(q3)
				yy[l+96] = d * float32(int8(sc[is+6])) * float32(q4)
			}
		}
	}
}

// QuantizeRowQ6_K is ggml's quantize_row_q6_K_ref, byte for byte: the
// no-importance-matrix path llama-quantize takes. It encodes len(src)/256
// blocks into dst (only whole blocks present in both buffers).
func QuantizeRowQ6_K(src []float32, dst []byte) {
	nb := blockCount(len(src), len(dst), q6kBytes)
	var L [qkK]int8
	var scales [16]float32
	for i := 0; i < nb; i++ {
		x := (*[qkK]float32)(src[i*qkK:])
		b := (*[q6kBytes]byte)(dst[i*q6kBytes:])
		var maxScale, maxAbsScale float32
		// An installed kernel gives the scales only; the levels of the
		// search are needed below just for sub-blocks whose scale is zero.
		kernelDone := false
		if f := kSearch.Q6K; f != nil {
			scales, kernelDone = f(x, q6kNums)
		}
		if !kernelDone {
			for ib := 0; ib < 16; ib += 2 {
				scales[ib], scales[ib+1] = q6kSearchPair(
					(*[16]float32)(x[16*ib:]), (*[16]float32)(x[16*ib+16:]),
					L[16*ib:16*ib+16], L[16*ib+16:16*ib+32])
			}
		}
		for _, s := range scales {
			if as := abs32(s); as > maxAbsScale {
				maxAbsScale = as
				maxScale = s
			}
		}

		if maxAbsScale < groupMaxEps {
			clear(b[:])
			continue
		}

		iscale := -128 / maxScale
		putF16(b[q6kD:], 1/iscale)
		sc := b[q6kScales : q6kScales+16]
		for ib := range sc {
			sc[ib] = uint8(int8(min(127, nearestInt(iscale*scales[ib]))))
		}

		// The levels from the stored scales; where a scale is zero, the
		// search's levels are kept.
		dAll := getF16(b[q6kD:])
		var Lu [qkK]uint8 // the levels + 32, as packed
		if f := kSearch.Levels; f != nil {
			var d [16]float32
			for j := range d {
				d[j] = dAll * float32(int8(sc[j]))
			}
			Lu = f(x, 16, d, [16]float32{}, -32, 31, 32)
			for j := 0; j < 16; j++ {
				if d[j] == 0 {
					if kernelDone {
						q6kSearchSub((*[16]float32)(x[16*j:]), L[16*j:16*j+16])
					}
					for ii := 16 * j; ii < 16*j+16; ii++ {
						Lu[ii] = uint8(L[ii])
					}
				}
			}
		} else {
			for j := 0; j < 16; j++ {
				d := dAll * float32(int8(sc[j]))
				if d == 0 {
					if kernelDone {
						q6kSearchSub((*[16]float32)(x[16*j:]), L[16*j:16*j+16])
					}
					continue // keep the levels of the search
				}
				for ii := 0; ii < 16; ii++ {
					L[16*j+ii] = int8(clampInt(nearestInt(x[16*j+ii]/d), -32, 31) + 32)
				}
			}
			for i, l := range L {
				Lu[i] = uint8(l)
			}
		}
		q6kPack(b, &Lu)
	}
}

// q6kPack stores the levels (0..63, as every path produces them) into the
// block's ql and qh as ggml does, eight at a time: the low nibbles of
// values l and l+64 (l+32 and l+96) share a ql byte, the high two bits of
// all four a qh byte. Within a uint64 no shift or mask carries across
// bytes, so each byte gets what the per-byte code would give it.
func q6kPack(b *[q6kBytes]byte, L *[qkK]uint8) {
	const lo4, lo2 = 0x0F0F0F0F0F0F0F0F, 0x0303030303030303
	for n := 0; n < 2; n++ {
		ql := (*[64]byte)(b[q6kQl+64*n:])
		qh := (*[32]byte)(b[q6kQh+32*n:])
		lv := (*[128]uint8)(L[128*n:])
		for l := 0; l < 32; l += 8 {
			q1 := binary.LittleEndian.Uint64(lv[l:])
			q2 := binary.LittleEndian.Uint64(lv[l+32:])
			q3 := binary.LittleEndian.Uint64(lv[l+64:])
			q4 := binary.LittleEndian.Uint64(lv[l+96:])
			binary.LittleEndian.PutUint64(ql[l:], q1&lo4|(q3&lo4)<<4)
			binary.LittleEndian.PutUint64(ql[l+32:], q2&lo4|(q4&lo4)<<4)
			binary.LittleEndian.PutUint64(qh[l:], q1>>4&lo2|(q2>>4&lo2)<<2|(q3>>4&lo2)<<4|(q4>>4&lo2)<<6)
		}
	}
}
