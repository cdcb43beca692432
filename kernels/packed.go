package kernels

import (
	"sync"
	"sync/atomic"

	"github.com/gollm/gollm/ggml"
)

// Row-interleaved ("packed") weights.
//
// A matrix-vector product over row-major weights does one horizontal
// reduction per row and block, and streams each row separately. Packed
// kernels instead read groups of packRows rows whose blocks are interleaved
// in 4-byte pieces: one 32-byte load holds the same four elements of eight
// rows, so a byte dot product against a broadcast piece of the activations
// leaves row r's partial sum in lane r, with no horizontal step, and a group
// is one contiguous stream. llama.cpp repacks Q4_0 and Q4_K the same way on
// AVX2 (ggml-cpu/repack.cpp, block_q4_0x8); the byte layout here is gollm's
// own, chosen for its kernels. Q5_0, Q3_K and Q5_K (AVX2) have no
// repacked form in llama.cpp: their packed kernels keep ggml_vec_dot's
// eight lanes per row, one vector accumulator (or one int32 lane of a
// vector, summed over the block) per lane.
//
// Packing changes where bytes sit, never the arithmetic: each packed kernel
// computes every row's dot product in the float order of the generic kernel
// of its type for that token (kernelSet.tokenDot: the single-row order, or
// for Q4_K tokens in whole groups of four llama.cpp's repacked-gemm order,
// vecdot_repack.go), so a packed MatMul equals the row-by-row one bit for
// bit (packed_test.go).
//
// Activations for packed kernels are interleaved too, four tokens at a time
// (a quad; see Acts.x4): per block the four tokens' float scales, their
// integer sums and their quants in 4-byte pieces, token-minor, so a kernel
// broadcasts one piece of one token with a single load.

// packRows is the number of rows a packed group interleaves (one per lane of
// an 8 x float32 vector).
const packRows = 8

// packedKernels is a packed layout of one weight type and the kernels that
// read it. Implementations register them per weight type (kernelSet.packed);
// a set without an entry multiplies that type row by row.
type packedKernels struct {
	// groupBlockBytes is the size of one block column of a group (packRows
	// blocks of the type, rearranged).
	groupBlockBytes int
	// pack writes one group: src holds packRows rows of rowBytes each.
	pack func(dst, src []byte, rowBytes int)
	// act is the quad layout of the activations these kernels read.
	act *actPacker
	// gemv computes the group's eight rows against token 0 of the quad
	// blocks at a (nb block columns): out[0..7].
	gemv func(nb int, w, a []byte, out []float32)
	// gemvTok, if set, is gemv on token tok of the quad, for a layout that
	// does not keep token t's bytes at offset 4t (q8_KQuadTok keeps its
	// quants 256t bytes in); where it is nil, gemv reads token t at a[4t:].
	gemvTok func(nb int, w, a []byte, tok int, out []float32)
	// gemv4, if set, is gemv on four groups at once (same bits), gstride
	// bytes apart, outputs ostride floats apart. Decode calls it on groups
	// a quarter of its range apart so that each core reads four sequential
	// weight streams from DRAM, which the hardware prefetchers serve
	// markedly faster than one (BenchmarkMatMulStream).
	gemv4 func(nb int, w []byte, gstride int, a []byte, out []float32, ostride int)
	// gemv4x2, if set, is gemv4 on tokens 0 and 1 of the quad at once
	// (same bits), token k's outputs at out[k*tstride:]: the few-token
	// path takes it for pairs of tokens (each group read once for both).
	gemv4x2 func(nb int, w []byte, gstride int, a []byte, out []float32, ostride, tstride int)
	// gemm4, if set, is gemm on four groups gstride bytes apart against a
	// whole quad (four tokens), group g's outputs at out[g*gout:] (same
	// bits): a four-token pass (several sequences decoded together) reads
	// each weight once, as decode does, so it takes four streams too.
	gemm4 func(nb int, w []byte, gstride int, a []byte, out []float32, ostride, gout int)
	// gemm computes the eight rows against the tokens of the quad blocks at
	// a: out[t*ostride+r] for the first ntok (1..4) tokens.
	gemm func(nb int, w, a []byte, out []float32, ostride, ntok int)
	// gemm2, if set, is gemm on two adjacent groups (w holds both) for a
	// whole quad (same bits), their 16 rows' outputs at out[t*ostride:]:
	// the 512-bit kernels take both groups' rows in one register.
	gemm2 func(nb int, w, a []byte, out []float32, ostride int)
	// fewTokens, if not 0, is the most tokens of a batch that run token
	// by token through gemv4 (decode's four streams; the later tokens find
	// the groups in the caches) instead of gemm, which reads the groups in
	// one stream. gemv and gemv4 must then read token t of a quad (in the
	// order of a token left over after whole quads) from the quad's bytes
	// at offset 4t, as if it were token 0. Worth it where gemm takes whole
	// quads only and runs partial ones through gemv (AVX2 Q4_K: 2 and 3
	// tokens from DRAM 0.60-0.69 and 0.72-0.88 ms -> 0.45-0.53 and
	// 0.58-0.64 for 5632x2048 on a Zen3); the AVX2 gemm of the other types
	// prefetches, and their 2-3 tokens ran 1.1-1.5x slower this way.
	fewTokens int
	// gemvQ and gemv4Q, if set, are gemv and gemv4 on token tok of the
	// quad at a, in the order gemm gives the tokens of a whole quad: what
	// MatMul takes for every token under a uniform order
	// (Scratch.SetUniformOrder) where that order is not gemv's (Q4_K).
	gemvQ  func(nb int, w, a []byte, tok int, out []float32)
	gemv4Q func(nb int, w []byte, gstride int, a []byte, tok int, out []float32, ostride int)
	// gemv4Qx2, if set, is gemv4Q on tokens tok and tok+1 at once (same
	// bits), token tok+k's outputs at out[k*tstride:].
	gemv4Qx2 func(nb int, w []byte, gstride int, a []byte, tok int, out []float32, ostride, tstride int)
	// gemmQ, if set, is gemm in that order for a partial quad too (the
	// quad computed whole, the first ntok tokens stored).
	gemmQ func(nb int, w, a []byte, out []float32, ostride, ntok int)
}

// actPacker builds the quad layout of one activation type.
type actPacker struct {
	// blockBytes is the size of one block column of a quad.
	blockBytes int
	// pack writes one quad from n (1..4) row-major activation rows at src,
	// rowBytes apart; missing tokens become zero blocks.
	pack func(dst, src []byte, rowBytes, n int)
	// decodeOnly: only one-token batches read the quad (vecDot1R4F32);
	// Scratch.Quantize builds it for those alone, and the type's tiles
	// read the token rows.
	decodeOnly bool
	// prefillOnly: only batches of a quad or more read the quad (the
	// tiles); Scratch.Quantize does not build it for fewer tokens.
	prefillOnly bool
}

// matrixPack holds the packed copy of a Matrix. The copy is made once:
// on first use by MatMul, by Pool.Prepare, or by a Packer in the background.
// It is published through an atomic pointer, so a MatMul that runs while a
// Packer is still working on the matrix multiplies the row-major data
// instead of waiting (same bits either way, see above).
type matrixPack struct {
	mu         sync.Mutex // serializes packing the matrix in the foreground
	copy       atomic.Pointer[packedCopy]
	background atomic.Bool // a Packer owns the packing: MatMul must not pack
}

// packedCopy is one packed layout of a matrix.
type packedCopy struct {
	kern *packedKernels // layout of data
	data []byte         // groups of packRows rows, each nb block columns
	rows int            // rows covered by data (a multiple of packRows)
}

// packedFor returns m's packed copy for the active implementation, packing
// it now unless a Packer owns it, or nil when m is multiplied row by row
// (no packed layout for its type, or not packed yet).
func (m *Matrix) packedFor(p *Pool) *packedCopy {
	k := m.packedKernels()
	if k == nil {
		return nil
	}
	mp := &m.pack
	pc := mp.copy.Load()
	if pc == nil {
		if mp.background.Load() {
			return nil // the Packer publishes it when done
		}
		mp.mu.Lock()
		if pc = mp.copy.Load(); pc == nil {
			pc = m.packWith(k, p.For)
			mp.copy.Store(pc)
		}
		mp.mu.Unlock()
	}
	if pc.kern != k {
		return nil // packed for another implementation (SetImpl in tests)
	}
	return pc
}

// packedKernels is the packed layout the active implementation uses for m,
// or nil.
func (m *Matrix) packedKernels() *packedKernels {
	if int(m.Type) >= maxType || m.Rows < packRows {
		return nil
	}
	return active.packed[m.Type]
}

// packWith makes m's packed copy in k's layout, splitting the groups with
// split (Pool.For, or a plain call).
func (m *Matrix) packWith(k *packedKernels, split func(n int, fn func(lo, hi int))) *packedCopy {
	rb := m.RowBytes()
	groups := m.Rows / packRows
	nb := m.Cols / blockElems(m.Type)
	gb := nb * k.groupBlockBytes
	pc := &packedCopy{kern: k, rows: groups * packRows}
	data := allocPacked(pc, groups*gb)
	pc.data = data
	split(groups, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			k.pack(data[g*gb:(g+1)*gb], m.Data[g*packRows*rb:(g+1)*packRows*rb], rb)
		}
	})
	return pc
}

// Packed reports whether m has a packed copy for the active implementation
// (matrices whose type has no packed layout never do).
func (m *Matrix) Packed() bool {
	pc := m.pack.copy.Load()
	return pc != nil && pc.kern == m.packedKernels()
}

// Prepare packs every matrix the active implementation multiplies in a
// packed layout (MatMul would do it on first use). Calling it at load moves
// that one-time cost, about a copy of the weights, out of the first forward
// pass. It is safe to call more than once and concurrently with MatMul.
func (p *Pool) Prepare(ms ...*Matrix) {
	for _, m := range ms {
		if m != nil {
			m.packedFor(p)
		}
	}
}

// blockElems is the number of elements per block of a matmul weight or
// activation type.
func blockElems(t ggml.Type) int {
	switch t {
	case ggml.Q2_K, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.Q8_K:
		return qkK
	case ggml.F16, ggml.BF16, ggml.F32:
		return 1
	}
	return qk
}

// StreamedData is the memory MatMul reads m's weights from: its packed
// copy and the rows past it, or Data when it has none (read-only: for
// probing the memory bandwidth on what decode reads, with no extra memory).
func (m *Matrix) StreamedData() [][]byte {
	pc := m.pack.copy.Load()
	if pc == nil {
		return [][]byte{m.Data}
	}
	out := [][]byte{pc.data}
	if tail := m.Data[pc.rows*m.RowBytes():]; len(tail) > 0 {
		out = append(out, tail)
	}
	return out
}

// ReplacedData is the prefix of m.Data that m's packed copy replaces (MatMul
// no longer reads it), or nil while m has no packed copy. Callers that own
// the memory may release it (e.g. madvise a mapping).
func (m *Matrix) ReplacedData() []byte {
	pc := m.pack.copy.Load()
	if pc == nil {
		return nil
	}
	return m.Data[:pc.rows*m.RowBytes()]
}
