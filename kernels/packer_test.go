package kernels

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// TestPackInBackground multiplies matrices while a Packer packs them: every
// product must equal the row-major one to the bit whichever copy it read,
// every matrix must end packed, and onPack must see each matrix once.
func TestPackInBackground(t *testing.T) {
	defer SetImpl(active.name)
	for _, s := range implementations {
		if !s.available {
			continue
		}
		if err := SetImpl(s.name); err != nil {
			t.Fatal(err)
		}
		for _, wt := range weightTypes {
			if active.packed[wt] == nil {
				continue
			}
			t.Run(s.name+"/"+wt.String(), func(t *testing.T) { testPackInBackground(t, wt) })
		}
	}
}

func testPackInBackground(t *testing.T, wt ggml.Type) {
	r := rand.New(rand.NewPCG(7, uint64(wt)))
	p := NewPool(2)
	defer p.Close()
	bs := max(blockSize(wt), blockSize(vecDotType[wt]))
	rows, cols := 67, 4*bs
	var ms []*Matrix
	for range 12 {
		w := randomWeights(r, wt, rows*cols, 0.5, 7)
		if wt == ggml.Q8_0 {
			clampQ8(w)
		}
		m, err := NewMatrix(wt, rows, cols, w)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	for _, ntok := range []int{1, 5} {
		x := randFloats(r, ntok*cols, 1)
		sc := NewScratch(cols, ntok)
		a := sc.Quantize(p, wt, x, ntok, cols)
		// The row-major results, computed before any packing.
		want := make([][]float32, len(ms))
		for i, m := range ms {
			want[i] = make([]float32, ntok*rows)
			for tok := range ntok {
				for row := range rows {
					want[i][tok*rows+row] = active.tokenDot(wt, tok, ntok)(cols, m.Row(row), a.Row(tok))
				}
			}
		}
		for _, m := range ms {
			m.pack.copy.Store(nil)
		}
		var mu sync.Mutex
		seen := map[*Matrix]int{}
		pk := PackInBackground(p, append(ms, ms[0], nil), func(m *Matrix) {
			mu.Lock()
			seen[m]++
			mu.Unlock()
		})
		out := make([]float32, ntok*rows)
		for round := 0; round < 3 || !pk.Done(); round++ {
			for i, m := range ms {
				p.MatMul(out, m, a)
				for j := range out {
					if out[j] != want[i][j] {
						t.Fatalf("ntok %d round %d matrix %d: out[%d] = %v, row-major %v", ntok, round, i, j, out[j], want[i][j])
					}
				}
			}
		}
		pk.Wait()
		for i, m := range ms {
			if !m.Packed() {
				t.Errorf("matrix %d not packed after Wait", i)
			}
			if seen[m] != 1 {
				t.Errorf("onPack saw matrix %d %d times", i, seen[m])
			}
		}
	}
}

// TestPackerStop: after Stop the matrices not reached pack on first use.
func TestPackerStop(t *testing.T) {
	var wt ggml.Type = maxType
	for _, c := range weightTypes {
		if active.packed[c] != nil {
			wt = c
			break
		}
	}
	if wt == maxType {
		t.Skipf("implementation %s has no packed layout", active.name)
	}
	r := rand.New(rand.NewPCG(3, 4))
	p := NewPool(1)
	defer p.Close()
	bs := max(blockSize(wt), blockSize(vecDotType[wt]))
	var ms []*Matrix
	for range 40 {
		w := randomWeights(r, wt, 64*8*bs, 1, 5)
		if wt == ggml.Q8_0 {
			clampQ8(w)
		}
		m, err := NewMatrix(wt, 64, 8*bs, w)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	pk := PackInBackground(p, ms, nil)
	pk.Stop()
	if !pk.Done() {
		t.Fatal("Done is false after Stop")
	}
	for i, m := range ms {
		if m.pack.background.Load() {
			t.Fatalf("matrix %d still owned by the stopped Packer", i)
		}
	}
	p.Prepare(ms...)
	for i, m := range ms {
		if !m.Packed() {
			t.Fatalf("matrix %d not packed by Prepare after Stop", i)
		}
	}
}

// TestStreamedData: a matrix without a packed copy streams its Data; one
// with a copy streams the copy and the rows past it, Data's tail.
func TestStreamedData(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	p := NewPool(1)
	defer p.Close()
	for _, wt := range weightTypes {
		rows, cols := 13, 2*max(blockSize(wt), blockSize(vecDotType[wt]))
		m, err := NewMatrix(wt, rows, cols, randomWeights(r, wt, rows*cols, 0.5, 7))
		if err != nil {
			t.Fatal(err)
		}
		m.pack.copy.Store(nil)
		if d := m.StreamedData(); len(d) != 1 || &d[0][0] != &m.Data[0] || len(d[0]) != len(m.Data) {
			t.Errorf("%v unpacked: %d regions", wt, len(d))
		}
		p.Prepare(m)
		d := m.StreamedData()
		if !m.Packed() {
			if len(d) != 1 || len(d[0]) != len(m.Data) {
				t.Errorf("%v, no packed layout: %d regions", wt, len(d))
			}
			continue
		}
		pc := m.pack.copy.Load()
		tail := m.Data[pc.rows*m.RowBytes():]
		if len(d) != 2 || &d[0][0] != &pc.data[0] || len(d[0]) != len(pc.data) || &d[1][0] != &tail[0] || len(d[1]) != len(tail) {
			t.Errorf("%v packed (%d rows of %d): %d regions", wt, pc.rows, rows, len(d))
		}
	}
}
