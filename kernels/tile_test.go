package kernels

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestTilesVsTokenDot checks every rows x 4-token tile kernel (2x4, 3x4,
// 4x4 and 8x4, and their few-token twins) of every implementation (and the
// 512-bit tiles a set leaves out on this CPU, droppedTileSets) against the generic
// single-token kernel of the tile's float order, to the bit: row lengths
// with and without whole groups, unaligned rows with odd strides, the
// tokens' quad built as Quantize builds it, and no write outside the
// tile's outputs.
func TestTilesVsTokenDot(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for _, s := range append(simdSets(t), droppedTileSets()...) {
		for _, wt := range weightTypes {
			for _, tile := range []struct {
				rows int
				f    vecDot2x4Func
			}{{2, s.vecDot2x4[wt]}, {3, s.vecDot3x4[wt]}, {3, s.vecDot3x4Few[wt]}, {4, s.vecDot4x4[wt]}, {4, s.vecDot4x4Few[wt]}, {8, s.vecDot8x4[wt]}, {8, s.vecDot8x4Few[wt]}} {
				if tile.f == nil {
					continue
				}
				at := vecDotType[wt]
				bs := max(blockSize(wt), blockSize(at))
				for i, nb := range []int{1, 2, 5, 8, 3, 7, 17} {
					n := nb * bs
					if bs == 1 { // groups of 8: none whole, the unrolled loop's turns and tails
						n = []int{8, 12, 64, 2056, 24, 56, 136}[i]
					}
					wrow, arow := rowBytes(wt, n), rowBytes(at, n)
					wstride, astride := wrow+3, arow+5
					wbuf := make([]byte, 1+(tile.rows-1)*wstride+wrow)
					for k := 0; k < tile.rows; k++ {
						w := randomWeights(r, wt, n, []float32{0.05, 300, 1e-4, 1}[k%4], 3)
						if wt == ggml.Q8_0 {
							clampQ8(w)
						}
						copy(wbuf[1+k*wstride:], w)
					}
					abuf := make([]byte, 1+3*astride+arow)
					packed := make([]byte, 4*arow)
					for k := 0; k < 4; k++ {
						q := quantizeRow(t, at, randFloats(r, n, []float32{1, 1e-3, 50, 0}[k]))
						copy(abuf[1+k*astride:], q)
						copy(packed[k*arow:], q)
					}
					var aq []byte
					if qp := s.actQuad[at]; qp != nil {
						aq = make([]byte, n/blockSize(at)*qp.blockBytes)
						qp.pack(aq, packed, arow, 4)
					}
					const ostride = 9
					out := make([]float32, 2+3*ostride+tile.rows)
					tile.f(n, wbuf[1:], wstride, abuf[1:], astride, aq, out[1:], ostride)
					for tok := 0; tok < 4; tok++ {
						dot := twinOf(s).tokenDot(wt, tok, 4)
						for k := 0; k < tile.rows; k++ {
							want := dot(n, wbuf[1+k*wstride:1+k*wstride+wrow], abuf[1+tok*astride:1+tok*astride+arow])
							if got := out[1+tok*ostride+k]; math.Float32bits(got) != math.Float32bits(want) {
								t.Errorf("%s %v %dx4 n=%d: out[token %d, row %d] = %v, generic %v", s.name, wt, tile.rows, n, tok, k, got, want)
							}
						}
					}
					for i, v := range out {
						if j := i - 1; (j < 0 || j%ostride >= tile.rows || j/ostride > 3) && v != 0 {
							t.Errorf("%s %v %dx4: wrote out[%d] outside the tile", s.name, wt, tile.rows, i)
						}
					}
				}
			}
		}
	}
}

// TestTilesQuads checks every several-quad tile (vecDot2x4Q, q8RowsTileQ)
// against its 2 x 4 tile called quad by quad, to the bit: one to five
// quads, empty and odd row lengths, unaligned rows and tokens with odd
// strides, quads a padded stride apart, and no write outside the tiles.
func TestTilesQuads(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	for _, s := range simdSets(t) {
		type pair struct {
			wt ggml.Type
			q  vecDot2x4QFunc
			f  vecDot2x4Func
		}
		var pairs []pair
		for _, wt := range weightTypes {
			if q := s.vecDot2x4Q[wt]; q != nil {
				if s.vecDot2x4[wt] == nil {
					t.Fatalf("%s %v: a several-quad tile without its 2 x 4 tile", s.name, wt)
				}
				pairs = append(pairs, pair{wt, q, s.vecDot2x4[wt]})
			}
		}
		if s.q8RowsTileQ != nil {
			pairs = append(pairs, pair{ggml.Q8_0, s.q8RowsTileQ, s.q8RowsTile})
		}
		for _, pr := range pairs {
			wt, at := pr.wt, vecDotType[pr.wt]
			qp := s.actQuad[at]
			for _, nb := range []int{0, 1, 3, 18} {
				for _, nq := range []int{1, 2, 5} {
					n := nb * qk
					wrow, arow := rowBytes(wt, n), rowBytes(at, n)
					wstride, astride := wrow+3, arow+5
					wbuf := make([]byte, 1+wstride+wrow)
					for k := 0; k < 2; k++ {
						w := randomWeights(r, wt, n, []float32{0.05, 300}[k], 3)
						if wt == ggml.Q8_0 {
							clampQ8(w)
						}
						copy(wbuf[1+k*wstride:], w)
					}
					ntok := 4 * nq
					abuf := make([]byte, 1+(ntok-1)*astride+arow)
					qBytes := 0
					if qp != nil {
						qBytes = nb * qp.blockBytes
					}
					qstride := qBytes + 7
					aq := make([]byte, 1+nq*qstride)
					for q := 0; q < nq; q++ {
						packed := make([]byte, 4*arow)
						for k := 0; k < 4; k++ {
							row := quantizeRow(t, at, randFloats(r, n, []float32{1, 1e-3, 50, 0}[k]))
							copy(abuf[1+(4*q+k)*astride:], row)
							copy(packed[k*arow:], row)
						}
						if qp != nil && n > 0 {
							qp.pack(aq[1+q*qstride:], packed, arow, 4)
						}
					}
					const ostride = 7
					got := make([]float32, 2+(ntok-1)*ostride+2)
					for i := range got {
						got[i] = -1 // every output written, nothing else
					}
					want := append([]float32(nil), got...)
					pr.q(n, wbuf[1:], wstride, abuf[1:], astride, aq[1:], qstride, got[1:], ostride, nq)
					for q := 0; q < nq; q++ {
						pr.f(n, wbuf[1:], wstride, abuf[1+4*q*astride:], astride, aq[1+q*qstride:], want[1+4*q*ostride:], ostride)
					}
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%s %v nb=%d nq=%d: out[%d] = %v, the 2 x 4 tile quad by quad %v", s.name, wt, nb, nq, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestVecDot1R4F32 checks the one-token four-row kernels that read the
// token widened to float32 (token 0 of its quad) against the same
// implementation's one-token kernel on the half-precision token, to the
// bit: lengths with and without tails after the groups of 32, unaligned
// rows, odd output strides.
func TestVecDot1R4F32(t *testing.T) {
	defer func(v bool) { streamPrefetch = v }(streamPrefetch)
	r := rand.New(rand.NewPCG(83, 84))
	for _, s := range simdSets(t) {
		for _, wt := range weightTypes {
			f := s.vecDot1R4F32[wt]
			if f == nil {
				continue
			}
			at := vecDotType[wt]
			qp := s.actQuad[at]
			if qp == nil {
				t.Fatalf("%s %v: a widened-token kernel without the quad layout it reads", s.name, wt)
			}
			for _, n := range []int{8, 31, 32, 40, 96, 2048, 2056} {
				wrow, arow := rowBytes(wt, n), rowBytes(at, n)
				stride := wrow + 7
				wbuf := make([]byte, 1+3*stride+wrow)
				for k := 0; k < 4; k++ {
					copy(wbuf[1+k*stride:], randomWeights(r, wt, n, []float32{1, 300, 1e-4, 0}[k], 0))
				}
				a := quantizeRow(t, at, randFloats(r, n, 2))
				aq := make([]byte, n/blockSize(at)*qp.blockBytes)
				qp.pack(aq, a, arow, 1)
				for i, ostride := range []int{1, 3, 1, 3} {
					// Both forms of the kernels with a prefetching twin.
					streamPrefetch = i >= 2
					out := make([]float32, 3*ostride+3)
					f(n, wbuf[1:], stride, aq[:4*n], out[1:], ostride)
					for k := 0; k < 4; k++ {
						want := s.tokenDot(wt, 0, 1)(n, wbuf[1+k*stride:1+k*stride+wrow], a)
						if got := out[1+k*ostride]; math.Float32bits(got) != math.Float32bits(want) {
							t.Errorf("%s %v n=%d prefetch %v row %d: %v, one-token kernel %v", s.name, wt, n, streamPrefetch, k, got, want)
						}
					}
					if out[0] != 0 || out[len(out)-1] != 0 {
						t.Errorf("%s %v: wrote outside its outputs", s.name, wt)
					}
				}
			}
		}
	}
}

// TestRewriteTilesVsTokenDot checks every tile over rewritten rows
// (tileRewrite: the pair tiles, 8 x 4 and 4 x 8, and the widened rows' 3 x
// 4) against the generic single-token kernel to the bit: rows rewritten
// by the set's pack (the pack against its Go twin byte for byte, no write
// past the tile), lengths of one to many groups, unaligned buffers, no
// write outside the tile's outputs.
func TestRewriteTilesVsTokenDot(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	tested := 0
	for _, s := range append(simdSets(t), rewriteTestSets(t)...) {
		for _, wt := range weightTypes {
			// The set's rewrite and the ones it falls back to.
			for tp := s.tileRewrite[wt]; tp != nil; tp = tp.fallback {
				tested++
				at := vecDotType[wt]
				nr := tp.rows
				twin := tp.generic
				// quad is the tokens' quad layout the tiles read, with its
				// generic twin.
				quad, quadTwin := s.actQuad[at], s.actQuad[at]
				if tp.act != nil {
					quad, quadTwin = tp.act, map[ggml.Type]*actPacker{ggml.Q8_0: q8_0QuadWide, ggml.BF16: bf16DotQuad}[wt]
				}
				for _, groups := range []int{1, 2, 3, 17, 256} {
					n := groups * tp.colsMultiple
					wrow, arow := rowBytes(wt, n), rowBytes(at, n)
					prow := tp.rowScale * wrow // a rewritten row's bytes
					rows := make([]byte, 1+nr*wrow)
					for k := 0; k < nr; k++ {
						copy(rows[1+k*wrow:], randomWeights(r, wt, n, []float32{0.05, 300, 1e-4, 1}[k%4], 3))
					}
					pw := make([]byte, 2+nr*prow)
					pw[0], pw[len(pw)-1] = 0xA5, 0x5A
					tp.pack(pw[1:1+nr*prow], rows[1:], wrow)
					if pw[0] != 0xA5 || pw[len(pw)-1] != 0x5A {
						t.Fatalf("%s %v n=%d: pack wrote outside its tile", s.name, wt, n)
					}
					want := make([]byte, nr*prow)
					twin(want, rows[1:], wrow)
					if !bytes.Equal(pw[1:1+nr*prow], want) {
						t.Fatalf("%s %v n=%d: pack differs from its generic twin", s.name, wt, n)
					}
					toks := make([]byte, 4*arow)
					for k := 0; k < 4; k++ {
						copy(toks[k*arow:], quantizeRow(t, at, randFloats(r, n, []float32{1, 1e-3, 50, 0.3}[k])))
					}
					aq := make([]byte, 1+n/blockElems(at)*quad.blockBytes)
					quad.pack(aq[1:], toks, arow, 4)
					for ntok := 1; ntok <= 4; ntok++ {
						got, want := make([]byte, len(aq)+1), make([]byte, len(aq)-1)
						got[0], got[len(got)-1] = 0xA5, 0x5A
						quad.pack(got[1:len(got)-1], toks, arow, ntok)
						quadTwin.pack(want, toks, arow, ntok)
						if got[0] != 0xA5 || got[len(got)-1] != 0x5A || !bytes.Equal(got[1:len(got)-1], want) {
							t.Fatalf("%s %v n=%d: quad of %d tokens differs from its generic twin", s.name, wt, n, ntok)
						}
					}
					const ostride = 11
					out := make([]float32, 2+3*ostride+8)
					// check compares the nr rows' outputs for ntok tokens (out[1:],
					// ostride apart) with the generic kernel, and that nothing
					// else in out was written.
					check := func(name string, out []float32, toks []byte, ntok int) {
						for tok := 0; tok < ntok; tok++ {
							dot := twinOf(s).tokenDot(wt, tok%4, 4)
							for k := 0; k < nr; k++ {
								want := dot(n, rows[1+k*wrow:1+(k+1)*wrow], toks[tok*arow:(tok+1)*arow])
								if got := out[1+tok*ostride+k]; math.Float32bits(got) != math.Float32bits(want) {
									t.Errorf("%s %v %s n=%d: out[token %d, row %d] = %v, generic %v", s.name, wt, name, n, tok, k, got, want)
								}
							}
						}
						for i, v := range out {
							if j := i - 1; (j < 0 || j%ostride >= nr || j/ostride >= ntok) && v != 0 {
								t.Errorf("%s %v %s: wrote out[%d] outside the tile", s.name, wt, name, i)
							}
						}
					}
					tp.tile(n, pw[1:1+nr*prow], prow, nil, 0, aq[1:], out[1:], ostride)
					check("tile", out, toks, 4)
					if tp.tileQ != nil {
						// Two quads (the same tokens twice) in one call.
						ql := len(aq) - 1
						aq2 := make([]byte, 1+2*ql)
						copy(aq2[1:], aq[1:])
						copy(aq2[1+ql:], aq[1:])
						out2 := make([]float32, 2+7*ostride+8)
						tp.tileQ(n, pw[1:1+nr*prow], prow, nil, 0, aq2[1:], ql, out2[1:], ostride, 2)
						check("quads", out2, append(append([]byte(nil), toks...), toks...), 8)
					}
					if tp.tile4x8 == nil {
						continue
					}
					// The 4 x 8 tile: each half of the 8 rows against two quads.
					toks8 := make([]byte, 8*arow)
					for k := 0; k < 8; k++ {
						copy(toks8[k*arow:], quantizeRow(t, at, randFloats(r, n, []float32{1, 1e-3, 50, 0.3}[k%4])))
					}
					ql := n * s.actQuad[at].blockBytes
					aq8 := make([]byte, 1+2*ql)
					s.actQuad[at].pack(aq8[1:], toks8, arow, 4)
					s.actQuad[at].pack(aq8[1+ql:], toks8[4*arow:], arow, 4)
					out8 := make([]float32, 2+7*ostride+8)
					for h := 0; h < 2; h++ {
						tp.tile4x8(n, pw[1+4*h*prow:1+4*(h+1)*prow], prow, nil, 0, aq8[1:], out8[1+4*h:], ostride)
					}
					check("pairs 4x8", out8, toks8, 8)
				}
			}
		}
	}
	if tested == 0 {
		t.Skip("no set on this CPU has tiles over rewritten rows")
	}
}
