package quantize

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gollm/gollm/ggml"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/kernels"
	"github.com/gollm/gollm/quant"
)

// chunkBytes bounds the memory a conversion holds: rows are converted and
// written in pieces of about this many output (or input) bytes, so even a
// multi-gigabyte embedding matrix needs only two such buffers (one being
// written while the next is computed). Small enough that the write of one
// piece overlaps the work on the next within a tensor.
const chunkBytes = 8 << 20

// converter streams the tensors of a plan to the writer, re-encoding the
// ones whose type changes with several goroutines, each on a contiguous
// range of rows. Buffers are allocated once per run and reused; nothing is
// allocated per row.
type converter struct {
	ctx      context.Context
	f        *gguf.File
	threads  int
	scratch  [][]float32 // per worker: one decoded row
	bufs     [2][]byte   // chunk outputs: one computed while the other is written
	progress func(done, total int64)
	done     int64
	total    int64
}

func newConverter(ctx context.Context, f *gguf.File, p *Plan, opt Options) *converter {
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	cv := &converter{ctx: ctx, f: f, threads: threads, progress: opt.Progress, total: int64(p.BytesBefore)}
	maxRow := 0
	for i := range p.Tensors {
		if tp := &p.Tensors[i]; tp.Converted() && len(tp.Dims) > 0 {
			maxRow = max(maxRow, int(tp.Dims[0]))
		}
	}
	cv.scratch = make([][]float32, threads)
	for i := range cv.scratch {
		cv.scratch[i] = make([]float32, maxRow)
	}
	return cv
}

func (cv *converter) report(n int64) {
	cv.done += n
	if cv.progress != nil {
		cv.progress(cv.done, cv.total)
	}
}

// write produces the output bytes of one tensor.
func (cv *converter) write(w io.Writer, tp *TensorPlan) error {
	ti := &cv.f.Tensors[tp.src]
	src := cv.f.TensorData(ti)
	if src == nil || uint64(len(src)) != tp.BytesBefore {
		return fmt.Errorf("quantize: tensor %s: data not available", tp.Name)
	}
	var rows, n int64 = 0, 0
	if len(tp.Dims) > 0 && tp.Dims[0] > 0 {
		n = int64(tp.Dims[0])
		rows = int64(ti.Elements()) / n
	}
	if rows == 0 {
		return nil
	}
	rowIn := int64(tp.BytesBefore) / rows
	rowOut := int64(tp.BytesAfter) / rows
	chunkRows := max(1, chunkBytes/max(rowIn, rowOut))
	if !tp.Converted() {
		return cv.copyRows(w, tp, src, rows, rowIn, chunkRows)
	}
	need := min(rows, chunkRows) * rowOut
	for i := range cv.bufs {
		if int64(cap(cv.bufs[i])) < need {
			cv.bufs[i] = make([]byte, need)
		}
	}
	from, _ := quant.Lookup(tp.From) // checked by MakePlan
	to, _ := quant.Lookup(tp.To)
	decode := from.Dequantize
	if tp.From == ggml.F16 {
		decode = decodeF16
	}
	var inFlight chan error // the write of the previous chunk
	wait := func() error {
		if inFlight == nil {
			return nil
		}
		err := <-inFlight
		inFlight = nil
		return err
	}
	for k, r0 := 0, int64(0); r0 < rows; k, r0 = k+1, r0+chunkRows {
		nr := min(chunkRows, rows-r0)
		in := src[r0*rowIn : (r0+nr)*rowIn]
		out := cv.bufs[k%2][:nr*rowOut]
		err := cv.parallel(nr, rowIn, func(worker int, a, b int64) error {
			row := cv.scratch[worker][:n]
			for r := a; r < b; r++ {
				ri := in[r*rowIn : (r+1)*rowIn]
				ro := out[r*rowOut : (r+1)*rowOut]
				if validate(tp.From, ri) >= 0 {
					return validateErr(tp.Name, tp.From, r0+r, "input has NaN/Inf")
				}
				decode(ri, row)
				to.Quantize(row, ro)
				if validate(tp.To, ro) >= 0 {
					return validateErr(tp.Name, tp.To, r0+r, "result overflows")
				}
			}
			return nil
		})
		if werr := wait(); werr != nil {
			return werr
		}
		if err != nil {
			return fmt.Errorf("quantize: %w", err)
		}
		inFlight = make(chan error, 1)
		go func() {
			_, err := w.Write(out)
			inFlight <- err
		}()
		cv.report(nr * rowIn)
	}
	return wait()
}

// copyRows writes a tensor that keeps its type, checking it on the way as
// llama-quantize's loader does.
func (cv *converter) copyRows(w io.Writer, tp *TensorPlan, src []byte, rows, rowIn, chunkRows int64) error {
	for r0 := int64(0); r0 < rows; r0 += chunkRows {
		nr := min(chunkRows, rows-r0)
		piece := src[r0*rowIn : (r0+nr)*rowIn]
		if validate(tp.From, piece) >= 0 {
			return fmt.Errorf("quantize: %w", validateErr(tp.Name, tp.From, r0, "input has NaN/Inf in this chunk"))
		}
		if _, err := w.Write(piece); err != nil {
			return err
		}
		cv.report(nr * rowIn)
	}
	return nil
}

// batchBytes is the input size of the row batches workers take from a
// chunk: small enough that a worker descheduled on a busy machine leaves
// little behind for the others to wait for at the end of the chunk, large
// enough that taking one costs nothing next to converting it.
const batchBytes = 32 << 10

// parallel runs fn over rows [0, n): workers (the caller is worker 0) take
// batches of rows from a shared counter until none are left, so a worker
// that falls behind does not hold up the chunk. On failure it returns the
// error of the lowest failing batch, so that the row reported does not
// depend on timing (as long as rows fail independently).
func (cv *converter) parallel(n, rowBytes int64, fn func(worker int, a, b int64) error) error {
	batch := max(1, batchBytes/max(1, rowBytes))
	t := int64(min(cv.threads, len(cv.scratch)))
	t = max(1, min(t, (n+batch-1)/batch))
	var (
		next    atomic.Int64
		failed  atomic.Bool
		mu      sync.Mutex
		errRow  int64 = -1
		firstEr error
	)
	work := func(worker int) {
		for !failed.Load() {
			if err := cv.ctx.Err(); err != nil {
				mu.Lock()
				if firstEr == nil {
					errRow, firstEr = n, err
				}
				mu.Unlock()
				failed.Store(true)
				return
			}
			a := next.Add(batch) - batch
			if a >= n {
				return
			}
			if err := fn(worker, a, min(a+batch, n)); err != nil {
				mu.Lock()
				if errRow < 0 || a < errRow {
					errRow, firstEr = a, err
				}
				mu.Unlock()
				failed.Store(true)
				return
			}
		}
	}
	var wg sync.WaitGroup
	for k := 1; k < int(t); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(k)
		}()
	}
	work(0)
	wg.Wait()
	return firstEr
}

// decodeF16 is quant.DequantizeRowF16 through the SIMD converter of package
// kernels (F16C on amd64), which widens halves exactly as the table does:
// the same floats, for every input the NaN/Inf check lets through.
func decodeF16(src []byte, dst []float32) {
	if len(dst) == 0 || uintptr(unsafe.Pointer(&src[0]))%2 != 0 {
		quant.DequantizeRowF16(src, dst)
		return
	}
	kernels.F16ToF32(dst, unsafe.Slice((*uint16)(unsafe.Pointer(&src[0])), len(dst)))
}
