package quant

import (
	"encoding/binary"

	"github.com/gollm/gollm/ggml"
)

// Q4_K block (ggml block_q4_K), 144 bytes for 256 values in 8 sub-blocks of
// 32: value = d*sc_j*q - dmin*m_j, with 6-bit (sc, m) pairs (see ScaleMinK4)
// and 4-bit quants.
const (
	q4kD      = 0  // f16 super-scale of the scales
	q4kDmin   = 2  // f16 super-scale of the mins
	q4kScales = 4  // [12]uint8: packed 6-bit scales and mins
	q4kQs     = 16 // [128]uint8: per 64 values, 32 bytes: low nibble first 32, high nibble next 32
	q4kBytes  = 144
)

func init() {
	register(Traits{
		Type: ggml.Q4_K, Name: "Q4_K", BlockSize: qkK, BlockBytes: q4kBytes,
		Dequantize: DequantizeRowQ4_K, Quantize: QuantizeRowQ4_K, VecDotType: ggml.Q8_K,
	})
}

// DequantizeRowQ4_K is ggml's dequantize_row_q4_K: it decodes len(dst)/256
// blocks of src (only whole blocks present in both buffers).
func DequantizeRowQ4_K(src []byte, dst []float32) {
	nb := blockCount(len(dst), len(src), q4kBytes)
	for i := 0; i < nb; i++ {
		b := (*[q4kBytes]byte)(src[i*q4kBytes:])
		y := (*[qkK]float32)(dst[i*qkK:])
		d := getF16(b[q4kD:])
		min := getF16(b[q4kDmin:])
		sc := b[q4kScales : q4kScales+12]
		for j, is := 0, 0; j < qkK; j, is = j+64, is+2 {
			q := (*[32]byte)(b[q4kQs+j/2:])
			s1, m1 := ScaleMinK4(is, sc)
			s2, m2 := ScaleMinK4(is+1, sc)
			d1, dm1 := d*float32(s1), min*float32(m1)
			d2, dm2 := d*float32(s2), min*float32(m2)
			for l := 0; l < 32; l++ {
				y[j+l] = float32(d1*float32(q[l]&0xF)) - dm1
				y[j+32+l] = float32(d2*float32(q[l]>>4)) - dm2
			}
		}
	}
}

// kScalesMins turns the per-sub-block (scale, -min) pairs of a Q4_K/Q5_K
// super-block into the 6-bit codes and the two f16 super-scales, as the
// Q4_K/Q5_K reference quantizers do, writing them into block b.
func kScalesMins(b []byte, scales, mins *[8]float32, dOff, dminOff, scOff int) {
	var maxScale, maxMin float32
	for j := 0; j < 8; j++ {
		if scales[j] > maxScale {
			maxScale = scales[j]
		}
		if mins[j] > maxMin {
			maxMin = mins[j]
		}
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxMin > 0 {
		invMin = 63 / maxMin
	}
	var ls, lm [8]uint8
	for j := 0; j < 8; j++ {
		ls[j] = min(63, uint8(nearestInt(invScale*scales[j])))
		lm[j] = min(63, uint8(nearestInt(invMin*mins[j])))
	}
	putScaleMinK4(b[scOff:scOff+12], &ls, &lm)
	putF16(b[dOff:], maxScale/63)
	putF16(b[dminOff:], maxMin/63)
}

// qkx2Params are the make_qkx2_quants parameters of a K-quant type.
type qkx2Params struct {
	nmax         int
	rmin, rdelta float32
	nstep        int
	nums         []float32 // the candidates' iscale numerators (k_search_kernels.go)
}

var (
	q4kParams = qkx2Params{nmax: 15, rmin: -1, rdelta: 0.1, nstep: 20, nums: q4kNums}
	q5kParams = qkx2Params{nmax: 31, rmin: -0.5, rdelta: 0.1, nstep: 15, nums: q5kNums}
)

// kSearchBlock runs the scale/min search of the eight sub-blocks: the
// installed kernel if there is one and it takes the block, else the scalar
// search. It reports whether L holds the search's levels (the kernel leaves
// them to kRequantize, which needs them only for sub-blocks whose stored
// scale is zero).
func kSearchBlock(x *[qkK]float32, L *[qkK]uint8, scales, mins *[8]float32, p *qkx2Params) (haveL bool) {
	if f := kSearch.QKX2; f != nil {
		var ok bool
		if *scales, *mins, ok = f(x, p.nmax, p.nums); ok {
			return false
		}
	}
	kSubblockSearch(x, L, scales, mins, p.nmax, p.rmin, p.rdelta, p.nstep)
	return true
}

// kRowSearcher runs kSearchBlock over the consecutive blocks of a row,
// two at a time when a pair kernel is installed: search(i) returns the
// results of block i, computing those of block i+1 along with them.
type kRowSearcher struct {
	p            *qkx2Params
	src          []float32
	nb           int
	next         int // the block whose results are in nextS, nextM; -1: none
	nextS, nextM [8]float32
}

func newKRowSearcher(p *qkx2Params, src []float32, nb int) kRowSearcher {
	return kRowSearcher{p: p, src: src, nb: nb, next: -1}
}

// search stores the scales and mins of block i (and its levels, if it
// reports haveL; see kSearchBlock).
func (s *kRowSearcher) search(i int, L *[qkK]uint8, scales, mins *[8]float32) (haveL bool) {
	if s.next == i {
		*scales, *mins = s.nextS, s.nextM
		return false
	}
	if f := kSearch.QKX2Pair; f != nil && i+1 < s.nb {
		sc, mn, ok := f((*[2 * qkK]float32)(s.src[i*qkK:]), s.p.nmax, s.p.nums)
		if ok {
			copy(scales[:], sc[:8])
			copy(mins[:], mn[:8])
			copy(s.nextS[:], sc[8:])
			copy(s.nextM[:], mn[8:])
			s.next = i + 1
			return false
		}
	}
	return kSearchBlock((*[qkK]float32)(s.src[i*qkK:]), L, scales, mins, s.p)
}

// kSubblockWeights returns the search weights of sub-block xs: av_x + |x|
// with av_x the RMS of the sub-block.
func kSubblockWeights(xs *[32]float32) (w [32]float32) {
	var sumX2 float32
	for _, v := range xs {
		sumX2 += float32(v * v)
	}
	avX := sqrt32(sumX2 / 32)
	for l, v := range xs {
		w[l] = avX + abs32(v)
	}
	return w
}

// kSubblockSearch runs the per-32 scale/min search shared by the Q4_K and
// Q5_K reference quantizers: weights av_x + |x| with av_x the RMS of the
// sub-block, then make_qkx2_quants.
func kSubblockSearch(x *[qkK]float32, L *[qkK]uint8, scales, mins *[8]float32, nmax int, rmin, rdelta float32, nstep int) {
	var weights [8][32]float32
	for j := 0; j < 8; j++ {
		weights[j] = kSubblockWeights((*[32]float32)(x[32*j:]))
	}
	for j := 0; j < 8; j += 2 {
		x0, x1 := (*[32]float32)(x[32*j:]), (*[32]float32)(x[32*j+32:])
		L0, L1 := (*[32]uint8)(L[32*j:]), (*[32]uint8)(L[32*j+32:])
		a, b := newQKX2Lane32Pair(x0, &weights[j], L0, x1, &weights[j+1], L1, nmax)
		scales[j], mins[j] = qkx2Search32From(&a, x0, &weights[j], L0, nmax, rmin, rdelta, nstep)
		scales[j+1], mins[j+1] = qkx2Search32From(&b, x1, &weights[j+1], L1, nmax, rmin, rdelta, nstep)
	}
}

// kSubblockLevels stores the search's levels of sub-block j into L (the
// scalar search on that sub-block alone).
func kSubblockLevels(x *[qkK]float32, L *[qkK]uint8, j int, p *qkx2Params) {
	xs, Ls := (*[32]float32)(x[32*j:]), (*[32]uint8)(L[32*j:])
	w := kSubblockWeights(xs)
	qkx2Search32(xs, &w, Ls, p.nmax, p.rmin, p.rdelta, p.nstep)
}

// kRequantize recomputes the levels of each 32-value sub-block from the
// stored (f16-rounded) scales, keeping the search's levels where the scale is
// zero, as the Q4_K/Q5_K reference quantizers do. Without them (haveL
// false) it runs the search again for such a sub-block.
func kRequantize(x *[qkK]float32, L *[qkK]uint8, b []byte, dOff, dminOff, scOff int, p *qkx2Params, haveL bool) {
	nmax := p.nmax
	dAll := getF16(b[dOff:])
	mAll := getF16(b[dminOff:])
	if f := kSearch.Levels; f != nil {
		var d, dm [16]float32
		for j := 0; j < 8; j++ {
			sc, m := ScaleMinK4(j, b[scOff:scOff+12])
			d[j], dm[j] = dAll*float32(sc), mAll*float32(m)
		}
		lv := f(x, 32, d, dm, 0, nmax, 0)
		for j := 0; j < 8; j++ {
			if d[j] != 0 {
				copy(L[32*j:32*j+32], lv[32*j:])
			} else if !haveL {
				kSubblockLevels(x, L, j, p)
			}
		}
		return
	}
	for j := 0; j < 8; j++ {
		sc, m := ScaleMinK4(j, b[scOff:scOff+12])
		d := dAll * float32(sc)
		if d == 0 {
			if !haveL {
				kSubblockLevels(x, L, j, p)
			}
			continue
		}
		dm := mAll * float32(m)
		for ii := 0; ii < 32; ii++ {
			L[32*j+ii] = uint8(clampInt(nearestInt((x[32*j+ii]+dm)/d), 0, nmax))
		}
	}
}

// QuantizeRowQ4_K is ggml's quantize_row_q4_K_ref, byte for byte: the
// no-importance-matrix path llama-quantize takes. It encodes len(src)/256
// blocks into dst (only whole blocks present in both buffers).
func QuantizeRowQ4_K(src []float32, dst []byte) {
	nb := blockCount(len(src), len(dst), q4kBytes)
	var L [qkK]uint8
	var scales, mins [8]float32
	rs := newKRowSearcher(&q4kParams, src, nb)
	for i := 0; i < nb; i++ {
		x := (*[qkK]float32)(src[i*qkK:])
		b := (*[q4kBytes]byte)(dst[i*q4kBytes:])
		haveL := rs.search(i, &L, &scales, &mins)
		kScalesMins(b[:], &scales, &mins, q4kD, q4kDmin, q4kScales)
		kRequantize(x, &L, b[:], q4kD, q4kDmin, q4kScales, &q4kParams, haveL)
		q4kPack(b, &L)
	}
}

// q4kPack stores the levels (0..15) into the block's nibbles as ggml
// does, value l of each 64 in the low nibble and value l+32 in the high
// one, eight bytes at a time: the mask keeps each byte's shifted level
// within its byte, as the per-byte code's truncation would.
func q4kPack(b *[q4kBytes]byte, L *[qkK]uint8) {
	q := (*[128]byte)(b[q4kQs:])
	for j := 0; j < qkK; j += 64 {
		for l := 0; l < 32; l += 8 {
			lo := binary.LittleEndian.Uint64(L[j+l:])
			hi := binary.LittleEndian.Uint64(L[j+l+32:])
			binary.LittleEndian.PutUint64(q[j/2+l:], lo|hi<<4&0xF0F0F0F0F0F0F0F0)
		}
	}
}
