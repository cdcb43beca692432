package kernels

import "encoding/binary"

// BF16 prefill on VDPBF16PS (AVX512-BF16) in llama.cpp's 8-lane order,
// the order of the golden logits (the tiles: tile_bf16dot_amd64.go, their
// assembly in tile_pairs_avx512_amd64.s).
//
// llama.cpp's AVX2 build multiplies BF16 weights with the activations
// rounded to BF16 in tinyBLAS's order: per output eight float32 lanes,
// lane l adding the products of elements l, l+8, l+16, ... one fused
// multiply-add at a time, then an 8-lane sum (dotFloatOrder). A product
// of two BF16 values is exact in float32, so each step is one rounding of
// lane + product. VDPBF16PS does two such steps per float32 lane and
// instruction, the upper word's product first: fed dwords that hold
// element l in the upper word and element 8+l in the lower (the pair
// layout of tile_pairs.go, whose rows prefill already rewrites for the
// 512-bit tiles, and bf16DotQuad for the tokens), it adds elements l and
// then l+8 to lane l: the same roundings in the same order, half the
// instructions of the float32 FMAs and no widening.
//
// The instruction differs from FMAs in one respect: it takes denormal
// inputs as zero and flushes denormal results to zero. bf16DotSafe rules
// both out before a MatMul takes these tiles: with no denormal among the
// weights and tokens and the smallest nonzero exponents summing high
// enough, every product is a multiple of 2^-126, so is every rounded sum
// of them, and a nonzero one is at least 2^-126, a normal number. Real
// weights and activations are far from that bound; a batch past it takes
// the set's other tiles (the same bits).

// bf16DotQuad is the quad layout the tiles read: each of the four tokens'
// BF16 rows (token t at 2*cols*t) interleaved in 16-element pieces as
// interleaveBF16 does.
var bf16DotQuad = &actPacker{blockBytes: 8, pack: packBF16DotQuad}

// packBF16DotQuad writes the quad of n (1..4) BF16 rows at src, rowBytes
// apart (a multiple of 32), interleaved; missing tokens become zero rows.
func packBF16DotQuad(dst, src []byte, rowBytes, n int) {
	packBF16DotQuadWith(dst, src, rowBytes, n, interleaveBF16Row)
}

// packBF16DotQuadWith is packBF16DotQuad with the rows interleaved by
// interleave (interleaveBF16Row or its assembly twin).
func packBF16DotQuadWith(dst, src []byte, rowBytes, n int, interleave func(dst, src []byte)) {
	dst = dst[:4*rowBytes]
	for t := 0; t < 4; t++ {
		row := dst[t*rowBytes : (t+1)*rowBytes]
		if t >= n {
			clear(row)
			continue
		}
		interleave(row, src[t*rowBytes:(t+1)*rowBytes])
	}
}

// interleaveBF16Row interleaves a row of whole 16-element pieces.
func interleaveBF16Row(dst, src []byte) {
	for c := 0; c+32 <= len(src); c += 32 {
		interleaveBF16(dst[c:c+32], src[c:c+32])
	}
}

// bf16DotMinExpSum is the least sum of the weights' and the tokens'
// smallest nonzero exponent fields for which bf16DotSafe holds: a product
// of BF16 values with exponent fields ew and ea is an integer times
// 2^(ew+ea-254-14), at least 2^-126 from ew+ea = 142.
const bf16DotMinExpSum = 142

// bf16DotSafe reports whether VDPBF16PS's handling of denormals cannot
// change w x a: no denormal input, and products whose every sum is zero
// or normal (see above). scan is bf16MinExp or its assembly twin.
func bf16DotSafe(w *Matrix, a *Acts, scan func([]byte) int) bool {
	ew, ea := w.bf16MinExp(scan), a.bf16MinExp(scan)
	return ew > 0 && ea > 0 && ew+ea >= bf16DotMinExpSum
}

// bf16MinExp returns the smallest exponent field among the nonzero BF16
// values of data: 0 if one is denormal, 255 if all are zero.
func bf16MinExp(data []byte) int {
	m := uint16(0xff)
	for i := 0; i+1 < len(data); i += 2 {
		if u := binary.LittleEndian.Uint16(data[i:]) & 0x7fff; u != 0 {
			m = min(m, u>>7)
		}
	}
	return int(m)
}

// bf16MinExp is scan of the matrix's data, computed once (a BF16
// matrix's first prefill).
func (m *Matrix) bf16MinExp(scan func([]byte) int) int {
	if v := m.minExp.Load(); v != 0 {
		return int(v - 1)
	}
	e := scan(m.Data)
	m.minExp.Store(int32(e + 1))
	return e
}

// bf16MinExp is scan of the batch's rows, computed once per Quantize.
func (a *Acts) bf16MinExp(scan func([]byte) int) int {
	if a.minExp == 0 {
		a.minExp = scan(a.Data) + 1
	}
	return a.minExp - 1
}
