package kernels

import "encoding/binary"

// q3_KGroupBytes is one block column of a packed Q3_K group (912 bytes):
//   - the eight rows' d as f16 (16 bytes);
//   - the sixteen 6-bit scales of each row minus 32, as int8, in eight
//     16-byte vectors of pairs: vector 4h+k holds for row r the bytes
//     [sc(4k+h), sc(4k+2+h)] at 2r (128 bytes);
//   - for each lane g = 0..7 three 32-byte planes P0, P1, P2 (96 bytes)
//     holding eight 3-bit "pieces" u0..u7 per byte: byte 4r+i of u(2k) is
//     the unsigned quant q+4 (0..7) of row r at byte i of q8_KQuad's low
//     slot of chunk k and lane g (elements 64k+4g, 64k+4g+1, 64k+32+4g,
//     64k+32+4g+1), u(2k+1) the same for the high slot (+2), and
//     P0 = u0 | u1<<3 | (u2&3)<<6, P1 = u3 | u4<<3 | (u5&3)<<6,
//     P2 = u6 | u7<<3 | (u2>>2)<<6 | (u5>>2)<<7.
//
// ggml_vec_dot_q3_K_q8_K (AVX2) sums, per row and super-block, eight int32
// lanes (lane g: elements 4g..4g+3 of every 32, times the scale of their
// 16-element sub-block) and adds them into eight float lanes with one FMA
// by d_w*d_a (vecDotQ3_KQ8_KGeneric). Here the low and high slot of lane g
// and chunk k of all eight rows are two byte products against broadcast
// activation slots whose int16 pairs, added, minus 4 times the slots'
// activation sums (the quants are q+4; the sums follow the quad's block
// columns, q8_KQuad), are the two sub-blocks' sums, one multiply-add by
// the scale pairs away from the lane's int32: no per-row shuffles of
// scales or high bits, about half the row kernel's vector operations, and
// the 3-bit quants unpacked with one to five operations each from the
// dense planes.
const q3_KGroupBytes = 16 + 128 + 8*96

func packQ3_KGroup(dst, src []byte, rowBytes int) {
	nb := rowBytes / q3_KBytes
	dst = dst[:nb*q3_KGroupBytes]
	var sc0, sc1 [16]int8
	for b := 0; b < nb; b++ {
		o := dst[b*q3_KGroupBytes : (b+1)*q3_KGroupBytes]
		// Two rows at a time: their scale pairs side by side in one
		// 32-bit word per vector, their planes in 64-bit words.
		for r := 0; r < packRows; r += 2 {
			x0 := src[r*rowBytes+b*q3_KBytes:][:q3_KBytes]
			x1 := src[(r+1)*rowBytes+b*q3_KBytes:][:q3_KBytes]
			binary.LittleEndian.PutUint32(o[2*r:], uint32(binary.LittleEndian.Uint16(x0[108:]))|uint32(binary.LittleEndian.Uint16(x1[108:]))<<16)
			unpackQ3KScales(x0[96:108], &sc0)
			unpackQ3KScales(x1[96:108], &sc1)
			for h := 0; h < 2; h++ {
				for k := 0; k < 4; k++ {
					i, j := 4*k+h, 4*k+2+h
					v := uint32(uint8(sc0[i]-32)) | uint32(uint8(sc0[j]-32))<<8 |
						uint32(uint8(sc1[i]-32))<<16 | uint32(uint8(sc1[j]-32))<<24
					binary.LittleEndian.PutUint32(o[16+16*(4*h+k)+2*r:], v)
				}
			}
			packQ3KRows(o, r, x0, x1)
		}
	}
}

// packQ3KRows writes the planes of rows r and r+1 (r even) of a Q3_K
// block column o from their blocks x0 and x1 (q3KPlanes), each lane's
// two rows in one 64-bit store.
func packQ3KRows(o []byte, r int, x0, x1 []byte) {
	const lowWord = 0x00000000FFFFFFFF
	for g := 0; g < 8; g += 2 {
		a0, a1, a2 := q3KPlanes(x0, g)
		b0, b1, b2 := q3KPlanes(x1, g)
		pg, pn := o[144+96*g:][:96], o[144+96*(g+1):][:96]
		binary.LittleEndian.PutUint64(pg[4*r:], a0&lowWord|b0<<32)
		binary.LittleEndian.PutUint64(pg[32+4*r:], a1&lowWord|b1<<32)
		binary.LittleEndian.PutUint64(pg[64+4*r:], a2&lowWord|b2<<32)
		binary.LittleEndian.PutUint64(pn[4*r:], a0>>32|b0&^lowWord)
		binary.LittleEndian.PutUint64(pn[32+4*r:], a1>>32|b1&^lowWord)
		binary.LittleEndian.PutUint64(pn[64+4*r:], a2>>32|b2&^lowWord)
	}
}

// q3KPlanes returns the planes P0, P1, P2 of lanes g (low 32 bits) and g+1
// (high) of the Q3_K block x (g even).
//
// Element 128c+32s+l of a block has bits 2s..2s+1 of qs[32c+l] and, as
// bit 2 of q+4, bit 4c+s of hmask[l]; chunk k = 2c+kk holds s = 2kk and
// 2kk+1. So the unsigned quants of l = 4g..4g+7 at one s are one word of
// bytes (us below), and lane g's low slot of chunk k is bytes 0-1 of the
// word at s = 2kk and bytes 0-1 of the word at s = 2kk+1, its high slot
// bytes 2-3 of both (lane g+1: bytes 4-7). Each byte is <= 7, so the
// planes combine byte-wise.
func q3KPlanes(x []byte, g int) (p0, p1, p2 uint64) {
	hm, qs := x[0:32], x[32:96]
	const low2, bit = 0x0303030303030303, 0x0101010101010101
	const pair = 0x0000FFFF0000FFFF
	h := binary.LittleEndian.Uint64(hm[4*g:])
	var lo, hi [4]uint64 // per chunk k, lanes g and g+1
	for c := 0; c < 2; c++ {
		q := binary.LittleEndian.Uint64(qs[32*c+4*g:])
		hc := h >> (4 * c) // constant shifts below: Go's variable ones cost more
		u0 := q&low2 | (hc&bit)<<2
		u1 := q>>2&low2 | (hc>>1&bit)<<2
		u2 := q>>4&low2 | (hc>>2&bit)<<2
		u3 := q>>6&low2 | (hc>>3&bit)<<2
		lo[2*c], hi[2*c] = u0&pair|(u1&pair)<<16, u0>>16&pair|u1&^pair
		lo[2*c+1], hi[2*c+1] = u2&pair|(u3&pair)<<16, u2>>16&pair|u3&^pair
	}
	p0 = lo[0] | hi[0]<<3 | (lo[1]&low2)<<6
	p1 = hi[1] | lo[2]<<3 | (hi[2]&low2)<<6
	p2 = lo[3] | hi[3]<<3 | (lo[1]>>2&bit)<<6 | (hi[2]>>2&bit)<<7
	return p0, p1, p2
}
