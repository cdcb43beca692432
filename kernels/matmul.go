package kernels

import (
	"fmt"
	"math"

	"github.com/gollm/gollm/ggml"
)

// Tile sizes of the prefill path: a thread takes rowTile weight rows at a
// time and walks the tokens in blocks of tokTile, so that the rows (a few KiB
// each) stay in L1 while each token's activations are reused from L2.
//
// Each such unit of rows reads every token's activations once. When they
// are large (more than bigActBytes: a long prompt, wide rows, or the
// float32 quads of F16 and BF16 weights) they no longer stay in the
// caches from one unit to the next and each unit streams them from
// memory again; units of up to bigRowTile rows stream them that many
// times fewer. On an AMD EPYC Zen3 (BenchmarkMatMulPrefill: 512 tokens,
// the two unit sizes alternating call by call) big units took 0.72x the
// time of rowTile ones for F16 2048x5632 (TinyLlama's ffn_down), 0.67x
// for F16 4096x11008 (Llama-2-7B's), 0.74-0.85x for BF16 and 0.87x for
// Q8_0 4096x11008; 0.96-1.03x at 4096 columns. Below bigActBytes (Q8_0
// at 2048 columns, F16 at 128 tokens) they gained nothing or lost 4-6%.
//
// Batches of two or three tokens (as many sequences decoded together) of
// row-major weights take decode's layout instead (matmulJob.few): the
// unit of rowTile rows, one sequential stream per thread, read from DRAM
// at a fraction of decode's four streams, and each token's single-row
// kernel waited on it; two F16 tokens took longer than two one-token
// passes. On that Zen3 (MatMulStream's 5632x2048 matrices) BF16 2 and 3
// tokens 2.45 and 3.72 ms -> 1.32 and 1.81 ms (one token: 0.96), Q6_K
// 0.73 and 1.06 -> 0.67 and 0.87; TinyLlama --parallel 2 F16 7.9 -> 12.5
// tok/s, Q8_0 17.9 -> 24.9, --parallel 3 BF16 8.0 -> 17.8 (alternating
// builds). Packed types already read each group once for the whole quad.
// Tokens left over after a batch's quads (5-7 sequences) take the
// four-row kernel too, four adjacent rows at a time: F16 5632x2048 with
// 7 tokens 5.0-5.2 -> 3.3 ms, TinyLlama F16 --parallel 6 16.5 -> 22.8
// tok/s, BF16 15.3 -> 17.3. Where the tiles read only the token rows
// (AVX2 F16), two or three tokens left over take one more tile pass over
// the batch's last four tokens instead: F16 7 tokens 2.7-3.4 -> 2.2 ms,
// --parallel 6 24.8 -> 28.4 tok/s, --parallel 7 23.6 -> 29.7.
const (
	rowTile    = 16
	tokTile    = 32
	bigRowTile = 128
	// quadTile is the token tile of packed prefill, in quads: 64 tokens of
	// activations (~450 KiB for 5632 columns) stay in L2 while every row
	// group of a thread's range passes over them.
	quadTile = 16
)

type matmulJob struct {
	out      []float32
	w, a     []byte
	rows     int
	cols     int
	ntok     int
	wRow     int // bytes per weight row
	aRow     int // bytes per activation row
	dot      vecDotFunc
	dotQ     vecDotFunc     // tokens before quadEnd (vecDotQuad); nil: none
	quadEnd  int            // ntok&^3 when dotQ is set, else 0
	dot4     vecDot4Func    // nil: the type has no multi-token kernel
	dot8     vecDot4Func    // nil: the type has no 8-token kernel
	dotR4    vecDotR4Func   // nil: the type has no four-row kernel
	dotR4x2  vecDotR4xNFunc // nil: the type has no four-row two-token kernel
	dotR4x4  vecDotR4xNFunc // nil: the type has no four-row four-token kernel
	aR4      []byte         // the token as dotR4 reads it, when not a (vecDot1R4F32)
	dot2x4   vecDot2x4Func  // nil: the type has no rows x 4-token tile kernel
	dot2x4Q  vecDot2x4QFunc // dot2x4 over several quads (2-row tiles only); nil: none
	tileRows int            // rows per dot2x4 call (2, 3, 4 or 8)
	// tilesOuter: each row tile passes over a token tile's quads
	// (kernelSet.tilesOuter) instead of each quad over the row tiles.
	tilesOuter bool
	// q8Rows, when set, converts the tiled rows of each row unit to Q8_0
	// rows of q8Row bytes (into a buffer of bufs) that dot2x4 reads.
	q8Rows func(dst, src []byte)
	q8Row  int
	bufs   *rowBufs
	// rewrite, when set, rewrites each tile of a row unit instead (the
	// pair layout, or widened: tileRewrite; rows q8Row bytes apart).
	rewrite func(dst, src []byte, rowBytes int)
	tile4x8 vecDot2x4Func // the pairs' 4 x 8 tile (tileRewrite.tile4x8); nil: none
	prefill bool
	// few: a batch of 2-3 tokens (no quad; 4 with dotR4x4) of row-major
	// weights, each group of four rows a quarter of the unit apart
	// multiplied with dotR4 for every token in turn, or dotR4x2/x4 for
	// several at once (decode's four streams; the later tokens find the
	// rows in the core's caches).
	few      bool
	rowUnits int // rows per scheduling unit

	// Packed weights (packed.go): groups of packRows rows, then tail rows
	// done row by row. Units are groups (+1 for the tail) for decode, and
	// (quad tile, group) pairs, tile-major, for prefill.
	pk     *packedKernels
	pw     []byte // packed groups
	px4    []byte // activations in quads
	groups int    // packed groups
	gBytes int    // bytes per packed group
	qBytes int    // bytes per activation quad
	nb     int    // block columns
	gUnits int    // units per quad tile: groups, +1 with tail rows
	nquads int
	// uniform: every token takes dotQ's order, also those outside whole
	// quads (Scratch.SetUniformOrder): the packed one-token kernels are
	// then gemvQ and gemv4Q.
	uniform bool
	// oneTok: a tokenwise matrix whose type's one-token order differs from
	// its quad order (Q4_K): every packed token takes the one-token
	// kernels, as llama.cpp's mul_mat_id runs its repacked gemv a token at
	// a time.
	oneTok bool
}

// MatMul computes out[tok*w.Rows + r] = dot(row r of w, token tok of a) for
// every row r and token tok. a must be quantized for w's type
// (Scratch.Quantize with w.Type) with a.Cols == w.Cols, and len(out) at least
// a.NTok*w.Rows; otherwise MatMul panics (a programmer error). Decode (one
// token) splits the rows across threads; prefill splits row tiles and reuses
// each weight row across a block of tokens. p may be nil (serial). MatMul
// allocates nothing.
func (p *Pool) MatMul(out []float32, w *Matrix, a *Acts) {
	job, units := p.newMatmulJob(out, w, a)
	if units == 0 {
		return
	}
	if p == nil || p.threads <= 1 || units == 1 || !p.busy.CompareAndSwap(false, true) {
		job.run(0, units)
		return
	}
	p.mm = job
	p.runGrain(units, job.grain(), p.mmFn)
	p.mm = matmulJob{}
	p.busy.Store(false)
}

// maxFused is the most matrices MatMulN takes.
const maxFused = 4

// MatMulN computes MatMul(outs[i], ws[i], a) for every i (at most 4
// matrices that read the same activations, such as q/k/v or gate/up) as one
// parallel job: one dispatch and one wait instead of one per matrix, and no
// thread idles at the end of a small matrix while another still works on
// it. The results are those of separate MatMul calls. It allocates nothing
// (the caller passes slices it keeps).
func (p *Pool) MatMulN(outs [][]float32, ws []*Matrix, a *Acts) {
	if len(outs) != len(ws) || len(ws) > maxFused {
		panic(fmt.Sprintf("kernels: MatMulN of %d matrices into %d outputs", len(ws), len(outs)))
	}
	if p == nil || p.threads <= 1 || !p.busy.CompareAndSwap(false, true) {
		for i, w := range ws {
			p.MatMul(outs[i], w, a)
		}
		return
	}
	total := 0
	for i, w := range ws {
		// (A matrix packed here, on first use, packs on this thread: the
		// workers are already held.)
		job, units := p.newMatmulJob(outs[i], w, a)
		p.mmN[i], p.mmOff[i] = job, total
		total += units
	}
	p.mmOff[len(ws)], p.mmCount = total, len(ws)
	if total > 0 {
		p.runGrain(total, fusedGrain(p.mmN[:len(ws)], p.mmOff[:len(ws)]), p.mmNFn)
	}
	for i := range p.mmN {
		p.mmN[i] = matmulJob{}
	}
	p.busy.Store(false)
}

// matmulNChunk runs units [lo, hi) of a MatMulN job, which may span
// several matrices.
func (p *Pool) matmulNChunk(lo, hi int) {
	for i := 0; i < p.mmCount && lo < hi; i++ {
		o0, o1 := p.mmOff[i], p.mmOff[i+1]
		if lo >= o1 {
			continue
		}
		e := min(hi, o1)
		p.mmN[i].run(lo-o0, e-o0)
		lo = e
	}
}

// newMatmulJob validates a MatMul and sets up its job; units is the number
// of scheduling units (0: nothing to do).
func (p *Pool) newMatmulJob(out []float32, w *Matrix, a *Acts) (matmulJob, int) {
	if int(w.Type) >= maxType || a.Type != vecDotType[w.Type] || active.vecDot[w.Type] == nil {
		panic(fmt.Sprintf("kernels: MatMul of %v weights with %v activations", w.Type, a.Type))
	}
	if a.Cols != w.Cols || len(out) < a.NTok*w.Rows {
		panic(fmt.Sprintf("kernels: MatMul of %dx%d weights with %d tokens of %d into %d outputs",
			w.Rows, w.Cols, a.NTok, a.Cols, len(out)))
	}
	wRow := w.RowBytes()
	if len(w.Data) < w.Rows*wRow || len(a.Data) < a.NTok*a.rowBytes {
		panic("kernels: MatMul data shorter than its shape")
	}
	if a.NTok == 0 {
		return matmulJob{}, 0
	}
	job := matmulJob{
		out: out, w: w.Data, a: a.Data,
		rows: w.Rows, cols: w.Cols, ntok: a.NTok,
		wRow: wRow, aRow: a.rowBytes,
		dot: active.vecDot[w.Type], dot4: active.vecDot4[w.Type], dotR4: active.vecDotR4[w.Type],
		dot8: active.vecDot8[w.Type], dotR4x2: active.vecDotR4x2[w.Type], dotR4x4: active.vecDotR4x4[w.Type],
		dot2x4: active.vecDot2x4[w.Type], tileRows: 2,
		prefill: a.NTok > 1, rowUnits: 1,
	}
	if d1 := active.vecDot1[w.Type]; d1 != nil && !job.prefill && (!a.uniform || w.tokenwise) {
		// llama.cpp's one-token order (under a uniform order only for a
		// tokenwise matrix: the others take the multi-token one).
		job.dot, job.dotR4 = d1, active.vecDot1R4[w.Type]
		if f := active.vecDot1R4F32[w.Type]; f != nil && a.x4For != nil {
			job.dotR4, job.aR4 = f, a.x4[:4*a.Cols] // the token widened once
		}
	}
	// A tokenwise matrix's tokens keep the one-token order where the type
	// has a four-token one (llama.cpp's mul_mat_id runs a token at a time).
	job.oneTok = w.tokenwise && job.prefill && !a.uniform && active.vecDotQuad[w.Type] != nil
	if dq := active.vecDotQuad[w.Type]; dq != nil && job.prefill && !job.oneTok {
		job.dotQ, job.quadEnd = dq, a.NTok&^3 // llama.cpp's four-token order
	}
	if job.oneTok {
		job.dot4, job.dot8 = nil, nil // (Q4_K's four-token kernel sums in the quad order)
	}
	if f := active.vecDot3x4[w.Type]; f != nil {
		job.dot2x4, job.tileRows = f, 3
		if f := active.vecDot3x4Few[w.Type]; f != nil && a.NTok <= fewQuadTokens {
			job.dot2x4 = f
		}
	}
	fewTile := false // a tile that prefetches, over the rows as they are
	if f := active.vecDot4x4[w.Type]; f != nil {
		job.dot2x4, job.tileRows = f, 4
		if f := active.vecDot4x4Few[w.Type]; f != nil && a.NTok <= fewTileTokens(w.Type) {
			job.dot2x4, fewTile = f, true
		}
	}
	if f := active.vecDot8x4[w.Type]; f != nil {
		job.dot2x4, job.tileRows, fewTile = f, 8, false
		if f := active.vecDot8x4Few[w.Type]; f != nil && a.NTok <= fewTileTokens(w.Type) {
			job.dot2x4, fewTile = f, true
		}
	}
	if job.dot2x4 != nil {
		switch qp := active.actQuad[a.Type]; {
		case a.x4For != nil:
			job.px4, job.qBytes = a.x4, w.Cols/blockElems(w.Type)*a.x4For.blockBytes
		case qp != nil && qp.decodeOnly:
			// The tiles read the token rows.
		default:
			job.dot2x4 = nil // needs the quad layout
		}
	}
	job.tilesOuter = active.tilesOuter[w.Type]
	if f, rb := q8RowsFor(w, a.NTok); f != nil && job.dot2x4 != nil && job.tileRows == 2 && p != nil {
		job.q8Rows, job.q8Row, job.bufs = f, rb, &p.rowBufs
		job.dot2x4 = active.q8RowsTile
	}
	if d1 := active.vecDot1[w.Type]; d1 != nil && job.prefill && w.tokenwise {
		// Each token in the one-token order: no multi-token kernels, and
		// dotR4 its four-row twin.
		job.dot, job.dot4, job.dot8, job.dot2x4, job.dotQ, job.quadEnd = d1, nil, nil, nil, nil, 0
		job.dotR4x2, job.dotR4x4 = nil, nil
		job.dotR4 = active.vecDot1R4[w.Type]
	}
	if job.dot2x4 != nil && job.tileRows == 2 {
		// The 2 x 4 tile is the type's own or, over converted rows,
		// q8RowsTile: its several-quad twin, if any.
		job.dot2x4Q = active.vecDot2x4Q[w.Type]
		if job.q8Rows != nil {
			job.dot2x4Q = active.q8RowsTileQ
		}
	}
	// A uniform order gives the tokens outside whole quads (a lone decode
	// token, a quad's leftovers) the quad order too.
	if dq := active.vecDotQuad[w.Type]; dq != nil && a.uniform && a.NTok%4 != 0 {
		job.uniform = true
		job.dot, job.dotQ, job.quadEnd = dq, dq, a.NTok
		job.dotR4, job.aR4, job.dotR4x2 = nil, nil, nil
	}
	mp := w.packedFor(p)
	ax4 := a.x4 // the quads in the packed kernels' layout
	if qb := active.actQuadB[a.Type]; mp != nil && a.x4For != nil && qb == mp.kern.act && a.x4For != qb {
		ax4 = a.quadsB(qb)
	}
	packed := mp != nil && (a.x4For == mp.kern.act || a.x4For != nil && a.x4bFor == mp.kern.act) &&
		(!job.uniform || mp.kern.gemvQ != nil && mp.kern.gemv4Q != nil)
	tp := active.tileRewrite[w.Type]
	canRewrite := !packed && !fewTile && job.dot2x4 != nil && job.px4 != nil && p != nil
	if canRewrite && tp.fits(job.tileRows, a.NTok, w.Cols) && tp.usable != nil && !tp.usable(w, a) {
		tp = tp.fallback
	}
	if canRewrite && tp.fits(job.tileRows, a.NTok, w.Cols) {
		job.rewrite, job.q8Row, job.bufs = tp.pack, tp.rowScale*wRow, &p.rowBufs
		job.q8Rows = nil // (a rewrite replaces the conversion)
		job.dot2x4, job.tile4x8, job.dot2x4Q = tp.tile, tp.tile4x8, tp.tileQ
		if tp.act != nil {
			job.px4, job.qBytes = a.quadsB(tp.act), w.Cols/blockElems(w.Type)*tp.act.blockBytes
		}
	}
	// (A quad takes the few-token path too where the type has a four-row
	// four-token kernel and no tile: Q6_K --parallel 4 on a Zen3 1.11-1.14x,
	// TinyLlama Q4_K_M 1.07x; up to 16 tokens, pp16 ran at 0.91x.)
	job.few = job.prefill && !packed && job.dotR4 != nil &&
		(a.NTok < 4 || a.NTok == 4 && job.dotR4x4 != nil && job.dot2x4 == nil)
	if job.prefill && !job.few {
		act := len(a.Data) + len(a.x4)
		if job.rewrite != nil && len(job.px4) > rewriteBigQuads && act <= bigActBytes && bigActBytes != math.MaxInt {
			// The tiles over rewritten rows read the tokens' quads
			// (widened: float32, or int16 for Q8_0) once per row unit:
			// past the L2, every unit streams them from L3 or DRAM again,
			// so take big units.
			// (bigActBytes MaxInt: rowTile units everywhere, as tests
			// compare.)
			act = bigActBytes + 1
		}
		job.rowUnits = prefillRowUnit(p, w.Rows, act)
		if job.rewrite != nil {
			// The unit's rewritten rows stay in the core's L2 while the
			// quads pass by.
			job.rowUnits = min(job.rowUnits, max(job.tileRows, rewriteUnitBytes/job.q8Row))
		}
		if job.dot2x4 != nil {
			// A whole number of tiles per unit (15 rows for 3-row tiles).
			job.rowUnits = job.rowUnits / job.tileRows * job.tileRows
		}
	} else if job.dotR4 != nil {
		job.rowUnits = 4
	}
	units := (job.rows + job.rowUnits - 1) / job.rowUnits
	if packed {
		k := mp.kern
		job.pk, job.pw, job.px4 = k, mp.data, ax4
		job.groups = mp.rows / packRows
		job.nb = w.Cols / blockElems(w.Type)
		job.gBytes = job.nb * k.groupBlockBytes
		job.qBytes = job.nb * k.act.blockBytes
		job.gUnits = job.groups
		if mp.rows < w.Rows {
			job.gUnits++
		}
		job.nquads = (a.NTok + 3) / 4
		units = job.gUnits
		if job.prefill {
			units *= (job.nquads + quadTile - 1) / quadTile
		}
	}
	return job, units
}

// fewQuadTokens is the largest batch that takes vecDot3x4Few, the tiles
// that prefetch their weights: a batch of a few quads (sequences decoded
// together, a short prompt) reads every weight row from DRAM once and its
// first quad waited on them, while longer prompts find the rows in the
// caches for every quad after the first. On an AMD EPYC Zen3, TinyLlama
// F16, alternating builds (medians of 3): --parallel 4/6/8 26.5/25.4/38.5
// -> 31.7/30.1/44.6 tok/s, BF16 --parallel 4/8 21.1/29.5 -> 24.2/33.8;
// pp16 45.5 -> 52.1, pp32 54.6 -> 53.2 and pp64 56.2 -> 56.3 (hence 16).
const fewQuadTokens = 16

// fewTileTokens is the largest batch that takes type t's vecDot4x4Few
// tile, which prefetches the next tile's rows (as they are: no rewrite).
// AMD Zen4, 2 threads, 5632x2048 from DRAM alternating in one process,
// GB/s of weights without -> with: Q8_0 (the VNNI tile) 4 tokens 14.8 ->
// 25.3, 8 10.6 -> 15.4, 16 7.0 -> 8.8, 32 4.1 -> 4.7, 64 2.3 -> 2.35, 128
// the same; F16 (the 256-bit float tile) 4 tokens 24.3 -> 28.1, 8 17.4 ->
// 19.4, 16 the same, 32 5.9 -> 5.7, 64 3.1 -> 2.9. (BF16's 4x4 tile with
// the prefetch ran as fast as its rewritten VDPBF16PS pairs at every size:
// not taken.)
func fewTileTokens(t ggml.Type) int {
	if t == ggml.Q8_0 {
		return 64
	}
	return fewQuadTokens
}

// prefillRowUnit is the rows of one prefill scheduling unit for a matrix
// of rows rows and actBytes of activations (rowTile, or for large
// activations up to bigRowTile, keeping eight units per thread).
func prefillRowUnit(p *Pool, rows, actBytes int) int {
	if actBytes <= bigActBytes {
		return rowTile
	}
	threads := 1
	if p != nil {
		threads = p.threads
	}
	return max(rowTile, min(bigRowTile, rows/(8*threads)))
}

// rewriteBigQuads is the size of the float32 quads from which the tiles
// over rewritten rows (tileRewrite) take big units whatever the other
// activations' size (measured with the pair tiles): on an Intel Xeon (2 MiB L2) F16 5632x2048 x 512 tokens (quads of 4 MiB)
// ran 66.6-68.1 ms in 16-row units and 52.3-57.0 in big ones, BF16
// 60.4-62.7 and 50.1-53.7 (the 2048x5632 shapes took big units already).
const rewriteBigQuads = 1 << 20

// rewriteUnitBytes bounds a row unit's rewritten rows (tileRewrite), so
// that they stay in a core's L2 while the quads pass by: big units of
// 126-128 long rows did not (Intel Xeon, 2 MiB L2, MatMul new/old time:
// avx512zmm BF16 4096x11008 x 512 tokens 0.79, 2048x5632 0.91-0.94; the
// AVX2 widened rows of 2048x5632 ran 1.12-1.22x slower than the set's own
// tiles without this bound, 0.74-0.87x with it).
const rewriteUnitBytes = 1 << 20

// bigActBytes is the activations' size from which prefill takes big units
// (a variable: tests and benchmarks move it to compare unit sizes).
var bigActBytes = 8 << 20

func (p *Pool) matmulChunk(lo, hi int) { p.mm.run(lo, hi) }

// grain is the job's scheduling grain: where runPacked streams a chunk's
// groups four at a time (decode and a few tokens on gemv4, one quad on
// gemm4), chunks of whole fours of groups. A chunk's leftover groups would
// take the one-group kernels (a single stream, no prefetch), and the
// pool's small tail chunks left one to three of them in most chunks (3.6%
// of TinyLlama Q4_K_M's Q4_K decode time).
func (j *matmulJob) grain() int {
	if j.pk != nil && (!j.prefill && j.pk.gemv4 != nil || j.fewStreams() || j.quadStreams()) {
		return 4
	}
	return 1
}

// fewStreams says whether a packed prefill job runs its tokens one by
// one through decode's four-group kernel (units are groups).
func (j *matmulJob) fewStreams() bool {
	return j.prefill && j.pk.gemv4 != nil && j.ntok <= j.pk.fewTokens && !j.quadWhole(j.ntok)
}

// quadStreams says whether a packed prefill job of one whole quad runs on
// the four-group gemm4 (units are groups), where fewStreams does not.
func (j *matmulJob) quadStreams() bool {
	return j.prefill && !j.fewStreams() && j.pk.gemm4 != nil && j.ntok == 4 && !j.oneTok
}

// fusedGrain is the grain of a MatMulN job over jobs whose units start at
// offs: their common grain where each starts on it, else 1.
func fusedGrain(jobs []matmulJob, offs []int) int {
	g := jobs[0].grain()
	for i := range jobs {
		if jobs[i].grain() != g || offs[i]%g != 0 {
			return 1
		}
	}
	return g
}

// run computes scheduling units [lo, hi): single rows for decode, row tiles
// for prefill.
func (j *matmulJob) run(lo, hi int) {
	if j.pk != nil {
		j.runPacked(lo, hi)
		return
	}
	r0, r1 := lo*j.rowUnits, hi*j.rowUnits
	if r1 > j.rows {
		r1 = j.rows
	}
	if j.few {
		j.runFew(r0, r1)
		return
	}
	if !j.prefill {
		a := j.a[:j.aRow]
		r := r0
		if q := (r1 - r0) / 4; j.dotR4 != nil && q > 0 {
			// Rows r, r+q, r+2q, r+3q: four sequential streams a quarter
			// of the range apart, which DRAM serves faster than the four
			// adjacent rows of one stream.
			a4 := a
			if j.aR4 != nil {
				a4 = j.aR4
			}
			for ; r < r0+q; r++ {
				j.dotR4(j.cols, j.w[r*j.wRow:(r+3*q+1)*j.wRow], q*j.wRow, a4, j.out[r:], q)
			}
			r = r0 + 4*q
		} else if q > 0 {
			// The single-row kernels take the same four streams in turn.
			for ; r < r0+q; r++ {
				for k := 0; k < 4; k++ {
					rk := r + k*q
					j.out[rk] = j.dot(j.cols, j.w[rk*j.wRow:(rk+1)*j.wRow], a)
				}
			}
			r = r0 + 4*q
		}
		for ; r < r1; r++ {
			j.out[r] = j.dot(j.cols, j.w[r*j.wRow:(r+1)*j.wRow], a)
		}
		return
	}
	var buf []byte
	if j.q8Rows != nil || j.rewrite != nil {
		slot, b := j.bufs.claim(j.rowUnits * j.q8Row)
		defer j.bufs.release(slot)
		buf = b
	}
	for rt := r0; rt < r1; rt += j.rowUnits {
		re := min(rt+j.rowUnits, r1)
		// The rows the tiles read: w from row tw0 on, wRow bytes apart.
		tw, tw0, twRow := j.w, 0, j.wRow
		if buf != nil {
			rEnd := rt + (re-rt)/j.tileRows*j.tileRows
			if j.rewrite != nil {
				for r := rt; r < rEnd; r += j.tileRows {
					j.rewrite(buf[(r-rt)*j.q8Row:(r-rt+j.tileRows)*j.q8Row], j.w[r*j.wRow:(r+j.tileRows)*j.wRow], j.wRow)
				}
			}
			for r := rt; r < rEnd && j.q8Rows != nil; r++ {
				j.q8Rows(buf[(r-rt)*j.q8Row:(r-rt+1)*j.q8Row], j.w[r*j.wRow:(r+1)*j.wRow])
			}
			tw, tw0, twRow = buf, rt, j.q8Row
		}
		for t0 := 0; t0 < j.ntok; t0 += tokTile {
			te := min(t0+tokTile, j.ntok)
			r := rt
			if j.dot2x4 != nil && te-t0 >= 4 {
				tr := j.tileRows
				rEnd := rt + (re-rt)/tr*tr
				tq := t0 + (te-t0)&^3
				if j.tilesOuter && j.dot2x4Q != nil && tq > t0 {
					// The same, the token tile's quads in one call.
					for r := rt; r < rEnd; r += tr {
						j.tileQAt(tw, tw0, twRow, r, t0, (tq-t0)/4)
					}
				} else if j.tilesOuter {
					// Tiles outer, quads inner: the row tile stays in
					// L1 while the token tile's quads pass by.
					for r := rt; r < rEnd; r += tr {
						for t := t0; t < tq; t += 4 {
							j.tileAt(tw, tw0, twRow, r, t)
						}
					}
				} else {
					// Quads outer, tiles inner: a quad's activations stay
					// in the core's caches while the row tiles pass by.
					t := t0
					for ; j.tile4x8 != nil && t+8 <= tq; t += 8 {
						for r := rt; r < rEnd; r += 4 {
							w := tw[(r-tw0)*twRow : (r-tw0+4)*twRow]
							aq := j.px4[t/4*j.qBytes : (t/4+2)*j.qBytes]
							j.tile4x8(j.cols, w, twRow, nil, 0, aq, j.out[t*j.rows+r:], j.rows)
						}
					}
					for ; t < tq; t += 4 {
						for r := rt; r < rEnd; r += tr {
							j.tileAt(tw, tw0, twRow, r, t)
						}
					}
				}
				if te-tq >= 2 && j.qBytes == 0 && j.dotQ == nil {
					// Two or three tokens left over, and tiles that read
					// only the token rows: one more tile pass over the
					// last four tokens, rewriting the outputs of the
					// quad's tokens among them with the same bits (each
					// pair in its single-row order).
					t := te - 4
					at := j.a[t*j.aRow : te*j.aRow]
					for r := rt; r < rEnd; r += tr {
						j.dot2x4(j.cols, tw[(r-tw0)*twRow:(r-tw0+tr)*twRow], twRow, at, j.aRow, nil, j.out[t*j.rows+r:], j.rows)
					}
					tq = te
				}
				t := tq
				if j.dotR4x2 != nil && t >= j.quadEnd {
					// Pairs left over: four rows by two tokens (dot's
					// twin), each weight block decoded once for both.
					for ; t+2 <= te; t += 2 {
						at := j.a[t*j.aRow : (t+2)*j.aRow]
						r := rt
						for ; r+4 <= rEnd; r += 4 {
							j.dotR4x2(j.cols, j.w[r*j.wRow:(r+4)*j.wRow], j.wRow, at, j.aRow, j.out[t*j.rows+r:], 1, j.rows)
						}
						for ; r < rEnd; r++ {
							for k := t; k < t+2; k++ {
								j.out[k*j.rows+r] = j.dot(j.cols, j.w[r*j.wRow:(r+1)*j.wRow], j.a[k*j.aRow:(k+1)*j.aRow])
							}
						}
					}
				}
				for ; t < te; t++ {
					at := j.a[t*j.aRow : (t+1)*j.aRow]
					r := rt
					if j.dotR4 != nil && t >= j.quadEnd {
						// Four rows at a time (dotR4 is dot's twin): the
						// token widened or read once for the four.
						for ; r+4 <= rEnd; r += 4 {
							j.dotR4(j.cols, j.w[r*j.wRow:(r+4)*j.wRow], j.wRow, at, j.out[t*j.rows+r:], 1)
						}
					}
					dot := j.dotAt(t)
					for ; r < rEnd; r++ {
						j.out[t*j.rows+r] = dot(j.cols, j.w[r*j.wRow:(r+1)*j.wRow], at)
					}
				}
				r = rEnd
			}
			for ; r < re; r++ {
				wr := j.w[r*j.wRow : (r+1)*j.wRow]
				t := t0
				if j.dot8 != nil {
					for ; t+8 <= te; t += 8 {
						j.dot8(j.cols, wr, j.a[t*j.aRow:(t+8)*j.aRow], j.aRow, j.out[t*j.rows+r:], j.rows)
					}
				}
				if j.dot4 != nil {
					for ; t+4 <= te; t += 4 {
						j.dot4(j.cols, wr, j.a[t*j.aRow:(t+4)*j.aRow], j.aRow, j.out[t*j.rows+r:], j.rows)
					}
				}
				for ; t < te; t++ {
					j.out[t*j.rows+r] = j.dotAt(t)(j.cols, wr, j.a[t*j.aRow:(t+1)*j.aRow])
				}
			}
		}
	}
}

// tileAt runs dot2x4 on the row tile at row r (of the rows tw holds from
// row tw0 on, twRow bytes apart) and the quad of tokens t..t+3.
func (j *matmulJob) tileAt(tw []byte, tw0, twRow, r, t int) {
	w := tw[(r-tw0)*twRow : (r-tw0+j.tileRows)*twRow]
	at, aq := j.a[t*j.aRow:(t+4)*j.aRow], j.px4[t/4*j.qBytes:(t/4+1)*j.qBytes]
	j.dot2x4(j.cols, w, twRow, at, j.aRow, aq, j.out[t*j.rows+r:], j.rows)
}

// tileQAt runs dot2x4Q on the 2-row tile at row r and the nq quads from
// token t (a multiple of 4) on.
func (j *matmulJob) tileQAt(tw []byte, tw0, twRow, r, t, nq int) {
	w := tw[(r-tw0)*twRow : (r-tw0+2)*twRow]
	at, aq := j.a[t*j.aRow:(t+4*nq)*j.aRow], j.px4[t/4*j.qBytes:(t/4+nq)*j.qBytes]
	j.dot2x4Q(j.cols, w, twRow, at, j.aRow, aq, j.qBytes, j.out[t*j.rows+r:], j.rows, nq)
}

// runFew computes rows [r0, r1) of a few-token batch: rows r, r+q, r+2q,
// r+3q for every token (the first token reads them from DRAM in four
// sequential streams, as decode does; the others from the caches), then
// the rows left over row by row.
func (j *matmulJob) runFew(r0, r1 int) {
	r := r0
	if q := (r1 - r0) / 4; q > 0 && j.dotR4x2 != nil {
		// Tokens by quads and pairs, each block decoded once for them;
		// an odd one alone.
		for ; r < r0+q; r++ {
			w := j.w[r*j.wRow : (r+3*q+1)*j.wRow]
			t := 0
			if j.dotR4x4 != nil {
				for ; t+4 <= j.ntok; t += 4 {
					j.dotR4x4(j.cols, w, q*j.wRow, j.a[t*j.aRow:(t+4)*j.aRow], j.aRow, j.out[t*j.rows+r:], q, j.rows)
				}
			}
			for ; t+2 <= j.ntok; t += 2 {
				j.dotR4x2(j.cols, w, q*j.wRow, j.a[t*j.aRow:(t+2)*j.aRow], j.aRow, j.out[t*j.rows+r:], q, j.rows)
			}
			if t < j.ntok {
				j.dotR4(j.cols, w, q*j.wRow, j.a[t*j.aRow:(t+1)*j.aRow], j.out[t*j.rows+r:], q)
			}
		}
		r = r0 + 4*q
	} else if q > 0 {
		for ; r < r0+q; r++ {
			w := j.w[r*j.wRow : (r+3*q+1)*j.wRow]
			for t := 0; t < j.ntok; t++ {
				j.dotR4(j.cols, w, q*j.wRow, j.a[t*j.aRow:(t+1)*j.aRow], j.out[t*j.rows+r:], q)
			}
		}
		r = r0 + 4*q
	}
	for ; r < r1; r++ {
		w := j.w[r*j.wRow : (r+1)*j.wRow]
		for t := 0; t < j.ntok; t++ {
			j.out[t*j.rows+r] = j.dot(j.cols, w, j.a[t*j.aRow:(t+1)*j.aRow])
		}
	}
}

// dotAt is the single-token kernel for prefill token t: the multi-token
// kernels cover whole groups of four (they compute the four-token order of
// a vecDotQuad type), so this is for tokens left over.
func (j *matmulJob) dotAt(t int) vecDotFunc {
	if t < j.quadEnd {
		return j.dotQ
	}
	return j.dot
}

// gemvAt runs the packed one-token kernel on token tok of the quad at aq
// (gemv reads it at offset 4tok, gemvQ takes tok).
func (j *matmulJob) gemvAt(w, aq []byte, tok int, out []float32) {
	if j.uniform {
		j.pk.gemvQ(j.nb, w, aq, tok, out)
		return
	}
	if j.pk.gemvTok != nil {
		j.pk.gemvTok(j.nb, w, aq, tok, out)
		return
	}
	j.pk.gemv(j.nb, w, aq[4*tok:4*tok+j.qBytes], out)
}

// gemv4At runs the packed four-group one-token kernel on groups u, u+q,
// u+2q, u+3q and token tok of the first quad.
func (j *matmulJob) gemv4At(u, q, tok int, out []float32) {
	w := j.pw[u*j.gBytes : (u+3*q+1)*j.gBytes]
	if j.uniform {
		j.pk.gemv4Q(j.nb, w, q*j.gBytes, j.px4[:j.qBytes], tok, out, q*packRows)
		return
	}
	j.pk.gemv4(j.nb, w, q*j.gBytes, j.px4[4*tok:4*tok+j.qBytes], out, q*packRows)
}

// quadWhole reports whether a partial quad of n tokens under a uniform
// order runs through gemmQ, computed whole, rather than token by token:
// for three tokens (AVX2 Q4_K, 5632x2048 from DRAM on a Zen3: 0.76-0.82x
// the time of three one-token passes, seven tokens 0.86-0.96x; two tokens
// 0.97-1.07x, not taken).
func (j *matmulJob) quadWhole(n int) bool {
	return j.uniform && n == 3 && j.pk.gemmQ != nil
}

// tokenDot is the single-token kernel whose result MatMul gives for token
// tok of an ntok-token batch of weight type t (tests compare with it).
func (s *kernelSet) tokenDot(t ggml.Type, tok, ntok int) vecDotFunc {
	if f := s.vecDot1[t]; f != nil && ntok == 1 {
		return f
	}
	if f := s.vecDotQuad[t]; f != nil && ntok > 1 && tok < ntok&^3 {
		return f
	}
	return s.vecDot[t]
}

// runPacked computes units [lo, hi) of a packed matmul.
func (j *matmulJob) runPacked(lo, hi int) {
	if !j.prefill {
		if j.pk.gemv4 != nil {
			// Groups u, u+q, u+2q, u+3q: four streams a quarter of the
			// range apart.
			q := (min(hi, j.groups) - lo) / 4
			for u := lo; u < lo+q; u++ {
				j.gemv4At(u, q, 0, j.out[u*packRows:])
			}
			lo += 4 * q
		}
		for u := lo; u < hi; u++ {
			if u < j.groups {
				j.gemvAt(j.pw[u*j.gBytes:(u+1)*j.gBytes], j.px4[:j.qBytes], 0, j.out[u*packRows:(u+1)*packRows])
				continue
			}
			a := j.a[:j.aRow]
			for r := j.groups * packRows; r < j.rows; r++ {
				j.out[r] = j.dot(j.cols, j.w[r*j.wRow:(r+1)*j.wRow], a)
			}
		}
		return
	}
	if j.fewStreams() {
		// Few tokens (units are groups): decode's four streams, groups
		// u, u+q, u+2q, u+3q, for each token in turn (the later ones
		// find the groups in the caches).
		q := (min(hi, j.groups) - lo) / 4
		for u := lo; u < lo+q; u++ {
			w := j.pw[u*j.gBytes : (u+3*q+1)*j.gBytes]
			t := 0
			if g4x2 := j.pk.gemv4Qx2; g4x2 != nil && j.uniform {
				for ; t+2 <= j.ntok; t += 2 {
					g4x2(j.nb, w, q*j.gBytes, j.px4[:j.qBytes], t, j.out[t*j.rows+u*packRows:], q*packRows, j.rows)
				}
			} else if g4x2 := j.pk.gemv4x2; g4x2 != nil && !j.uniform {
				for ; t+2 <= j.ntok; t += 2 {
					g4x2(j.nb, w, q*j.gBytes, j.px4[4*t:4*t+j.qBytes], j.out[t*j.rows+u*packRows:], q*packRows, j.rows)
				}
			}
			for ; t < j.ntok; t++ {
				j.gemv4At(u, q, t, j.out[t*j.rows+u*packRows:])
			}
		}
		lo += 4 * q
	} else if j.quadStreams() {
		// One whole quad (units are groups): groups u, u+q, u+2q, u+3q.
		q := (min(hi, j.groups) - lo) / 4
		for u := lo; u < lo+q; u++ {
			j.pk.gemm4(j.nb, j.pw[u*j.gBytes:(u+3*q+1)*j.gBytes], q*j.gBytes, j.px4[:j.qBytes], j.out[u*packRows:], j.rows, q*packRows)
		}
		lo += 4 * q
	}
	for u := lo; u < hi; u++ {
		q0 := u / j.gUnits * quadTile
		q1 := min(q0+quadTile, j.nquads)
		g := u % j.gUnits
		if g == j.groups { // tail rows, row by row
			te := min(4*q1, j.ntok)
			for r := g * packRows; r < j.rows; r++ {
				wr := j.w[r*j.wRow : (r+1)*j.wRow]
				t := 4 * q0
				if j.dot4 != nil {
					for ; t+4 <= te; t += 4 {
						j.dot4(j.cols, wr, j.a[t*j.aRow:(t+4)*j.aRow], j.aRow, j.out[t*j.rows+r:], j.rows)
					}
				}
				for ; t < te; t++ {
					j.out[t*j.rows+r] = j.dotAt(t)(j.cols, wr, j.a[t*j.aRow:(t+1)*j.aRow])
				}
			}
			continue
		}
		// Two adjacent groups at once (this unit and the next) where the
		// type has a two-group kernel: whole quads through it.
		pair := j.pk.gemm2 != nil && !j.oneTok && g+1 < j.groups && u+1 < hi
		for q := q0; q < q1; q++ {
			if pair && 4*q+4 <= j.ntok {
				j.pk.gemm2(j.nb, j.pw[g*j.gBytes:(g+2)*j.gBytes], j.px4[q*j.qBytes:(q+1)*j.qBytes], j.out[4*q*j.rows+g*packRows:], j.rows)
				continue
			}
			j.packedQuad(g, q)
			if pair {
				j.packedQuad(g+1, q)
			}
		}
		if pair {
			u++
		}
	}
}

// packedQuad computes group g's rows for the tokens of quad q (prefill).
func (j *matmulJob) packedQuad(g, q int) {
	wg := j.pw[g*j.gBytes : (g+1)*j.gBytes]
	aq, n := j.px4[q*j.qBytes:], min(4, j.ntok-4*q)
	if j.oneTok || n < 4 && j.uniform && !j.quadWhole(n) {
		// A partial quad in the quad order, or a tokenwise matrix's
		// quad in the one-token order: token by token.
		for t := 0; t < n; t++ {
			j.gemvAt(wg, aq[:j.qBytes], t, j.out[(4*q+t)*j.rows+g*packRows:])
		}
		return
	}
	if n < 4 && j.uniform {
		j.pk.gemmQ(j.nb, wg, aq[:j.qBytes], j.out[4*q*j.rows+g*packRows:], j.rows, n)
		return
	}
	j.pk.gemm(j.nb, wg, aq[:j.qBytes], j.out[4*q*j.rows+g*packRows:], j.rows, n)
}
