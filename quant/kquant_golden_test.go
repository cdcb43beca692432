package quant_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"github.com/gollm/gollm/internal/shared"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/quant"
)

// The K-quant golden test: llama-quantize without an importance matrix calls
// exactly the quantize_row_qX_K_ref functions ported here, so every K-quant
// tensor of a quantized file must be byte-identical to quantizing the
// same-named F32 tensor of its source, row by row. The mixes (Q3_K_M,
// Q4_K_M, ...) give different tensors different types; each tensor is
// checked against the type it has in the quantized file.

var kGoldenPairs = []struct {
	src, dst string
	must     []ggml.Type // types that must have been covered
}{
	{"tiny-F32", "tiny-Q2_K", []ggml.Type{ggml.Q2_K, ggml.Q3_K, ggml.Q6_K}},
	{"tiny-F32", "tiny-Q3_K_M", []ggml.Type{ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K}},
	{"tiny-F32", "tiny-Q4_K_M", []ggml.Type{ggml.Q4_K, ggml.Q6_K}},
	{"tiny-F32", "tiny-Q5_K_M", []ggml.Type{ggml.Q5_K, ggml.Q6_K}},
	{"tiny-F32", "tiny-Q6_K", []ggml.Type{ggml.Q6_K}},
	// Its rows of 64 and 172 values are not multiples of 256, so
	// llama-quantize falls back to legacy types for every tensor: kept to
	// prove that, and in case the file is ever regenerated differently.
	{"stories260K", "stories260K-Q4_K_M", nil},
}

func isKQuant(t ggml.Type) bool {
	switch t {
	case ggml.Q2_K, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.Q8_K:
		return true
	}
	return false
}

func kOpen(t *testing.T, dir, name string) *gguf.File {
	t.Helper()
	path := filepath.Join(dir, name+".gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not available: %v", path, err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestKQuantGoldenBytes(t *testing.T) {
	dir := shared.Dir(t, "models")
	total := map[ggml.Type]int{}
	for _, p := range kGoldenPairs {
		t.Run(p.dst, func(t *testing.T) {
			src, dst := kOpen(t, dir, p.src), kOpen(t, dir, p.dst)
			matched := map[ggml.Type]int{}
			for i := range dst.Tensors {
				ti := &dst.Tensors[i]
				if !isKQuant(ti.Type) {
					continue
				}
				if n, ok := kCompareTensor(t, src, dst, ti); ok {
					matched[ti.Type]++
					total[ti.Type]++
				} else if n >= 0 {
					t.Errorf("%s (%v): %d blocks differ", ti.Name, ti.Type, n)
				}
			}
			for _, typ := range p.must {
				if matched[typ] == 0 {
					t.Errorf("no %v tensor matched", typ)
				}
			}
			t.Logf("byte-identical K-quant tensors by type: %v", matched)
		})
	}
	t.Logf("total byte-identical K-quant tensors by type: %v", total)
}

// kCompareTensor quantizes the F32 source of ti row by row and compares the
// bytes. It returns the number of differing blocks, or -1 when the tensor
// could not be compared at all (already reported).
func kCompareTensor(t *testing.T, src, dst *gguf.File, ti *gguf.TensorInfo) (int, bool) {
	t.Helper()
	tr, err := quant.Lookup(ti.Type)
	if err != nil || tr.Quantize == nil {
		t.Errorf("%s: no quantizer for %v (%v)", ti.Name, ti.Type, err)
		return -1, false
	}
	si, ok := src.Tensor(ti.Name)
	if !ok || si.Type != ggml.F32 || len(si.Dims) != len(ti.Dims) || si.Elements() != ti.Elements() || si.Dims[0] != ti.Dims[0] {
		t.Errorf("%s: no F32 tensor of the same shape in the source", ti.Name)
		return -1, false
	}
	raw, want := src.TensorData(si), dst.TensorData(ti)
	rowLen := int(ti.Dims[0])
	rowBytes := rowLen / tr.BlockSize * tr.BlockBytes
	nrows := int(ti.Elements()) / rowLen
	if len(raw) != 4*nrows*rowLen || len(want) != nrows*rowBytes {
		t.Errorf("%s: tensor sizes disagree with the shape", ti.Name)
		return -1, false
	}
	x := make([]float32, rowLen)
	got := make([]byte, rowBytes)
	bad := 0
	for r := 0; r < nrows; r++ {
		for k := range x {
			x[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*(r*rowLen+k):]))
		}
		tr.Quantize(x, got)
		w := want[r*rowBytes : (r+1)*rowBytes]
		for b := 0; b < rowBytes; b += tr.BlockBytes {
			if !bytes.Equal(got[b:b+tr.BlockBytes], w[b:b+tr.BlockBytes]) {
				if bad == 0 {
					t.Logf("%s row %d block %d:\n got % x\nwant % x", ti.Name, r, b/tr.BlockBytes,
						got[b:b+tr.BlockBytes], w[b:b+tr.BlockBytes])
				}
				bad++
			}
		}
	}
	return bad, bad == 0
}

// kPinnedDigests are SHA-256 digests of the encodings of kPinnedInput made
// by ggml's quantize_row_qX_K_ref functions themselves (compiled with gcc 12
// -O2 for x86-64, i.e. without FMA contraction, in a scratch harness outside
// this repository). The input reaches paths the random-weight golden files
// do not (zero and near-zero sub-blocks, lone outliers, constant and
// one-signed blocks, huge and tiny magnitudes), and the test runs without
// ../shared.
var kPinnedDigests = map[ggml.Type]string{
	ggml.Q2_K: "a218e2a1595723c52a9ca60ee75dc01dd918e0a6f0f96e67aa37a1bcca0345bf",
	ggml.Q3_K: "3ed17acc28a881c5ce0b1d17feb160eb16bc14f77e3383a5080579a4057fa6e4",
	ggml.Q4_K: "356a365548347bba1211eea43e53046e5743f2cfa45c0b17b7ed320f0f040df8",
	ggml.Q5_K: "c66970d9e06b6b73e3faf9cbafc953bccc2245477b40c83b44342282b64f04fe",
	ggml.Q6_K: "6f2aa04cf84b68e04f4174ece2a399b0c18e07570f5dfcd6c4ae303e04c244b3",
	ggml.Q8_K: "46b917fabe5249bb022503284e84919f646113e5384fa22725548a9e5afce06b",
}

// kPinnedInput builds 24 blocks from a fixed splitmix64 stream (not
// math/rand, whose sequences are not promised to stay the same).
func kPinnedInput() []float32 {
	state := uint64(0x9E3779B97F4A7C15)
	next := func() float64 { // uniform in [0, 1)
		state += 0x9E3779B97F4A7C15
		z := state
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		z ^= z >> 31
		return float64(z>>11) / (1 << 53)
	}
	normal := func() float64 { // Irwin-Hall: close enough to Gaussian
		s := 0.0
		for i := 0; i < 12; i++ {
			s += next()
		}
		return s - 6
	}
	const nb = 24
	x := make([]float32, 256*nb)
	for b := 0; b < nb; b++ {
		xb := x[256*b : 256*b+256]
		scale := []float64{1, 0.02, 1e-5, 300, 1e-9, 7}[b%6]
		for i := range xb {
			xb[i] = float32(normal() * scale)
		}
		switch b % 8 {
		case 1: // zero sub-blocks of 16 and 32 inside a live block
			clear(xb[16:32])
			clear(xb[64:128])
		case 2: // a lone outlier
			xb[77] = float32(40 * scale)
		case 3: // all positive
			for i := range xb {
				xb[i] = float32(math.Abs(float64(xb[i]))) + float32(scale)
			}
		case 4: // all negative
			for i := range xb {
				xb[i] = -float32(math.Abs(float64(xb[i])))
			}
		case 5: // constant sub-blocks
			for i := range xb {
				xb[i] = float32(float64(i/16-8) * scale)
			}
		case 6: // tiny values next to normal ones
			for i := 0; i < 256; i += 2 {
				xb[i] *= 1e-7
			}
		case 7: // all zero but one element
			clear(xb)
			xb[200] = float32(-scale)
		}
	}
	return x
}

func TestKQuantPinnedDigests(t *testing.T) {
	x := kPinnedInput()
	for typ, want := range kPinnedDigests {
		tr, err := quant.Lookup(typ)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, len(x)/tr.BlockSize*tr.BlockBytes)
		tr.Quantize(x, b)
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%v: digest %s, want %s", typ, got, want)
		}
	}
}
