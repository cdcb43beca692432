package kvcache

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

// The property test drives a Cache and a contiguous reference (per
// sequence, per layer, one []float32 per position, rounded the way the
// storage type rounds) with the same random operations, and after every
// operation compares what View shows for every live sequence with the
// reference, and checks the allocator's invariants.

// refRound returns x as the storage type keeps it, computed independently
// of the package's encoder: F16 through quant's scalar RNE conversion, Q8_0
// with ggml's x86 formula written out in float arithmetic.
func refRound(t ggml.Type, x []float32) []float32 {
	out := make([]float32, len(x))
	switch t {
	case ggml.F32:
		copy(out, x)
	case ggml.F16:
		for i, v := range x {
			out[i] = quant.FP16ToFP32(quant.FP32ToFP16(v))
		}
	case ggml.Q8_0:
		for b := 0; b < len(x); b += 32 {
			var amax float32
			for _, v := range x[b : b+32] {
				amax = max(amax, float32(math.Abs(float64(v))))
			}
			if amax == 0 {
				continue // codes and scale 0
			}
			dh := quant.FP16ToFP32(quant.FP32ToFP16(amax / 127))
			id := 127 / amax
			for i, v := range x[b : b+32] {
				q := math.RoundToEven(float64(v * id))
				out[b+i] = float32(q) * dh
			}
		}
	}
	return out
}

type refSeq struct {
	k, v [][][]float32 // [layer][pos] -> rounded row
}

func (r *refSeq) clone() *refSeq {
	n := &refSeq{k: make([][][]float32, len(r.k)), v: make([][][]float32, len(r.v))}
	for l := range r.k {
		n.k[l] = append([][]float32(nil), r.k[l]...) // rows are never mutated in place
		n.v[l] = append([][]float32(nil), r.v[l]...)
	}
	return n
}

func (r *refSeq) len() int { return len(r.k[0]) }

type propRun struct {
	t    *testing.T
	rng  *rand.Rand
	cfg  Config
	c    *Cache
	ref  map[SeqID]*refSeq
	view View
	buf  []float32
	ops  map[string]int
}

func (r *propRun) randRow(dim int) []float32 {
	x := make([]float32, dim)
	scale := []float32{1e-3, 1, 7, 300}[r.rng.IntN(4)]
	if r.rng.IntN(20) == 0 {
		return x // all-zero row: Q8_0 scale 0
	}
	for i := range x {
		x[i] = float32(r.rng.NormFloat64()) * scale
	}
	return x
}

func (r *propRun) anySeq() (SeqID, bool) {
	if len(r.ref) == 0 {
		return 0, false
	}
	i := r.rng.IntN(len(r.ref))
	for id := range r.ref {
		if i == 0 {
			return id, true
		}
		i--
	}
	panic("unreachable")
}

// verifySeq compares positions [0, n) of every layer of seq with want.
func (r *propRun) verifySeq(seq SeqID, n int, want *refSeq) error {
	for l := 0; l < r.cfg.Layers; l++ {
		r.c.View(l, seq, n, &r.view)
		v := &r.view
		if len(v.K) != (n+r.cfg.BlockLen-1)/r.cfg.BlockLen || v.N != n {
			return fmt.Errorf("seq %d layer %d: view of %d positions has %d blocks, N %d", seq, l, n, len(v.K), v.N)
		}
		for p := 0; p < n; p++ {
			for kv, row := range [2][]byte{v.KRow(p), v.VRow(p)} {
				exp := want.k[l][p]
				if kv == 1 {
					exp = want.v[l][p]
				}
				got := r.buf[:len(exp)]
				if err := quant.DequantizeRow(r.cfg.Type, row, got); err != nil {
					return err
				}
				for i := range got {
					if got[i] != exp[i] {
						return fmt.Errorf("seq %d layer %d pos %d %s[%d] = %g, want %g", seq, l, p, "KV"[kv:kv+1], i, got[i], exp[i])
					}
				}
			}
		}
	}
	return nil
}

func (r *propRun) verify() error {
	if err := r.c.check(); err != nil {
		return err
	}
	for id, want := range r.ref {
		if got := r.c.Len(id); got != want.len() {
			return fmt.Errorf("seq %d: Len %d, want %d", id, got, want.len())
		}
		if err := r.verifySeq(id, want.len(), want); err != nil {
			return err
		}
	}
	return nil
}

// step performs one random operation on both the cache and the reference.
func (r *propRun) step() error {
	c := r.c
	seq, ok := r.anySeq()
	op := r.rng.IntN(100)
	switch {
	case !ok || op < 6 && len(r.ref) < 8:
		r.ops["new"]++
		id := c.NewSeq()
		if _, dup := r.ref[id]; dup {
			return fmt.Errorf("NewSeq returned live id %d", id)
		}
		r.ref[id] = &refSeq{k: make([][][]float32, r.cfg.Layers), v: make([][][]float32, r.cfg.Layers)}
	case op < 14 && len(r.ref) < 8:
		r.ops["fork"]++
		usedBefore, _, _ := c.Blocks()
		id, err := c.Fork(seq)
		if err != nil {
			return fmt.Errorf("Fork(%d): %v", seq, err)
		}
		if u, _, _ := c.Blocks(); u != usedBefore {
			return fmt.Errorf("Fork copied blocks: used %d -> %d", usedBefore, u)
		}
		r.ref[id] = r.ref[seq].clone()
	case op < 62:
		return r.appendOp(seq)
	case op < 72:
		r.ops["truncate"]++
		ref := r.ref[seq]
		n := r.rng.IntN(ref.len() + 1)
		if err := c.Truncate(seq, n); err != nil {
			return fmt.Errorf("Truncate(%d, %d): %v", seq, n, err)
		}
		for l := range ref.k {
			ref.k[l], ref.v[l] = ref.k[l][:n], ref.v[l][:n]
		}
	case op < 88:
		return r.removeOp(seq)
	case op < 96:
		r.ops["free"]++
		c.Free(seq)
		delete(r.ref, seq)
	default:
		r.ops["bad"]++
		ref := r.ref[seq]
		if err := c.Truncate(seq, ref.len()+1); !errors.Is(err, ErrBadPos) {
			return fmt.Errorf("Truncate past Len: %v, want ErrBadPos", err)
		}
		if err := c.Remove(seq, 0, ref.len()+1); !errors.Is(err, ErrBadPos) {
			return fmt.Errorf("Remove past Len: %v, want ErrBadPos", err)
		}
		if err := c.Reserve(SeqID(len(c.seqs)+5), 1); !errors.Is(err, ErrBadSeq) {
			return fmt.Errorf("Reserve of unknown seq: %v, want ErrBadSeq", err)
		}
	}
	return nil
}

// appendOp reserves n positions, writes them in every layer (checking that
// attention could see them before Commit), and commits m <= n of them.
func (r *propRun) appendOp(seq SeqID) error {
	c, ref := r.c, r.ref[seq]
	n := 1 + r.rng.IntN(3*r.cfg.BlockLen)
	if r.rng.IntN(4) == 0 {
		// A smaller reservation first: the second must extend it.
		if err := c.Reserve(seq, n/2); err != nil && !errors.Is(err, ErrCacheFull) {
			return err
		}
	}
	usedBefore, _, _ := c.Blocks()
	if err := c.Reserve(seq, n); err != nil {
		if !errors.Is(err, ErrCacheFull) {
			return fmt.Errorf("Reserve(%d, %d): %v", seq, n, err)
		}
		r.ops["full"]++
		if u, _, _ := c.Blocks(); u != usedBefore {
			return fmt.Errorf("failed Reserve changed used blocks %d -> %d", usedBefore, u)
		}
		return nil
	}
	r.ops["append"]++
	L := ref.len()
	pending := &refSeq{k: make([][][]float32, r.cfg.Layers), v: make([][][]float32, r.cfg.Layers)}
	for l := 0; l < r.cfg.Layers; l++ {
		pending.k[l] = append([][]float32(nil), ref.k[l]...)
		pending.v[l] = append([][]float32(nil), ref.v[l]...)
		for p := L; p < L+n; p++ {
			k, v := r.randRow(r.cfg.KVDim), r.randRow(r.cfg.VDim)
			c.Put(l, seq, p, k, v)
			pending.k[l] = append(pending.k[l], refRound(r.cfg.Type, k))
			pending.v[l] = append(pending.v[l], refRound(r.cfg.Type, v))
		}
	}
	// What attention sees during the forward pass: committed + reserved.
	if err := r.verifySeq(seq, L+n, pending); err != nil {
		return fmt.Errorf("before Commit: %v", err)
	}
	m := n
	if r.rng.IntN(5) == 0 {
		m = r.rng.IntN(n + 1)
	}
	c.Commit(seq, m)
	for l := range ref.k {
		ref.k[l], ref.v[l] = pending.k[l][:L+m], pending.v[l][:L+m]
	}
	return nil
}

func (r *propRun) removeOp(seq SeqID) error {
	c, ref := r.c, r.ref[seq]
	L, bl := ref.len(), r.cfg.BlockLen
	var p0, p1 int
	if r.rng.IntN(3) == 0 && L >= bl {
		// Block-aligned: whole blocks unlinked.
		nb := L / bl
		b0 := r.rng.IntN(nb + 1)
		b1 := b0 + r.rng.IntN(nb-b0+1)
		p0, p1 = b0*bl, b1*bl
	} else {
		p0 = r.rng.IntN(L + 1)
		p1 = p0 + r.rng.IntN(L-p0+1)
	}
	if err := c.Remove(seq, p0, p1); err != nil {
		if errors.Is(err, ErrCacheFull) {
			r.ops["full"]++
			return nil
		}
		return fmt.Errorf("Remove(%d, %d, %d) of %d: %v", seq, p0, p1, L, err)
	}
	r.ops["remove"]++
	for l := range ref.k {
		ref.k[l] = append(ref.k[l][:p0:p0], ref.k[l][p1:]...)
		ref.v[l] = append(ref.v[l][:p0:p0], ref.v[l][p1:]...)
	}
	return nil
}

func TestPropertyAgainstContiguous(t *testing.T) {
	cases := []Config{
		{Layers: 2, KVDim: 8, VDim: 4, BlockLen: 3, Type: ggml.F32, MaxPositions: 150, ChunkBlocks: 4},
		{Layers: 3, KVDim: 16, VDim: 8, BlockLen: 4, Type: ggml.F16, MaxPositions: 256, ChunkBlocks: 5},
		{Layers: 2, KVDim: 64, VDim: 32, BlockLen: 16, Type: ggml.Q8_0, MaxPositions: 320, ChunkBlocks: 3},
		{Layers: 1, KVDim: 4, VDim: 4, BlockLen: 1, Type: ggml.F16, MaxPositions: 60},
	}
	ops := 10000
	if testing.Short() {
		ops = 2000
	}
	for i, cfg := range cases {
		t.Run(fmt.Sprintf("%v/block%d", cfg.Type, cfg.BlockLen), func(t *testing.T) {
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := &propRun{t: t, rng: rand.New(rand.NewPCG(uint64(i), 42)), cfg: c.Config(), c: c,
				ref: map[SeqID]*refSeq{}, buf: make([]float32, max(cfg.KVDim, cfg.VDim)), ops: map[string]int{}}
			for n := 0; n < ops; n++ {
				if err := r.step(); err != nil {
					t.Fatalf("op %d: %v", n, err)
				}
				if err := r.verify(); err != nil {
					t.Fatalf("after op %d: %v", n, err)
				}
			}
			// Every kind of operation must have happened, including failures.
			for _, k := range []string{"new", "fork", "append", "truncate", "remove", "free", "full", "bad"} {
				if r.ops[k] == 0 {
					t.Errorf("operation %q never ran: %v", k, r.ops)
				}
			}
			t.Logf("ops: %v", r.ops)
			for id := range r.ref {
				c.Free(id)
			}
			if err := c.check(); err != nil {
				t.Fatal(err)
			}
			if used, free, total := c.Blocks(); used != 0 || free != total {
				t.Fatalf("after freeing everything: used %d, free %d of %d", used, free, total)
			}
			if used, _ := c.Bytes(); used != 0 {
				t.Fatalf("used bytes %d after freeing everything", used)
			}
		})
	}
}
