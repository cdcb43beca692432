package quantize

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/quant"

	"github.com/gollm/gollm/internal/shared"
)

type testTensor struct {
	name string
	dims []uint64
	typ  ggml.Type
	data []float32 // encoded as typ
}

// writeModel writes a small llama-like GGUF file.
func writeModel(t *testing.T, path string, tensors []testTensor) {
	t.Helper()
	w := gguf.NewWriter()
	for _, kv := range []struct {
		k string
		v any
	}{{"general.architecture", "llama"}, {"llama.block_count", uint32(1)},
		{"llama.attention.head_count", uint32(2)}, {"general.file_type", uint32(0)}} {
		if err := w.Set(kv.k, kv.v); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tensors {
		size, err := ggml.TensorBytes(tt.typ, tt.dims)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, size)
		if err := quant.QuantizeRow(tt.typ, tt.data, buf); err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(tt.name, tt.typ, tt.dims, buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}

func ramp(n int, scale float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = scale * float32(i%97-48) / 48
	}
	return x
}

// noFiles checks that a failed run left neither the output nor a
// temporary file (whatever the pid in its name) behind.
func noFiles(t *testing.T, out string) {
	t.Helper()
	tmps, _ := filepath.Glob(out + "*.tmp")
	for _, p := range append(tmps, out) {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left behind after a failed run", p)
		}
	}
}

func TestRequantize(t *testing.T) {
	models := shared.Dir(t, "models")
	dir := t.TempDir()
	// Same mix as the input: every tensor keeps its type, so it is a plain
	// copy (llama-quantize allows that without --allow-requantize) and the
	// output is the input file byte for byte.
	out := filepath.Join(dir, "same.gguf")
	if _, err := QuantizeFile(context.Background(), filepath.Join(models, "tiny-Q4_K_M.gguf"), out, MostlyQ4_K_M, Options{}); err != nil {
		t.Fatal(err)
	}
	compareFiles(t, out, filepath.Join(models, "tiny-Q4_K_M.gguf"), true)

	out = filepath.Join(dir, "q4.gguf")
	_, err := QuantizeFile(context.Background(), filepath.Join(models, "tiny-Q8_0.gguf"), out, MostlyQ4_0, Options{})
	if !errors.Is(err, ErrRequantize) || !strings.Contains(err.Error(), "Q8_0") {
		t.Fatalf("Q8_0 -> Q4_0 without AllowRequantize: %v, want ErrRequantize", err)
	}
	noFiles(t, out)

	// With AllowRequantize: dequantized first, then the usual Q4_0 mix.
	p, err := QuantizeFile(context.Background(), filepath.Join(models, "tiny-Q8_0.gguf"), out, MostlyQ4_0, Options{AllowRequantize: true, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := gguf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	ref, err := gguf.Open(filepath.Join(models, "tiny-F32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	want, err := gguf.Open(filepath.Join(models, "tiny-Q4_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	if len(p.Tensors) != len(want.Tensors) {
		t.Fatalf("%d tensors, want %d", len(p.Tensors), len(want.Tensors))
	}
	for i := range got.Tensors {
		g := &got.Tensors[i]
		if w := &want.Tensors[i]; g.Name != w.Name || g.Type != w.Type {
			t.Errorf("tensor %d: %s %v, want %s %v", i, g.Name, g.Type, w.Name, w.Type)
		}
		r, _ := ref.Tensor(g.Name)
		gv := make([]float32, g.Elements())
		rv := make([]float32, r.Elements())
		if err := quant.DequantizeRow(g.Type, got.TensorData(g), gv); err != nil {
			t.Fatal(err)
		}
		quant.DequantizeRow(r.Type, ref.TensorData(r), rv)
		var errSum, sum float64
		for k := range gv {
			d := float64(gv[k] - rv[k])
			errSum += d * d
			sum += float64(rv[k]) * float64(rv[k])
		}
		if rel := math.Sqrt(errSum / sum); rel > 0.12 {
			t.Errorf("%s: relative RMS error %.3f after Q8_0 -> %v", g.Name, rel, g.Type)
		}
	}
}

func TestBadType(t *testing.T) {
	models := shared.Dir(t, "models")
	f, err := gguf.Open(filepath.Join(models, "stories260K.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, ft := range []FileType{FileType(99), FileType(19) /* IQ2_XXS: not supported */} {
		if _, err := MakePlan(f, ft, Options{}); !errors.Is(err, ErrUnknownFileType) {
			t.Errorf("MakePlan(%v): %v, want ErrUnknownFileType", ft, err)
		}
		out := filepath.Join(t.TempDir(), "x.gguf")
		if _, err := Run(context.Background(), f, out, ft, Options{}); !errors.Is(err, ErrUnknownFileType) {
			t.Errorf("Run(%v): %v, want ErrUnknownFileType", ft, err)
		}
		noFiles(t, out)
	}
	// stories260K's ffn_down has rows of 172, which Q8_0 blocks of 32 do not
	// divide, and llama.cpp defines no fallback for Q8_0: it fails.
	if _, err := MakePlan(f, MostlyQ8_0, Options{}); !errors.Is(err, ErrNoFallback) || !strings.Contains(err.Error(), "ffn_down") {
		t.Errorf("stories260K -> Q8_0: %v, want ErrNoFallback naming ffn_down", err)
	}
}

func TestSamePath(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.gguf")
	writeModel(t, in, []testTensor{{"blk.0.attn_q.weight", []uint64{32, 2}, ggml.F32, ramp(64, 1)}})
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.gguf")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.gguf")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, filepath.Join(sub, "..", "in.gguf"), link, hard} {
		if _, err := QuantizeFile(context.Background(), in, out, MostlyQ8_0, Options{}); !errors.Is(err, ErrSamePath) {
			t.Errorf("QuantizeFile(%s, %s): %v, want ErrSamePath", in, out, err)
		}
	}
	if err := CheckPaths(in, filepath.Join(dir, "out.gguf")); err != nil {
		t.Errorf("distinct output refused: %v", err)
	}
}

func TestInvalidData(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []float32
		ft   FileType
	}{
		{"nan", append(ramp(63, 1), float32(math.NaN())), MostlyQ8_0},
		{"inf-copied", append(ramp(63, 1), float32(math.Inf(1))), MostlyQ8_0}, // 1-D norm: copied, still checked
		{"f16-overflow", append(ramp(63, 1), 1e6), MostlyF16},                 // finite input, inf result
	} {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, c.name+".gguf")
			tt := testTensor{"blk.0.attn_q.weight", []uint64{32, 2}, ggml.F32, c.data}
			if c.name == "inf-copied" {
				tt = testTensor{"blk.0.attn_norm.weight", []uint64{64}, ggml.F32, c.data}
			}
			writeModel(t, in, []testTensor{tt})
			out := filepath.Join(dir, c.name+"-out.gguf")
			_, err := QuantizeFile(context.Background(), in, out, c.ft, Options{Threads: 2})
			if !errors.Is(err, ErrInvalidData) || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("%v, want ErrInvalidData naming %s", err, tt.name)
			}
			noFiles(t, out)
		})
	}
}

// TestWriteFailure runs a quantization in a child process whose file size
// limit (RLIMIT_FSIZE) is below the output size, so the write fails the way
// it does on a full disk; the partial output must be removed.
func TestWriteFailure(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses RLIMIT_FSIZE")
	}
	if os.Getenv("GOLLM_QUANTIZE_CHILD") != "" {
		return // the child's work is done by TestMain
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.gguf")
	writeModel(t, in, []testTensor{
		{"token_embd.weight", []uint64{256, 512}, ggml.F32, ramp(256*512, 0.1)},
		{"blk.0.attn_q.weight", []uint64{256, 256}, ggml.F32, ramp(256*256, 0.1)},
	})
	out := filepath.Join(dir, "out.gguf")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GOLLM_QUANTIZE_CHILD="+in+"|"+out)
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "file too large") {
		t.Fatalf("child: %v, output %q: want a failed write", err, msg)
	}
	noFiles(t, out)
}
