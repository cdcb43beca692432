package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/quantize"
	"github.com/spf13/cobra"
)

func quantizeCmd() *cobra.Command {
	var (
		threads         int
		dryRun          bool
		allowRequantize bool
		ovf             overrideFlags
	)
	cmd := &cobra.Command{
		Use:   "quantize IN.gguf OUT.gguf TYPE",
		Short: "Convert an F32/F16/BF16 GGUF model to a quantized type, as llama-quantize does",
		Long: "Convert a GGUF model to TYPE with llama-quantize's per-tensor choices (without an importance\n" +
			"matrix); the output is byte-identical to llama-quantize's. TYPE is one of:\n  " +
			strings.Join(quantize.FileTypeNames(), " ") + "\n" +
			"--dry-run prints what each tensor would become, and the sizes, without writing anything.\n" +
			"Per-tensor overrides as llama-quantize's: --tensor-type PATTERN=TYPE (repeatable; PATTERN is a\n" +
			"regular expression searched in tensor names, e.g. ffn_down=f16 or 'blk\\.[0-3]\\.attn_v=q8_0'; the first\n" +
			"match wins), --tensor-type-file, --output-tensor-type, --token-embedding-type, --pure,\n" +
			"--leave-output-tensor.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 3 {
				return usageErr("quantize needs IN.gguf OUT.gguf TYPE, got %d arguments", len(args))
			}
			in, out := args[0], args[1]
			ft, err := quantize.ParseFileType(args[2])
			if err != nil {
				return usageErr("%v", err)
			}
			if threads < 0 {
				return usageErr("--threads must be >= 0 (0 = one per CPU), got %d", threads)
			}
			ov, err := ovf.overrides()
			if err != nil {
				return usageErr("%v", err)
			}
			opt := quantize.Options{Threads: threads, AllowRequantize: allowRequantize, Overrides: ov}
			if dryRun {
				return quantizeDryRun(in, ft, opt)
			}
			progress, finish := progressBar("quantizing to " + ft.String())
			defer finish()
			opt.Progress = progress
			start := time.Now()
			guardTemp(out)
			p, err := quantize.QuantizeFile(cmd.Context(), in, out, ft, opt)
			if err != nil {
				return writeErr(requantizeHint(err), out)
			}
			_, bpw := p.BitsPerWeight()
			fmt.Printf("wrote %s: %s, %.2f MiB -> %.2f MiB (%.2f bits per weight), %d tensors, %.1f s\n",
				out, ft, mib(p.BytesBefore), mib(p.BytesAfter), bpw, len(p.Tensors), time.Since(start).Seconds())
			if p.Fallbacks > 0 {
				fmt.Printf("%d tensor(s) needed a fallback type: their rows do not fit the chosen type's blocks\n", p.Fallbacks)
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&threads, "threads", "t", 0, "quantization threads (0 = one per CPU)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the per-tensor plan and sizes; write nothing")
	cmd.Flags().BoolVar(&allowRequantize, "allow-requantize", false, "dequantize already-quantized tensors and quantize them again")
	ovf.register(cmd)
	return cmd
}

// requantizeHint names the flag that allows what the library refused.
func requantizeHint(err error) error {
	if errors.Is(err, quantize.ErrRequantize) {
		return fmt.Errorf("%w; pass --allow-requantize to dequantize and requantize it", err)
	}
	return err
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// quantizeDryRun prints the plan: one row per tensor in output order, then
// the totals.
func quantizeDryRun(in string, ft quantize.FileType, opt quantize.Options) error {
	f, err := gguf.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := quantize.MakePlan(f, ft, opt)
	if err != nil {
		return requantizeHint(err)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 2, 2, ' ', 0)
	fmt.Fprintln(w, "tensor\tshape\ttype\t\t\tbytes\t\t")
	for i := range p.Tensors {
		tp := &p.Tensors[i]
		dims := make([]string, len(tp.Dims))
		for j, d := range tp.Dims {
			dims[j] = fmt.Sprint(d)
		}
		fmt.Fprintf(w, "%s\t[%s]\t%v\t->\t%v\t%d\t->\t%d\n", tp.Name, strings.Join(dims, " "), tp.From, tp.To, tp.BytesBefore, tp.BytesAfter)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	before, after := p.BitsPerWeight()
	fmt.Printf("\ntotal: %d tensors, %d weights\nsize:  %.2f MiB (%.2f bits per weight) -> %.2f MiB (%.2f bits per weight) as %s\n",
		len(p.Tensors), p.Elements, mib(p.BytesBefore), before, mib(p.BytesAfter), after, ft)
	if p.Fallbacks > 0 {
		fmt.Printf("%d tensor(s) need a fallback type: their rows do not fit the chosen type's blocks\n", p.Fallbacks)
	}
	return nil
}
