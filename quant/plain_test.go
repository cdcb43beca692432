package quant

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
)

// Plain ports of ggml's reference quantizers, written line by line after the
// C code with no shortcuts. The quantizers in this package take faster
// paths (integer scans, branch-free rounding) where they can prove the
// result the same; these are what the tests hold them to, on inputs built
// to reach both the fast paths and every fallback.

func plainQuantizeRowQ4_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk4; i++ {
		x := src[i*qk4 : (i+1)*qk4]
		b := dst[i*q4_0Bytes : (i+1)*q4_0Bytes]
		var amax, max float32
		for _, v := range x {
			if a := absF32(v); amax < a {
				amax, max = a, v
			}
		}
		d := max / -8
		var id float32
		if d != 0 {
			id = 1 / d
		}
		binary.LittleEndian.PutUint16(b, FP32ToFP16(d))
		qs := b[2 : 2+qk4/2]
		for j := range qs {
			lo := clampCode(truncInt8(float32(x[j]*id)+8.5), 15)
			hi := clampCode(truncInt8(float32(x[j+qk4/2]*id)+8.5), 15)
			qs[j] = lo | hi<<4
		}
	}
}

// plainRoundf is roundf then C's (int8_t) cast, through math.Round.
func plainRoundf(v float32) int8 { return truncInt8(float32(math.Round(float64(v)))) }

func plainQ8Scale(x []float32) (d, id float32) {
	var amax float32
	for _, v := range x {
		a := absF32(v)
		if amax > a { // C's MAX(amax, a): a NaN a replaces amax
		} else {
			amax = a
		}
	}
	d = amax / 127
	if d != 0 {
		id = 1 / d
	}
	return d, id
}

func plainQuantizeRowQ8_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk8; i++ {
		x := src[i*qk8 : (i+1)*qk8]
		b := dst[i*q8_0Bytes : (i+1)*q8_0Bytes]
		d, id := plainQ8Scale(x)
		binary.LittleEndian.PutUint16(b, FP32ToFP16(d))
		for j, v := range x {
			b[2+j] = byte(plainRoundf(v * id))
		}
	}
}

func plainQuantizeRowQ8_1(src []float32, dst []byte) {
	for i := 0; i < len(src)/qk8; i++ {
		x := src[i*qk8 : (i+1)*qk8]
		b := dst[i*q8_1Bytes : (i+1)*q8_1Bytes]
		d, id := plainQ8Scale(x)
		binary.LittleEndian.PutUint16(b, FP32ToFP16(d))
		var sum int32
		for j, v := range x {
			q := plainRoundf(v * id)
			b[4+j] = byte(q)
			sum += int32(q)
		}
		binary.LittleEndian.PutUint16(b[2:], FP32ToFP16(float32(sum)*d))
	}
}

// adversarialRows returns rows of 256 values meant to reach every branch of
// the quantizers: ordinary data at many scales, ties in magnitude with
// either sign first, all-zero and signed-zero blocks, subnormal data (whose
// scales round coarsely, or whose inverse overflows), huge data near
// FLT_MAX, values on the quantization grid (exact halves after scaling),
// and infinities and NaNs dropped into otherwise normal blocks.
func adversarialRows(nrows int, seed uint64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	rows := make([][]float32, nrows)
	scales := []float64{1, 0.02, 1e-3, 1e4, 1e-38, 1e-40, 3e-44, 1e36, 3e37, 1e30}
	for k := range rows {
		x := make([]float32, 256)
		s := scales[r.IntN(len(scales))]
		switch k % 9 {
		case 0, 1: // normal data
			for i := range x {
				x[i] = float32(r.NormFloat64() * s)
			}
		case 2: // heavy tails
			for i := range x {
				x[i] = float32(r.NormFloat64() * math.Exp(2*r.NormFloat64()) * s)
			}
		case 3: // a small grid, so that scaled values land on halves and ties abound
			m := float64(1 + r.IntN(64))
			for i := range x {
				x[i] = float32(float64(r.IntN(33)-16) / m * s)
			}
		case 4: // equal magnitudes of both signs
			for i := range x {
				x[i] = float32(s)
				if r.IntN(2) == 0 {
					x[i] = -x[i]
				}
			}
		case 5: // zeros, negative zeros and a lone value
			for i := range x {
				if r.IntN(2) == 0 {
					x[i] = float32(math.Copysign(0, -1))
				}
			}
			if r.IntN(2) == 0 {
				x[r.IntN(256)] = float32(r.NormFloat64() * s)
			}
		case 6: // one sign only
			for i := range x {
				x[i] = float32((1 + r.Float64()) * s)
			}
		case 7: // non-finite values in normal data
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			specials := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32}
			for range 1 + r.IntN(3) {
				x[r.IntN(256)] = specials[r.IntN(len(specials))]
			}
		case 8: // random bit patterns (mostly huge or tiny, some NaN)
			for i := range x {
				x[i] = math.Float32frombits(r.Uint32())
			}
		}
		rows[k] = x
	}
	return rows
}
