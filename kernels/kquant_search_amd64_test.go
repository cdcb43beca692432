//go:build !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/gollm/gollm/quant"
)

// The assembly addresses the scratch structs by constant offsets.
func TestKSearchScratchLayout(t *testing.T) {
	var q qkx2Scratch
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"w", unsafe.Offsetof(q.w), 1024}, {"lv", unsafe.Offsetof(q.lv), 2048},
		{"max", unsafe.Offsetof(q.max), 3072}, {"minX", unsafe.Offsetof(q.minX), 3104},
		{"sumW", unsafe.Offsetof(q.sumW), 3136}, {"sumX", unsafe.Offsetof(q.sumX), 3168},
		{"notDone", unsafe.Offsetof(q.notDone), 3200}, {"scales", unsafe.Offsetof(q.scales), 3232},
		{"negMins", unsafe.Offsetof(q.negMins), 3264},
	} {
		if c.got != c.want {
			t.Errorf("qkx2Scratch.%s at %d, the assembly expects %d", c.name, c.got, c.want)
		}
	}
	var s q6kScratch
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"w", unsafe.Offsetof(s.w), 1024}, {"wx", unsafe.Offsetof(s.wx), 2048},
		{"amax", unsafe.Offsetof(s.amax), 3072}, {"sb", unsafe.Offsetof(s.sb), 3136},
		{"scales", unsafe.Offsetof(s.scales), 3264},
	} {
		if c.got != c.want {
			t.Errorf("q6kScratch.%s at %d, the assembly expects %d", c.name, c.got, c.want)
		}
	}
}

func TestKSearchAsmMatchesGeneric(t *testing.T) {
	if !hasKSearchAVX2 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(3, 5))
	for _, kind := range kSearchBlockKinds {
		declined := 0
		for rep := 0; rep < 200; rep++ {
			x := kSearchBlock(r, kind)
			for _, p := range []struct {
				nmax int
				nums []float32
			}{{15, q4kTestNums}, {31, q5kTestNums}} {
				ws, wm, wok := qkx2Block8Generic(x, p.nmax, p.nums)
				gs, gm, gok := qkx2Block8Asm(x, p.nmax, p.nums)
				if gok != wok {
					t.Fatalf("qkx2 %s nmax %d: ok %v, generic %v\nx %v", kind, p.nmax, gok, wok, x)
				}
				if !wok {
					declined++
					continue
				}
				for j := range ws {
					if math.Float32bits(gs[j]) != math.Float32bits(ws[j]) || math.Float32bits(gm[j]) != math.Float32bits(wm[j]) {
						t.Fatalf("qkx2 %s nmax %d sub-block %d: (%g, %g), generic (%g, %g)\nx %v",
							kind, p.nmax, j, gs[j], gm[j], ws[j], wm[j], x[32*j:32*j+32])
					}
				}
			}
			ws, wok := q6kBlock16Generic(x, q6kTestNums)
			gs, gok := q6kBlock16Asm(x, q6kTestNums)
			if gok != wok {
				t.Fatalf("q6k %s: ok %v, generic %v", kind, gok, wok)
			}
			if !wok {
				continue
			}
			for j := range ws {
				if math.Float32bits(gs[j]) != math.Float32bits(ws[j]) {
					t.Fatalf("q6k %s sub-block %d: %g, generic %g\nx %v", kind, j, gs[j], ws[j], x[16*j:16*j+16])
				}
			}
		}
		if kind == "normal" && declined > 0 {
			t.Errorf("qkx2 declined %d ordinary blocks", declined)
		}
	}
}

func TestKSearchAsmRowsMatchScalar(t *testing.T) {
	if !hasKSearchAVX2 {
		t.Skip("no AVX2")
	}
	testKSearchRows(t, quant.KSearchKernels{QKX2: qkx2Block8Asm, Q6K: q6kBlock16Asm})
}
