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
		{"negMins", unsafe.Offsetof(q.negMins), 3264}, {"min", unsafe.Offsetof(q.min), 3296},
		{"best", unsafe.Offsetof(q.best), 3328}, {"scale", unsafe.Offsetof(q.scale), 3360},
		{"bound", unsafe.Offsetof(q.bound), 3392}, {"dPos", unsafe.Offsetof(q.dPos), 3424},
		{"size", unsafe.Sizeof(q), 3456},
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
				// The pair kernel on x and a second block (of another
				// kind now and then).
				y := x
				if rep%3 == 0 {
					y = kSearchBlock(r, kSearchBlockKinds[r.IntN(len(kSearchBlockKinds))])
				}
				var xy [512]float32
				copy(xy[:256], x[:])
				copy(xy[256:], y[:])
				ws2, wm2, wok2 := qkx2Block8x2Generic(&xy, p.nmax, p.nums)
				gs2, gm2, gok2 := qkx2Block8x2Asm(&xy, p.nmax, p.nums)
				if gok2 != wok2 {
					t.Fatalf("qkx2 pair %s nmax %d: ok %v, generic %v", kind, p.nmax, gok2, wok2)
				}
				for j := range ws2 {
					if wok2 && (math.Float32bits(gs2[j]) != math.Float32bits(ws2[j]) || math.Float32bits(gm2[j]) != math.Float32bits(wm2[j])) {
						t.Fatalf("qkx2 pair %s nmax %d sub-block %d: (%g, %g), generic (%g, %g)",
							kind, p.nmax, j, gs2[j], gm2[j], ws2[j], wm2[j])
					}
				}
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

// The requantization kernel on every kind of block, with divisors and
// offsets like the quantizers' (scale codes times an f16 scale) and
// adversarial ones (zero, tiny, negative, huge quotients beyond nearest_int's
// range, NaN from 0/0).
func TestKLevelsAsmMatchesGeneric(t *testing.T) {
	if !hasKSearchAVX2 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(5, 8))
	for _, kind := range kSearchBlockKinds {
		for rep := 0; rep < 100; rep++ {
			x := kSearchBlock(r, kind)
			var d, a [16]float32
			base := quant.FP16ToFP32(quant.FP32ToFP16(float32(math.Exp(r.NormFloat64() * 4))))
			for j := range d {
				d[j] = base * float32(r.IntN(64))
				a[j] = base * float32(r.IntN(64))
				switch r.IntN(16) {
				case 0:
					d[j] = 0
				case 1:
					d[j] = -d[j]
				case 2:
					d[j] = 1e-30
				case 3:
					a[j] = 0
				}
			}
			for _, c := range []struct{ g, lo, hi, off int }{{32, 0, 15, 0}, {32, 0, 31, 0}, {16, -32, 31, 32}} {
				want := kLevelsGeneric(x, c.g, d, a, c.lo, c.hi, c.off)
				got := kLevelsAsm(x, c.g, d, a, c.lo, c.hi, c.off)
				if got != want {
					for i := range got {
						if got[i] != want[i] {
							j := i / c.g
							t.Fatalf("%s g %d: L[%d] = %d, generic %d (x %g, d %g, a %g)", kind, c.g, i, got[i], want[i], x[i], d[j], a[j])
						}
					}
				}
			}
		}
	}
}

func TestKSearchAsmRowsMatchScalar(t *testing.T) {
	if !hasKSearchAVX2 {
		t.Skip("no AVX2")
	}
	testKSearchRows(t, quant.KSearchKernels{QKX2: qkx2Block8Asm, QKX2Pair: qkx2Block8x2Asm, Q6K: q6kBlock16Asm, Levels: kLevelsAsm})
	testKSearchRows(t, quant.KSearchKernels{QKX2: qkx2Block8Asm, Q6K: q6kBlock16Asm})
	testKSearchRows(t, quant.KSearchKernels{Levels: kLevelsAsm})
}
