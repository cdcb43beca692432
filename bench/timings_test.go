package bench

import (
	"fmt"
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
	var layerOps, otherOps time.Duration // op counts
	for op := engine.Op(0); op < engine.NumOps; op++ {
		if op.LayerOp() {
			layerOps++
		} else {
			otherOps++
		}
	}
	// Prefill: each op of layer 0 takes 10us, of layer 1 20us, each
	// non-layer op 5us. Decode over 10 tokens: 1us, 2us and 1us.
	snap := snapshotOf([2]time.Duration{10 * us, 1 * us}, [2]time.Duration{5 * us, 1 * us}, [2]int64{8, 10})
	preTotal := layerOps*30*us + otherOps*5*us
	decTotal := layerOps*3*us + otherOps*us
	var in BreakdownInput
	in.Snapshot = snap
	in.Measured = [2]time.Duration{preTotal + 2*us, decTotal} // 2us of prefill fell between ops
	in.Passes = [2]int64{1, 10}
	in.OpBytes[engine.OpFFNDown] = 3000 // per pass

	tm := Breakdown(in)
	if len(tm.Layers) != 2 || tm.Layers[0].Layer != 0 || tm.NonLayer.Layer != -1 {
		t.Fatalf("layers %+v non-layer %+v", tm.Layers, tm.NonLayer)
	}
	if l := tm.Layers[1]; !near(l.PrefillMS, float64(layerOps)*0.02) || !near(l.DecodeMSPerToken, float64(layerOps)*0.0002) ||
		!near(l.PrefillPct, float64(layerOps*20*us)/float64(in.Measured[0])*100) ||
		!near(l.DecodePct, float64(layerOps*2*us)/float64(decTotal)*100) {
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
	if pre.Phase != "prefill" || !near(pre.OpsMS, ms(preTotal)) || !near(pre.LayersMS, ms(preTotal)) || !near(pre.UntimedMS, 0.002) ||
		!near(pre.DiffPct, float64(2*us)/float64(in.Measured[0])*100) || !pre.OK {
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
	const ms, us = time.Millisecond, time.Microsecond
	cases := []struct {
		ops, layers, measured time.Duration
		ok                    bool
	}{
		{980 * ms, 980 * ms, 1000 * ms, true},    // 2.0%: at the limit
		{979 * ms, 979 * ms, 1000 * ms, false},   // 2.1% unaccounted
		{1021 * ms, 1021 * ms, 1000 * ms, false}, // timers exceed the wall time
		{1000 * ms, 999 * ms, 1000 * ms, false},  // the two views disagree
		{0, 0, 0, false},                         // nothing measured
		{2160 * us, 2160 * us, 2380 * us, true},  // 9% of a 2 ms phase, within the 1 ms slack
		{900 * us, 900 * us, 2100 * us, false},   // 1.2 ms unaccounted: past the slack too
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
	in := BreakdownInput{Snapshot: snap, Passes: [2]int64{1, 10}}
	in.Measured[engine.Prefill] = snap.Total(engine.Prefill)
	untimed := 2 * time.Millisecond // past both the 2% and the 1 ms slack
	in.Measured[engine.Decode] = snap.Total(engine.Decode) + untimed
	tm := Breakdown(in)
	var b strings.Builder
	if err := WriteTimings(&b, tm); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := []string{"non-layer", "ffn_up_gate", "sampling", "kv_reserve",
		fmt.Sprintf("prefill ops %.3f ms", ms(snap.Total(engine.Prefill))), "(0.00%): ok",
		fmt.Sprintf("(%.2f%%): OFF by more than 2%% and 1ms", float64(untimed)/float64(in.Measured[engine.Decode])*100)}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
}
