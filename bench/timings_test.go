package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/gollm/gollm/engine"
)

// snapshotOf builds a two-layer snapshot where every layer op took `layer`
// per phase and every non-layer op `other`.
func snapshotOf(layer, other [engine.NumPhases]time.Duration, tokens [engine.NumPhases]int64) *Snapshot {
	s := NewSnapshot(2)
	for p := range s.Time {
		for op := engine.Op(0); op < engine.NumOps; op++ {
			if op.LayerOp() {
				s.Time[p][0][op] = layer[p]
				s.Time[p][1][op] = 2 * layer[p]
			} else {
				s.Time[p][2][op] = other[p]
			}
		}
	}
	s.Tokens = tokens
	return s
}

func TestBreakdown(t *testing.T) {
	const us = time.Microsecond
	// 9 layer ops, 4 non-layer ops. Prefill: layer 0 = 9x10us, layer 1 =
	// 9x20us, non-layer 4x5us: 290us. Decode over 10 tokens: 9x1 + 9x2 +
	// 4x1 = 31us.
	snap := snapshotOf([2]time.Duration{10 * us, 1 * us}, [2]time.Duration{5 * us, 1 * us}, [2]int64{8, 10})
	var in BreakdownInput
	in.Snapshot = snap
	in.Measured = [2]time.Duration{292 * us, 31 * us}
	in.Passes = [2]int64{1, 10}
	in.OpBytes[engine.OpFFNDown] = 3000 // per pass

	tm := Breakdown(in)
	if len(tm.Layers) != 2 || tm.Layers[0].Layer != 0 || tm.NonLayer.Layer != -1 {
		t.Fatalf("layers %+v non-layer %+v", tm.Layers, tm.NonLayer)
	}
	if l := tm.Layers[1]; !near(l.PrefillMS, 0.18) || !near(l.DecodeMSPerToken, 0.0018) ||
		!near(l.PrefillPct, 180.0/292*100) || !near(l.DecodePct, 18.0/31*100) {
		t.Errorf("layer 1 = %+v", l)
	}
	if len(tm.Ops) != int(engine.NumOps) {
		t.Fatalf("%d ops, want %d", len(tm.Ops), engine.NumOps)
	}
	down := tm.Ops[engine.OpFFNDown]
	if down.Op != "ffn_down" || !near(down.PrefillMS, 0.03) || !near(down.DecodeMSPerToken, 0.0003) {
		t.Errorf("ffn_down = %+v", down)
	}
	// 3000 bytes in 30us = 0.1 GB/s; decode: 10 passes x 3000 bytes in 3us = 10 GB/s.
	if !near(down.PrefillGBs, 0.1) || !near(down.DecodeGBs, 10) {
		t.Errorf("ffn_down GB/s = %v, %v; want 0.1, 10", down.PrefillGBs, down.DecodeGBs)
	}
	if tm.Ops[engine.OpRope].WeightBytes != 0 || tm.Ops[engine.OpRope].DecodeGBs != 0 {
		t.Errorf("rope has bandwidth figures: %+v", tm.Ops[engine.OpRope])
	}
	if len(tm.Reconcile) != 2 {
		t.Fatalf("reconciliation %+v", tm.Reconcile)
	}
	pre, dec := tm.Reconcile[0], tm.Reconcile[1]
	if pre.Phase != "prefill" || !near(pre.OpsMS, 0.29) || !near(pre.LayersMS, 0.29) || !near(pre.UntimedMS, 0.002) ||
		!near(pre.DiffPct, 2.0/292*100) || !pre.OK {
		t.Errorf("prefill reconciliation %+v", pre)
	}
	if !dec.OK || dec.DiffPct != 0 {
		t.Errorf("decode reconciliation %+v", dec)
	}

	// A phase that did not run is left out rather than reported as failing.
	in.Snapshot = snapshotOf([2]time.Duration{10 * us, 0}, [2]time.Duration{5 * us, 0}, [2]int64{8, 0})
	in.Measured[engine.Decode] = 0
	if r := Breakdown(in).Reconcile; len(r) != 1 || r[0].Phase != "prefill" {
		t.Errorf("reconciliation without decode: %+v", r)
	}
}

func TestReconcileTolerance(t *testing.T) {
	cases := []struct {
		ops, layers, measured time.Duration
		ok                    bool
	}{
		{980, 980, 1000, true},    // 2.0%: at the limit
		{979, 979, 1000, false},   // 2.1% unaccounted
		{1021, 1021, 1000, false}, // timers exceed the wall time
		{1000, 999, 1000, false},  // the two views disagree
		{0, 0, 0, false},          // nothing measured
	}
	for _, c := range cases {
		r := Reconcile("decode", c.ops, c.layers, c.measured)
		if r.OK != c.ok {
			t.Errorf("Reconcile(%v, %v, %v) = %+v, want ok=%v", c.ops, c.layers, c.measured, r, c.ok)
		}
	}
}

func TestWriteTimings(t *testing.T) {
	snap := snapshotOf([2]time.Duration{10000, 1000}, [2]time.Duration{5000, 1000}, [2]int64{8, 10})
	tm := Breakdown(BreakdownInput{Snapshot: snap, Measured: [2]time.Duration{290000, 40000}, Passes: [2]int64{1, 10}})
	var b strings.Builder
	if err := WriteTimings(&b, tm); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"non-layer", "ffn_up_gate", "sampling", "prefill ops 0.290 ms", "OFF by more than 2%"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
