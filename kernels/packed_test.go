package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestMatMulBitExact checks every matmul path end to end (packed layouts,
// four-row, four-token and 2x4 tiles, tails): MatMul of each implementation
// must equal the generic single-row kernel for every row and token, to the
// bit (packing and tiling move bytes, never change the arithmetic). Row
// counts leave tails outside groups and tiles; token counts leave partial
// quads and several token tiles.
func TestMatMulBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	pools := []*Pool{NewPool(1), NewPool(2)}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	defer SetImpl(active.name)
	tested := 0
	for _, s := range implementations {
		if !s.available {
			continue
		}
		for _, wt := range weightTypes {
			tested++
			if err := SetImpl(s.name); err != nil {
				t.Fatal(err)
			}
			at := vecDotType[wt]
			bs := max(blockSize(wt), blockSize(at))
			shapes := []struct{ rows, nb int }{{8, 1}, {17, 3}, {64, 2}, {67, 5}, {16, 16}, {23, 2}}
			if bs <= 32 {
				// Long rows (4800 columns for the 32-element blocks),
				// rows past a row unit of the prefill tiles.
				shapes = append(shapes, struct{ rows, nb int }{31, 150})
			}
			for _, sh := range shapes {
				cols := sh.nb * bs
				if bs == 1 {
					cols = 8 * sh.nb
				}
				w := randomWeights(r, wt, sh.rows*cols, []float32{0.05, 300, 1e-4}[sh.nb%3], 7)
				if wt == ggml.Q8_0 {
					clampQ8(w)
				}
				m, err := NewMatrix(wt, sh.rows, cols, w)
				if err != nil {
					t.Fatal(err)
				}
				// A tokenwise twin (expert matrices): every token in the
				// one-token order where that differs.
				mt, err := NewMatrix(wt, sh.rows, cols, w)
				if err != nil {
					t.Fatal(err)
				}
				mt.SetTokenwise()
				// A matrix whose packing has not finished: row by row.
				mr, err := NewMatrix(wt, sh.rows, cols, w)
				if err != nil {
					t.Fatal(err)
				}
				mr.pack.background.Store(true)
				for _, ntok := range []int{1, 2, 3, 4, 5, 11, 70} {
					x := randFloats(r, ntok*cols, []float32{1, 1e-3, 40}[ntok%3])
					if ntok > 2 {
						clear(x[cols : cols+bs]) // an all-zero activation block
					}
					for pi, p := range pools {
						sc := NewScratch(cols, ntok)
						a := sc.Quantize(p, wt, x, ntok, cols)
						out := make([]float32, ntok*sh.rows)
						p.MatMul(out, m, a)
						if pc := m.pack.copy.Load(); s.packed[wt] != nil && (pc == nil || pc.kern != s.packed[wt]) && sh.rows >= packRows {
							t.Fatalf("%s %v: matrix not packed", s.name, wt)
						}
						for tok := 0; tok < ntok; tok++ {
							// llama.cpp's order for this token: one-token
							// batches follow ggml_vec_dot, Q4_K's whole
							// quads its repacked gemm.
							ref := twinOf(s).tokenDot(wt, tok, ntok)
							ar := a.Row(tok)
							for row := 0; row < sh.rows; row++ {
								want := ref(cols, m.Row(row), ar)
								if got := out[tok*sh.rows+row]; got != want {
									t.Fatalf("%s %v %dx%d ntok=%d pool %d: out[tok %d, row %d] = %v, generic %v",
										s.name, wt, sh.rows, cols, ntok, pi, tok, row, got, want)
								}
							}
						}
						// Under a uniform order every token takes the
						// multi-token order, whatever ntok: the four-token
						// order of a type that has one (Q4_K), packed and
						// row by row, vecDot's for the types whose lone
						// tokens otherwise take vecDot1 (F16, F32), and
						// for a tokenwise matrix vecDot1's.
						su := NewScratch(cols, ntok)
						su.SetUniformOrder(true)
						au := su.Quantize(p, wt, x, ntok, cols)
						for mi, mm := range []*Matrix{m, mr, mt} {
							clear(out)
							p.MatMul(out, mm, au)
							ref := twinOf(s).vecDot[wt]
							if dq := twinOf(s).vecDotQuad[wt]; dq != nil {
								ref = dq
							}
							if d1 := twinOf(s).vecDot1[wt]; d1 != nil && mm == mt {
								ref = d1
							}
							for tok := 0; tok < ntok; tok++ {
								for row := 0; row < sh.rows; row++ {
									if got, want := out[tok*sh.rows+row], ref(cols, m.Row(row), au.Row(tok)); got != want {
										t.Fatalf("%s %v %dx%d ntok=%d pool %d, uniform order (matrix %d): out[tok %d, row %d] = %v, generic %v",
											s.name, wt, sh.rows, cols, ntok, pi, mi, tok, row, got, want)
									}
								}
							}
						}
						if ntok > 5 {
							continue
						}
						p.MatMul(out, mt, a)
						for tok := 0; tok < ntok; tok++ {
							// Every token in the one-token order (vecDot1's
							// where the type has one, else vecDot's, not the
							// four-token order of Q4_K's whole quads).
							ref := twinOf(s).tokenDot(wt, 0, 1)
							for row := 0; row < sh.rows; row++ {
								if got, want := out[tok*sh.rows+row], ref(cols, m.Row(row), a.Row(tok)); got != want {
									t.Fatalf("%s %v %dx%d ntok=%d pool %d, tokenwise: out[tok %d, row %d] = %v, generic %v",
										s.name, wt, sh.rows, cols, ntok, pi, tok, row, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
	_ = tested
}

// BenchmarkPacked compares, per 8 rows x 4096 columns, the packed decode
// (gemv) and prefill (gemm, 4 tokens) kernels.
func BenchmarkPacked(b *testing.B) {
	r := rand.New(rand.NewPCG(43, 44))
	const n = 4096
	for _, wt := range weightTypes {
		k := active.packed[wt]
		if k == nil {
			continue
		}
		at := vecDotType[wt]
		nb := n / blockSize(wt)
		w := randomWeights(r, wt, packRows*n, 0.05, 0)
		pw := make([]byte, nb*k.groupBlockBytes)
		k.pack(pw, w, rowBytes(wt, n))
		arow := rowBytes(at, n)
		a := make([]byte, 4*arow)
		genericSet.quantize[at](randFloats(r, 4*n, 1), a)
		ax := make([]byte, nb*n/blockSize(at)/nb*k.act.blockBytes)
		k.act.pack(ax, a, arow, 4)
		out := make([]float32, 4*packRows)
		b.Run(fmt.Sprintf("%s/%v/gemv", active.name, wt), func(b *testing.B) {
			b.SetBytes(int64(len(pw)))
			c0 := processCPU()
			for b.Loop() {
				k.gemv(nb, pw, ax, out)
			}
			reportCPU(b, c0)
		})
		b.Run(fmt.Sprintf("%s/%v/gemm", active.name, wt), func(b *testing.B) {
			b.SetBytes(int64(len(pw)))
			c0 := processCPU()
			for b.Loop() {
				k.gemm(nb, pw, ax, out, packRows, 4)
			}
			reportCPU(b, c0)
		})
	}
}

// TestMatMulN checks that one fused call equals separate MatMul calls (bit
// for bit) for matrices of different types and row counts sharing their
// activations, in decode and prefill, and allocates nothing.
func TestMatMulN(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	p := NewPool(2)
	defer p.Close()
	const cols = 512
	for _, wt := range []ggml.Type{ggml.Q4_0, ggml.Q8_0, ggml.Q4_K, ggml.F16} {
		var ms []*Matrix
		for _, rows := range []int{64, 8, 19} {
			m, err := NewMatrix(wt, rows, cols, randomWeights(r, wt, rows*cols, 0.05, 0))
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		for _, ntok := range []int{1, 9} {
			sc := NewScratch(cols, ntok)
			a := sc.Quantize(p, wt, randFloats(r, ntok*cols, 1), ntok, cols)
			outs := make([][]float32, len(ms))
			for i, m := range ms {
				outs[i] = make([]float32, ntok*m.Rows)
			}
			p.MatMulN(outs, ms, a)
			for i, m := range ms {
				want := make([]float32, ntok*m.Rows)
				p.MatMul(want, m, a)
				for k := range want {
					if math.Float32bits(outs[i][k]) != math.Float32bits(want[k]) {
						t.Fatalf("%v ntok=%d matrix %d out[%d]: fused %v, alone %v", wt, ntok, i, k, outs[i][k], want[k])
					}
				}
			}
			if n := testing.AllocsPerRun(20, func() { p.MatMulN(outs, ms, a) }); n != 0 {
				t.Errorf("%v ntok=%d: MatMulN allocates %v times", wt, ntok, n)
			}
		}
	}
}

// TestGemv4 checks every implementation's four-group gemv against its own
// one-group gemv on each group (which TestMatMulBitExact ties to the
// generic kernels), bit for bit: block column counts from 0 up, groups of
// different scales at unaligned offsets with gaps between them, outputs
// packed or spread, nothing written between or around them.
func TestGemv4(t *testing.T) {
	// Both forms of the kernels that have a prefetching twin.
	defer func(v bool) { streamPrefetch = v }(streamPrefetch)
	for _, pf := range []bool{false, true} {
		streamPrefetch = pf
		testGemv4(t)
	}
}

func testGemv4(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, s := range implementations {
		if !s.available {
			continue
		}
		for _, wt := range weightTypes {
			k := s.packed[wt]
			if k == nil || k.gemv4 == nil && k.gemm4 == nil {
				continue
			}
			at := vecDotType[wt]
			for _, nb := range []int{0, 1, 2, 3, 7, 16, 33} {
				cols := max(nb, 1) * blockSize(wt)
				gb := nb * k.groupBlockBytes
				gstride := gb + 5
				buf := make([]byte, 1+3*gstride+max(gb, 1))
				w := buf[1:]
				for g := 0; g < 4; g++ {
					rows := randomWeights(r, wt, packRows*cols, []float32{0.05, 300, 1e-3, 7}[g], 7)
					if nb > 0 {
						k.pack(w[g*gstride:g*gstride+gb], rows, rowBytes(wt, cols))
					}
				}
				arow := rowBytes(at, cols)
				a := make([]byte, 4*arow)
				s.quantize[at](randFloats(r, 4*cols, 1), a)
				ax := make([]byte, 3+max(nb, 1)*k.act.blockBytes+quadSlack)[3:]
				k.act.pack(ax, a, arow, 4)
				ax = ax[:nb*k.act.blockBytes]
				if k.gemm4 != nil {
					checkGemm4(t, s.name, wt, k, nb, w[:3*gstride+gb], gstride, gb, ax)
				}
				if k.gemv4x2 != nil {
					checkGemv4x2(t, s.name, wt, k, nb, w[:3*gstride+gb], gstride, gb, ax)
				}
				if k.gemv4Qx2 != nil {
					checkGemv4Qx2(t, s.name, wt, k, nb, w[:3*gstride+gb], gstride, ax)
				}
				// The one-token order's pair, then the four-token order's.
				type pair struct {
					gemv  func(nb int, w, a []byte, out []float32)
					gemv4 func(nb int, w []byte, gstride int, a []byte, out []float32, ostride int)
				}
				pairs := []pair{{k.gemv, k.gemv4}}
				if k.gemvQ != nil {
					for tok := 0; tok < 4; tok++ {
						pairs = append(pairs, pair{
							func(nb int, w, a []byte, out []float32) { k.gemvQ(nb, w, a, tok, out) },
							func(nb int, w []byte, gstride int, a []byte, out []float32, ostride int) {
								k.gemv4Q(nb, w, gstride, a, tok, out, ostride)
							},
						})
					}
				}
				for pi, pr := range pairs {
					for _, ostride := range []int{packRows, packRows + 3} {
						if pr.gemv4 == nil {
							break
						}
						want := make([]float32, 4*packRows)
						for g := 0; g < 4; g++ {
							pr.gemv(nb, w[g*gstride:g*gstride+gb], ax, want[g*packRows:(g+1)*packRows])
						}
						got := make([]float32, 2+3*ostride+packRows)
						for i := range got {
							got[i] = -1
						}
						pr.gemv4(nb, w[:3*gstride+gb], gstride, ax, got[1:1+3*ostride+packRows], ostride)
						for i, v := range got {
							g, rr := (i-1)/ostride, (i-1)%ostride
							inside := i >= 1 && g < 4 && rr < packRows
							if !inside {
								if v != -1 {
									t.Fatalf("%s %v nb=%d ostride=%d (pair %d): gemv4 wrote got[%d] outside its outputs", s.name, wt, nb, ostride, pi, i)
								}
								continue
							}
							if math.Float32bits(v) != math.Float32bits(want[g*packRows+rr]) {
								t.Fatalf("%s %v nb=%d ostride=%d (pair %d): group %d row %d = %v, gemv %v", s.name, wt, nb, ostride, pi, g, rr, v, want[g*packRows+rr])
							}
						}
					}
				}
			}
		}
	}
}

// checkGemv4Qx2 compares the two-token four-group gemv in the four-token
// order with gemv4Q on each of its tokens, bit for bit, and checks that it
// writes nothing else.
func checkGemv4Qx2(t *testing.T, impl string, wt ggml.Type, k *packedKernels, nb int, w []byte, gstride int, ax []byte) {
	t.Helper()
	const ostride, tstride = packRows + 3, 4*(packRows+3) + 5
	n := tstride + 3*ostride + packRows
	for tok := 0; tok <= 2; tok++ {
		want := make([]float32, n)
		got := make([]float32, n+2)
		for i := range want {
			want[i] = -1
		}
		for i := range got {
			got[i] = -1
		}
		k.gemv4Q(nb, w, gstride, ax, tok, want, ostride)
		k.gemv4Q(nb, w, gstride, ax, tok+1, want[tstride:], ostride)
		k.gemv4Qx2(nb, w, gstride, ax, tok, got[1:1+n], ostride, tstride)
		if got[0] != -1 || got[n+1] != -1 {
			t.Fatalf("%s %v nb=%d tok %d: gemv4Qx2 wrote outside its outputs", impl, wt, nb, tok)
		}
		for i, v := range want {
			if math.Float32bits(got[1+i]) != math.Float32bits(v) {
				t.Fatalf("%s %v nb=%d tok %d: gemv4Qx2 out[%d] = %v, gemv4Q %v", impl, wt, nb, tok, i, got[1+i], v)
			}
		}
	}
}

// checkGemm4 compares a four-group gemm with four gemm calls on a whole
// quad, bit for bit, and checks that it writes nothing else.
func checkGemm4(t *testing.T, impl string, wt ggml.Type, k *packedKernels, nb int, w []byte, gstride, gb int, ax []byte) {
	t.Helper()
	const ostride, gout = packRows + 5, 4*(packRows+5) + 3
	n := 3*gout + 3*ostride + packRows
	want := make([]float32, n)
	got := make([]float32, n+2)
	for i := range want {
		want[i] = -1
		got[i] = -1
	}
	got[n], got[n+1] = -1, -1
	for g := 0; g < 4; g++ {
		k.gemm(nb, w[g*gstride:g*gstride+gb], ax, want[g*gout:], ostride, 4)
	}
	k.gemm4(nb, w, gstride, ax, got[1:1+n], ostride, gout)
	if got[0] != -1 || got[n+1] != -1 {
		t.Fatalf("%s %v nb=%d: gemm4 wrote outside its outputs", impl, wt, nb)
	}
	for i, v := range want {
		if math.Float32bits(got[1+i]) != math.Float32bits(v) {
			t.Fatalf("%s %v nb=%d: gemm4 out[%d] = %v, gemm %v", impl, wt, nb, i, got[1+i], v)
		}
	}
}

// checkGemv4x2 holds a packed type's four-group two-token gemv to its
// gemv on each token (tokens 0-1 and, read from offset 4, 1-2 of the
// quad), outputs spread, nothing written around them.
func checkGemv4x2(t *testing.T, name string, wt ggml.Type, k *packedKernels, nb int, w []byte, gstride, gb int, ax []byte) {
	t.Helper()
	const ostride = packRows + 3
	const tstride = 4*ostride + 5
	// (As MatMul's quads, with spare bytes after them: token t read from
	// offset 4t.)
	axs := make([]byte, len(ax)+quadSlack)
	copy(axs, ax)
	tok := func(t int) []byte { return axs[4*t : 4*t+len(ax)] }
	for _, t0 := range []int{0, 1} {
		a := tok(t0)
		got := make([]float32, 2+tstride+3*ostride+packRows)
		for i := range got {
			got[i] = -1
		}
		k.gemv4x2(nb, w, gstride, a, got[1:], ostride, tstride)
		for i, v := range got {
			tk, rest := (i-1)/tstride, (i-1)%tstride
			g, r := rest/ostride, rest%ostride
			if i < 1 || tk > 1 || g > 3 || r >= packRows {
				if v != -1 {
					t.Fatalf("%s %v nb=%d: gemv4x2 wrote got[%d] outside its outputs", name, wt, nb, i)
				}
				continue
			}
			want := make([]float32, packRows)
			k.gemv(nb, w[g*gstride:g*gstride+gb], tok(t0+tk), want)
			if math.Float32bits(v) != math.Float32bits(want[r]) {
				t.Fatalf("%s %v nb=%d tokens from %d: token %d group %d row %d = %v, gemv %v", name, wt, nb, t0, tk, g, r, v, want[r])
			}
		}
	}
}

// TestMatMulGrain checks the scheduling grain: whole fours of groups for
// decode on a packed four-group kernel (runPacked streams them as four),
// single units otherwise, and for a fused job the common grain only where
// every matrix starts on it.
func TestMatMulGrain(t *testing.T) {
	r := rand.New(rand.NewPCG(57, 58))
	p := NewPool(2)
	defer p.Close()
	const cols = 512
	job := func(wt ggml.Type, rows, ntok int) (matmulJob, int) {
		m, err := NewMatrix(wt, rows, cols, randomWeights(r, wt, rows*cols, 0.05, 0))
		if err != nil {
			t.Fatal(err)
		}
		p.Prepare(m)
		s := NewScratch(cols, ntok)
		a := s.Quantize(p, wt, randFloats(r, ntok*cols, 1), ntok, cols)
		return p.newMatmulJob(make([]float32, ntok*rows), m, a)
	}
	four := 1
	if pk := active.packed[ggml.Q4_K]; pk != nil && pk.gemv4 != nil {
		four = 4
	}
	j64, u64 := job(ggml.Q4_K, 64, 1)
	j72, u72 := job(ggml.Q4_K, 72, 1)
	if four == 4 && (u64 != 8 || u72 != 9) {
		t.Fatalf("%s: Q4_K decode units %d and %d, want 8 and 9 groups", Impl(), u64, u72)
	}
	if g := j64.grain(); g != four {
		t.Errorf("%s: Q4_K decode grain %d, want %d", Impl(), g, four)
	}
	if pre, _ := job(ggml.Q4_K, 64, 9); pre.grain() != 1 {
		t.Errorf("%s: Q4_K prefill grain %d, want 1", Impl(), pre.grain())
	}
	// Two tokens run decode's four-group kernel token by token where the
	// type takes a few tokens that way.
	if pk := active.packed[ggml.Q4_K]; pk != nil && pk.gemv4 != nil && pk.fewTokens >= 2 {
		if few, _ := job(ggml.Q4_K, 64, 2); few.grain() != 4 {
			t.Errorf("%s: Q4_K two-token grain %d, want 4", Impl(), few.grain())
		}
	}
	q6, _ := job(ggml.Q6_K, 64, 1)
	if q6.grain() != 1 {
		t.Errorf("%s: Q6_K decode (row kernels) grain %d, want 1", Impl(), q6.grain())
	}
	for _, c := range []struct {
		jobs []matmulJob
		offs []int
		want int
	}{
		{[]matmulJob{j64, j64, j72}, []int{0, u64, 2 * u64}, four},
		{[]matmulJob{j72, j64}, []int{0, u72}, 1},
		{[]matmulJob{j64, q6}, []int{0, u64}, 1},
		{[]matmulJob{q6, j64}, []int{0, 16}, 1},
	} {
		if g := fusedGrain(c.jobs, c.offs); g != c.want {
			t.Errorf("%s: fused grain of jobs at %v: %d, want %d", Impl(), c.offs, g, c.want)
		}
	}
}

// fiveBitsBytes is fiveBits byte by byte, as the layouts' comments
// describe it.
func fiveBitsBytes(lane []byte, at *[4][2]uint8) {
	planes := lane[:32]
	for j := range planes {
		h := planes[j]
		var e byte
		for k := 0; k < 4; k++ {
			q := lane[32+32*k+j]
			va := q&0x0F | (h>>at[k][0]&1)<<4
			vb := q>>4 | (h>>at[k][1]&1)<<4
			lane[32+32*k+j] = va | (vb&7)<<5
			e |= (vb >> 3) << (2 * k)
		}
		planes[j] = e
	}
}

// TestFiveBits checks the word-wise fiveBits against fiveBitsBytes on
// random lanes, for both layouts' plane bits and a table of every bit.
func TestFiveBits(t *testing.T) {
	r := rand.New(rand.NewPCG(59, 60))
	tables := []*[4][2]uint8{&q5KPlaneBits, &q5_0PlaneBits, {{7, 0}, {6, 1}, {5, 2}, {4, 3}}}
	for i := 0; i < 200; i++ {
		for _, at := range tables {
			lane := make([]byte, 160+3)
			for j := range lane {
				lane[j] = byte(r.Uint32())
			}
			want := append([]byte(nil), lane...)
			fiveBitsBytes(want[:160], at)
			fiveBits(lane[:160], at)
			if !bytes.Equal(lane, want) {
				t.Fatalf("fiveBits(%v) differs from the bytewise twin:\n%x\n%x", *at, lane, want)
			}
		}
	}
}

// packPieceGroupBytewise is packPieceGroup written out element by element:
// the layout's definition, for TestPackPieceGroup.
func packPieceGroupBytewise(dst, src []byte, rowBytes, blockBytes int) {
	nb := rowBytes / blockBytes
	pieces := (blockBytes - 2) / 4
	gb := 16 + 32*pieces
	for b := 0; b < nb; b++ {
		o := dst[b*gb : (b+1)*gb]
		for r := 0; r < packRows; r++ {
			x := src[r*rowBytes+b*blockBytes : r*rowBytes+(b+1)*blockBytes]
			o[2*r], o[2*r+1] = x[0], x[1]
			for c := 0; c < pieces; c++ {
				for k := 0; k < 4; k++ {
					o[16+32*c+4*r+k] = x[2+4*c+k]
				}
			}
		}
	}
}

// TestPackPieceGroup compares the Q4_0 and Q8_0 group packing with its
// bytewise definition on random bytes.
func TestPackPieceGroup(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, bb := range []int{q4_0Bytes, q8_0Bytes} {
		for _, nb := range []int{1, 3, 64} {
			rowBytes := nb * bb
			src := make([]byte, packRows*rowBytes)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			gb := 16 + 32*((bb-2)/4)
			got, want := make([]byte, nb*gb), make([]byte, nb*gb)
			packPieceGroup(got, src, rowBytes, bb)
			packPieceGroupBytewise(want, src, rowBytes, bb)
			if !bytes.Equal(got, want) {
				t.Fatalf("block %d bytes, %d blocks: packed bytes differ from the definition", bb, nb)
			}
		}
	}
}

// BenchmarkPack times packing a 2048 x 2048 matrix of each packed type,
// group by group into memory already faulted in (the load's other cost).
func BenchmarkPack(b *testing.B) {
	r := rand.New(rand.NewPCG(43, 44))
	const rows, cols = 2048, 2048
	for _, wt := range []ggml.Type{ggml.Q4_0, ggml.Q5_0, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K} {
		k := active.packed[wt]
		if k == nil {
			continue
		}
		w := randomWeights(r, wt, rows*cols, 0.05, 0)
		rb := rowBytes(wt, cols)
		nb := cols / blockElems(wt)
		dst := make([]byte, rows/packRows*nb*k.groupBlockBytes)
		b.Run(fmt.Sprintf("%s/%v", active.name, wt), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			for b.Loop() {
				for g := 0; g < rows/packRows; g++ {
					gb := nb * k.groupBlockBytes
					k.pack(dst[g*gb:(g+1)*gb], w[g*packRows*rb:(g+1)*packRows*rb], rb)
				}
			}
		})
	}
}

// packQ5_KGroupSteps is packQ5_KGroup in the steps its layout comment
// describes: Q4_K's pieces (packK4Row), the plane bytes byte by byte, the
// pieces moved to their lanes, then fiveBits.
func packQ5_KGroupSteps(dst, src []byte, rowBytes int) {
	nb := rowBytes / q5_KBytes
	var k4 [q4_KGroupBytes]byte
	for b := 0; b < nb; b++ {
		o := dst[b*q5_KGroupBytes : (b+1)*q5_KGroupBytes]
		for r := 0; r < packRows; r++ {
			x := src[r*rowBytes+b*q5_KBytes : r*rowBytes+(b+1)*q5_KBytes]
			packK4Row(k4[:], r, x, x[48:176])
			qh := x[16:48]
			for g := 0; g < 8; g++ {
				for i := 0; i < 4; i++ {
					lo, hi := qh[4*g+i%2], qh[4*g+i%2+2]
					if i < 2 {
						o[160+160*g+4*r+i] = lo&0x55 | (hi&0x55)<<1
					} else {
						o[160+160*g+4*r+i] = lo>>1&0x55 | hi&0xAA
					}
				}
			}
		}
		copy(o[:160], k4[:160])
		for k := 0; k < 4; k++ {
			for g := 0; g < 8; g++ {
				copy(o[160+160*g+32+32*k:160+160*g+64+32*k], k4[160+32*(8*k+g):160+32*(8*k+g)+32])
			}
		}
		for g := 0; g < 8; g++ {
			fiveBits(o[160+160*g:320+160*g], &q5KPlaneBits)
		}
	}
}

// TestPackQ5_KGroup compares the fused Q5_K group packing with its steps
// on random bytes.
func TestPackQ5_KGroup(t *testing.T) {
	checkPacking(t, 45, q5_KBytes, q5_KGroupBytes, packQ5_KGroup, packQ5_KGroupSteps, "the steps", 1, 3, 8)
}

// packQ5_0GroupSteps is packQ5_0Group in the steps its layout comment
// describes: scales, plane bytes and pieces row by row, then fiveBits.
func packQ5_0GroupSteps(dst, src []byte, rowBytes int) {
	nb := rowBytes / q5_0Bytes
	for b := 0; b < nb; b++ {
		o := dst[b*q5_0GroupBytes : (b+1)*q5_0GroupBytes]
		for r := 0; r < packRows; r++ {
			x := src[r*rowBytes+b*q5_0Bytes : r*rowBytes+(b+1)*q5_0Bytes]
			o[2*r], o[2*r+1] = x[0], x[1]
			qh := binary.LittleEndian.Uint32(x[2:])
			for i := 0; i < 4; i++ {
				var v byte
				for j := 0; j < 8; j++ {
					v |= byte(qh>>(i+4*j)&1) << j
				}
				o[16+4*r+i] = v
			}
			for c := 0; c < 4; c++ {
				copy(o[48+32*c+4*r:48+32*c+4*r+4], x[6+4*c:10+4*c])
			}
		}
		fiveBits(o[16:], &q5_0PlaneBits)
	}
}

// TestPackQ5_0Group compares the fused Q5_0 group packing with its steps
// on random bytes.
func TestPackQ5_0Group(t *testing.T) {
	checkPacking(t, 47, q5_0Bytes, q5_0GroupBytes, packQ5_0Group, packQ5_0GroupSteps, "the steps", 1, 3, 64)
}

// fiveBits turns 32 bytes of bit planes and the four 32-byte pieces after
// them from nibbles and planes into five-bit bytes and two-bit planes
// (q5_KGroupBytes, q5_0GroupBytes): bit at[k][0] of plane byte j is the
// high bit of the low nibble of byte j of piece k, bit at[k][1] that of
// its high nibble. Eight bytes at a time in 64-bit words: every step keeps
// to its byte (shifts by less than 8 and masks per byte), so the words
// compute the bytes' results side by side (fiveBitsBytes, the byte by
// byte twin the tests compare). (It was the packers' last step until they did its work in registers;
// byte by byte it took most of the load:
// packing TinyLlama-shaped Q5_K_M weights took 2.16 s, Q5_0 1.69 s; in
// words 0.63 s and 0.47 s (Intel Xeon, two threads).
func fiveBits(lane []byte, at *[4][2]uint8) {
	const lo4, bit, low3, two = 0x0F0F0F0F0F0F0F0F, 0x0101010101010101, 0x0707070707070707, 0x0303030303030303
	_ = lane[159]
	for j := 0; j < 32; j += 8 {
		h := binary.LittleEndian.Uint64(lane[j:])
		var e uint64
		for k := 0; k < 4; k++ {
			p := lane[32+32*k+j:]
			q := binary.LittleEndian.Uint64(p)
			va := q&lo4 | (h>>(at[k][0]&7)&bit)<<4
			vb := q>>4&lo4 | (h>>(at[k][1]&7)&bit)<<4
			binary.LittleEndian.PutUint64(p, va|(vb&low3)<<5)
			e |= (vb >> 3 & two) << (2 * k)
		}
		binary.LittleEndian.PutUint64(lane[j:], e)
	}
}

// q5KPlaneBits and q5_0PlaneBits are where the nibble layouts of the Q5_K
// lanes and the Q5_0 columns keep their pieces' high bits (fiveBits).
var (
	q5KPlaneBits  = [4][2]uint8{{0, 1}, {2, 3}, {4, 5}, {6, 7}}
	q5_0PlaneBits = [4][2]uint8{{0, 4}, {1, 5}, {2, 6}, {3, 7}}
)

// packQ3_KGroupBytewise is packQ3_KGroup byte by byte from its layout
// comment (q3_KGroupBytes).
func packQ3_KGroupBytewise(dst, src []byte, rowBytes int) {
	nb := rowBytes / q3_KBytes
	var sc [16]int8
	for b := 0; b < nb; b++ {
		o := dst[b*q3_KGroupBytes : (b+1)*q3_KGroupBytes]
		for r := 0; r < packRows; r++ {
			x := src[r*rowBytes+b*q3_KBytes : r*rowBytes+(b+1)*q3_KBytes]
			o[2*r], o[2*r+1] = x[108], x[109]
			unpackQ3KScales(x[96:108], &sc)
			for h := 0; h < 2; h++ {
				for k := 0; k < 4; k++ {
					o[16+16*(4*h+k)+2*r] = byte(sc[4*k+h] - 32)
					o[16+16*(4*h+k)+2*r+1] = byte(sc[4*k+2+h] - 32)
				}
			}
			// u(e): the unsigned quant q+4 of element e = 128c+32s+l.
			u := func(e int) byte {
				c, s, l := e/128, e%128/32, e%32
				return x[32+32*c+l]>>(2*s)&3 | (x[l]>>(4*c+s)&1)<<2
			}
			for g := 0; g < 8; g++ {
				for i := 0; i < 4; i++ {
					var v [8]byte
					for k := 0; k < 4; k++ {
						e := 64*k + 4*g + [4]int{0, 1, 32, 33}[i]
						v[2*k], v[2*k+1] = u(e), u(e+2)
					}
					p := o[144+96*g+4*r+i:]
					p[0] = v[0] | v[1]<<3 | (v[2]&3)<<6
					p[32] = v[3] | v[4]<<3 | (v[5]&3)<<6
					p[64] = v[6] | v[7]<<3 | (v[2]>>2)<<6 | (v[5]>>2)<<7
				}
			}
		}
	}
}

// TestPackQ3_KGroup compares the Q3_K group packing with its bytewise
// definition on random bytes.
func TestPackQ3_KGroup(t *testing.T) {
	checkPacking(t, 49, q3_KBytes, q3_KGroupBytes, packQ3_KGroup, packQ3_KGroupBytewise, "the definition's steps", 1, 3, 8)
}

// checkPacking compares a group packer with its reference on random bytes,
// for rows of each number of blocks in nbs.
func checkPacking(t *testing.T, seed uint64, blockBytes, groupBytes int, pack, ref func(dst, src []byte, rowBytes int), what string, nbs ...int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	for _, nb := range nbs {
		rowBytes := nb * blockBytes
		src := make([]byte, packRows*rowBytes)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		got, want := make([]byte, nb*groupBytes), make([]byte, nb*groupBytes)
		pack(got, src, rowBytes)
		ref(want, src, rowBytes)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%d blocks: packed byte %d is %#02x, %s make it %#02x", nb, i, got[i], what, want[i])
			}
		}
	}
}
