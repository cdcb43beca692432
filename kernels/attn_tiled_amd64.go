//go:build !purego

package kernels

import "math"

// AVX2 versions of the tiled attention kernels (attn_tiled.go): the
// queries' vectors go to the assembly three at a time (then two or one),
// strides in bytes. The avx512vnni set copies them from the AVX2 set; the
// avx512zmm set replaces QK and AccV (fillZMMAttnTiled).
func fillAVX2AttnTiled(s *kernelSet) {
	s.attnTileQK = attnTileQKAsm
	s.attnTileSoftmax = attnTileSoftmaxAsm
	s.attnTileAccV = attnTileAccVAsm
	s.transposeF32 = transposeF32Asm // transpose_amd64.go
}

//go:noescape
func attnTileQK1AVX2(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)

//go:noescape
func attnTileQK2AVX2(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)

//go:noescape
func attnTileQK3AVX2(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)

//go:noescape
func attnTileAccV1AVX2(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)

//go:noescape
func attnTileAccV2AVX2(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)

//go:noescape
func attnTileAccV3AVX2(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)

//go:noescape
func attnTileMaskMaxAVX2(s *float32, nqBytes, nv, keys, keys8 int, first, last *int32, tmax *float32)

//go:noescape
func attnTileExpAVX2(s *float32, nqBytes, nv, groups int, m, l *float32)

// attnTileQKAsm runs whole groups of 4 keys in the assembly (the tile's
// rows past keys are scratch), query vectors three at a time.
func attnTileQKAsm(s, qt []float32, nq int, k []float32, kStride, keys, dim int, scale float32) {
	keys4 := (keys + 3) &^ 3
	if dim == 0 || len(s) < keys4*nq || len(k) < (keys4-1)*kStride+dim {
		attnTileQKGeneric(s, qt, nq, k, kStride, keys, dim, scale)
		return
	}
	for v := 0; v < nq/8; {
		switch n := nq/8 - v; {
		case n >= 3:
			attnTileQK3AVX2(&s[8*v], &qt[8*v], 4*nq, &k[0], 4*kStride, keys4, dim, scale)
			v += 3
		case n == 2:
			attnTileQK2AVX2(&s[8*v], &qt[8*v], 4*nq, &k[0], 4*kStride, keys4, dim, scale)
			v += 2
		default:
			attnTileQK1AVX2(&s[8*v], &qt[8*v], 4*nq, &k[0], 4*kStride, keys4, dim, scale)
			v++
		}
	}
}

// attnTileSoftmaxAsm masks and takes each query's tile maximum in the
// assembly (over whole groups of 8 keys, the rows past keys set to -Inf),
// updates the running maxima and sums here (libm's expf), then takes the
// weights and their sums in the assembly.
func attnTileSoftmaxAsm(s []float32, nq, keys int, first, last []int32, m, l, ms []float32) {
	attnTileSoftmaxWith(attnTileMaskMaxAsm, attnTileExpAsm, s, nq, keys, first, last, m, l, ms)
}

// attnTileSoftmaxZMMAsm is attnTileSoftmaxAsm with the masks, maxima,
// weights and sums on 16 queries a vector (attnTileMaskMaxZMMAsm,
// attnTileExpZMMAsm).
func attnTileSoftmaxZMMAsm(s []float32, nq, keys int, first, last []int32, m, l, ms []float32) {
	attnTileSoftmaxWith(attnTileMaskMaxZMMAsm, attnTileExpZMMAsm, s, nq, keys, first, last, m, l, ms)
}

// attnTileMaskMaxAsm masks the keys each of nq queries (a multiple of 8)
// does not see and takes their maxima into ms, 8 queries a vector.
func attnTileMaskMaxAsm(s []float32, nq, keys, keys8 int, first, last []int32, ms []float32) {
	attnTileMaskMaxAVX2(&s[0], 4*nq, nq/8, keys, keys8, &first[0], &last[0], &ms[0])
}

// attnTileMaskMaxZMMAsm is attnTileMaskMaxAsm with 16 queries a vector
// and an odd last eight on the AVX2 kernel.
func attnTileMaskMaxZMMAsm(s []float32, nq, keys, keys8 int, first, last []int32, ms []float32) {
	nv := nq / 8
	if nv >= 2 {
		attnTileMaskMaxAVX512(&s[0], 4*nq, nv/2, keys, keys8, &first[0], &last[0], &ms[0])
	}
	if nv%2 == 1 {
		o := nq - 8
		attnTileMaskMaxAVX2(&s[o], 4*nq, 1, keys, keys8, &first[o], &last[o], &ms[o])
	}
}

// attnTileExpAsm takes the weights and their sums of nq queries (a
// multiple of 8) over keys8 keys, 8 queries a vector.
func attnTileExpAsm(s []float32, nq, keys8 int, m, l []float32) {
	attnTileExpAVX2(&s[0], 4*nq, nq/8, keys8/8, &m[0], &l[0])
}

// attnTileExpZMMAsm is attnTileExpAsm with 16 queries a vector
// (attn_tiled_avx512_amd64.s) and an odd last eight on the AVX2 kernel:
// the same operations in each query's lane.
func attnTileExpZMMAsm(s []float32, nq, keys8 int, m, l []float32) {
	nv := nq / 8
	if nv >= 2 {
		attnTileExpAVX512(&s[0], 4*nq, nv/2, keys8/8, &m[0], &l[0])
	}
	if nv%2 == 1 {
		o := nq - 8
		attnTileExpAVX2(&s[o], 4*nq, 1, keys8/8, &m[o], &l[o])
	}
}

// attnTileSoftmaxWith is the masked softmax step of the assembly sets,
// maskMax masking and taking the tile's maxima, exp the weights and
// their sums.
func attnTileSoftmaxWith(maskMax func(s []float32, nq, keys, keys8 int, first, last []int32, ms []float32),
	exp func(s []float32, nq, keys8 int, m, l []float32),
	s []float32, nq, keys int, first, last []int32, m, l, ms []float32) {
	keys8 := (keys + 7) &^ 7
	if len(s) < keys8*nq {
		attnTileSoftmaxGeneric(s, nq, keys, first, last, m, l, ms)
		return
	}
	maskMax(s, nq, keys, keys8, first, last, ms)
	negInf := float32(math.Inf(-1))
	for q := 0; q < nq; q++ {
		tmax := ms[q]
		ms[q] = 1
		if tmax == negInf {
			continue
		}
		mOld := m[q]
		mNew := max(mOld, tmax)
		if mNew > mOld {
			ms[q] = expf32(mOld - mNew)
			l[q] *= ms[q]
		}
		m[q] = mNew
	}
	exp(s, nq, keys8, m, l)
}

// attnTileAccVAsm runs whole groups of 4 value dimensions in the assembly
// and the rest in the generic code, query vectors three at a time.
func attnTileAccVAsm(acc []float32, nq int, s, v []float32, vStride, keys, dim int, ms []float32) {
	dim4 := dim &^ 3
	if dim4 < dim {
		attnTileAccVGeneric(acc, nq, s, v, vStride, keys, dim, ms)
		return
	}
	if keys == 0 { // only the rescale: s and v are not read
		s, v = acc, acc
	}
	for w := 0; w < nq/8; {
		switch n := nq/8 - w; {
		case n >= 3:
			attnTileAccV3AVX2(&acc[8*w], 4*nq, &s[8*w], &v[0], 4*vStride, keys, dim4, &ms[8*w])
			w += 3
		case n == 2:
			attnTileAccV2AVX2(&acc[8*w], 4*nq, &s[8*w], &v[0], 4*vStride, keys, dim4, &ms[8*w])
			w += 2
		default:
			attnTileAccV1AVX2(&acc[8*w], 4*nq, &s[8*w], &v[0], 4*vStride, keys, dim4, &ms[8*w])
			w++
		}
	}
}

// fillZMMAttnTiled gives the avx512zmm set the tiled attention's QK and
// AccV kernels on 16-lane vectors (attn_tiled_avx512_amd64.s): a block's
// 64 queries in four registers, each key or value element broadcast once
// for them all.
func fillZMMAttnTiled(s *kernelSet) {
	s.attnTileQK = attnTileQKAVX512Asm
	s.attnTileSoftmax = attnTileSoftmaxZMMAsm
	s.attnTileAccV = attnTileAccVAVX512Asm
}

//go:noescape
func attnTileExpAVX512(s *float32, nqBytes, nv, groups int, m, l *float32)

//go:noescape
func attnTileMaskMaxAVX512(s *float32, nqBytes, nv, keys, keys8 int, first, last *int32, tmax *float32)

//go:noescape
func attnTileQK1AVX512(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)

//go:noescape
func attnTileQK4AVX512(s, qt *float32, nqBytes int, k *float32, kStride, keys4, dim int, scale float32)

//go:noescape
func attnTileAccV1AVX512(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)

//go:noescape
func attnTileAccV4AVX512(acc *float32, nqBytes int, s, v *float32, vStride, keys, dim4 int, ms *float32)

// attnTileQKAVX512Asm is attnTileQKAsm with the queries 64 (then 16) at a
// time on 16-lane vectors, a last 8 on the AVX2 kernel.
func attnTileQKAVX512Asm(s, qt []float32, nq int, k []float32, kStride, keys, dim int, scale float32) {
	keys4 := (keys + 3) &^ 3
	if dim == 0 || len(s) < keys4*nq || len(k) < (keys4-1)*kStride+dim {
		attnTileQKGeneric(s, qt, nq, k, kStride, keys, dim, scale)
		return
	}
	for q := 0; q < nq; {
		switch n := nq - q; {
		case n >= 64:
			attnTileQK4AVX512(&s[q], &qt[q], 4*nq, &k[0], 4*kStride, keys4, dim, scale)
			q += 64
		case n >= 16:
			attnTileQK1AVX512(&s[q], &qt[q], 4*nq, &k[0], 4*kStride, keys4, dim, scale)
			q += 16
		default:
			attnTileQK1AVX2(&s[q], &qt[q], 4*nq, &k[0], 4*kStride, keys4, dim, scale)
			q += 8
		}
	}
}

// attnTileAccVAVX512Asm is attnTileAccVAsm with the queries 64 (then 16)
// at a time on 16-lane vectors, a last 8 on the AVX2 kernel.
func attnTileAccVAVX512Asm(acc []float32, nq int, s, v []float32, vStride, keys, dim int, ms []float32) {
	dim4 := dim &^ 3
	if dim4 < dim {
		attnTileAccVGeneric(acc, nq, s, v, vStride, keys, dim, ms)
		return
	}
	if keys == 0 { // only the rescale: s and v are not read
		s, v = acc, acc
	}
	for q := 0; q < nq; {
		switch n := nq - q; {
		case n >= 64:
			attnTileAccV4AVX512(&acc[q], 4*nq, &s[q], &v[0], 4*vStride, keys, dim4, &ms[q])
			q += 64
		case n >= 16:
			attnTileAccV1AVX512(&acc[q], 4*nq, &s[q], &v[0], 4*vStride, keys, dim4, &ms[q])
			q += 16
		default:
			attnTileAccV1AVX2(&acc[q], 4*nq, &s[q], &v[0], 4*vStride, keys, dim4, &ms[q])
			q += 8
		}
	}
}
