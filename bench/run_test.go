package bench

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/synth"
)

// tinyModel writes the synth "tiny" shape (2 layers) into a temp dir and
// loads it with timers on.
func tinyModel(t *testing.T, ctx int) *engine.Model {
	t.Helper()
	shape, err := synth.Lookup("tiny")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny-q8_0.gguf")
	if err := synth.Write(path, shape, synth.Options{FileType: "Q8_0", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	m, err := engine.Load(path, engine.Options{Threads: 1, Context: ctx, Batch: 8, Timers: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestRun(t *testing.T) {
	m := tinyModel(t, 64)
	calls := 0
	cfg := RunConfig{Reps: 3, Seed: 7, Progress: func() { calls++ }}
	cases := []struct {
		test                  Test
		prefillTok, decodeTok int64 // timed tokens per repetition
	}{
		{Test{NPrompt: 20}, 20, 0},
		{Test{NGen: 5}, 0, 5},
		{Test{NPrompt: 6, NGen: 4, NDepth: 10}, 6, 4},
	}
	for _, c := range cases {
		calls = 0
		meas, err := Run(context.Background(), m, c.test, cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.test.Name(), err)
		}
		if calls != cfg.Runs(c.test) || calls != 4 {
			t.Errorf("%s: %d progress calls, want %d", c.test.Name(), calls, cfg.Runs(c.test))
		}
		if len(meas.Samples) != 3 {
			t.Fatalf("%s: %d samples", c.test.Name(), len(meas.Samples))
		}
		var sum int64
		for i, s := range meas.Samples {
			if s <= 0 {
				t.Errorf("%s: sample %d = %v", c.test.Name(), i, s)
			}
			sum += int64(s)
		}
		if got, want := len(meas.ITL), 3*c.test.NGen; got != want {
			t.Errorf("%s: %d ITL gaps, want %d", c.test.Name(), got, want)
		}
		if c.test.NPrompt > 0 != (len(meas.TTFT) == 3) {
			t.Errorf("%s: %d TTFTs", c.test.Name(), len(meas.TTFT))
		}
		// The timers cover only the timed parts of the counted repetitions:
		// not the warm-up, the depth prefill nor tg's untimed first token.
		if meas.Ops == nil {
			t.Fatalf("%s: no op snapshot with timers on", c.test.Name())
		}
		if got := meas.Ops.Tokens; got[engine.Prefill] != 3*c.prefillTok || got[engine.Decode] != 3*c.decodeTok {
			t.Errorf("%s: timed tokens %v, want [%d %d]", c.test.Name(), got, 3*c.prefillTok, 3*c.decodeTok)
		}
		// And they account for the timed spans (loose bound: the spans
		// also hold Eval's checks and the clock reads).
		timed := meas.Ops.Total(engine.Prefill) + meas.Ops.Total(engine.Decode)
		if int64(timed) > sum || float64(timed) < 0.5*float64(sum) {
			t.Errorf("%s: timers %v vs measured %v", c.test.Name(), timed, sum)
		}
	}
	if _, err := Run(context.Background(), m, Test{NPrompt: 60, NGen: 10}, cfg); err == nil {
		t.Error("a test longer than the context ran")
	}
	if _, err := Run(context.Background(), m, Test{}, cfg); err == nil {
		t.Error("an empty test ran")
	}
}

func TestRunTimersOverhead(t *testing.T) {
	m := tinyModel(t, 32)
	cfg := RunConfig{Reps: 2, TimersOverhead: true}
	calls := 0
	cfg.Progress = func() { calls++ }
	meas, err := Run(context.Background(), m, Test{NGen: 4}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if meas.TimersOverheadPct == nil {
		t.Fatal("no overhead figure")
	}
	if len(meas.Samples) != 2 || len(meas.ITL) != 8 || calls != 5 || cfg.Runs(Test{NGen: 4}) != 5 {
		t.Errorf("%d samples, %d gaps, %d runs", len(meas.Samples), len(meas.ITL), calls)
	}
	// The counted runs keep the timers on: they hold exactly their tokens.
	if meas.Ops.Tokens[engine.Decode] != 8 {
		t.Errorf("op snapshot of %d decode tokens, want 8", meas.Ops.Tokens[engine.Decode])
	}
	if !m.Timers.Enabled {
		t.Error("Run left the timers off")
	}
	// Prompt-only tests have no decode steps to compare.
	meas, err = Run(context.Background(), m, Test{NPrompt: 4}, cfg)
	if err != nil || meas.TimersOverheadPct != nil || cfg.Runs(Test{NPrompt: 4}) != 3 {
		t.Errorf("pp test: overhead %v, err %v", meas.TimersOverheadPct, err)
	}
	// With the timers off the counted runs are untimed, and stay so.
	m.Timers.Enabled = false
	meas, err = Run(context.Background(), m, Test{NGen: 4}, cfg)
	if err != nil || meas.Ops != nil || meas.TimersOverheadPct == nil || m.Timers.Enabled {
		t.Errorf("timers off: ops %v, overhead %v, err %v, enabled after %v", meas.Ops, meas.TimersOverheadPct, err, m.Timers.Enabled)
	}
}

func TestMeasureReadBandwidth(t *testing.T) {
	bw := MeasureReadBandwidth(8<<20, 2, 2)
	// Any machine that runs Go reads memory faster than 100 MB/s and
	// slower than 10 TB/s.
	if bw < 1e8 || bw > 1e13 {
		t.Errorf("read bandwidth %.3g B/s", bw)
	}
	if MeasureReadBandwidth(8, 4, 1) != 0 {
		t.Error("a buffer smaller than one word per thread gave a figure")
	}
}

// TestRunParallel: a parallel tg test decodes every sequence each step and
// is credited with all their tokens.
func TestRunParallel(t *testing.T) {
	tt := Test{NGen: 8, Parallel: 3}
	m := tinyModel(t, tt.Context()+64)
	if tt.Name() != "tg8x3" || tt.Tokens() != 24 {
		t.Fatalf("name %q tokens %d", tt.Name(), tt.Tokens())
	}
	meas, err := Run(context.Background(), m, tt, RunConfig{Reps: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(meas.Samples) != 2 || len(meas.ITL) != 16 {
		t.Errorf("%d samples, %d steps; want 2 and 16", len(meas.Samples), len(meas.ITL))
	}
	if err := (Test{NPrompt: 8, Parallel: 2}).Validate(); err == nil {
		t.Error("a parallel pp test was accepted")
	}
}

// TestRunCancel: a cancelled context stops Run between runs and passes,
// with an error that wraps context.Canceled and the timers as they were.
func TestRunCancel(t *testing.T) {
	m := tinyModel(t, 64)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	cfg := RunConfig{Reps: 3, Progress: func() { calls++ }}
	if _, err := Run(ctx, m, Test{NPrompt: 20}, cfg); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Errorf("cancelled before the start: err %v after %d runs", err, calls)
	}
	for _, tt := range []Test{{NPrompt: 20}, {NGen: 8}, {NPrompt: 4, NGen: 4, NDepth: 8}} {
		ctx, cancel := context.WithCancel(context.Background())
		calls = 0
		cfg.Progress = func() { calls++; cancel() } // after the warm-up
		meas, err := Run(ctx, m, tt, cfg)
		if !errors.Is(err, context.Canceled) || meas != nil || calls != 1 {
			t.Errorf("%s: err %v, measurement %v after %d runs", tt.Name(), err, meas, calls)
		}
		if !m.Timers.Enabled {
			t.Errorf("%s: the cancelled run left the timers off", tt.Name())
		}
	}
}

// TestRunPromptPasses: Run feeds the prompt a batch at a time (to check the
// context between passes) and still times every prompt token as prefill,
// the lone last token of a batch+1 prompt included.
func TestRunPromptPasses(t *testing.T) {
	m := tinyModel(t, 64) // batch 8
	meas, err := Run(context.Background(), m, Test{NPrompt: 9}, RunConfig{Reps: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := meas.Ops.Tokens; got[engine.Prefill] != 18 || got[engine.Decode] != 0 {
		t.Errorf("timed tokens %v, want [18 0]", got)
	}
}

// TestRunProbesBandwidth: with ProbeBandwidth a generation test gets a
// bandwidth probe before its first counted repetition and after each; a
// prompt test gets none, and neither does a model smaller than the minimum.
func TestRunProbesBandwidth(t *testing.T) {
	m := tinyModel(t, 64)
	cfg := RunConfig{Reps: 3, Seed: 7, ProbeBandwidth: true}
	meas, err := Run(context.Background(), m, Test{NGen: 4}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(meas.MemReadGBs) != 0 {
		t.Errorf("a %d-byte model below the probe minimum got probes %v", m.WeightBytesPerToken(), meas.MemReadGBs)
	}
	defer func(f func() int64) { probeMinBytes = f }(probeMinBytes)
	probeMinBytes = func() int64 { return 0 }
	for _, tc := range []struct {
		test   Test
		probes int
	}{{Test{NGen: 4}, 4}, {Test{NGen: 2, NDepth: 5}, 4}, {Test{NPrompt: 8}, 0}, {Test{NPrompt: 4, NGen: 2}, 0}} {
		meas, err := Run(context.Background(), m, tc.test, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(meas.MemReadGBs) != tc.probes {
			t.Errorf("%s: %d probes, want %d", tc.test.Name(), len(meas.MemReadGBs), tc.probes)
		}
		for _, bw := range meas.MemReadGBs {
			if bw <= 0 || bw > 1e4 {
				t.Errorf("%s: probe %v GB/s", tc.test.Name(), bw)
			}
		}
	}
	cfg.ProbeBandwidth = false
	if meas, err := Run(context.Background(), m, Test{NGen: 2}, cfg); err != nil || len(meas.MemReadGBs) != 0 {
		t.Errorf("probes off: %v, %v", meas.MemReadGBs, err)
	}
}

// TestProbeReadBandwidth: a figure from regions of any sizes (the ones too
// small to split are skipped), none when every region is too small, and
// the regions are only read.
func TestProbeReadBandwidth(t *testing.T) {
	regions := [][]byte{make([]byte, 3<<20), make([]byte, 100), make([]byte, 1<<20+77)}
	for i, r := range regions {
		for j := range r {
			r[j] = byte(i + j)
		}
	}
	bw := ProbeReadBandwidth(regions, 2, 2)
	if bw < 1e8 || bw > 1e13 {
		t.Errorf("read bandwidth %.3g B/s", bw)
	}
	for i, r := range regions {
		for j := range r {
			if r[j] != byte(i+j) {
				t.Fatalf("region %d changed at %d", i, j)
			}
		}
	}
	if bw := ProbeReadBandwidth([][]byte{make([]byte, 4096)}, 2, 1); bw != 0 {
		t.Errorf("regions too small to probe gave %v", bw)
	}
	if ProbeReadBandwidth(nil, 0, 0) != 0 {
		t.Error("no regions gave a figure")
	}
}
