package kernels

import "math"

// The kernels of llama.cpp's tiled flash attention (ggml-cpu's
// ggml_compute_forward_flash_attn_ext_tiled), which llama.cpp runs for a
// pass of at least 64 query rows over an f16 or f32 cache: queries in f32,
// cached rows widened to f32 in tiles of AttnTileKeys keys counted from
// position 0, and per query and tile one online-softmax step.
//
// Per query q and key k of a tile, in llama.cpp's order:
//   - the score is one float32 FMA chain over the head dimension from +0,
//     rounded, then multiplied by the scale (simd_gemm, ggml_vec_scale_f32);
//   - the tile's maximum over the keys q sees (the others are -Inf), and
//     when it raises the running maximum M, the accumulator and the sum S
//     are multiplied by expf(M_old - M_new) (libm's expf);
//   - the weights p = v_expf(score - M) (ggml_v_expf, 8 keys at a time),
//     summed per group of 8 keys as ((p0+p4)+(p2+p6))+((p1+p5)+(p3+p7)) in
//     float32, the groups in float64, and S = float32(float64(S) + sum)
//     (ggml_vec_soft_max_f32);
//   - the accumulator takes one FMA chain over the tile's keys in order
//     (simd_gemm), the keys q does not see with weight +0.
//
// A query's result depends only on its own scores and the tile boundaries,
// so these kernels put queries in the vector lanes (llama.cpp puts keys
// there, with the same chains): the queries of a block of tokens and the
// query heads of one KV head are transposed once (qt[d*nq+q]), the scores
// of a tile are s[key*nq+q], the accumulators acc[d*nq+q], and the cached
// rows stay in their row layout, widened to f32. No per-tile transpose, no
// horizontal sums: the group sums of 8 keys are vertical adds of 8 rows.

// AttnTileKeys is the keys of one tile (llama.cpp's GGML_FA_TILE_KV).
const AttnTileKeys = 64

// AttnTileQK sets s[key*nq+q] (keys < keys) to the scores of the nq
// queries qt[d*nq+q] (nq a multiple of 8, d < dim) against the key rows
// k[key*kStride:][:dim], each one float32 FMA chain over d from +0, times
// scale. Rows of s past keys, where s has room for them, may be
// overwritten, and rows of k past keys read (implementations compute
// whole groups of keys).
func AttnTileQK(s, qt []float32, nq int, k []float32, kStride, keys, dim int, scale float32) {
	if keys <= 0 || nq <= 0 {
		return
	}
	if nq%8 != 0 {
		panic("kernels: AttnTileQK needs a multiple of 8 queries")
	}
	_ = s[keys*nq-1]
	_ = qt[dim*nq-1]
	_ = k[(keys-1)*kStride+dim-1]
	active.attnTileQK(s, qt, nq, k, kStride, keys, dim, scale)
}

func attnTileQKGeneric(s, qt []float32, nq int, k []float32, kStride, keys, dim int, scale float32) {
	for key := 0; key < keys; key++ {
		kr := k[key*kStride : key*kStride+dim]
		sr := s[key*nq : (key+1)*nq]
		for q := range sr {
			var acc float32
			for d, kv := range kr {
				acc = fma32(kv, qt[d*nq+q], acc)
			}
			sr[q] = acc * scale
		}
	}
}

// AttnTileSoftmax is the online-softmax step of a tile for nq queries (a
// multiple of 8): query q sees keys first[q]..last[q] of the tile's keys
// (none when last[q] < first[q]); s[key*nq+q] holds its scores and becomes
// its weights (0 for the keys it does not see). m and l are the queries'
// running maxima and sums; ms gets the factor each query's accumulator is
// to be multiplied by (1 where the maximum did not rise or the query sees
// no key of the tile). Rows of s past keys, where s has room for them, may
// be overwritten.
func AttnTileSoftmax(s []float32, nq, keys int, first, last []int32, m, l, ms []float32) {
	if keys <= 0 || nq <= 0 {
		return
	}
	if nq%8 != 0 || keys > AttnTileKeys {
		panic("kernels: AttnTileSoftmax needs a multiple of 8 queries and at most AttnTileKeys keys")
	}
	_ = s[keys*nq-1]
	_, _, _, _, _ = first[nq-1], last[nq-1], m[nq-1], l[nq-1], ms[nq-1]
	active.attnTileSoftmax(s, nq, keys, first, last, m, l, ms)
}

func attnTileSoftmaxGeneric(s []float32, nq, keys int, first, last []int32, m, l, ms []float32) {
	negInf := float32(math.Inf(-1))
	for q := 0; q < nq; q++ {
		lo, hi := max(int(first[q]), 0), min(int(last[q]), keys-1)
		tmax := negInf
		for key := lo; key <= hi; key++ {
			if x := s[key*nq+q]; !(tmax > x) {
				tmax = x
			}
		}
		ms[q] = 1
		if tmax == negInf {
			// No key of the tile (llama.cpp skips the row for it).
			for key := 0; key < keys; key++ {
				s[key*nq+q] = 0
			}
			continue
		}
		mOld := m[q]
		mNew := max(mOld, tmax)
		if mNew > mOld {
			ms[q] = expf32(mOld - mNew)
			l[q] *= ms[q]
		}
		m[q] = mNew
		var sum float64
		for g := 0; g < keys; g += 8 {
			var p [8]float32 // hidden keys and those past keys: -Inf, v_expf's +0
			for i := range p {
				if key := g + i; key >= lo && key <= hi {
					p[i] = vexpf(s[key*nq+q] - mNew)
				}
				if key := g + i; key < keys {
					s[key*nq+q] = p[i]
				}
			}
			sum += float64(((p[0] + p[4]) + (p[2] + p[6])) + ((p[1] + p[5]) + (p[3] + p[7])))
		}
		l[q] = float32(float64(l[q]) + sum)
	}
}

// AttnTileAccV multiplies the accumulators acc[d*nq+q] (d < dim, nq a
// multiple of 8) by ms[q], then adds the weights s[key*nq+q] times the
// value rows v[key*vStride:][:dim], one FMA chain per element over the
// keys in order. With keys 0 it only multiplies (s and v may be nil).
func AttnTileAccV(acc []float32, nq int, s, v []float32, vStride, keys, dim int, ms []float32) {
	if nq <= 0 || dim <= 0 {
		return
	}
	if nq%8 != 0 {
		panic("kernels: AttnTileAccV needs a multiple of 8 queries")
	}
	_ = acc[dim*nq-1]
	_ = ms[nq-1]
	if keys > 0 {
		_ = s[keys*nq-1]
		_ = v[(keys-1)*vStride+dim-1]
	}
	active.attnTileAccV(acc, nq, s, v, vStride, keys, dim, ms)
}

func attnTileAccVGeneric(acc []float32, nq int, s, v []float32, vStride, keys, dim int, ms []float32) {
	for d := 0; d < dim; d++ {
		ar := acc[d*nq : (d+1)*nq]
		for q := range ar {
			a := ar[q] * ms[q]
			for key := 0; key < keys; key++ {
				a = fma32(v[key*vStride+d], s[key*nq+q], a)
			}
			ar[q] = a
		}
	}
}

// VExpf is one lane of ggml_v_expf (AVX2+FMA), the exponential llama.cpp's
// vectorised softmax and SiLU take (for references in tests elsewhere).
func VExpf(x float32) float32 { return vexpf(x) }
