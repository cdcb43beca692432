package synth

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/internal/tmpfile"
	"github.com/gollm/gollm/quant"
	"github.com/gollm/gollm/quantize"
)

// Options control Write.
type Options struct {
	FileType string // llama-quantize mix name: F32, F16, BF16, Q8_0, Q4_0, Q4_K_M, ...
	Seed     uint64
	Threads  int // 0: all cores
	// Progress, if set, is called from the writing goroutine after each
	// tensor with the tensor bytes written so far and in total.
	Progress func(done, total int64)

	// VocabFrom is a GGUF file (model or vocabulary only) whose tokenizer.*
	// keys replace the made-up vocabulary; the shape takes its size.
	VocabFrom string
	// ChatTemplate, when set, is written as tokenizer.chat_template.
	ChatTemplate string
}

type tensorSpec struct {
	name  string
	dims  []uint64 // ggml order: row length first
	fill  func(row []float32, rng *rng)
	isVec bool
}

// tensors lists the model's tensors in llama.cpp's file order.
func (s Shape) tensors() []tensorSpec {
	hd := s.headDim()
	d, f := uint64(s.Dim), uint64(s.FFN)
	q, kv := uint64(s.Heads*hd), uint64(s.KVHeads*hd)
	// Uniform weights with the standard deviation of a 0.02-normal init keep
	// activations in a realistic range through many random layers.
	weight := func(row []float32, r *rng) { r.uniform(row, 0.02*math.Sqrt(3)) }
	ones := func(row []float32, _ *rng) {
		for i := range row {
			row[i] = 1
		}
	}
	small := func(row []float32, r *rng) { r.uniform(row, 0.01) }
	mat := func(name string, cols, rows uint64) tensorSpec {
		return tensorSpec{name: name, dims: []uint64{cols, rows}, fill: weight}
	}
	vec := func(name string, n uint64, fill func([]float32, *rng)) tensorSpec {
		return tensorSpec{name: name, dims: []uint64{n}, fill: fill, isVec: true}
	}
	out := []tensorSpec{mat("token_embd.weight", d, uint64(s.Vocab))}
	if layer := s.layerFunc(); layer != nil {
		out = append(out, s.globalTensors(vec)...)
		for l := 0; l < s.Layers; l++ {
			out = append(out, layer(s, fmt.Sprintf("blk.%d.", l), mat, vec)...)
		}
		out = append(out, vec("output_norm.weight", d, ones))
		if !s.Tied {
			out = append(out, mat("output.weight", d, uint64(s.Vocab)))
		}
		return out
	}
	for l := 0; l < s.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		out = append(out, vec(p+"attn_norm.weight", d, ones))
		out = append(out, mat(p+"attn_q.weight", d, q), mat(p+"attn_k.weight", d, kv), mat(p+"attn_v.weight", d, kv))
		if s.QKVBias {
			out = append(out, vec(p+"attn_q.bias", q, small), vec(p+"attn_k.bias", kv, small), vec(p+"attn_v.bias", kv, small))
		}
		if s.QKNorm {
			out = append(out, vec(p+"attn_q_norm.weight", uint64(hd), ones), vec(p+"attn_k_norm.weight", uint64(hd), ones))
		}
		out = append(out, mat(p+"attn_output.weight", q, d), vec(p+"ffn_norm.weight", d, ones),
			mat(p+"ffn_gate.weight", d, f), mat(p+"ffn_up.weight", d, f), mat(p+"ffn_down.weight", f, d))
	}
	out = append(out, vec("output_norm.weight", d, ones))
	if !s.Tied {
		out = append(out, mat("output.weight", d, uint64(s.Vocab)))
	}
	return out
}

// Write is WriteContext without cancellation.
func Write(path string, s Shape, opt Options) error {
	return WriteContext(context.Background(), path, s, opt)
}

// WriteContext writes a random-weight model of shape s to path atomically:
// through a temporary file that is renamed into place, removed on any error
// and on cancellation (noticed within 64 rows of a tensor); leftovers of
// killed writers are removed first (see gguf.Writer.WriteFileContext).
func WriteContext(ctx context.Context, path string, s Shape, opt Options) error {
	if opt.FileType == "" {
		opt.FileType = "F16"
	}
	ft, err := quantize.ParseFileType(opt.FileType)
	if err != nil {
		return err
	}
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	custom, err := opt.customize(&s)
	if err != nil {
		return err
	}
	w := gguf.NewWriter()
	if err := s.setMetadata(w, int(ft)); err != nil {
		return err
	}
	if err := custom(w); err != nil {
		return err
	}
	mi := quantize.ModelInfo{Arch: s.Arch, Layers: s.Layers, HeadCount: s.Heads, HeadCountKV: s.KVHeads, Experts: s.Experts}
	specs := s.tensors()
	qspecs := make([]quantize.TensorSpec, len(specs))
	for i, spec := range specs {
		qspecs[i] = quantize.TensorSpec{Name: spec.name, Dims: spec.dims, Type: ggml.F32}
	}
	// The types llama-quantize would give a float model of this shape, with
	// its counters run in its tensor order.
	types, err := quantize.ChooseTypes(ft, mi, qspecs)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	var done, total int64
	for i, spec := range specs {
		if spec.isVec {
			types[i] = ggml.F32
		}
		n, err := ggml.TensorBytes(types[i], spec.dims)
		if err != nil {
			return fmt.Errorf("synth: tensor %q: %w", spec.name, err)
		}
		total += int64(n)
	}
	for i, spec := range specs {
		typ := types[i]
		spec, seed := spec, opt.Seed*1000003+uint64(i)
		err := w.AddTensorFunc(spec.name, typ, spec.dims, func(out io.Writer) error {
			n, err := writeTensor(ctx, out, spec, typ, seed, threads)
			done += n
			if err == nil && opt.Progress != nil {
				opt.Progress(done, total)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("synth: tensor %q: %w", spec.name, err)
		}
	}
	return w.WriteFileContext(ctx, path)
}

func (s Shape) setMetadata(w *gguf.Writer, fileType int) error {
	a := s.Arch
	tokens, scores, types := spmVocab(s.Vocab)
	s.specialTokens(tokens, scores, types)
	kvs := []struct {
		k string
		v any
	}{
		{"general.architecture", a},
		{"general.name", "gollm synthetic " + s.Name},
		{"general.file_type", uint32(fileType)},
		{"general.quantization_version", uint32(2)},
		{a + ".context_length", uint32(s.Context)},
		{a + ".embedding_length", uint32(s.Dim)},
		{a + ".block_count", uint32(s.Layers)},
		{a + ".feed_forward_length", uint32(s.FFN)},
		{a + ".attention.head_count", uint32(s.Heads)},
		{a + ".attention.head_count_kv", uint32(s.KVHeads)},
		{a + ".attention.key_length", uint32(s.headDim())},
		{a + ".attention.value_length", uint32(s.headDim())},
		{a + ".attention.layer_norm_rms_epsilon", s.NormEps},
		{a + ".rope.freq_base", s.RopeBase},
		{a + ".rope.dimension_count", uint32(s.headDim())},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.unknown_token_id", uint32(0)},
		{"tokenizer.ggml.bos_token_id", uint32(1)},
		{"tokenizer.ggml.eos_token_id", uint32(2)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
	for _, kv := range append(kvs, s.archMetadata()...) {
		if err := w.Set(kv.k, kv.v); err != nil {
			return fmt.Errorf("synth: %s: %w", kv.k, err)
		}
	}
	return nil
}

// writeTensor generates and encodes the tensor in parallel over row chunks
// and returns the bytes written. Each chunk has its own generator seeded
// from (seed, chunk), so the bytes do not depend on the number of threads.
// Workers stop at the next chunk once ctx is done.
func writeTensor(ctx context.Context, out io.Writer, spec tensorSpec, typ ggml.Type, seed uint64, threads int) (int64, error) {
	cols := int(spec.dims[0])
	rows := 1
	for _, d := range spec.dims[1:] {
		rows *= int(d)
	}
	rowBytes, err := ggml.RowBytes(typ, int64(cols))
	if err != nil {
		return 0, err
	}
	encode, err := encoder(typ)
	if err != nil {
		return 0, err
	}
	const chunkRows = 64
	buf := make([]byte, int(rowBytes)*rows)
	chunks := (rows + chunkRows - 1) / chunkRows
	var wg sync.WaitGroup
	next := make(chan int, chunks)
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	for t := 0; t < min(threads, chunks); t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row := make([]float32, cols)
			for c := range next {
				if ctx.Err() != nil {
					return
				}
				r := newRNG(seed, uint64(c))
				for i := c * chunkRows; i < min((c+1)*chunkRows, rows); i++ {
					spec.fill(row, r)
					encode(row, buf[i*int(rowBytes):(i+1)*int(rowBytes)])
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n, err := out.Write(buf)
	return int64(n), err
}

func encoder(typ ggml.Type) (func([]float32, []byte), error) {
	if typ == ggml.F32 {
		return func(src []float32, dst []byte) {
			for i, v := range src {
				binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
			}
		}, nil
	}
	tr, err := quant.Lookup(typ)
	if err != nil {
		return nil, err
	}
	if tr.Quantize == nil {
		return nil, fmt.Errorf("%w: no quantizer for %v", quant.ErrUnsupportedType, typ)
	}
	return tr.Quantize, nil
}

// CacheDir is the folder where Ensure keeps synthetic models: gollm/synth
// in the user's cache directory (~/.cache on Linux, $XDG_CACHE_HOME if set),
// or in the temporary directory when there is none.
func CacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "gollm", "synth")
}

// CachePath is where Ensure keeps the model of shape s in file type ft.
func CachePath(s Shape, ft string, seed uint64) (string, error) {
	return filepath.Join(CacheDir(), fmt.Sprintf("%s-%s-seed%d-v2.gguf", s.Name, ft, seed)), nil
}

// CachePathFor is where Ensure keeps the model of shape s written with opt
// (opt.FileType and opt.Seed; an empty FileType means F16).
func CachePathFor(s Shape, opt Options) (string, error) {
	if opt.FileType == "" {
		opt.FileType = "F16"
	}
	ft, err := quantize.ParseFileType(opt.FileType)
	if err != nil {
		return "", err
	}
	return CachePath(s, ft.String(), opt.Seed)
}

// Ensure is EnsureContext without cancellation.
func Ensure(s Shape, opt Options) (path string, created bool, err error) {
	return EnsureContext(context.Background(), s, opt)
}

// EnsureContext returns the path of the synthetic model in CacheDir,
// writing it on first use with WriteContext (after removing the temporary
// files killed writers left in CacheDir).
func EnsureContext(ctx context.Context, s Shape, opt Options) (path string, created bool, err error) {
	path, err = CachePathFor(s, opt)
	if err != nil {
		return "", false, err
	}
	if _, err := os.Stat(path); err == nil {
		return path, false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", false, fmt.Errorf("synth: %w", err)
	}
	tmpfile.CleanDir(filepath.Dir(path)) // best effort: a failure only leaves old leftovers
	if err := WriteContext(ctx, path, s, opt); err != nil {
		return "", false, err
	}
	return path, true, nil
}
