package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/quant"
	"github.com/spf13/cobra"
)

func inspectCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "inspect -m FILE",
		Short: "Show a GGUF file's metadata and tensors, and whether gollm supports them",
		Args:  pathArgs(&path),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if path == "" {
				return usageErr("-m/--model is required")
			}
			f, err := gguf.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			w := tabwriter.NewWriter(os.Stdout, 0, 2, 2, ' ', 0)
			arch := f.Architecture()
			archNote := "supported"
			if _, err := engine.LookupArch(arch); err != nil {
				archNote = "NOT supported: " + err.Error()
			}
			fmt.Fprintf(w, "file:\t%s\nversion:\t%d\nalignment:\t%d\ndata offset:\t%d\nsize:\t%d bytes\narchitecture:\t%s (%s)\n\n",
				path, f.Version, f.Alignment, f.DataOffset, f.Size, arch, archNote)
			fmt.Fprintf(w, "metadata (%d keys):\n", len(f.KV))
			for _, kv := range f.KV {
				fmt.Fprintf(w, "  %s\t%s\t%s\n", kv.Key, kv.Value.Type, kv.Value.String())
			}
			fmt.Fprintf(w, "\ntensors (%d):\n  name\ttype\tshape\tbytes\tsupported\n", len(f.Tensors))
			var total uint64
			unsupported := 0
			for i := range f.Tensors {
				t := &f.Tensors[i]
				ok := "yes"
				if !quant.Supported(t.Type) {
					ok = "NO"
					unsupported++
				}
				dims := make([]string, len(t.Dims))
				for j, d := range t.Dims {
					dims[j] = fmt.Sprint(d)
				}
				fmt.Fprintf(w, "  %s\t%s\t[%s]\t%d\t%s\n", t.Name, t.Type, strings.Join(dims, " "), t.Size, ok)
				total += t.Size
			}
			fmt.Fprintf(w, "\ntotal tensor bytes:\t%d (%.2f MiB)\nunsupported tensors:\t%d\n", total, float64(total)/(1<<20), unsupported)
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&path, "model", "m", "", "GGUF file (required)")
	return cmd
}
