package quant

import "github.com/gollm/gollm/ggml"

// Q5_K block (ggml block_q5_K), 176 bytes for 256 values in 8 sub-blocks of
// 32: value = d*sc_j*q - dmin*m_j with q in 0..31 (low 4 bits in qs, the
// fifth in qh), scales and mins packed as in Q4_K.
const (
	q5kD      = 0  // f16 super-scale of the scales
	q5kDmin   = 2  // f16 super-scale of the mins
	q5kScales = 4  // [12]uint8: packed 6-bit scales and mins
	q5kQh     = 16 // [32]uint8: bit 2k / 2k+1 of byte l is the high bit of value 64k+l / 64k+32+l
	q5kQs     = 48 // [128]uint8: low nibbles, laid out as Q4_K's qs
	q5kBytes  = 176
)

func init() {
	register(Traits{
		Type: ggml.Q5_K, Name: "Q5_K", BlockSize: qkK, BlockBytes: q5kBytes,
		Dequantize: DequantizeRowQ5_K, Quantize: QuantizeRowQ5_K, VecDotType: ggml.Q8_K,
	})
}

// DequantizeRowQ5_K is ggml's dequantize_row_q5_K: it decodes len(dst)/256
// blocks of src (only whole blocks present in both buffers).
func DequantizeRowQ5_K(src []byte, dst []float32) {
	nb := blockCount(len(dst), len(src), q5kBytes)
	for i := 0; i < nb; i++ {
		b := (*[q5kBytes]byte)(src[i*q5kBytes:])
		y := (*[qkK]float32)(dst[i*qkK:])
		d := getF16(b[q5kD:])
		min := getF16(b[q5kDmin:])
		sc := b[q5kScales : q5kScales+12]
		qh := (*[32]byte)(b[q5kQh:])
		u1, u2 := uint8(1), uint8(2)
		for j, is := 0, 0; j < qkK; j, is = j+64, is+2 {
			ql := (*[32]byte)(b[q5kQs+j/2:])
			s1, m1 := ScaleMinK4(is, sc)
			s2, m2 := ScaleMinK4(is+1, sc)
			d1, dm1 := d*float32(s1), min*float32(m1)
			d2, dm2 := d*float32(s2), min*float32(m2)
			for l := 0; l < 32; l++ {
				v1, v2 := ql[l]&0xF, ql[l]>>4
				if qh[l]&u1 != 0 {
					v1 += 16
				}
				if qh[l]&u2 != 0 {
					v2 += 16
				}
				y[j+l] = float32(d1*float32(v1)) - dm1
				y[j+32+l] = float32(d2*float32(v2)) - dm2
			}
			u1 <<= 2
			u2 <<= 2
		}
	}
}

// QuantizeRowQ5_K is ggml's quantize_row_q5_K_ref, byte for byte: the
// no-importance-matrix path llama-quantize takes. It encodes len(src)/256
// blocks into dst (only whole blocks present in both buffers).
func QuantizeRowQ5_K(src []float32, dst []byte) {
	nb := blockCount(len(src), len(dst), q5kBytes)
	var L [qkK]uint8
	var scales, mins [8]float32
	rs := newKRowSearcher(&q5kParams, src, nb)
	for i := 0; i < nb; i++ {
		x := (*[qkK]float32)(src[i*qkK:])
		b := (*[q5kBytes]byte)(dst[i*q5kBytes:])
		haveL := rs.search(i, &L, &scales, &mins)
		kScalesMins(b[:], &scales, &mins, q5kD, q5kDmin, q5kScales)
		kRequantize(x, &L, b[:], q5kD, q5kDmin, q5kScales, &q5kParams, haveL)

		qh := b[q5kQh : q5kQh+32]
		clear(qh)
		m1, m2 := uint8(1), uint8(2)
		for n := 0; n < qkK; n += 64 {
			ql := b[q5kQs+n/2 : q5kQs+n/2+32]
			for j := 0; j < 32; j++ {
				l1, l2 := L[n+j], L[n+j+32]
				if l1 > 15 {
					l1 -= 16
					qh[j] |= m1
				}
				if l2 > 15 {
					l2 -= 16
					qh[j] |= m2
				}
				ql[j] = l1 | l2<<4
			}
			m1 <<= 2
			m2 <<= 2
		}
	}
}
