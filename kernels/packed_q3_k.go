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
	var u [qkK]byte
	var sc [16]int8
	for b := 0; b < nb; b++ {
		o := dst[b*q3_KGroupBytes : (b+1)*q3_KGroupBytes]
		for r := 0; r < packRows; r++ {
			x := src[r*rowBytes+b*q3_KBytes : r*rowBytes+(b+1)*q3_KBytes]
			copy(o[2*r:2*r+2], x[108:110])
			unpackQ3KScales(x[96:108], &sc)
			for h := 0; h < 2; h++ {
				for k := 0; k < 4; k++ {
					v := o[16+16*(4*h+k)+2*r:]
					v[0] = byte(sc[4*k+h] - 32)
					v[1] = byte(sc[4*k+2+h] - 32)
				}
			}
			q3KUnsigned(x, &u)
			for g := 0; g < 8; g++ {
				// Pieces u(2k) and u(2k+1) of lane g, four bytes each
				// (bytes i = 0..3 of row r's slot), as in the quad's
				// low and high slots: elements 64k+4g+{0,1,32,33} and
				// +2; each byte <= 7, so the planes combine byte-wise.
				var pc [8]uint32
				for k := 0; k < 4; k++ {
					e := 64*k + 4*g
					v0 := binary.LittleEndian.Uint32(u[e:])
					v1 := binary.LittleEndian.Uint32(u[e+32:])
					pc[2*k], pc[2*k+1] = v0&0xFFFF|v1<<16, v0>>16|v1&0xFFFF0000
				}
				const low2, bit = 0x03030303, 0x01010101
				p := o[144+96*g:]
				binary.LittleEndian.PutUint32(p[4*r:], pc[0]|pc[1]<<3|(pc[2]&low2)<<6)
				binary.LittleEndian.PutUint32(p[32+4*r:], pc[3]|pc[4]<<3|(pc[5]&low2)<<6)
				binary.LittleEndian.PutUint32(p[64+4*r:], pc[6]|pc[7]<<3|(pc[2]>>2&bit)<<6|(pc[5]>>2&bit)<<7)
			}
		}
	}
}

// q3KUnsigned writes the 256 quants of the Q3_K block x plus 4 (0..7),
// element order: element 128c+32s+l has bits 2s..2s+1 of qs[32c+l] and,
// as bit 2, bit 4c+s of hmask[l] (ggml subtracts 4 where it is clear).
// Eight elements at a time, one byte each in a word.
func q3KUnsigned(x []byte, u *[qkK]byte) {
	hm, qs := x[0:32], x[32:96]
	const low2, bit = 0x0303030303030303, 0x0101010101010101
	for c := 0; c < 2; c++ {
		for l := 0; l < 32; l += 8 {
			q := binary.LittleEndian.Uint64(qs[32*c+l:])
			h := binary.LittleEndian.Uint64(hm[l:])
			for s := 0; s < 4; s++ {
				binary.LittleEndian.PutUint64(u[128*c+32*s+l:], q>>(2*s)&low2|(h>>(4*c+s)&bit)<<2)
			}
		}
	}
}
