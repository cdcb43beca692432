package kvcache

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/quant"
)

func mustNew(t testing.TB, cfg Config) *Cache {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fill reserves n positions of seq and writes rows whose values encode
// (tag, layer, position), all exactly representable in F16.
func fill(t testing.TB, c *Cache, seq SeqID, n int, tag float32) {
	t.Helper()
	if err := c.Reserve(seq, n); err != nil {
		t.Fatal(err)
	}
	cfg := c.Config()
	k, v := make([]float32, cfg.KVDim), make([]float32, cfg.VDim)
	for l := 0; l < cfg.Layers; l++ {
		for p := c.Len(seq); p < c.Len(seq)+n; p++ {
			rowValues(k, tag, l, p)
			rowValues(v, -tag, l, p)
			c.Put(l, seq, p, k, v)
		}
	}
	c.Commit(seq, n)
}

// rowValues are integers below 2048, exact in F16.
func rowValues(x []float32, tag float32, l, p int) {
	for i := range x {
		x[i] = tag + float32(l*64+p%64+i)
	}
}

// expectRows checks that positions [0, n) of seq hold fill's values, with
// tags[p] the tag each position was written with.
func expectRows(t *testing.T, c *Cache, seq SeqID, tags []float32) {
	t.Helper()
	cfg := c.Config()
	var v View
	want, got := make([]float32, cfg.KVDim), make([]float32, cfg.KVDim)
	for l := 0; l < cfg.Layers; l++ {
		c.View(l, seq, len(tags), &v)
		for p, tag := range tags {
			rowValues(want, tag, l, p)
			if err := quant.DequantizeRow(cfg.Type, v.KRow(p), got); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("seq %d layer %d pos %d: K[%d] = %g, want %g (tag %g)", seq, l, p, i, got[i], want[i], tag)
				}
			}
		}
	}
}

func tagsOf(tag float32, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = tag
	}
	return out
}

func TestForkSharesAndCopiesOnWrite(t *testing.T) {
	c := mustNew(t, Config{Layers: 3, KVDim: 8, VDim: 8, BlockLen: 4, Type: ggml.F16, MaxPositions: 64})
	parent := c.NewSeq()
	fill(t, c, parent, 6, 100) // blocks: [0..3] full, [4..5] partial
	child, err := c.Fork(parent)
	if err != nil {
		t.Fatal(err)
	}
	if used, _, _ := c.Blocks(); used != 2 {
		t.Fatalf("Fork copied: %d blocks used, want 2", used)
	}
	if c.Len(child) != 6 {
		t.Fatalf("child Len %d", c.Len(child))
	}
	// The child's write lands in the shared partial block: it gets a copy.
	fill(t, c, child, 1, 200)
	if used, _, _ := c.Blocks(); used != 3 {
		t.Fatalf("after the child's write: %d blocks used, want 3 (one copy)", used)
	}
	// The parent now owns its partial block alone: no copy.
	fill(t, c, parent, 2, 300)
	if used, _, _ := c.Blocks(); used != 3 {
		t.Fatalf("after the parent's write: %d blocks used, want 3", used)
	}
	expectRows(t, c, parent, append(tagsOf(100, 6), 300, 300))
	expectRows(t, c, child, append(tagsOf(100, 6), 200))

	// Fork while the source holds a reservation into the shared block, and
	// write the source afterwards: the fork still sees only its own rows.
	src := c.NewSeq()
	fill(t, c, src, 5, 400)
	if err := c.Reserve(src, 2); err != nil {
		t.Fatal(err)
	}
	fork, err := c.Fork(src)
	if err != nil {
		t.Fatal(err)
	}
	k, v := make([]float32, 8), make([]float32, 8)
	for l := 0; l < 3; l++ {
		for p := 5; p < 7; p++ {
			rowValues(k, 500, l, p)
			rowValues(v, -500, l, p)
			c.Put(l, src, p, k, v)
		}
	}
	c.Commit(src, 2)
	fill(t, c, fork, 3, 600)
	expectRows(t, c, src, append(tagsOf(400, 5), 500, 500))
	expectRows(t, c, fork, append(tagsOf(400, 5), 600, 600, 600))

	for _, s := range []SeqID{parent, child, src, fork} {
		c.Free(s)
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if used, free, total := c.Blocks(); used != 0 || free != total {
		t.Fatalf("leak: used %d free %d total %d", used, free, total)
	}
}

func TestErrCacheFull(t *testing.T) {
	c := mustNew(t, Config{Layers: 2, KVDim: 8, VDim: 8, BlockLen: 16, Type: ggml.F16, MaxPositions: 64})
	a, b := c.NewSeq(), c.NewSeq()
	fill(t, c, a, 60, 1)
	err := c.Reserve(b, 5) // needs 1 block, none free
	if !errors.Is(err, ErrCacheFull) {
		t.Fatalf("Reserve past capacity: %v, want ErrCacheFull", err)
	}
	if !strings.Contains(err.Error(), "of 4 are free") {
		t.Errorf("error lacks the counts or the hint: %v", err)
	}
	if err := c.Reserve(a, 5); !errors.Is(err, ErrCacheFull) { // 65 > MaxPositions
		t.Fatalf("Reserve past MaxPositions: %v", err)
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if c.Len(b) != 0 || c.Reserved(b) != 0 || c.Reserved(a) != 60 {
		t.Fatalf("failed Reserve changed state: Len(b) %d, Reserved %d %d", c.Len(b), c.Reserved(b), c.Reserved(a))
	}
	// A fork of a full cache costs nothing; its first write into the shared
	// partial block needs a copy, and fails cleanly.
	f, err := c.Fork(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reserve(f, 1); !errors.Is(err, ErrCacheFull) {
		t.Fatalf("copy-on-write in a full cache: %v", err)
	}
	// So does an unaligned Remove, which must write into shared blocks.
	if err := c.Remove(f, 3, 5); !errors.Is(err, ErrCacheFull) {
		t.Fatalf("Remove in a full cache: %v", err)
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	expectRows(t, c, a, tagsOf(1, 60))
	expectRows(t, c, f, tagsOf(1, 60))
	// Room made, the same calls succeed.
	c.Free(a)
	fill(t, c, f, 4, 2) // f now owns its blocks alone: no copy needed
	if err := c.Truncate(f, 40); err != nil {
		t.Fatal(err)
	}
	fill(t, c, b, 4, 3) // into the block Truncate released
	expectRows(t, c, f, tagsOf(1, 40))
	expectRows(t, c, b, tagsOf(3, 4))
	if used, free, _ := c.Blocks(); used != 4 || free != 0 {
		t.Fatalf("Blocks: %d used, %d free; want 4, 0", used, free)
	}
}

func TestRemove(t *testing.T) {
	c := mustNew(t, Config{Layers: 2, KVDim: 8, VDim: 8, BlockLen: 4, Type: ggml.F32, MaxPositions: 64})
	s := c.NewSeq()
	tags := make([]float32, 20)
	for p := range tags {
		fill(t, c, s, 1, float32(p*1000))
		tags[p] = float32(p * 1000)
	}
	// Aligned: two whole blocks unlinked, nothing copied.
	if err := c.Remove(s, 4, 12); err != nil {
		t.Fatal(err)
	}
	if used, _, _ := c.Blocks(); used != 3 {
		t.Fatalf("aligned Remove: %d blocks used, want 3", used)
	}
	// Rows keep their stored values, including the position-dependent part
	// (the analogue of keys that are not re-rotated).
	var v View
	got := make([]float32, 8)
	c.View(0, s, 12, &v)
	for newP, oldP := range []int{0, 1, 2, 3, 12, 13, 14, 15, 16, 17, 18, 19} {
		quant.DequantizeRowF32(v.KRow(newP), got)
		want := make([]float32, 8)
		rowValues(want, tags[oldP], 0, oldP)
		if got[0] != want[0] || got[7] != want[7] {
			t.Fatalf("after Remove, position %d holds %v, want old position %d's %v", newP, got, oldP, want)
		}
	}
	// Unaligned in the middle.
	if err := c.Remove(s, 2, 7); err != nil {
		t.Fatal(err)
	}
	if c.Len(s) != 7 {
		t.Fatalf("Len %d, want 7", c.Len(s))
	}
	c.View(1, s, 7, &v)
	for newP, oldP := range []int{0, 1, 15, 16, 17, 18, 19} {
		quant.DequantizeRowF32(v.KRow(newP), got)
		want := make([]float32, 8)
		rowValues(want, tags[oldP], 1, oldP)
		if got[3] != want[3] {
			t.Fatalf("position %d holds %v, want old position %d's %v", newP, got, oldP, want)
		}
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryOnDemand(t *testing.T) {
	cfg := Config{Layers: 22, KVDim: 256, VDim: 256, Type: ggml.F16, MaxPositions: 1 << 20}
	full := int64(cfg.MaxPositions) * int64(cfg.Layers) * 2 * 256 * 2 // 23 GB if allocated up front
	var m0, m1, m2 runtime.MemStats
	// Average over many calls: MemStats also sees the test framework's
	// allocations.
	const calls = 100
	var c *Cache
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for range calls {
		var err error
		if c, err = New(cfg); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	upFront := (m1.TotalAlloc - m0.TotalAlloc) / calls
	if upFront > 1<<10 {
		t.Fatalf("New allocated %d bytes up front", upFront)
	}
	if _, reserved := c.Bytes(); reserved != 0 {
		t.Fatalf("New reserved %d bytes", reserved)
	}
	s := c.NewSeq()
	if err := c.Reserve(s, 1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m2)
	used, reserved := c.Bytes()
	if used != 22*2*16*512 {
		t.Errorf("one block in use: %d bytes, want %d", used, 22*2*16*512)
	}
	if reserved > defaultChunkBytes || reserved < used {
		t.Errorf("first chunk reserved %d bytes, want between %d and %d", reserved, used, defaultChunkBytes)
	}
	if d := int64(m2.TotalAlloc - m1.TotalAlloc); d > reserved+64<<10 {
		t.Errorf("first Reserve allocated %d bytes for a %d-byte chunk", d, reserved)
	}
	t.Logf("up front %d B, first chunk %d B (%.4f%% of the %d B a flat cache would take)",
		upFront, reserved, 100*float64(reserved)/float64(full), full)
}

// TestQ8_0Golden pins the x86 quantize_row_q8_0 numerics on inputs where
// they differ from the reference quantizer: halves round to even, and the
// multiplier is 127/amax, not 1/(amax/127).
func TestQ8_0Golden(t *testing.T) {
	x := make([]float32, 64)
	// Block 0: amax 127, so d = 1 and the multiplier is exactly 1.
	copy(x, []float32{127, 2.5, -2.5, 0.5, 1.5, -0.5, 3.5, -126.5, 126.5})
	// Block 1: amax = 0x3f80000f, where 127/amax and 1/(amax/127) differ by
	// an ulp; v1*id lands just under 1.5 (code 1; the reference gives 2),
	// v2*id exactly on 4.5 (code 4 by half-to-even; the reference gives 5).
	x[32] = math.Float32frombits(0x3f80000f)
	x[33] = math.Float32frombits(0x3c41831c)
	x[34] = math.Float32frombits(0x3d112256)
	x[35] = -x[32]
	want := make([]byte, 68)
	binary.LittleEndian.PutUint16(want, 0x3c00) // fp16(1)
	copy(want[2:], []byte{127, 2, 0xfe, 0, 2, 0, 4, 0x82, 126})
	binary.LittleEndian.PutUint16(want[34:], 0x2008) // fp16(1.0000018/127)
	copy(want[36:], []byte{127, 1, 4, 0x81})

	c := mustNew(t, Config{Layers: 1, KVDim: 64, VDim: 64, BlockLen: 16, Type: ggml.Q8_0, MaxPositions: 16})
	s := c.NewSeq()
	if err := c.Reserve(s, 1); err != nil {
		t.Fatal(err)
	}
	c.Put(0, s, 0, x, x)
	var v View
	c.View(0, s, 1, &v)
	for _, row := range [][]byte{v.KRow(0), v.VRow(0)} {
		if string(row) != string(want) {
			t.Fatalf("q8_0 row\n got % x\nwant % x", row, want)
		}
	}
	if v.KRowBytes != 68 {
		t.Fatalf("KRowBytes %d", v.KRowBytes)
	}
}

// TestQ8_0RoundTrip checks the Q8_0 error bound: per block of 32,
// |x - x'| <= d/2 (rounding to a code) + 127*|d - fp16(d)| (the stored
// scale), with d = amax/127 and |d - fp16(d)| <= d*2^-11.
func TestQ8_0RoundTrip(t *testing.T) {
	const dim = 256
	c := mustNew(t, Config{Layers: 1, KVDim: dim, VDim: dim, BlockLen: 16, Type: ggml.Q8_0, MaxPositions: 256})
	s := c.NewSeq()
	rng := rand.New(rand.NewPCG(7, 7))
	if err := c.Reserve(s, 256); err != nil {
		t.Fatal(err)
	}
	rows := make([][]float32, 256)
	for p := range rows {
		rows[p] = make([]float32, dim)
		scale := float32(math.Pow(10, float64(rng.IntN(6)-2)))
		for i := range rows[p] {
			rows[p][i] = float32(rng.NormFloat64()) * scale
		}
		c.Put(0, s, p, rows[p], rows[p])
	}
	c.Commit(s, 256)
	var v View
	c.View(0, s, 256, &v)
	got := make([]float32, dim)
	worst := 0.0
	for p, x := range rows {
		quant.DequantizeRowQ8_0(v.KRow(p), got)
		for b := 0; b < dim; b += 32 {
			var amax float64
			for _, e := range x[b : b+32] {
				amax = max(amax, math.Abs(float64(e)))
			}
			d := amax / 127
			bound := d/2 + 127*d*math.Ldexp(1, -11) + 1e-7*amax
			for i := b; i < b+32; i++ {
				e := math.Abs(float64(x[i] - got[i]))
				if e > bound {
					t.Fatalf("pos %d [%d]: %g -> %g, error %g > bound %g", p, i, x[i], got[i], e, bound)
				}
				worst = max(worst, e/d)
			}
		}
	}
	t.Logf("worst error %.3f d", worst)
}

func TestF16Storage(t *testing.T) {
	c := mustNew(t, Config{Layers: 1, KVDim: 64, VDim: 8, BlockLen: 16, Type: ggml.F16, MaxPositions: 16})
	s := c.NewSeq()
	if err := c.Reserve(s, 2); err != nil {
		t.Fatal(err)
	}
	// Every finite half value survives exactly.
	rng := rand.New(rand.NewPCG(1, 2))
	halves := make([]uint16, 64)
	k := make([]float32, 64)
	for i := range halves {
		for {
			halves[i] = uint16(rng.Uint32())
			if halves[i]&0x7c00 != 0x7c00 { // skip Inf/NaN
				break
			}
		}
		k[i] = quant.FP16ToFP32(halves[i])
	}
	// Values between halves round to nearest, ties to even.
	v := []float32{1 + 0x1p-11, 1 + 3*0x1p-11, 65520, -65519, 0x1p-25, 0x1p-24 * 1.5, 2049, 2051}
	wantV := []uint16{0x3c00, 0x3c02, 0x7c00, 0xfbff, 0x0000, 0x0002, 0x6800, 0x6802}
	c.Put(0, s, 1, k, v)
	var view View
	c.View(0, s, 2, &view)
	gotK, gotV := view.KF16(0)[64:128], view.VF16(0)[8:16]
	for i := range halves {
		if gotK[i] != halves[i] {
			t.Fatalf("K[%d]: stored %#04x, want %#04x", i, gotK[i], halves[i])
		}
	}
	for i := range wantV {
		if gotV[i] != wantV[i] {
			t.Errorf("%g stored as %#04x, want %#04x", v[i], gotV[i], wantV[i])
		}
	}
}

func TestNoAllocs(t *testing.T) {
	for _, typ := range []ggml.Type{ggml.F16, ggml.Q8_0, ggml.F32} {
		c := mustNew(t, Config{Layers: 4, KVDim: 256, VDim: 256, BlockLen: 16, Type: typ, MaxPositions: 4096})
		s := c.NewSeq()
		fill(t, c, s, 1000, 1)
		if err := c.Reserve(s, 8); err != nil {
			t.Fatal(err)
		}
		k, v := make([]float32, 256), make([]float32, 256)
		var view View
		c.View(3, s, 1008, &view)
		pos := 1000
		if a := testing.AllocsPerRun(100, func() {
			c.Put(pos%4, s, 1000+pos%8, k, v)
			pos++
		}); a != 0 {
			t.Errorf("%v: Put allocates %v times", typ, a)
		}
		if a := testing.AllocsPerRun(100, func() {
			c.View(pos%4, s, 1000+pos%9, &view)
			pos++
		}); a != 0 {
			t.Errorf("%v: View allocates %v times", typ, a)
		}
	}
}

// TestConcurrentPut writes every (layer, sequence) pair from its own
// goroutine, as the engine's workers do, then reads everything back. Run
// with -race to check that Put and View share no mutable state.
func TestConcurrentPut(t *testing.T) {
	c := mustNew(t, Config{Layers: 4, KVDim: 32, VDim: 32, BlockLen: 4, Type: ggml.F16, MaxPositions: 512})
	seqs := []SeqID{c.NewSeq(), c.NewSeq(), c.NewSeq()}
	fill(t, c, seqs[0], 10, 7)
	seqs[1], _ = c.Fork(seqs[0])
	for _, s := range seqs {
		if err := c.Reserve(s, 30); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for l := 0; l < 4; l++ {
		for si, s := range seqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k, v := make([]float32, 32), make([]float32, 32)
				var view View
				base := c.Len(s)
				for p := base; p < base+30; p++ {
					rowValues(k, float32(si+1)*300, l, p)
					rowValues(v, -float32(si+1)*300, l, p)
					c.Put(l, s, p, k, v)
					c.View(l, s, p+1, &view)
				}
			}()
		}
	}
	wg.Wait()
	for si, s := range seqs {
		c.Commit(s, 30)
		var tags []float32
		if si < 2 {
			tags = tagsOf(7, 10)
		}
		expectRows(t, c, s, append(tags, tagsOf(float32(si+1)*300, 30)...))
	}
}

func TestContractPanics(t *testing.T) {
	c := mustNew(t, Config{Layers: 2, KVDim: 8, VDim: 8, BlockLen: 4, Type: ggml.F16, MaxPositions: 64})
	s := c.NewSeq()
	fill(t, c, s, 3, 1)
	if err := c.Reserve(s, 2); err != nil {
		t.Fatal(err)
	}
	row := make([]float32, 8)
	var v View
	for name, f := range map[string]func(){
		"Put before Len":       func() { c.Put(0, s, 2, row, row) },
		"Put past reservation": func() { c.Put(0, s, 5, row, row) },
		"Put bad layer":        func() { c.Put(2, s, 3, row, row) },
		"Put short row":        func() { c.Put(0, s, 3, row[:4], row) },
		"Put unknown seq":      func() { c.Put(0, 9, 0, row, row) },
		"View past":            func() { c.View(0, s, 6, &v) },
		"Commit past":          func() { c.Commit(s, 3) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	c.Free(s)
	c.Free(s) // double free is ignored
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Fork(s); !errors.Is(err, ErrBadSeq) {
		t.Errorf("Fork of a freed sequence: %v", err)
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Layers: 0, KVDim: 32, VDim: 32, Type: ggml.F16, MaxPositions: 16},
		{Layers: 1, KVDim: 0, VDim: 32, Type: ggml.F16, MaxPositions: 16},
		{Layers: 1, KVDim: 32, VDim: 32, Type: ggml.F16, MaxPositions: 0},
		{Layers: 1, KVDim: 48, VDim: 32, Type: ggml.Q8_0, MaxPositions: 16},
		{Layers: 1, KVDim: 32, VDim: 32, Type: ggml.Q4_0, MaxPositions: 16},
		{Layers: 1, KVDim: 32, VDim: 32, BlockLen: -1, Type: ggml.F16, MaxPositions: 16},
	} {
		if _, err := New(cfg); !errors.Is(err, ErrBadConfig) {
			t.Errorf("New(%+v): %v, want ErrBadConfig", cfg, err)
		}
	}
	c := mustNew(t, Config{Layers: 1, KVDim: 32, VDim: 32, Type: ggml.F16, MaxPositions: 100})
	if cfg := c.Config(); cfg.BlockLen != DefaultBlockLen {
		t.Errorf("default BlockLen %d", cfg.BlockLen)
	}
	if _, _, total := c.Blocks(); total != 7 {
		t.Errorf("100 positions in blocks of 16: %d blocks, want 7", total)
	}
}
