package quant

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gollm/gollm/ggml"
)

// kTypes are the K-quant formats this file family implements.
var kTypes = []ggml.Type{ggml.Q2_K, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.Q8_K}

func TestNearestIntRoundsHalfToEven(t *testing.T) {
	cases := map[float32]int{
		0: 0, 0.5: 0, 1.5: 2, 2.5: 2, 3.5: 4, -0.5: 0, -1.5: -2, -2.5: -2,
		0.49999997: 0, 0.50000006: 1, -7.3: -7, 4194302.5: 4194302, 4194303: 4194303,
		-4194303: -4194303, 1e-30: 0,
	}
	for in, want := range cases {
		if got := nearestInt(in); got != want {
			t.Errorf("nearestInt(%v) = %d, want %d", in, got, want)
		}
	}
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 200000; i++ {
		f := float32((r.Float64()*2 - 1) * math.Exp2(float64(r.IntN(23))))
		if got, want := nearestInt(f), int(math.RoundToEven(float64(f))); got != want {
			t.Fatalf("nearestInt(%v) = %d, want %d", f, got, want)
		}
	}
}

func TestNearestIntOutOfRangeKeepsGgmlBits(t *testing.T) {
	// Outside |f| <= 4194303 ggml's magic-number trick wraps; the clamps
	// after it then see these exact values, so we must produce them too.
	cases := map[float32]int{
		4194304:               -4194304, // 1.5*2^23 + 2^22 = 2^24: mantissa bits 0
		4194305:               -4194304, // 2^24+1 rounds to even 2^24
		6291456:               -3145728, // 2^24 + 2^21: mantissa 0x100000
		float32(math.Inf(1)):  -4194304,
		float32(math.Inf(-1)): -4194304,
	}
	for in, want := range cases {
		if got := nearestInt(in); got != want {
			t.Errorf("nearestInt(%v) = %d, want %d", in, got, want)
		}
	}
}

func TestScaleMinK4Layout(t *testing.T) {
	// Sub-blocks 0-3: 6 bits each in bytes j (scale) and j+4 (min); their
	// top two bits carry the high bits of sub-blocks 4-7, whose low
	// nibbles sit in bytes 8-11.
	sc := []byte{
		0x40 | 1, 0x80 | 2, 0xC0 | 3, 4, // scales 0-3, high bits of scales 4-7: 1,2,3,0
		0x00 | 5, 0x40 | 6, 0x80 | 7, 0xC0 | 8, // mins 0-3, high bits of mins 4-7: 0,1,2,3
		0xA9, 0x01, 0xF0, 0x3C, // (scale, min) low nibbles of 4-7: (9,A) (1,0) (0,F) (C,3)
	}
	want := [8][2]uint8{
		{1, 5}, {2, 6}, {3, 7}, {4, 8},
		{1<<4 | 9, 0<<4 | 0xA}, {2<<4 | 1, 1<<4 | 0}, {3<<4 | 0, 2<<4 | 0xF}, {0<<4 | 0xC, 3<<4 | 3},
	}
	for j, w := range want {
		s, m := ScaleMinK4(j, sc)
		if s != w[0] || m != w[1] {
			t.Errorf("sub-block %d: got (%d,%d), want (%d,%d)", j, s, m, w[0], w[1])
		}
	}
	r := rand.New(rand.NewPCG(1, 9))
	for it := 0; it < 1000; it++ {
		var ls, lm [8]uint8
		for j := range ls {
			ls[j], lm[j] = uint8(r.IntN(64)), uint8(r.IntN(64))
		}
		var packed [12]byte
		putScaleMinK4(packed[:], &ls, &lm)
		for j := range ls {
			if s, m := ScaleMinK4(j, packed[:]); s != ls[j] || m != lm[j] {
				t.Fatalf("round trip %v %v: sub-block %d gave (%d,%d)", ls, lm, j, s, m)
			}
		}
	}
}

// putHalf stores the fp16 encoding of f, which must be exactly representable.
func putHalf(tb testing.TB, b []byte, f float32) {
	tb.Helper()
	h := FP32ToFP16(f)
	if FP16ToFP32(h) != f {
		tb.Fatalf("%v is not an exact half", f)
	}
	binary.LittleEndian.PutUint16(b, h)
}

// quantizeK quantizes x (a multiple of 256 long) with the table row of t.
func quantizeK(tb testing.TB, ty ggml.Type, x []float32) (*Traits, []byte) {
	tb.Helper()
	tr, err := Lookup(ty)
	if err != nil {
		tb.Fatal(err)
	}
	b := make([]byte, len(x)/tr.BlockSize*tr.BlockBytes)
	tr.Quantize(x, b)
	return tr, b
}

func roundTripK(tb testing.TB, ty ggml.Type, x []float32) []float32 {
	tr, b := quantizeK(tb, ty, x)
	y := make([]float32, len(x))
	tr.Dequantize(b, y)
	return y
}

// kBounds are the accepted relative RMS error and the accepted largest
// error per block as a fraction of the block's largest magnitude. They are
// about 1.3-1.5x what ggml's algorithms reach on these distributions (the
// golden test pins the exact bytes; this catches a decoder that drifts).
var kBounds = map[ggml.Type]struct{ rms, blockMax float64 }{
	ggml.Q2_K: {0.50, 0.55},
	ggml.Q3_K: {0.25, 0.35},
	ggml.Q4_K: {0.13, 0.14},
	ggml.Q5_K: {0.07, 0.08},
	ggml.Q6_K: {0.04, 0.025},
	ggml.Q8_K: {0.03, 1.0/254 + 1e-6},
}

func genBlocks(dist string, nblocks int, scale float64, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 3))
	x := make([]float32, 256*nblocks)
	for i := range x {
		var v float64
		switch dist {
		case "normal":
			v = r.NormFloat64()
		case "uniform":
			v = r.Float64()*2 - 1
		case "heavy":
			v = r.NormFloat64() * math.Exp(r.NormFloat64())
		case "positive":
			v = 1 + r.Float64()
		}
		x[i] = float32(v * scale)
	}
	return x
}

func checkRoundTrip(t *testing.T, ty ggml.Type, x, y []float32) {
	t.Helper()
	bd := kBounds[ty]
	var se, sx float64
	for b := 0; b < len(x)/256; b++ {
		var amax, emax float64
		for i := 256 * b; i < 256*b+256; i++ {
			if math.IsNaN(float64(y[i])) || math.IsInf(float64(y[i]), 0) {
				t.Fatalf("%v: element %d decodes to %v", ty, i, y[i])
			}
			d := float64(y[i]) - float64(x[i])
			se += d * d
			sx += float64(x[i]) * float64(x[i])
			amax = math.Max(amax, math.Abs(float64(x[i])))
			emax = math.Max(emax, math.Abs(d))
		}
		if emax > bd.blockMax*amax {
			t.Fatalf("%v: block %d max error %g > %g * amax %g", ty, b, emax, bd.blockMax, amax)
		}
	}
	if rel := math.Sqrt(se / sx); rel > bd.rms {
		t.Fatalf("%v: relative RMS error %.4f > %.4f", ty, rel, bd.rms)
	}
}

func TestKQuantRoundTrip(t *testing.T) {
	for _, ty := range kTypes {
		for _, dist := range []string{"normal", "uniform", "heavy", "positive"} {
			for _, scale := range []float64{1, 1e4, 0.05} {
				x := genBlocks(dist, 64, scale, uint64(ty))
				checkRoundTrip(t, ty, x, roundTripK(t, ty, x))
			}
		}
	}
}

func TestKQuantZeroBlocksEncodeToZeroBytes(t *testing.T) {
	for _, ty := range kTypes {
		x := make([]float32, 512)
		x[256+17] = -0.0 // negative zero counts as zero too
		_, b := quantizeK(t, ty, x)
		for i, v := range b {
			if v != 0 {
				t.Fatalf("%v: byte %d of an all-zero row is %#x", ty, i, v)
			}
		}
		y := roundTripK(t, ty, x)
		for i, v := range y {
			if v != 0 {
				t.Fatalf("%v: element %d of an all-zero row decodes to %v", ty, i, v)
			}
		}
	}
}

// A zero sub-block inside a live block keeps the levels of the scale search
// (ggml skips the requantization when its scale is 0); whatever those
// levels are, its scale and min are 0, so it must decode to exact zeros.
func TestKQuantZeroSubBlockDecodesToZero(t *testing.T) {
	for _, ty := range kTypes {
		x := genBlocks("normal", 1, 1, 5)
		for i := 32; i < 64; i++ {
			x[i] = 0
		}
		y := roundTripK(t, ty, x)
		for i := 32; i < 64; i++ {
			if y[i] != 0 {
				t.Fatalf("%v: zeroed element %d decodes to %v", ty, i, y[i])
			}
		}
	}
}

func TestKQuantExtremeMagnitudesStayFinite(t *testing.T) {
	for _, ty := range kTypes {
		for _, scale := range []float64{1e-30, 1e-8, 1e-6, 1e5} {
			x := genBlocks("normal", 4, scale, 11)
			y := roundTripK(t, ty, x)
			for i := range y {
				if math.IsNaN(float64(y[i])) || math.IsInf(float64(y[i]), 0) {
					t.Fatalf("%v scale %g: element %d decodes to %v", ty, scale, i, y[i])
				}
				// Whatever precision the fp16 scales lose, a value never
				// comes back much larger than the block's range.
				if math.Abs(float64(y[i])) > 8*scale*8 {
					t.Fatalf("%v scale %g: element %d decodes to %v", ty, scale, i, y[i])
				}
			}
		}
	}
}

func TestKQuantShortBuffersDoNotPanic(t *testing.T) {
	for _, ty := range kTypes {
		tr, _ := Lookup(ty)
		x := genBlocks("normal", 2, 1, 1)
		b := make([]byte, tr.BlockBytes+3) // room for one block only
		tr.Quantize(x, b)
		tr.Dequantize(b, make([]float32, 512))
		tr.Quantize(x[:100], b) // not even one block
		tr.Dequantize(b[:10], make([]float32, 256))
	}
}

func TestKQuantizeDoesNotAllocate(t *testing.T) {
	for _, ty := range kTypes {
		tr, _ := Lookup(ty)
		x := genBlocks("normal", 4, 1, 2)
		b := make([]byte, 4*tr.BlockBytes)
		y := make([]float32, len(x))
		if n := testing.AllocsPerRun(10, func() { tr.Quantize(x, b); tr.Dequantize(b, y) }); n != 0 {
			t.Errorf("%v: %v allocations per row", ty, n)
		}
	}
}

func BenchmarkKQuantize(b *testing.B) {
	for _, ty := range kTypes {
		tr, _ := Lookup(ty)
		x := genBlocks("normal", 64, 1, 3)
		dst := make([]byte, 64*tr.BlockBytes)
		b.Run(tr.Name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				tr.Quantize(x, dst)
			}
		})
	}
}

func BenchmarkKDequantize(b *testing.B) {
	for _, ty := range kTypes {
		tr, _ := Lookup(ty)
		x := genBlocks("normal", 64, 1, 3)
		q := make([]byte, 64*tr.BlockBytes)
		tr.Quantize(x, q)
		b.Run(tr.Name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				tr.Dequantize(q, x)
			}
		})
	}
}

// refMakeQXQuants is the plain port of make_qx_quants (rmse_type 1) that
// the optimized makeQXQuants must match bit for bit.
func refMakeQXQuants(x []float32, nmax int, L []int8, w []float32) float32 {
	n := len(x)
	w = w[:n]
	L = L[:n]
	var max, amax float32
	for _, v := range x {
		if ax := abs32(v); ax > amax {
			amax = ax
			max = v
		}
	}
	if amax < groupMaxEps {
		for i := range L {
			L[i] = 0
		}
		return 0
	}
	fnmax := float32(nmax)
	iscale := float32(-nmax) / max
	var sumlx, suml2 float32
	for i, v := range x {
		l := clampInt(nearestInt(iscale*v), -nmax, nmax-1)
		L[i] = int8(l + nmax)
		fl := float32(l)
		sumlx += float32(w[i] * v * fl)
		suml2 += float32(w[i] * fl * fl)
	}
	var scale float32
	if suml2 != 0 {
		scale = sumlx / suml2
	}
	best := scale * sumlx
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(fnmax + float32(float32(0.1)*float32(is))) / max
		sumlx, suml2 = 0, 0
		for i, v := range x {
			fl := float32(clampInt(nearestInt(iscale*v), -nmax, nmax-1))
			sumlx += float32(w[i] * v * fl)
			suml2 += float32(w[i] * fl * fl)
		}
		if suml2 > 0 && float32(sumlx*sumlx) > float32(best*suml2) {
			for i, v := range x {
				L[i] = int8(nmax + clampInt(nearestInt(iscale*v), -nmax, nmax-1))
			}
			scale = sumlx / suml2
			best = scale * sumlx
		}
	}
	return scale
}

func TestMakeQXQuantsMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, nmax := range []int{32, 4, 16} {
		for it := 0; it < 20000; it++ {
			var x, w [32]float32
			n := []int{16, 32}[it%2]
			qkx2Case(r, it%32, n, x[:], w[:], false)
			if it%3 == 0 { // the weights ggml uses without an importance matrix
				for i := range w[:n] {
					w[i] = x[i] * x[i]
				}
			}
			var want, got [32]int8
			ws := refMakeQXQuants(x[:n], nmax, want[:], w[:])
			gs := makeQXQuants(x[:n], nmax, got[:], w[:])
			if math.Float32bits(ws) != math.Float32bits(gs) || want != got {
				t.Fatalf("nmax %d case %d: scale %v levels %v, want %v %v; x=%v w=%v", nmax, it%32, gs, got[:n], ws, want[:n], x[:n], w[:n])
			}
		}
	}
}

// TestQ6KSearchMatchesReference holds the magnitude-based Q6_K search (in
// pairs, alone, and with fallbacks) to the plain port of make_qx_quants
// with Q6_K's parameters and weights x*x.
func TestQ6KSearchMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	draw := func(kind int, x *[16]float32) {
		var w [32]float32
		var xx [32]float32
		switch kind {
		case 32: // tiny blocks: x*x*x underflows, sums may be zero
			s := math.Pow(10, -15+3*r.Float64())
			for i := range x {
				x[i] = float32(r.NormFloat64() * s)
			}
			return
		case 34: // amax just above groupMaxEps: x*x*x is subnormal or 0
			// for every x (sumlx itself cannot be 0: the largest x keeps
			// level -32 and its term is at least 32 times the smallest
			// subnormal)
			var amax float64
			for i := range x {
				v := r.NormFloat64()
				x[i] = float32(v)
				amax = math.Max(amax, math.Abs(v))
			}
			for i := range x {
				x[i] = float32(float64(x[i]) / amax * 1.0001e-15 * (1 + 0.1*r.Float64()))
			}
			return
		case 33: // magnitudes tied with both signs
			v := float32(r.NormFloat64())
			for i := range x {
				x[i] = v
				if r.IntN(2) == 0 {
					x[i] = -v
				}
			}
			return
		}
		qkx2Case(r, kind, 16, xx[:], w[:], false)
		copy(x[:], xx[:16])
	}
	for it := 0; it < 40000; it++ {
		var xa, xb [16]float32
		draw(it%35, &xa)
		draw((it*7+5)%35, &xb)
		var wantA, wantB, gotA, gotB [16]int8
		wa, wb := squares16(&xa), squares16(&xb)
		sa := refMakeQXQuants(xa[:], 32, wantA[:], wa[:])
		sb := refMakeQXQuants(xb[:], 32, wantB[:], wb[:])
		ga, gb := q6kSearchPair(&xa, &xb, gotA[:], gotB[:])
		if math.Float32bits(sa) != math.Float32bits(ga) || wantA != gotA {
			t.Fatalf("case %d: scale %v levels %v, want %v %v; x=%v", it%35, ga, gotA, sa, wantA, xa)
		}
		if math.Float32bits(sb) != math.Float32bits(gb) || wantB != gotB {
			t.Fatalf("case %d: scale %v levels %v, want %v %v; x=%v", (it*7+5)%35, gb, gotB, sb, wantB, xb)
		}
	}
}
