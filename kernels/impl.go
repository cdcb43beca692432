package kernels

import (
	"errors"
	"fmt"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
	"github.com/klauspost/cpuid/v2"
)

// vecDotFunc returns the dot product of one weight row w of n elements with
// one activation row a in the weight's vec-dot type (see vecdot_generic.go).
type vecDotFunc func(n int, w, a []byte) float32

// vecDotR4xNFunc computes four weight rows (w, w[wstride:], ...) against N
// activation rows (a, a[astride:], ...) into out[k*rstride+t*tstride],
// each pair in its single-row kernel's float order.
type vecDotR4xNFunc func(n int, w []byte, wstride int, a []byte, astride int, out []float32, rstride, tstride int)

// vecDot4Func computes one weight row w against four activation rows a,
// a[stride:], a[2*stride:], a[3*stride:] into out[0], out[ostride],
// out[2*ostride], out[3*ostride] (the prefill micro-kernel: each decoded
// weight block is reused across the four tokens).
type vecDot4Func func(n int, w, a []byte, stride int, out []float32, ostride int)

// vecDotR4Func computes four weight rows w, w[wstride:], w[2*wstride:],
// w[3*wstride:] against one activation row a into out[0], out[ostride],
// out[2*ostride], out[3*ostride] (the decode micro-kernel: each activation
// block is loaded once for four rows, and four independent accumulators
// hide the FMA latency). Decode passes rows a quarter of its range apart:
// four DRAM streams per core read faster than one.
type vecDotR4Func func(n int, w []byte, wstride int, a []byte, out []float32, ostride int)

// vecDot2x4Func computes two weight rows (w, w[wstride:]) against four
// activation rows (a, a[astride:], ...) into out[t*ostride+r] (the prefill
// register tile: each decoded block serves four tokens, each token's block
// two rows). aq is the four tokens' quad in the activation's quad layout
// (Acts.x4), which the kernel may read scales from.
type vecDot2x4Func func(n int, w []byte, wstride int, a []byte, astride int, aq []byte, out []float32, ostride int)

// vecDot2x4QFunc is a vecDot2x4Func over nq consecutive quads in one call:
// quad q's tokens at a[4*q*astride:], its quad layout at aq[q*qstride:],
// its outputs at out[4*q*ostride:]. Its results are the 2 x 4 tile's, bit
// for bit; it saves a call and the tile's set-up per quad.
type vecDot2x4QFunc func(n int, w []byte, wstride int, a []byte, astride int, aq []byte, qstride int, out []float32, ostride, nq int)

// quantizeFunc encodes x (a whole number of blocks) into dst.
type quantizeFunc func(x []float32, dst []byte)

// maxType bounds the ggml type ids the tables are indexed by.
const maxType = 40

// kernelSet is one implementation of every kernel. SIMD sets start as a copy
// of the generic set and override what they accelerate, so every entry is
// always callable.
type kernelSet struct {
	name      string
	available bool

	vecDot [maxType]vecDotFunc // indexed by weight type
	// rowDot is VecDot's kernel where it is not vecDot's (nil: vecDot):
	// the avx2-q8sums set multiplies Q8_0 matrices in block sums and a
	// q8_0 KV cache in llama.cpp's lane order (vecdot_q8_0_sums.go).
	rowDot    [maxType]vecDotFunc
	vecDot1   [maxType]vecDotFunc   // one-token batches where llama.cpp's order differs; nil: vecDot
	vecDot4   [maxType]vecDot4Func  // one row x 4 tokens; nil: use vecDot
	vecDot8   [maxType]vecDot4Func  // one row x 8 tokens (stride/ostride as vecDot4); nil: use vecDot4
	vecDotR4  [maxType]vecDotR4Func // 4 rows x one token; nil: use vecDot
	vecDot1R4 [maxType]vecDotR4Func // 4 rows x one token in vecDot1's order; nil: use vecDot1
	// vecDotR4x2 and vecDotR4x4 are vecDotR4 for two and four tokens at
	// once (vecDotR4xNFunc), for the few-token path: decode's four
	// streams, each block decoded once for the tokens. nil: none.
	vecDotR4x2 [maxType]vecDotR4xNFunc
	vecDotR4x4 [maxType]vecDotR4xNFunc
	// vecDot1R4F32 is vecDot1R4 reading the token widened to float32 (token
	// 0 of its quad, actQuad); preferred over vecDot1R4 when the quad exists.
	vecDot1R4F32 [maxType]vecDotR4Func
	vecDot2x4    [maxType]vecDot2x4Func  // 2 rows x 4 tokens; nil: use vecDot4
	vecDot2x4Q   [maxType]vecDot2x4QFunc // vecDot2x4 over several quads; nil: one call per quad
	vecDot3x4    [maxType]vecDot2x4Func  // 3 rows x 4 tokens (same signature); preferred over 2x4
	vecDot3x4Few [maxType]vecDot2x4Func  // vecDot3x4 for batches of up to fewQuadTokens; nil: vecDot3x4
	vecDot4x4    [maxType]vecDot2x4Func  // 4 rows x 4 tokens (same signature); preferred over 3x4
	vecDot4x4Few [maxType]vecDot2x4Func  // vecDot4x4 for batches of up to fewTileTokens; nil: vecDot4x4
	vecDot8x4    [maxType]vecDot2x4Func  // 8 rows x 4 tokens (same signature); preferred over 4x4
	vecDot8x4Few [maxType]vecDot2x4Func  // vecDot8x4 for batches of up to fewTileTokens; nil: vecDot8x4
	// tileRewrite replaces the tile of its rows (vecDot8x4 or vecDot3x4)
	// for batches of its minTokens or more: prefill rewrites each row
	// unit's rows first, in pairs (tile_pairs.go) or widened to float32
	// (tile_widen.go). nil: the tiles on the rows as they are.
	tileRewrite [maxType]*tileRewrite
	quantize    [maxType]quantizeFunc   // indexed by activation (vec-dot) type
	packed      [maxType]*packedKernels // indexed by weight type; nil: row by row (packed.go)
	actQuad     [maxType]*actPacker     // indexed by activation type: the quad layout packed kernels read
	// actQuadB, indexed by activation type, is a second quad layout, for
	// packed kernels of the set that read another one than actQuad's (the
	// AVX2 Q3_K and Q5_K ones in the AVX-512 sets): MatMul builds it from
	// the rows for them (Acts.quadsB). nil: none.
	actQuadB [maxType]*actPacker

	// q8Rows converts a weight row to Q8_0 rows whose Q8_0 products are
	// this type's (q8rows.go); prefill then tiles the converted rows with
	// q8RowsTile, a Q8_0 tile in the lane order. nil: the type's own tiles.
	q8Rows      [maxType]func(dst, src []byte)
	q8RowsTile  vecDot2x4Func
	q8RowsTileQ vecDot2x4QFunc // q8RowsTile over several quads; nil: none
	// tilesOuter: the type's prefill passes each row tile over the quads
	// of a token tile (the rows stay in L1, the tokens come from L2)
	// instead of each quad over the row tiles (matmul.go).
	tilesOuter [maxType]bool

	// vecDotQuad is the order of the prefill tokens that fall in whole
	// groups of four (tokens 0 .. ntok&^3-1), for types whose llama.cpp
	// four-token kernel sums in another order than its one-token kernel
	// (Q4_K: repacked gemm vs gemv, vecdot_repack.go); nil: vecDot. The
	// multi-token kernels of such a type (vecDot4, packed gemm with four
	// tokens) compute this order.
	vecDotQuad [maxType]vecDotFunc

	dot     func(a, b []float32) float32
	axpy    func(y []float32, a float32, x []float32)
	dotF16  func(q []float32, k []uint16) float32
	axpyF16 func(y []float32, a float32, v []uint16)

	// The one-row attention helpers of a q8_0 cache (attn_q8.go).
	// VecDotQ8_0Rows (the set's VecDot for Q8_0 row by row, same bits)
	// and AxpyQ8_0Rows.
	vecDotQ8_0Rows func(out []float32, nb int, k []byte, stride int, q []byte)
	axpyQ8_0Rows   func(y []float32, v []byte, stride int, ms, vs []float32)
	// Two query heads of one KV head (VecDotQ8_0Rows2, AxpyQ8_0Rows2).
	vecDotQ8_0Rows2 func(out1, out2 []float32, nb int, k []byte, stride int, q1, q2 []byte)
	axpyQ8_0Rows2   func(y1, y2 []float32, v []byte, stride int, ms1, vs1, ms2, vs2 []float32)
	// dequantQ8_0Rows: the loop of DequantizeQ8_0Heads and
	// AttnDequantKHeadsQ8_0 (dequantQ8_0RowsGeneric).
	dequantQ8_0Rows func(dst []float32, tileLen, kDim, row, dstStride int, src []byte, srcStride, headStride, heads, rows, blocks int)
	f32ToF16        func(dst []uint16, src []float32)

	// The f16 helpers of the flash-attention loop (attn_f16.go).
	dotF16F16 func(x, y []uint16) float32
	madF16    func(y, x []uint16, v float32)
	scaleF16  func(y []uint16, v float32)
	f16ToF32  func(dst []float32, src []uint16)

	dotF16Rows func(out []float32, q, k []uint16, stride int)
	expfN      func(dst, src []float32)
	// Two heads sharing their rows (sets without a pair kernel run the
	// single one twice).
	dotF16Rows2 func(out1, out2 []float32, q1, q2, k []uint16, stride int)
	madF16Rows2 func(acc1, acc2, v []uint16, stride int, ms1, vs1, ms2, vs2 []float32)
	madF16Rows  func(acc, v []uint16, stride int, ms, vs []float32)
	// Four heads (nil: madF16Rows2 twice, see madRows4).
	madF16Rows4 func(acc [4][]uint16, v []uint16, stride int, ms, vs [4][]float32)

	// The long-context attention kernels (attn_fast.go).
	f16RowsToF32 func(dst []float32, dstStride int, src []uint16, srcStride, rows, n int)
	attnWidenK   func(k []float32, dim, row int, src []uint16, srcStride, rows, n int)
	// attnWidenKHeads: AttnWidenKHeads's loop, row by row over the heads.
	attnWidenKHeads func(k []float32, tileLen, dim, row int, src []uint16, srcStride, headStride, heads, rows, n int)
	attnPrefetch    func(src []byte, stride, rows, n int) // (bytes)
	attnScores      func(s []float32, sStride int, q, k []float32, heads, rows8, dim int)
	attnSoftmax     func(s []float32, sStride, heads, rows int, scale float32, m, l, alpha []float32)
	attnAccumV      func(acc, p []float32, pStride int, v []float32, heads, rows, dim int, alpha []float32)
	// The same over rows read from an f16 cache (attn_direct.go).
	attnScoresF16 func(s []float32, sStride int, q []float32, k []uint16, kStride, kHead, group, heads, rows, dim int, pf []uint16)
	attnAccumVF16 func(acc, p []float32, pStride int, v []uint16, vStride, vHead, group, heads, rows, dim int, alpha []float32, pf []uint16)
	// llama.cpp's tiled flash attention, queries in the lanes (attn_tiled.go).
	attnTileQK      func(s, qt []float32, nq int, k []float32, kStride, keys, dim int, scale float32)
	attnTileSoftmax func(s []float32, nq, keys int, first, last []int32, m, l, ms []float32)
	attnTileAccV    func(acc []float32, nq int, s, v []float32, vStride, keys, dim int, ms []float32)
	transposeF32    func(dst, src []float32, rows, cols int)

	// swiglu computes out[i] = siluVec(gate[i]) * up[i] for the first full
	// groups of 8 and returns how many it did (a multiple of 8); it may stop
	// early at a group it does not handle (silu.go).
	swiglu func(out, gate, up []float32) int
	// geglu sets out[i] = gelu(x[i]) * up[i] (up nil: gelu alone) through
	// the f16 table tab, len(x) a multiple of 8 (gelu.go).
	geglu func(out, x, up, tab []float32)

	// rope rotates nHeads heads of x (headDim apart, the first dims of
	// each) by the angles' cos and sin in cs, pair by pair (rope.go).
	rope func(x, cs []float32, nHeads, headDim, dims int, neox bool)

	// readStreams is ReadStreams' loop (stream.go).
	readStreams func(b []byte, q int) uint64

	// optIn marks a set best never picks: it runs only when asked for by
	// name (SetImpl).
	optIn bool

	// twin is the generic set whose results this set reproduces bit for
	// bit (the tests compare with it); nil: genericSet.
	twin *kernelSet

	// kSearch is the k-quant quantizers' search kernels this set installs
	// in quant when it becomes active (kquant_search.go); the zero value
	// is quant's generic code.
	kSearch quant.KSearchKernels
}

// streamPrefetch makes the decode kernels that come in two forms (the
// Q4_0, Q3_K, Q4_K and Q5_K four-group gemvs of the AVX2 and AVX-512 sets,
// the AVX-512 and AVX2 F16 and BF16 four-row kernels) issue software
// prefetches. On an Intel Xeon (2 cores; BenchmarkMatMulStream tok1,
// alternating, GB/s without -> with) the AVX-512 ones streamed Q3_K
// 15.8-21.4 -> 22.0-30.9, Q4_K 25.6-26.4 -> 28.7-37.5, Q5_K 18-21 ->
// 25-31, F16 23.8-27.0 -> 29.1-33.6, BF16 20.8-24.1 -> 28.2-35.3, the AVX2
// ones Q3_K 14.8-17.0 -> 20.1-23.4, Q4_K 19.2-20.9 -> 21.3-24.1, Q5_K
// 17.4-19.1 -> 23.1-25.9, F16 18.1-19.6 -> 22.3-23.7, BF16 16.9-18.5 ->
// 19.8-21.8; on AMD Zen3 and Zen4 the same kind of prefetch slowed the
// Q4_K, Q3_K and F16 decode kernels (packed_amd64.s, packed_q3_k_amd64.s,
// vecdot_half_amd64.s), and the Q4_0 ones (AMD Zen4, 2 threads, matmuls
// of 5632x2048 from DRAM alternating, GB/s with -> without: 39-41 ->
// 46-49 while ReadStreams read 50-56, 30-34 -> 33-36 in slower minutes).
// A variable, so that tests run both forms.
var streamPrefetch = cpuid.CPU.VendorID == cpuid.Intel

var genericSet = newGenericSet()

func newGenericSet() *kernelSet {
	s := &kernelSet{name: "generic", available: true}
	s.vecDot[ggml.Q4_0] = vecDotQ4_0Q8_0Generic
	s.vecDot[ggml.Q4_1] = vecDotQ4_1Q8_1Generic
	s.vecDot[ggml.Q5_0] = vecDotQ5_0Q8_0Generic
	s.vecDot[ggml.Q5_1] = vecDotQ5_1Q8_1Generic
	s.vecDot[ggml.Q8_0] = vecDotQ8_0Q8_0Generic
	s.vecDot[ggml.Q2_K] = vecDotQ2_KQ8_KGeneric
	s.vecDot[ggml.Q3_K] = vecDotQ3_KQ8_KGeneric
	s.vecDot[ggml.Q4_K] = vecDotQ4_KQ8_KGeneric
	s.vecDot[ggml.Q5_K] = vecDotQ5_KQ8_KGeneric
	s.vecDot[ggml.Q6_K] = vecDotQ6_KQ8_KGeneric
	s.vecDot[ggml.F16] = vecDotF16F16Generic
	s.vecDot[ggml.BF16] = vecDotBF16BF16Generic
	s.vecDot[ggml.F32] = vecDotF32F32Generic
	s.vecDot1[ggml.F16] = vecDotF16F16DecodeGeneric
	s.vecDot1[ggml.F32] = vecDotF32F32DecodeGeneric
	s.vecDot1[ggml.BF16] = vecDotBF16BF16DecodeGeneric
	s.vecDotQuad[ggml.Q4_K] = vecDotQ4_KQ8_KQuadGeneric
	s.readStreams = readStreamsGeneric

	// The generic activation quantizers are ggml's reference ones.
	s.quantize[ggml.Q8_0] = quantizeActQ8_0
	s.quantize[ggml.Q8_1] = quantizeActQ8_1
	s.quantize[ggml.Q8_K] = quant.QuantizeRowQ8_K
	s.quantize[ggml.F16] = quant.QuantizeRowF16
	s.quantize[ggml.BF16] = quant.QuantizeRowBF16
	s.quantize[ggml.F32] = quant.QuantizeRowF32 // Scratch aliases F32 rows instead

	s.dot = dotGeneric
	s.axpy = axpyGeneric
	s.dotF16 = dotF16Generic
	s.axpyF16 = axpyF16Generic
	s.vecDotQ8_0Rows = vecDotQ8_0RowsLanes
	s.axpyQ8_0Rows = axpyQ8_0RowsGeneric
	s.vecDotQ8_0Rows2 = vecDotQ8_0Rows2Twice
	s.axpyQ8_0Rows2 = axpyQ8_0Rows2Twice
	s.dequantQ8_0Rows = dequantQ8_0RowsGeneric
	s.f32ToF16 = f32ToF16Generic
	s.dotF16F16 = dotF16F16Generic
	s.madF16 = madF16Generic
	s.scaleF16 = scaleF16Generic
	s.f16ToF32 = f16ToF32Generic
	s.swiglu = swigluGeneric
	s.geglu = gegluGeneric
	s.rope = ropeGeneric
	s.dotF16Rows = dotF16RowsGeneric
	s.expfN = expfNGeneric
	s.dotF16Rows2 = dotF16Rows2Generic
	s.madF16Rows2 = madF16Rows2Generic
	s.madF16Rows = madF16RowsGeneric
	s.f16RowsToF32 = f16RowsToF32Generic
	s.attnWidenK = attnWidenKGeneric
	s.attnWidenKHeads = attnWidenKHeadsGeneric
	s.attnPrefetch = attnPrefetchGeneric
	s.attnScores = attnScoresGeneric
	s.attnSoftmax = attnSoftmaxGeneric
	s.attnAccumV = attnAccumVGeneric
	s.attnScoresF16 = attnScoresF16Generic
	s.attnAccumVF16 = attnAccumVF16Generic
	s.attnTileQK = attnTileQKGeneric
	s.attnTileSoftmax = attnTileSoftmaxGeneric
	s.attnTileAccV = attnTileAccVGeneric
	s.transposeF32 = transposeF32Generic
	return s
}

// vecDotType is the activation type each weight type multiplies, as ggml's
// type traits pair them. It is kept here (rather than read from quant) so
// the kernels do not depend on which formats quant has registered.
var vecDotType = [maxType]ggml.Type{
	ggml.Q4_0: ggml.Q8_0, ggml.Q5_0: ggml.Q8_0, ggml.Q8_0: ggml.Q8_0,
	ggml.Q4_1: ggml.Q8_1, ggml.Q5_1: ggml.Q8_1,
	ggml.Q2_K: ggml.Q8_K, ggml.Q3_K: ggml.Q8_K, ggml.Q4_K: ggml.Q8_K,
	ggml.Q5_K: ggml.Q8_K, ggml.Q6_K: ggml.Q8_K,
	ggml.F16: ggml.F16, ggml.BF16: ggml.BF16, ggml.F32: ggml.F32,
}

// implementations lists every registered set, generic first; impl_amd64.go
// adds the x86 ones from its package-level variable initializers, so the
// list is complete before init picks the active one.
var implementations = []*kernelSet{genericSet}

// registerImpl adds a set derived from the generic one; fill overrides the
// kernels it accelerates. It returns the set so a file can keep it.
func registerImpl(name string, available bool, fill func(s *kernelSet)) *kernelSet {
	s := *genericSet
	s.name, s.available = name, available
	fill(&s)
	implementations = append(implementations, &s)
	return &s
}

// registerImplFrom adds a set derived from base (a more capable variant of
// an existing implementation); fill overrides what it accelerates further.
func registerImplFrom(base *kernelSet, name string, available bool, fill func(s *kernelSet)) *kernelSet {
	s := *base
	s.name, s.available = name, available && base.available
	fill(&s)
	implementations = append(implementations, &s)
	return &s
}

// active is the set every exported kernel calls; chosen once at init.
var active = genericSet

func init() { activate(best()) }

// activate makes s the set every kernel calls, and installs its k-quant
// search kernels in quant.
func activate(s *kernelSet) {
	active = s
	quant.SetKSearchKernels(s.kSearch)
}

// registerOptIn marks s as a set that runs only when asked for by name.
func registerOptIn(s *kernelSet) *kernelSet {
	s.optIn = true
	return s
}

// best returns the last registered available set that is not opt-in (SIMD
// sets register after the generic one, the most capable last).
func best() *kernelSet {
	b := genericSet
	for _, s := range implementations {
		if s.available && !s.optIn {
			b = s
		}
	}
	return b
}

// Impl names the implementation in use ("generic", "avx2").
func Impl() string { return active.name }

// Implementations names every compiled-in implementation, available or not.
func Implementations() []string {
	out := make([]string, len(implementations))
	for i, s := range implementations {
		out[i] = s.name
	}
	return out
}

// Available reports whether the named implementation can run on this CPU.
func Available(name string) bool {
	for _, s := range implementations {
		if s.name == name {
			return s.available
		}
	}
	return false
}

// ErrUnknownImpl is returned by SetImpl for a name that is not compiled in or
// cannot run on this CPU.
var ErrUnknownImpl = errors.New("kernels: implementation not available")

// SetImpl switches every kernel to the named implementation, including the
// k-quant quantizers' search kernels it installs in package quant. It is
// meant for tests, benchmarks and a --kernels option; it must not be called
// while kernels run or rows are being quantized.
func SetImpl(name string) error {
	for _, s := range implementations {
		if s.name == name && s.available {
			activate(s)
			return nil
		}
	}
	return fmt.Errorf("%w: %q", ErrUnknownImpl, name)
}
