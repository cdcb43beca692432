package engine

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/kvcache"
)

// runSchedule prefills every prompt and decodes steps greedy tokens, the
// way a serving scheduler would: with together, every step is one
// EvalBatch holding a decode token of each sequence past its prompt and
// prompt chunks of at most chunk tokens of the others, up to the pass's
// capacity; without, the sequences run one after another, each prompt in
// chunks. It returns per sequence the logits of its last prompt token and
// of each decode step.
func runSchedule(t *testing.T, m *Model, prompts [][]int32, steps, chunk int, together bool) [][][]float32 {
	t.Helper()
	m.Reset()
	type seqRun struct {
		id     SeqID
		done   int // prompt tokens evaluated
		next   int32
		logits [][]float32
	}
	runs := make([]*seqRun, len(prompts))
	for i := range prompts {
		runs[i] = &seqRun{id: m.NewSeq()}
	}
	finished := func(r *seqRun) bool { return len(r.logits) > steps }
	capacity := m.BatchCapacity()
	for {
		var entries []BatchEntry
		var owners []*seqRun
		budget := capacity
		for i, r := range runs {
			if finished(r) || budget == 0 {
				continue
			}
			if !together && len(entries) == 0 && i > 0 && !finished(runs[i-1]) {
				break
			}
			p := prompts[i]
			var e BatchEntry
			if r.done < len(p) {
				n := min(chunk, len(p)-r.done, budget)
				e = BatchEntry{Seq: r.id, Tokens: p[r.done : r.done+n], Logits: r.done+n == len(p)}
				r.done += n
			} else {
				e = BatchEntry{Seq: r.id, Tokens: []int32{r.next}, Logits: true}
			}
			budget -= len(e.Tokens)
			entries, owners = append(entries, e), append(owners, r)
			if !together {
				break
			}
		}
		if len(entries) == 0 {
			break
		}
		logits, err := m.EvalBatch(entries)
		if err != nil {
			t.Fatal(err)
		}
		row := 0
		vocab := m.Config.Vocab
		for k, e := range entries {
			if !e.Logits {
				continue
			}
			l := append([]float32(nil), logits[row*vocab:(row+1)*vocab]...)
			row++
			owners[k].logits = append(owners[k].logits, l)
			owners[k].next = int32(argmax(l))
		}
	}
	out := make([][][]float32, len(runs))
	for i, r := range runs {
		out[i] = r.logits
	}
	return out
}

// TestEvalBatchInvariant: a sequence's logits have the same bits alone, in
// one pass with all the others, with its prompt in small chunks among
// other sequences' decodes, for weight types whose kernels pick their
// float order by pass size (F16, F32, Q4_K) and ones that do not (Q8_0,
// Q4_0, BF16), with prompts long enough for the fast attention path.
func TestEvalBatchInvariant(t *testing.T) {
	for _, typ := range []string{"Q8_0", "Q4_0", "Q4_K_M", "F16", "BF16", "F32"} {
		t.Run(typ, func(t *testing.T) { checkBatchInvariant(t, typ) })
	}
}

// TestBatchQuantum: EvalBatch pads passes only for types whose order the
// kernels cannot make uniform: a Q4_K_M pass is not padded to a quad where
// the kernels have one-token versions of its four-token order (a lone
// served decode token paid for four), nor an F16 one to two tokens.
func TestBatchQuantum(t *testing.T) {
	for _, c := range []struct {
		typ  string
		want int
	}{{"Q8_0", 1}, {"Q4_K_M", 1}, {"F16", 1}} {
		if c.typ == "Q4_K_M" && !kernels.UniformOrder(ggml.Q4_K) {
			c.want = 4
		}
		m := tinyModel(t, c.typ, Options{Threads: 1, Context: 64, Batch: 8})
		if got := m.batchQuantum(); got != c.want {
			t.Errorf("%s: batch quantum %d, want %d (kernels %s)", c.typ, got, c.want, kernels.Impl())
		}
	}
}

// checkBatchInvariant runs TestEvalBatchInvariant's schedules on a tiny
// model of type typ under the active kernels.
func checkBatchInvariant(t *testing.T, typ string) {
	m := tinyModel(t, typ, Options{Threads: 2, Context: 512, Batch: 64})
	r := rand.New(rand.NewPCG(5, 6))
	var prompts [][]int32
	for _, n := range []int{5, 300, 17, 270, 40, 1} {
		p := make([]int32, n)
		for i := range p {
			p[i] = int32(1 + r.IntN(m.Config.Vocab-1))
		}
		prompts = append(prompts, p)
	}
	const steps = 4
	alone := runSchedule(t, m, prompts, steps, 64, false)
	for _, mode := range []struct {
		name     string
		chunk    int
		together bool
	}{{"alone in chunks of 7", 7, false}, {"together", 64, true}, {"together in chunks of 7", 7, true}, {"together in chunks of 3", 3, true}} {
		got := runSchedule(t, m, prompts, steps, mode.chunk, mode.together)
		for i := range prompts {
			for s := range alone[i] {
				if !bitsEqual(alone[i][s], got[i][s]) {
					t.Fatalf("%s: sequence %d (prompt %d tokens) step %d: logits differ from the sequence alone (max rel diff %g)",
						mode.name, i, len(prompts[i]), s, maxRelDiff(got[i][s], alone[i][s]))
				}
			}
		}
	}
	if used, _, _ := m.KVCache().Blocks(); used == 0 {
		t.Fatal("no blocks in use after the runs")
	}
}

func bitsEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestEvalBatchErrors: bad batches are refused with errors and change no
// sequence.
func TestEvalBatchErrors(t *testing.T) {
	m := tinyModel(t, "Q8_0", Options{Threads: 1, Context: 32, Batch: 16, KVPositions: 64})
	a, b := m.NewSeq(), m.NewSeq()
	if _, err := m.EvalBatch([]BatchEntry{{Seq: a, Tokens: []int32{1, 2, 3}, Logits: true}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		entries []BatchEntry
		want    error
	}{
		{"empty", nil, nil},
		{"no tokens", []BatchEntry{{Seq: a}}, nil},
		{"bad token", []BatchEntry{{Seq: a, Tokens: []int32{-1}}}, nil},
		{"twice", []BatchEntry{{Seq: a, Tokens: []int32{1}}, {Seq: a, Tokens: []int32{2}}}, nil},
		{"dead seq", []BatchEntry{{Seq: 99, Tokens: []int32{1}}}, kvcache.ErrBadSeq},
		{"too large", []BatchEntry{{Seq: b, Tokens: make([]int32, 17)}}, ErrBatchTooLarge},
		{"context", []BatchEntry{{Seq: a, Tokens: make([]int32, 30)}}, ErrContextFull},
	}
	for _, c := range cases {
		_, err := m.EvalBatch(c.entries)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// A full cache: the first entry's reservation is rolled back.
	c := m.NewSeq()
	if _, err := m.EvalBatch([]BatchEntry{{Seq: c, Tokens: make([]int32, 16)}}); err != nil {
		t.Fatal(err)
	}
	d := m.NewSeq()
	if _, err := m.EvalBatch([]BatchEntry{{Seq: d, Tokens: make([]int32, 16)}}); err != nil {
		t.Fatal(err)
	}
	usedBefore, _, _ := m.KVCache().Blocks()
	_, err := m.EvalBatch([]BatchEntry{{Seq: b, Tokens: []int32{1}}, {Seq: c, Tokens: make([]int32, 15)}})
	if !errors.Is(err, kvcache.ErrCacheFull) {
		t.Fatalf("err = %v, want ErrCacheFull", err)
	}
	if used, _, _ := m.KVCache().Blocks(); used != usedBefore || m.SeqLen(b) != 0 || m.SeqLen(c) != 16 {
		t.Fatalf("after a failed batch: %d blocks used (was %d), lengths %d %d", used, usedBefore, m.SeqLen(b), m.SeqLen(c))
	}
	if l, err := m.EvalBatch([]BatchEntry{{Seq: a, Tokens: []int32{4}, Logits: true}}); err != nil || len(l) != m.Config.Vocab {
		t.Fatalf("after errors: %d logits, %v", len(l), err)
	}
}

// TestEvalBatchAllocatesNothing: a steady-state mixed pass allocates
// nothing.
func TestEvalBatchAllocatesNothing(t *testing.T) {
	m := tinyModel(t, "Q4_K_M", Options{Threads: 2, Context: 256, Batch: 32})
	a, b := m.NewSeq(), m.NewSeq()
	entries := []BatchEntry{{Seq: a, Tokens: []int32{1, 2, 3}, Logits: true}, {Seq: b, Tokens: []int32{5}, Logits: true}}
	if _, err := m.EvalBatch(entries); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		m.TruncateSeq(a, 3)
		m.TruncateSeq(b, 1)
		if _, err := m.EvalBatch(entries); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("EvalBatch allocates %v times per pass", allocs)
	}
}
