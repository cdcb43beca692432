package engine

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/synth"
)

// The families past llama (gemma2, gemma3, phi3, qwen3moe) on their small
// synthetic shapes: paths the golden files' short prompts do not reach
// (windows shorter than the context, the fast and split attention paths,
// mixed batches), and the MoE byte counts. llama.cpp's logits for them are
// in the golden tests.

var archPresets = []string{"tiny-gemma2", "tiny-gemma3", "tiny-phi3", "tiny-qwen3moe", "tiny-mixtral", "tiny-qwen2moe"}

// presetModel writes a synthetic model of preset and loads it.
func presetModel(t testing.TB, preset, typ string, opt Options) *Model {
	t.Helper()
	shape, err := synth.Lookup(preset)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), preset+".gguf")
	if err := synth.Write(path, shape, synth.Options{FileType: typ, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func testTokens(n, vocab int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(3 + (i*37+i*i)%(vocab-3))
	}
	return ids
}

// closeLogits fails when a and b differ by more than rel x max|a|.
func closeLogits(t *testing.T, what string, a, b []float32, rel float64) {
	t.Helper()
	maxAbs, maxDiff := 0.0, 0.0
	for i := range a {
		maxAbs = math.Max(maxAbs, math.Abs(float64(a[i])))
		maxDiff = math.Max(maxDiff, math.Abs(float64(a[i]-b[i])))
	}
	if !(maxDiff <= rel*maxAbs) {
		t.Errorf("%s: max |diff| %.3g > %.0e x max |logit| %.3g", what, maxDiff, rel, maxAbs)
	}
}

// TestArchsDecodeMatchesPrefill: a token's logits are the same whether it
// is the last of a prompt or decoded after it, below the fast-path
// threshold (exact paths) and past it (fast prefill, split decode), with
// windows of 8 positions in the gemma layers.
func TestArchsDecodeMatchesPrefill(t *testing.T) {
	for _, preset := range archPresets {
		t.Run(preset, func(t *testing.T) {
			m := presetModel(t, preset, "F16", Options{Threads: 2, Context: 400})
			for _, n := range []int{40, 300} {
				ids := testTokens(n, m.Config.Vocab)
				m.Reset()
				all, err := m.Eval(ids, true)
				if err != nil {
					t.Fatal(err)
				}
				want := append([]float32(nil), all[(n-1)*m.Config.Vocab:]...)
				m.Reset()
				if _, err := m.Eval(ids[:n-1], false); err != nil {
					t.Fatal(err)
				}
				got, err := m.Eval(ids[n-1:], false)
				if err != nil {
					t.Fatal(err)
				}
				closeLogits(t, preset, want, got, 2e-3)
			}
		})
	}
}

// TestArchsMixedBatch: one pass decoding two sequences of different
// lengths (one past the gemma windows) gives each the logits it gets alone.
func TestArchsMixedBatch(t *testing.T) {
	for _, preset := range archPresets {
		t.Run(preset, func(t *testing.T) {
			m := presetModel(t, preset, "F16", Options{Threads: 2, Context: 128})
			ids := testTokens(60, m.Config.Vocab)
			a, b := m.NewSeq(), m.NewSeq()
			if _, err := m.EvalSeq(a, ids[:50], false); err != nil {
				t.Fatal(err)
			}
			if _, err := m.EvalSeq(b, ids[20:25], false); err != nil {
				t.Fatal(err)
			}
			alone := make([][]float32, 2)
			for i, seq := range []SeqID{a, b} {
				fork, err := m.Fork(seq)
				if err != nil {
					t.Fatal(err)
				}
				l, err := m.EvalSeq(fork, ids[55:56], false)
				if err != nil {
					t.Fatal(err)
				}
				alone[i] = append([]float32(nil), l...)
				m.FreeSeq(fork)
			}
			both, err := m.DecodeSeqs([]SeqID{a, b}, []int32{ids[55], ids[55]})
			if err != nil {
				t.Fatal(err)
			}
			v := m.Config.Vocab
			closeLogits(t, preset+" seq a", alone[0], both[:v], 2e-3)
			closeLogits(t, preset+" seq b", alone[1], both[v:2*v], 2e-3)
		})
	}
}

// TestMoEBytesPerToken: a decode token of a mixture of experts reads the
// dense matrices and expert_used_count of each expert tensor's experts.
func TestMoEBytesPerToken(t *testing.T) {
	m := presetModel(t, "tiny-qwen3moe", "Q4_K_M", Options{Threads: 1, Context: 64})
	used := float64(m.File.Uint("qwen3moe.expert_used_count", 0)) / float64(m.File.Uint("qwen3moe.expert_count", 0))
	var want float64
	for i := range m.File.Tensors {
		ti := &m.File.Tensors[i]
		switch {
		case len(ti.Dims) < 2 || ti.Name == "token_embd.weight":
		case strings.Contains(ti.Name, "_exps."):
			want += float64(ti.Size) * used
		default:
			want += float64(ti.Size)
		}
	}
	if got := m.WeightBytesPerToken(); float64(got) != want {
		t.Errorf("WeightBytesPerToken %d, want %.0f", got, want)
	}
	ops := m.Weights.OpBytes()
	var sum int64
	for _, b := range ops {
		sum += b
	}
	if sum != m.WeightBytesPerToken() || ops[OpFFNUpGate] == 0 || ops[OpFFNDown] == 0 {
		t.Errorf("per-op bytes %v do not add up to %d", ops, m.WeightBytesPerToken())
	}
}

// TestWeightMemory: the memory a bandwidth probe reads covers every
// matrix, each expert's too: for a dense model at least the bytes a token
// reads (packed copies may be larger), for a mixture of experts all of
// its experts.
func TestWeightMemory(t *testing.T) {
	for _, c := range []struct{ preset, typ string }{{"tiny", "Q4_0"}, {"tiny", "F16"}, {"tiny-qwen3moe", "Q4_K_M"}} {
		m := presetModel(t, c.preset, c.typ, Options{Threads: 1, Context: 64})
		m.WaitPacked()
		var got, all int64
		for _, r := range m.WeightMemory() {
			got += int64(len(r))
		}
		for i := range m.Weights.Matrices {
			for _, mat := range m.Weights.Matrices[i].Mats {
				all += int64(len(mat.Data))
			}
		}
		if got < all || got > all*5/4 {
			t.Errorf("%s %s: weight memory %d bytes, the matrices hold %d", c.preset, c.typ, got, all)
		}
	}
}

// TestMoEBadParams: expert counts that cannot work are a load error.
func TestMoEBadParams(t *testing.T) {
	shape, _ := synth.Lookup("tiny-qwen3moe")
	path := filepath.Join(t.TempDir(), "moe.gguf")
	if err := synth.Write(path, shape, synth.Options{FileType: "F16", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, kv := range f.KV {
		if kv.Key == "qwen3moe.expert_used_count" {
			// Point the value at more experts than there are.
			if _, err := readMoEParams(&loader{f: f}, &Config{Arch: "qwen3moe", FFN: 1}, true); err != nil {
				t.Fatalf("valid file: %v", err)
			}
		}
	}
	w := gguf.NewWriter()
	w.Set("general.architecture", "qwen3moe")
	w.Set("qwen3moe.expert_count", uint32(4))
	w.Set("qwen3moe.expert_used_count", uint32(8))
	bad := filepath.Join(t.TempDir(), "bad.gguf")
	if err := w.WriteFile(bad); err != nil {
		t.Fatal(err)
	}
	g, err := gguf.Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := readMoEParams(&loader{f: g}, &Config{Arch: "qwen3moe", FFN: 16}, true); !errors.Is(err, ErrBadModel) {
		t.Errorf("8 of 4 experts: %v, want ErrBadModel", err)
	}
}

// TestDescribe: each family's particulars appear in Describe.
func TestDescribe(t *testing.T) {
	want := map[string]string{"tiny-gemma2": "soft-caps: attention 50, final logits 30", "tiny-gemma3": "sliding window of 8 positions on 2 of every 3 layers, local RoPE base 10000",
		"tiny-phi3": "RoPE factors long/short", "tiny-qwen3moe": "8 experts, 2 per token, expert FFN 128"}
	for preset, line := range want {
		m := presetModel(t, preset, "Q8_0", Options{Threads: 1, Context: 32})
		lines, err := Describe(m.File)
		if err != nil {
			t.Fatal(err)
		}
		if all := strings.Join(lines, "\n"); !strings.Contains(all, line) {
			t.Errorf("%s: %q lacks %q", preset, all, line)
		}
	}
}

// TestArchsDecodeAllocatesNothing: the new families' passes allocate
// nothing either (scratch sized at load).
func TestArchsDecodeAllocatesNothing(t *testing.T) {
	for _, preset := range archPresets {
		m := presetModel(t, preset, "Q4_K_M", Options{Threads: 2, Context: 64})
		if _, err := m.Eval(testTokens(12, m.Config.Vocab), false); err != nil {
			t.Fatal(err)
		}
		tok := []int32{5}
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := m.Eval(tok, false); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: a decode step allocates %.1f times", preset, allocs)
		}
	}
}
