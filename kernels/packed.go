package kernels

import (
	"sync"

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
// own, chosen for its kernels.
//
// Packing changes where bytes sit, never the arithmetic: each packed kernel
// computes every row's dot product in the float order of the generic
// single-row kernel of its type (vecdot_generic.go), so a packed MatMul
// equals the row-by-row one bit for bit (packed_test.go).
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
	// gemm computes the eight rows against the tokens of the quad blocks at
	// a: out[t*ostride+r] for the first ntok (1..4) tokens.
	gemm func(nb int, w, a []byte, out []float32, ostride, ntok int)
}

// actPacker builds the quad layout of one activation type.
type actPacker struct {
	// blockBytes is the size of one block column of a quad.
	blockBytes int
	// pack writes one quad from n (1..4) row-major activation rows at src,
	// rowBytes apart; missing tokens become zero blocks.
	pack func(dst, src []byte, rowBytes, n int)
}

// matrixPack is the packed copy of a Matrix, made once on first use (or by
// Pool.Prepare).
type matrixPack struct {
	once sync.Once
	kern *packedKernels // layout of data; nil when the matrix stays row-major
	data []byte         // groups of packRows rows, each nb block columns
	rows int            // rows covered by data (a multiple of packRows)
}

// packedFor returns m's packed copy for the active implementation, packing
// it on first use, or nil when the active set multiplies m row by row.
func (m *Matrix) packedFor(p *Pool) *matrixPack {
	if int(m.Type) >= maxType {
		return nil
	}
	k := active.packed[m.Type]
	if k == nil || m.Rows < packRows {
		return nil
	}
	mp := &m.pack
	mp.once.Do(func() { m.packWith(p, k) })
	if mp.kern != k {
		return nil // packed for another implementation (SetImpl in tests)
	}
	return mp
}

// packWith fills m.pack with k's layout, splitting the groups over p.
func (m *Matrix) packWith(p *Pool, k *packedKernels) {
	rb := m.RowBytes()
	groups := m.Rows / packRows
	nb := m.Cols / blockElems(m.Type)
	gb := nb * k.groupBlockBytes
	data := make([]byte, groups*gb)
	p.For(groups, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			k.pack(data[g*gb:(g+1)*gb], m.Data[g*packRows*rb:(g+1)*packRows*rb], rb)
		}
	})
	m.pack.kern, m.pack.data, m.pack.rows = k, data, groups*packRows
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
