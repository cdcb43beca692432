package kernels

import (
	"fmt"
	"unsafe"

	"github.com/gollm/gollm/ggml"
)

// Acts is a batch of NTok activation rows of Cols elements, quantized to
// Type (a vec-dot type: Q8_0, Q8_1, Q8_K, F16, BF16 or F32) once and shared
// by every matmul whose weights pair with that type (q/k/v share one,
// gate/up another).
type Acts struct {
	Type     ggml.Type
	Cols     int
	NTok     int
	Data     []byte    // NTok rows of RowBytes bytes
	F32      []float32 // the float rows when Type == F32 (Data views the same memory)
	rowBytes int
	buf      []byte // owned storage, reused

	// x4 is the same batch in the quad layout of packed kernels (packed.go),
	// ceil(NTok/4) quads of block columns, when the active implementation
	// has one for Type; nil otherwise.
	x4    []byte
	x4For *actPacker // the layout of x4
	x4Buf []byte
	// x4b is the batch in a second quad layout for Type (the set's
	// actQuadB, or a tileRewrite's act), built by the first MatMul whose
	// kernels read it (quadsB); nil until then.
	x4b    []byte
	x4bFor *actPacker
	x4bBuf []byte

	// uniform: every token in one order (Scratch.SetUniformOrder).
	uniform bool

	// minExp is 1 + the smallest exponent of the nonzero BF16 values
	// (bf16MinExp), 0 until computed after each Quantize.
	minExp int
}

// RowBytes returns the bytes of one token's row.
func (a *Acts) RowBytes() int { return a.rowBytes }

// Row returns token t's row.
func (a *Acts) Row(t int) []byte { return a.Data[t*a.rowBytes : (t+1)*a.rowBytes] }

// Scratch owns the reusable activation buffers of one engine: one Acts per
// vec-dot type, grown on first use and reused afterwards.
type Scratch struct {
	maxCols, maxTok int
	acts            [maxType]*Acts
	uniform         bool // SetUniformOrder

	// Quantize's job, with its chunk function built once.
	job quantJob
	fn  func(lo, hi int)
}

type quantJob struct {
	x        []float32
	dst      []byte
	cols     int
	rowBytes int
	ntok     int
	q        quantizeFunc
	quad     *actPacker // non-nil: also build the quad layout into x4
	x4       []byte
	quadLen  int // bytes of one quad in x4
}

// NewScratch returns a Scratch sized for rows of up to maxCols elements and
// batches of up to maxTok tokens (larger requests grow it).
func NewScratch(maxCols, maxTok int) *Scratch {
	s := &Scratch{maxCols: maxCols, maxTok: maxTok}
	s.fn = s.quantChunk
	return s
}

// SetUniformOrder sets the order MatMul multiplies the activations that
// Quantize returns from now on. By default (false) it follows llama.cpp,
// whose order for some weight types depends on the pass: F16 and F32 sum
// a lone token (ggml_vec_dot) in another order than the tokens of a
// longer pass, and Q4_K the tokens of whole groups of four (its repacked
// gemm) in another order than a lone token or the tokens left over after
// them (its gemv). Under a uniform order (true) every token takes the
// multi-token order, whatever the pass (a tokenwise matrix keeps the
// one-token order for every token), so a token's results do not depend on
// what else is in its pass: batch invariance without padding passes.
// UniformOrder reports the types for which that holds at their kernels'
// speed.
func (s *Scratch) SetUniformOrder(on bool) { s.uniform = on }

// UniformOrder reports whether MatMul under a uniform order
// (Scratch.SetUniformOrder) gives every token of a matrix of type t one
// float order whatever the pass size with the active kernels at their
// speed: true for every type but Q4_K on a set whose packed Q4_K kernels
// have no one-token versions of its four-token order (none of today's),
// where only whole quads share an order.
func UniformOrder(t ggml.Type) bool {
	if active.vecDotQuad[t] == nil {
		return true
	}
	pk := active.packed[t]
	return pk == nil || pk.gemvQ != nil && pk.gemv4Q != nil
}

// Quantize converts ntok rows of cols floats in x to the activation type
// that weights of type t multiply (VecDotType(t)) and returns them. The
// result stays valid until the next Quantize to the same activation type on
// this Scratch; for F32 it aliases x. p may be nil (serial). After the first
// call per type (and size) it allocates nothing.
//
// t must be a supported weight type and cols a whole number of its blocks;
// anything else is a programmer error and panics.
func (s *Scratch) Quantize(p *Pool, t ggml.Type, x []float32, ntok, cols int) *Acts {
	at, ok := VecDotType(t)
	if !ok {
		panic(fmt.Sprintf("kernels: Quantize for unsupported weight type %v", t))
	}
	if len(x) < ntok*cols {
		panic(fmt.Sprintf("kernels: Quantize of %d x %d from %d floats", ntok, cols, len(x)))
	}
	rb64, err := ggml.RowBytes(at, int64(cols))
	if err != nil {
		panic(fmt.Sprintf("kernels: Quantize: %v", err))
	}
	rb := int(rb64)
	a := s.acts[at]
	if a == nil {
		a = &Acts{Type: at}
		s.acts[at] = a
	}
	a.Cols, a.NTok, a.rowBytes, a.uniform = cols, ntok, rb, s.uniform
	a.minExp = 0
	x = x[:ntok*cols]
	if at == ggml.F32 {
		a.F32 = x
		if len(x) == 0 {
			a.Data = nil
		} else {
			a.Data = unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x))
		}
		return a
	}
	need := ntok * rb
	if cap(a.buf) < need {
		c := need
		if m := s.maxTok * int(mustRowBytes(at, s.maxCols)); m > c {
			c = m
		}
		a.buf = make([]byte, c)
	}
	a.Data = a.buf[:need]
	a.F32 = nil
	s.job = quantJob{x: x, dst: a.Data, cols: cols, rowBytes: rb, ntok: ntok, q: active.quantize[at]}
	a.x4, a.x4For, a.x4b, a.x4bFor = nil, nil, nil, nil
	units := ntok
	if qp := active.actQuad[at]; qp != nil && (ntok == 1 || !qp.decodeOnly) && (ntok >= 4 || !qp.prefillOnly) {
		quads := (ntok + 3) / 4
		ql := cols / blockElems(at) * qp.blockBytes
		if cap(a.x4Buf) < quads*ql+quadSlack {
			c := quads * ql
			if m := (s.maxTok + 3) / 4 * (s.maxCols / blockElems(at) * qp.blockBytes); m > c {
				c = m
			}
			a.x4Buf = make([]byte, c+quadSlack)
		}
		a.x4, a.x4For = a.x4Buf[:quads*ql], qp
		s.job.quad, s.job.x4, s.job.quadLen = qp, a.x4, ql
		units = quads
	}
	p.For(units, s.fn)
	s.job = quantJob{}
	return a
}

// quadsB returns the batch in layout qb (the set's actQuadB for a.Type, or
// a tileRewrite's act), building it from the rows on first use after each
// Quantize. Only the AVX-512 sets' packed Q3_K and Q5_K kernels and the
// AVX2 Q8_0 tile over widened rows read such a layout, so other batches
// never pay for it. Not safe for concurrent use on one Acts (nor is
// Quantize): MatMul calls it before it starts its workers.
func (a *Acts) quadsB(qb *actPacker) []byte {
	if a.x4bFor == qb {
		return a.x4b
	}
	quads := (a.NTok + 3) / 4
	ql := a.Cols / blockElems(a.Type) * qb.blockBytes
	if cap(a.x4bBuf) < quads*ql+quadSlack {
		a.x4bBuf = make([]byte, quads*ql+quadSlack) // kept: steady state allocates nothing
	}
	a.x4b, a.x4bFor = a.x4bBuf[:quads*ql], qb
	for q := 0; q < quads; q++ {
		qb.pack(a.x4b[q*ql:(q+1)*ql], a.Data[4*q*a.rowBytes:], a.rowBytes, min(4, a.NTok-4*q))
	}
	return a.x4b
}

// quadSlack is the spare capacity after the quads: a kernel reading token
// t of a quad as if it were token 0 (packedKernels.fewTokens) takes the
// quad's bytes from offset 4t, which reslicing reaches only within the
// capacity (it reads none of the spare bytes).
const quadSlack = 16

func mustRowBytes(t ggml.Type, cols int) int64 {
	rb, err := ggml.RowBytes(t, int64(cols))
	if err != nil {
		return 0
	}
	return rb
}

// quantChunk quantizes tokens [lo, hi), or with a quad layout the tokens of
// quads [lo, hi) and then their quads.
func (s *Scratch) quantChunk(lo, hi int) {
	j := &s.job
	t0, t1 := lo, hi
	if j.quad != nil {
		t0, t1 = 4*lo, min(4*hi, j.ntok)
	}
	for t := t0; t < t1; t++ {
		j.q(j.x[t*j.cols:(t+1)*j.cols], j.dst[t*j.rowBytes:(t+1)*j.rowBytes])
	}
	if j.quad == nil {
		return
	}
	for q := lo; q < hi; q++ {
		n := min(4, j.ntok-4*q)
		j.quad.pack(j.x4[q*j.quadLen:(q+1)*j.quadLen], j.dst[4*q*j.rowBytes:], j.rowBytes, n)
	}
}
