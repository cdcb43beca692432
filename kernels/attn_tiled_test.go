package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAttnTileImplsBitExact runs every available implementation of the
// tiled attention kernels against the generic ones over several tiles of
// one query block: query counts of 1-8 vectors (the assembly's 3/2/1
// splits), partial tiles (keys not a multiple of 4 or 8), head sizes with
// and without a multiple of 4, queries that see none, part or all of a
// tile, scores spread wide enough for ggml_v_expf's slow path, and the
// running maxima and sums carried from tile to tile.
func TestAttnTileImplsBitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	const tk = AttnTileKeys
	for _, set := range implementations {
		if !set.available || set.name == genericSet.name {
			continue
		}
		for _, nq := range []int{8, 16, 24, 32, 40, 56, 64, 72, 88, 136} {
			for _, dim := range []int{8, 36, 64, 128} {
				for _, spread := range []float32{0.3, 40} { // 40: exponent arguments past -87
					name := fmt.Sprintf("%s/nq=%d/dim=%d/spread=%v", set.name, nq, dim, spread)
					qt := randFloats(r, dim*nq, spread)
					var st [2]struct {
						m, l, ms, acc []float32
					}
					for i := range st {
						st[i].m, st[i].l, st[i].ms = make([]float32, nq), make([]float32, nq), make([]float32, nq)
						st[i].acc = make([]float32, dim*nq)
						for q := range st[i].m {
							st[i].m[q] = float32(math.Inf(-1))
						}
					}
					first, last := make([]int32, nq), make([]int32, nq)
					// Each query's positions: it sees [lo, hi] of the whole
					// range; tiles of tk from 0.
					los, his := make([]int, nq), make([]int, nq)
					for q := range los {
						los[q] = r.IntN(40)
						his[q] = los[q] + r.IntN(200)
						if q%7 == 3 {
							his[q] = -1 // sees nothing
						}
					}
					for t0 := 0; t0 < 256; t0 += tk {
						keys := tk
						if t0 == 192 {
							keys = 1 + r.IntN(tk-1) // a partial last tile
						}
						k := randFloats(r, tk*(dim+3), 1)
						v := randFloats(r, tk*(dim+5), 1)
						for q := range first {
							first[q], last[q] = int32(los[q]-t0), int32(his[q]-t0)
						}
						var s [2][]float32
						for i, kern := range []*kernelSet{genericSet, set} {
							s[i] = make([]float32, tk*nq)
							kern.attnTileQK(s[i], qt, nq, k, dim+3, keys, dim, 0.125)
						}
						if d := firstDiff(s[0][:keys*nq], s[1][:keys*nq]); d >= 0 {
							t.Fatalf("%s tile %d: score %d = %v, generic %v", name, t0, d, s[1][d], s[0][d])
						}
						for i, kern := range []*kernelSet{genericSet, set} {
							kern.attnTileSoftmax(s[i], nq, keys, first, last, st[i].m, st[i].l, st[i].ms)
						}
						for _, c := range []struct {
							what string
							a, b []float32
						}{{"weight", s[0][:keys*nq], s[1][:keys*nq]}, {"max", st[0].m, st[1].m}, {"sum", st[0].l, st[1].l}, {"factor", st[0].ms, st[1].ms}} {
							if d := firstDiff(c.a, c.b); d >= 0 {
								t.Fatalf("%s tile %d: %s %d = %v, generic %v", name, t0, c.what, d, c.b[d], c.a[d])
							}
						}
						for i, kern := range []*kernelSet{genericSet, set} {
							kern.attnTileAccV(st[i].acc, nq, s[i], v, dim+5, keys, dim, st[i].ms)
						}
						if d := firstDiff(st[0].acc, st[1].acc); d >= 0 {
							t.Fatalf("%s tile %d: accumulator %d = %v, generic %v", name, t0, d, st[1].acc[d], st[0].acc[d])
						}
					}
					// No keys: the final multiply by 1/S only.
					inv := randFloats(r, nq, 1)
					for i, kern := range []*kernelSet{genericSet, set} {
						kern.attnTileAccV(st[i].acc, nq, nil, nil, 0, 0, dim, inv)
					}
					if d := firstDiff(st[0].acc, st[1].acc); d >= 0 {
						t.Fatalf("%s, no keys: accumulator %d = %v, generic %v", name, d, st[1].acc[d], st[0].acc[d])
					}
				}
			}
		}
	}
}

// firstDiff returns the first index where a and b differ in bits, or -1.
func firstDiff(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestAttnTileSoftmaxSemantics checks the generic step against a direct
// per-query reading of llama.cpp's tiled softmax on one tile: hidden keys
// weigh +0, a query that sees no key keeps its state, the sum is the
// float64 sum of the float32 group trees.
func TestAttnTileSoftmaxSemantics(t *testing.T) {
	const nq, keys = 8, 20
	s := make([]float32, AttnTileKeys*nq)
	for i := range s {
		s[i] = float32(i%13) * 0.25
	}
	orig := append([]float32(nil), s...)
	first := []int32{0, 5, 0, 0, 3, 0, 0, 19}
	last := []int32{19, 30, -1, 0, 2, 7, 100, 19}
	m, l, ms := make([]float32, nq), make([]float32, nq), make([]float32, nq)
	for q := range m {
		m[q], l[q] = 1, 2
	}
	m[3] = 100 // the tile does not raise it
	AttnTileSoftmax(s, nq, keys, first, last, m, l, ms)
	for q := 0; q < nq; q++ {
		lo, hi := int(first[q]), min(int(last[q]), keys-1)
		if lo > hi {
			if ms[q] != 1 || m[q] != 1 || l[q] != 2 {
				t.Errorf("query %d sees no key: ms %v m %v l %v, want 1 1 2", q, ms[q], m[q], l[q])
			}
			continue
		}
		tmax := float32(math.Inf(-1))
		for k := lo; k <= hi; k++ {
			tmax = max(tmax, orig[k*nq+q])
		}
		mOld := float32(1)
		if q == 3 {
			mOld = 100
		}
		mNew := max(mOld, tmax)
		wantMs := float32(1)
		if mNew > mOld {
			wantMs = Expf(mOld - mNew)
		}
		var sum float64
		for g := 0; g < keys; g += 8 {
			var p [8]float32
			for i := range p {
				if k := g + i; k >= lo && k <= hi {
					p[i] = vexpf(orig[k*nq+q] - mNew)
				}
			}
			sum += float64(((p[0] + p[4]) + (p[2] + p[6])) + ((p[1] + p[5]) + (p[3] + p[7])))
		}
		wantL := float32(float64(2*wantMs) + sum)
		if ms[q] != wantMs || m[q] != mNew || l[q] != wantL {
			t.Errorf("query %d: ms %v m %v l %v, want %v %v %v", q, ms[q], m[q], l[q], wantMs, mNew, wantL)
		}
		for k := 0; k < keys; k++ {
			want := float32(0)
			if k >= lo && k <= hi {
				want = vexpf(orig[k*nq+q] - mNew)
			}
			if s[k*nq+q] != want {
				t.Errorf("query %d key %d: weight %v, want %v", q, k, s[k*nq+q], want)
			}
		}
	}
}

// TestTransposeImpls runs every implementation of TransposeF32 against
// the definition, on whole 8 x 8 blocks and on other shapes.
func TestTransposeImpls(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	for _, set := range implementations {
		if !set.available {
			continue
		}
		for _, sh := range [][2]int{{8, 8}, {64, 64}, {24, 128}, {16, 40}, {3, 12}, {63, 64}, {8, 9}} {
			rows, cols := sh[0], sh[1]
			src := randFloats(r, rows*cols, 1)
			dst := make([]float32, rows*cols+5)
			set.transposeF32(dst, src, rows, cols)
			for rr := 0; rr < rows; rr++ {
				for c := 0; c < cols; c++ {
					if dst[c*rows+rr] != src[rr*cols+c] {
						t.Fatalf("%s %dx%d: dst[%d][%d] = %v, want %v", set.name, rows, cols, c, rr, dst[c*rows+rr], src[rr*cols+c])
					}
				}
			}
			for _, x := range dst[rows*cols:] {
				if x != 0 {
					t.Fatalf("%s %dx%d: wrote past the matrix", set.name, rows, cols)
				}
			}
		}
	}
}
