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
	if n < 4 {
		clear(dst) // the missing tokens' blocks are zero
	}
	for b := 0; b < nb; b++ {
		o := dst[b*q8_0QuadBytes : (b+1)*q8_0QuadBytes]
		for t := 0; t < n; t++ {
			y := src[t*rowBytes+b*q8_0Bytes : t*rowBytes+(b+1)*q8_0Bytes]
			binary.LittleEndian.PutUint32(o[4*t:], math.Float32bits(f16at(y, 0)))
			const flip, even = 0x8080808080808080, 0x00FF00FF00FF00FF
			var acc uint64 // four 16-bit lanes of sums of q+128
			for c := 0; c < 8; c += 2 {
				v := binary.LittleEndian.Uint64(y[2+4*c:])
				binary.LittleEndian.PutUint32(o[32+16*c+4*t:], uint32(v))
				binary.LittleEndian.PutUint32(o[48+16*c+4*t:], uint32(v>>32))
				v ^= flip
				acc += v&even + v>>8&even
			}
			acc += acc >> 32
			acc += acc >> 16
			binary.LittleEndian.PutUint32(o[16+4*t:], uint32(int32(acc&0xFFFF)-128*32))
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
	packPieceGroup(dst, src, rowBytes, q4_0Bytes)
}

// packPieceGroup packs eight rows of a block type that is an f16 scale and
// then quant bytes (Q4_0, Q8_0): per block column the rows' scales, then
// each 4-byte piece of the quants for the eight rows, row-minor. It
// writes each block column in order, a piece's 32 bytes from the eight
// rows at once (TinyLlama Q4_0's packing took 0.4 s of CPU storing byte
// pairs and words row by row through bounds-checked slices).
func packPieceGroup(dst, src []byte, rowBytes, blockBytes int) {
	nb := rowBytes / blockBytes
	pieces := (blockBytes - 2) / 4
	gb := 16 + 32*pieces
	dst = dst[:nb*gb]
	var rows [packRows][]byte
	for r := range rows {
		rows[r] = src[r*rowBytes : r*rowBytes+nb*blockBytes]
	}
	for b := 0; b < nb; b++ {
		o := dst[b*gb : (b+1)*gb]
		at := b * blockBytes
		var x [packRows][]byte
		for r := range x {
			x[r] = rows[r][at : at+blockBytes]
		}
		scales := (*[16]byte)(o)
		for r := range x {
			scales[2*r], scales[2*r+1] = x[r][0], x[r][1]
		}
		for c := 0; c < pieces; c++ {
			p := (*[32]byte)(o[16+32*c:])
			q := 2 + 4*c
			for r := range x {
				copy(p[4*r:4*r+4], x[r][q:q+4])
			}
		}
	}
}

// q8_0GroupBytes is one block column of a packed Q8_0 group (272 bytes):
// the eight rows' f16 scales (16 bytes), then for each piece c = 0..7 the
// eight rows' quants 4c..4c+3 (32 bytes per piece, row-minor), matching
// the pieces of q8_0Quad.
const q8_0GroupBytes = 16 + 8*32

func packQ8_0Group(dst, src []byte, rowBytes int) {
	packPieceGroup(dst, src, rowBytes, q8_0Bytes)
}

// q8_KQuad is the quad layout of Q8_K activations, made for the packed
// Q4_K kernels (Q5_K and Q3_K read it too). Per block column of 256
// elements (q8_KQuadMain, 1104 bytes):
//   - the four tokens' scales d as float32 (16 bytes);
//   - for each 64-element chunk k = 0..3, the four tokens' sub-block sums
//     [P(2k), P(2k+1)] as int16 pairs, P(j) = bsums[2j] + bsums[2j+1]
//     (16 bytes per chunk: the min terms m(j)*P(j) of a row);
//   - for each chunk k and 4-element piece g = 0..7 two 16-byte slots, each
//     with four bytes per token: "low" a(64k+4g), a(64k+4g+1),
//     a(64k+32+4g), a(64k+32+4g+1) and "high" the same at +2. These match
//     the packed Q4_K nibbles (q4_KGroupBytes).
//
// After the nb block columns of a quad come nb blocks of sums
// (q8_KQuadSums, 512 bytes each), for the packed Q3_K kernels, which keep
// their quants unsigned (q+4) and take 4 times the activations' sums off
// each product pair (q3_KGroupBytes): per chunk k and piece g the four
// tokens' sums of the two 4-element pieces of its slots, times 4, as int16
// pairs [4*sum a(64k+4g..+3), 4*sum a(64k+32+4g..+3)] (16 bytes per (k,
// g)). Kept apart so that the Q4_K and Q5_K kernels read their block
// columns as before, 1104 bytes apart, and never the sums.
//
// Token t's fields sit 4t bytes into each slot and each sum pair, so a
// one-token kernel reads token t from the quad at offset 4t.
var q8_KQuad = &actPacker{blockBytes: q8_KQuadBytes, pack: packQ8_KQuad}

const (
	q8_KQuadMain  = 16 + 64 + 4*8*2*16
	q8_KQuadSums  = 4 * 8 * 16
	q8_KQuadBytes = q8_KQuadMain + q8_KQuadSums
)

func packQ8_KQuad(dst, src []byte, rowBytes, n int) {
	nb := rowBytes / q8_KBytes
	dst = dst[:nb*q8_KQuadBytes]
	if n < 4 {
		clear(dst) // the missing tokens' blocks are zero
	}
	for b := 0; b < nb; b++ {
		o := dst[b*q8_KQuadMain : (b+1)*q8_KQuadMain]
		sums := dst[nb*q8_KQuadMain+b*q8_KQuadSums : nb*q8_KQuadMain+(b+1)*q8_KQuadSums]
		for t := 0; t < n; t++ {
			y := src[t*rowBytes+b*q8_KBytes : t*rowBytes+(b+1)*q8_KBytes]
			copy(o[4*t:4*t+4], y[0:4])
			for k := 0; k < 4; k++ {
				p0 := q8KBsum(y, 4*k) + q8KBsum(y, 4*k+1)
				p1 := q8KBsum(y, 4*k+2) + q8KBsum(y, 4*k+3)
				binary.LittleEndian.PutUint16(o[16+16*k+4*t:], uint16(int16(p0)))
				binary.LittleEndian.PutUint16(o[16+16*k+4*t+2:], uint16(int16(p1)))
			}
			a := y[4 : 4+qkK]
			for k := 0; k < 4; k++ {
				for g := 0; g < 8; g++ {
					// v0: a(e..e+3), v1: a(e+32..e+35); low slot
					// a(e), a(e+1), a(e+32), a(e+33), high slot +2.
					e := 64*k + 4*g
					v0 := binary.LittleEndian.Uint32(a[e:])
					v1 := binary.LittleEndian.Uint32(a[e+32:])
					s := 80 + 32*(8*k+g) + 4*t
					binary.LittleEndian.PutUint32(o[s:], v0&0xFFFF|v1<<16)
					binary.LittleEndian.PutUint32(o[s+16:], v0>>16|v1&0xFFFF0000)
					sp := 16*(8*k+g) + 4*t
					binary.LittleEndian.PutUint32(sums[sp:], uint32(uint16(4*sum4(v0)))|uint32(uint16(4*sum4(v1)))<<16)
				}
			}
		}
	}
}

// sum4 is the sum of the four int8 in v.
func sum4(v uint32) int16 {
	return int16(int8(v)) + int16(int8(v>>8)) + int16(int8(v>>16)) + int16(int8(v>>24))
}

// q4_KGroupBytes is one block column of a packed Q4_K group (1184 bytes):
//   - the eight rows' d (16 bytes) and dmin (16 bytes) as f16;
//   - for each chunk k = 0..3 the eight rows' 6-bit scales [sc(2k),
//     sc(2k+1)] as byte pairs (16 bytes per chunk), then the same for the
//     mins;
//   - for each chunk k and piece g = 0..7, 32 bytes: four per row, whose
//     low nibbles are elements 4g, 4g+1 of sub-blocks 2k and 2k+1 and whose
//     high nibbles are elements 4g+2, 4g+3 of both (matching q8_KQuad).
//
// So one 32-byte load and two masks give, per row, the products of two
// elements of each of the two sub-blocks in the two int16 halves of a
// lane, which one multiply-add with the scale pairs turns into that row's
// scaled sum.
const q4_KGroupBytes = 32 + 64 + 64 + 4*8*32

func packQ4_KGroup(dst, src []byte, rowBytes int) {
	nb := rowBytes / q4_KBytes
	dst = dst[:nb*q4_KGroupBytes]
	for b := 0; b < nb; b++ {
		o := dst[b*q4_KGroupBytes : (b+1)*q4_KGroupBytes]
		for r := 0; r < packRows; r++ {
			x := src[r*rowBytes+b*q4_KBytes : r*rowBytes+(b+1)*q4_KBytes]
			packK4Row(o, r, x, x[16:144])
		}
	}
}

// packK4Row writes row r of a Q4_K-style block column o (q4_KGroupBytes):
// d, dmin and the 6-bit scales and mins from the block x, the nibbles from
// its 128 quant bytes qs.
func packK4Row(o []byte, r int, x, qs []byte) {
	packK4Head(o, r, x)
	for p := 0; p < 32; p += 2 { // pieces p = 8k+g and p+1: quant bytes 4p..4p+7
		// Bytes b0..b3 of a piece hold sub-block 2k (low nibbles) and
		// 2k+1 (high) at elements 4g..4g+3; re-pair them as documented:
		// low nibbles l0..l3, high h0..h3 -> [l0|l2<<4, l1|l3<<4,
		// h0|h2<<4, h1|h3<<4], two pieces a word (the nibbles l2, l3
		// move up into bytes 0 and 1 of their own piece's half).
		out := k4Pieces(binary.LittleEndian.Uint64(qs[4*p:]))
		binary.LittleEndian.PutUint32(o[160+32*p+4*r:], uint32(out))
		binary.LittleEndian.PutUint32(o[160+32*(p+1)+4*r:], uint32(out>>32))
	}
}

// packK4Head writes row r's d, dmin, 6-bit scales and mins of the
// Q4_K-style block x into the first 160 bytes of the block column o.
func packK4Head(o []byte, r int, x []byte) {
	copy(o[2*r:2*r+2], x[0:2])
	copy(o[16+2*r:16+2*r+2], x[2:4])
	for j := 0; j < 8; j++ {
		d, m := scaleMinK4(j, x[4:16])
		o[32+16*(j/2)+2*r+j%2] = d
		o[96+16*(j/2)+2*r+j%2] = m
	}
}

// q5_KGroupBytes is one block column of a packed Q5_K group (1440 bytes):
//   - Q4_K's first 160 bytes (q4_KGroupBytes: d, dmin, scales, mins);
//   - for each piece index g = 0..7, 160 bytes: the top two bits of the
//     high halves of the four pieces (k, g) (32 bytes: bits 2k and 2k+1
//     of byte 4r+i are bits 3 and 4 of quant v_B below), then the pieces
//     (k, g), k = 0..3, 32 bytes each, byte 4r+i = v_A | (v_B&7)<<5, where
//     v_A and v_B are the 5-bit quants of byte i of row r's piece (k, g) in
//     Q4_K's nibble layout (q8_KQuad's order): its low nibble with its high
//     bit, and its high nibble with its high bit.
//
// A half-piece (v_A or v_B of piece (k, g)) holds elements of lane g
// (elements 4g..4g+3 of every 32) of sub-blocks 2k and 2k+1, so
// llama.cpp's lane g of a row, summed over the block (vecdot_lanes.go),
// is one int32 lane of a vector summed over k: one accumulator per lane,
// the bytes of a lane one after another (a kernel reads the column in
// order; reading Q4_K's piece order, chunk-major, ran decode from DRAM
// 1.45x slower on a Zen3). v_A of all eight rows is one mask, v_B a shift
// and mask of the piece or'ed with a shift and mask of the planes: six
// vector operations per piece where nibbles and a bit plane took nine (the
// decode kernels are bound by their vector operations on a Zen3).
const q5_KGroupBytes = 160 + 8*(32+4*32)

func packQ5_KGroup(dst, src []byte, rowBytes int) {
	nb := rowBytes / q5_KBytes
	dst = dst[:nb*q5_KGroupBytes]
	for b := 0; b < nb; b++ {
		o := dst[b*q5_KGroupBytes : (b+1)*q5_KGroupBytes]
		for r := 0; r < packRows; r += 2 {
			x0 := src[r*rowBytes+b*q5_KBytes:][:q5_KBytes]
			x1 := src[(r+1)*rowBytes+b*q5_KBytes:][:q5_KBytes]
			packK4Head(o, r, x0)
			packK4Head(o, r+1, x1)
			packQ5_KRows(o, r, x0, x1)
		}
	}
}

// packQ5_KRows writes rows r and r+1 (r even) of a packed Q5_K block
// column o from their blocks x0 and x1: the planes and pieces of every
// lane, finished (the steps of fiveBits, the tests' reference, on the two
// rows' eight bytes in registers). Lanes go in pairs (g, g+1): one 64-bit load of a row's high
// bits gives both lanes' plane bytes, one of its quant bytes both lanes'
// pieces of a chunk (packK4Row's pairing). Done as those steps were
// (packK4Row into a scratch column, the plane bytes one by one, copies,
// then fiveBits over the copy; packQ5_KGroupSteps in the tests),
// BenchmarkPack Q5_K took 3.4-3.9 ms, this way 2.0-2.2 (Intel Xeon).
func packQ5_KRows(o []byte, r int, x0, x1 []byte) {
	const (
		lo4, bit  = 0x0F0F0F0F0F0F0F0F, 0x0101010101010101
		low3, two = 0x0707070707070707, 0x0303030303030303
		lowWord   = 0x00000000FFFFFFFF
	)
	_ = o[q5_KGroupBytes-1]
	qh0, qh1 := x0[16:48], x1[16:48]
	qs0, qs1 := x0[48:176], x1[48:176]
	for g := 0; g < 8; g += 2 {
		// Plane bytes of lanes g and g+1 for each row (q5_KGroupBytes):
		// bytes i < 2 interleave the even bits of qh[4g+i] and
		// qh[4g+i+2], bytes i >= 2 their odd bits. Then lane g's eight
		// bytes of rows r and r+1 in hA (and qA), lane g+1's in hB (qB).
		p0 := qhPlanes(binary.LittleEndian.Uint64(qh0[4*g:]))
		p1 := qhPlanes(binary.LittleEndian.Uint64(qh1[4*g:]))
		hA, hB := p0&lowWord|p1<<32, p0>>32|p1&^lowWord
		la := o[160+160*g:][:160]
		lb := o[160+160*(g+1):][:160]
		var eA, eB uint64
		for k := 0; k < 4; k++ {
			q0 := k4Pieces(binary.LittleEndian.Uint64(qs0[32*k+4*g:]))
			q1 := k4Pieces(binary.LittleEndian.Uint64(qs1[32*k+4*g:]))
			qA, qB := q0&lowWord|q1<<32, q0>>32|q1&^lowWord
			s := uint(2 * k)
			va := qA&lo4 | (hA>>s&bit)<<4
			vb := qA>>4&lo4 | (hA>>(s+1)&bit)<<4
			binary.LittleEndian.PutUint64(la[32+32*k+4*r:], va|(vb&low3)<<5)
			eA |= (vb >> 3 & two) << s
			va = qB&lo4 | (hB>>s&bit)<<4
			vb = qB>>4&lo4 | (hB>>(s+1)&bit)<<4
			binary.LittleEndian.PutUint64(lb[32+32*k+4*r:], va|(vb&low3)<<5)
			eB |= (vb >> 3 & two) << s
		}
		binary.LittleEndian.PutUint64(la[4*r:], eA)
		binary.LittleEndian.PutUint64(lb[4*r:], eB)
	}
}

// qhPlanes turns a Q5_K row's high-bit bytes qh[4g..4g+7] (v, little
// endian) into its plane bytes of lanes g (low 32 bits) and g+1 (high).
func qhPlanes(v uint64) uint64 {
	const half, ev, od = 0x0000FFFF0000FFFF, 0x0000555500005555, 0x0000AAAA0000AAAA
	l, h := v&half, v>>16&half
	return (l&ev | (h&ev)<<1) | (l>>1&ev|h&od)<<16
}

// k4Pieces re-pairs the nibbles of a Q4_K-style row's quant bytes
// 4p..4p+7 (v; p even) into its pieces p (low 32 bits) and p+1 (high), as
// packK4Row does.
func k4Pieces(v uint64) uint64 {
	const nib, half = 0x0F0F0F0F0F0F0F0F, 0x0000FFFF0000FFFF
	lo, hi := v&nib, v>>4&nib
	return (lo|lo>>12)&half | ((hi|hi>>12)&half)<<16
}

// q8_0QuadTok is the quad layout of Q8_0 activations for the VNNI kernels,
// whose byte dot products need no interleaving: per block column (288
// bytes) the four tokens' scales as float32 (16 bytes), -8 times the sums
// of their quants as int32 (16 bytes: the Q4_0 nibble offset, the start of
// the kernels' integer sums), the four tokens' 32 quants one after another
// (128 bytes), and the same quants plus 128 as unsigned bytes (128 bytes:
// VPDPBUSD wants one unsigned operand, and Q8_0 weights are signed).
var q8_0QuadTok = &actPacker{blockBytes: q8_0QuadTokBytes, pack: packQ8_0QuadTok}

const q8_0QuadTokBytes = 32 + 2*128

func packQ8_0QuadTok(dst, src []byte, rowBytes, n int) {
	nb := rowBytes / q8_0Bytes
	dst = dst[:nb*q8_0QuadTokBytes]
	for b := 0; b < nb; b++ {
		o := dst[b*q8_0QuadTokBytes : (b+1)*q8_0QuadTokBytes]
		for t := 0; t < 4; t++ {
			if t >= n {
				clear(o[4*t : 4*t+4])
				clear(o[16+4*t : 16+4*t+4])
				clear(o[32+32*t : 64+32*t])
				clear(o[160+32*t : 192+32*t])
				continue
			}
			y := src[t*rowBytes+b*q8_0Bytes : t*rowBytes+(b+1)*q8_0Bytes]
			binary.LittleEndian.PutUint32(o[4*t:], math.Float32bits(f16at(y, 0)))
			binary.LittleEndian.PutUint32(o[16+4*t:], uint32(-8*sumXor80(o[160+32*t:192+32*t], y[2:34])))
			copy(o[32+32*t:64+32*t], y[2:34])
		}
	}
}

// sumXor80 writes the 32 int8 quants q plus 128 (as bytes) to u and
// returns the sum of q, eight bytes at a time.
func sumXor80(u, q []byte) int32 {
	const flip, even = 0x8080808080808080, 0x00FF00FF00FF00FF
	var acc uint64 // four 16-bit lanes of sums of q+128
	for i := 0; i < 32; i += 8 {
		w := binary.LittleEndian.Uint64(q[i:]) ^ flip
		binary.LittleEndian.PutUint64(u[i:], w)
		acc += w&even + w>>8&even
	}
	acc += acc >> 32
	acc += acc >> 16
	return int32(acc&0xFFFF) - 128*32
}

// q8_KQuadTok is the quad layout of Q8_K activations for the VNNI Q4_K
// kernels: per block column (1104 bytes) the four tokens' d as float32 (16
// bytes), their sub-block sum pairs as in q8_KQuad (64 bytes), then the
// four tokens' 256 quants one after another (1024 bytes).
var q8_KQuadTok = &actPacker{blockBytes: q8_KQuadTokBytes, pack: packQ8_KQuadTok}

const q8_KQuadTokBytes = 16 + 64 + 4*qkK

func packQ8_KQuadTok(dst, src []byte, rowBytes, n int) {
	nb := rowBytes / q8_KBytes
	dst = dst[:nb*q8_KQuadTokBytes]
	for b := 0; b < nb; b++ {
		o := dst[b*q8_KQuadTokBytes : (b+1)*q8_KQuadTokBytes]
		for t := 0; t < 4; t++ {
			if t >= n {
				clear(o[4*t : 4*t+4])
				for k := 0; k < 4; k++ {
					clear(o[16+16*k+4*t : 16+16*k+4*t+4])
				}
				clear(o[80+256*t : 80+256*(t+1)])
				continue
			}
			y := src[t*rowBytes+b*q8_KBytes : t*rowBytes+(b+1)*q8_KBytes]
			copy(o[4*t:4*t+4], y[0:4])
			for k := 0; k < 4; k++ {
				p0 := q8KBsum(y, 4*k) + q8KBsum(y, 4*k+1)
				p1 := q8KBsum(y, 4*k+2) + q8KBsum(y, 4*k+3)
				binary.LittleEndian.PutUint16(o[16+16*k+4*t:], uint16(int16(p0)))
				binary.LittleEndian.PutUint16(o[16+16*k+4*t+2:], uint16(int16(p1)))
			}
			copy(o[80+256*t:80+256*(t+1)], y[4:4+qkK])
		}
	}
}

// q4_KGroupTok is the packed Q4_K layout of the VNNI kernels (1184 bytes per
// block column of eight rows): d and dmin as in q4_KGroupBytes; the 6-bit
// scale of sub-block j for the eight rows at 32+8j (bytes); the min pairs
// as in q4_KGroupBytes at 96; then for each chunk k and piece g the eight
// rows' quant bytes 32k+4g..32k+4g+3 unchanged (low nibbles: elements
// 4g..4g+3 of sub-block 2k, high: of sub-block 2k+1), so one VPDPBUSD per
// nibble half adds four products of one sub-block per row.
func packQ4_KGroupTok(dst, src []byte, rowBytes int) {
	nb := rowBytes / q4_KBytes
	dst = dst[:nb*q4_KGroupBytes]
	var qs [packRows]*[128]byte
	for b := 0; b < nb; b++ {
		o := dst[b*q4_KGroupBytes : (b+1)*q4_KGroupBytes]
		for r := 0; r < packRows; r++ {
			x := src[r*rowBytes+b*q4_KBytes : r*rowBytes+(b+1)*q4_KBytes]
			copy(o[2*r:2*r+2], x[0:2])
			copy(o[16+2*r:16+2*r+2], x[2:4])
			for j := 0; j < 8; j++ {
				d, m := scaleMinK4(j, x[4:16])
				o[32+8*j+r] = d
				o[96+16*(j/2)+2*r+j%2] = m
			}
			qs[r] = (*[128]byte)(x[16:144])
		}
		// Piece p = 8k+g holds the rows' quant bytes 4p..4p+3, row by
		// row: 32 bytes written in order per piece.
		for p := 0; p < 32; p++ {
			d := (*[32]byte)(o[160+32*p:])
			for r := 0; r < packRows; r++ {
				copy(d[4*r:4*r+4], qs[r][4*p:4*p+4])
			}
		}
	}
}

// q5_0GroupBytes is one block column of a packed Q5_0 group (the size of
// its eight blocks):
//   - the eight rows' f16 scales (16 bytes);
//   - two-bit planes (32 bytes): bits 2c and 2c+1 of byte 4r+i are bits 3
//     and 4 of row r's quant v_B of element 16+4c+i;
//   - four pieces c = 0..3 (32 bytes each): byte 4r+i = v_A | (v_B&7)<<5,
//     v_A the 5-bit quant (nibble + 16*high bit) of row r's element 4c+i,
//     v_B that of its element 16+4c+i (Q4_0's pieces: the low and high
//     nibbles of the same byte).
//
// Elements 4c+i and 16+4c+i of a row thus sit in lane r of pieces c and
// 4+c: the eight int32 lanes llama.cpp keeps per row (vecdot_lanes.go,
// lane k sums elements 4k..4k+3 of every block) come out one vector per
// lane, rows across it, v_A of eight rows in one mask and v_B in five
// operations (q5_KGroupBytes).
const q5_0GroupBytes = 16 + 32 + 4*32

func packQ5_0Group(dst, src []byte, rowBytes int) {
	const (
		lo4, bit  = 0x0F0F0F0F0F0F0F0F, 0x0101010101010101
		low3, two = 0x0707070707070707, 0x0303030303030303
	)
	nb := rowBytes / q5_0Bytes
	dst = dst[:nb*q5_0GroupBytes]
	for b := 0; b < nb; b++ {
		o := dst[b*q5_0GroupBytes : (b+1)*q5_0GroupBytes]
		// Two rows at a time, their bytes side by side in 64-bit words:
		// the scales, the planes, then fiveBits' steps in registers.
		for r := 0; r < packRows; r += 2 {
			x0 := src[r*rowBytes+b*q5_0Bytes:][:q5_0Bytes]
			x1 := src[(r+1)*rowBytes+b*q5_0Bytes:][:q5_0Bytes]
			binary.LittleEndian.PutUint32(o[2*r:], uint32(binary.LittleEndian.Uint16(x0))|uint32(binary.LittleEndian.Uint16(x1))<<16)
			h := q5_0Planes(uint64(binary.LittleEndian.Uint32(x0[2:])) | uint64(binary.LittleEndian.Uint32(x1[2:]))<<32)
			var e uint64
			for c := 0; c < 4; c++ {
				q := uint64(binary.LittleEndian.Uint32(x0[6+4*c:])) | uint64(binary.LittleEndian.Uint32(x1[6+4*c:]))<<32
				s := uint(c)
				va := q&lo4 | (h>>s&bit)<<4
				vb := q>>4&lo4 | (h>>(s+4)&bit)<<4
				binary.LittleEndian.PutUint64(o[48+32*c+4*r:], va|(vb&low3)<<5)
				e |= (vb >> 3 & two) << (2 * s)
			}
			binary.LittleEndian.PutUint64(o[16+4*r:], e)
		}
	}
}

// q5_0Planes gathers, in each 32-bit half of qh (a Q5_0 row's high bits),
// bits i, i+4, ..., i+28 into byte i (the plane bytes before fiveBits).
func q5_0Planes(qh uint64) uint64 {
	var out uint64
	for i := 0; i < 4; i++ {
		t := qh >> i & 0x1111111111111111
		t = (t | t>>3) & 0x0303030303030303
		t = (t | t>>6) & 0x000F000F000F000F
		t = (t | t>>12) & 0x000000FF000000FF
		out |= t << (8 * i)
	}
	return out
}
