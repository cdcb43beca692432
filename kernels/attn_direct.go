package kernels

import "github.com/gollm/gollm/quant"

// The long-context attention kernels over key and value rows read straight
// from an f16 cache, for models with up to 8 query heads per KV head (none,
// e.g. Llama-2-7B, 4, Llama-3-8B, 8, TinyLlama). A widened f32 tile
// (AttnWidenK) serves the query heads of its KV head; with few of them,
// widening (a write and a read of twice the cache's bytes through L1/L2)
// took most of a long-context decode step's attention time. These compute
// what AttnScores and AttnAccumV compute on the widened rows, with the
// same lanes and the same operations in the same order (f16 to f32 is
// exact), so the bits are the tile path's.

// AttnScoresF16 is AttnScores with the key rows read from an f16 cache:
// s[g*sStride+r] = q[g*dim:][:dim] · k[(g/group)*kHead+r*kStride:][:dim]
// for every head g < heads and row r < rows (exactly rows: no padding rows
// are read or written). Each group of group consecutive heads shares its
// slice of the cached rows (GQA; group 1: each head its own); kHead is the
// distance between the slices (the head size; 0 repeats one slice). dim
// must be a multiple of 8. The cache lines of pf (nil for none: the rows
// the caller reads next) are asked for (AttnPrefetch's hint) while the
// scores are computed, a share before each pass over the heads where the
// kernel makes several.
func AttnScoresF16(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int, pf []uint16) {
	if heads <= 0 || rows <= 0 || dim <= 0 {
		return
	}
	if dim%8 != 0 || sStride < rows || kStride < dim || kHead < 0 || group <= 0 {
		panic("kernels: AttnScoresF16 needs dim%8 == 0, sStride >= rows, kStride >= dim, kHead >= 0 and group > 0")
	}
	_ = s[(heads-1)*sStride+rows-1]
	_ = q[heads*dim-1]
	_ = k[(heads-1)/group*kHead+(rows-1)*kStride+dim-1]
	active.attnScoresF16(s, sStride, q, k, kStride, kHead, group, heads, rows, dim, pf)
}

// AttnAccumVF16 is AttnAccumV with the value rows read from an f16 cache:
// acc[g*dim+d] = acc[g*dim+d]*alpha[g] + Σ_r p[g*pStride+r] *
// v[(g/group)*vHead+r*vStride+d], the sum over r = 0..rows-1 in order,
// each step one FMA (group and vHead as AttnScoresF16's). dim must be a
// multiple of 8. Rows split over several calls give one call's bits when
// the later calls pass alpha 1. pf as AttnScoresF16's.
func AttnAccumVF16(acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32, pf []uint16) {
	if heads <= 0 || dim <= 0 {
		return
	}
	if dim%8 != 0 || rows < 0 || vHead < 0 || group <= 0 || (rows > 0 && (pStride < rows || vStride < dim)) {
		panic("kernels: AttnAccumVF16 needs dim%8 == 0, pStride >= rows, vStride >= dim, vHead >= 0 and group > 0")
	}
	_ = acc[heads*dim-1]
	_ = alpha[heads-1]
	if rows > 0 {
		_ = p[(heads-1)*pStride+rows-1]
		_ = v[(heads-1)/group*vHead+(rows-1)*vStride+dim-1]
	}
	active.attnAccumVF16(acc, p, pStride, v, vStride, vHead, group, heads, rows, dim, alpha, pf)
}

// attnScoresF16Generic is attnScoresGeneric's arithmetic on f16 rows (no
// prefetch: pf is ignored).
func attnScoresF16Generic(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int, _ []uint16) {
	for g := 0; g < heads; g++ {
		qg, kg := q[g*dim:(g+1)*dim], k[g/group*kHead:]
		for r := 0; r < rows; r++ {
			kr := kg[r*kStride : r*kStride+dim]
			var acc [8]float32
			for d := 0; d < dim; d += 8 {
				for l := range acc {
					acc[l] = fma32(quant.FP16ToFP32(kr[d+l]), qg[d+l], acc[l])
				}
			}
			s[g*sStride+r] = transposeSum8(&acc)
		}
	}
}

// attnAccumVF16Generic is attnAccumVGeneric's arithmetic on f16 rows (no
// prefetch).
func attnAccumVF16Generic(acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32, _ []uint16) {
	for g := 0; g < heads; g++ {
		ag, pg, vg := acc[g*dim:(g+1)*dim], p[g*pStride:], v[g/group*vHead:]
		for d := range ag {
			x := ag[d] * alpha[g]
			for r := 0; r < rows; r++ {
				x = fma32(pg[r], quant.FP16ToFP32(vg[r*vStride+d]), x)
			}
			ag[d] = x
		}
	}
}
