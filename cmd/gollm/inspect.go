package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/quant"
	"github.com/spf13/cobra"
)

func inspectCmd() *cobra.Command {
	var path string
	var full bool
	cmd := &cobra.Command{
		Use:   "inspect -m FILE",
		Short: "Show a GGUF file's metadata and tensors, and whether gollm supports them",
		Long: `Show a GGUF file's metadata and tensors, and whether gollm supports them.
Long strings and arrays are cut to their start; --full shows them whole, a
multi-line string (the chat template) as its text after the metadata.`,
		Args: pathArgs(&path),
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
			if lines, err := engine.Describe(f); err == nil {
				fmt.Fprintf(w, "model:\n")
				for _, l := range lines {
					fmt.Fprintf(w, "  %s\n", l)
				}
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "metadata (%d keys):\n", len(f.KV))
			var texts []gguf.KV
			for _, kv := range f.KV {
				shown := kv.Value.String()
				if full {
					if text, ok := textBlock(kv.Value); ok {
						texts = append(texts, kv)
						shown = fmt.Sprintf("(%d bytes of text, shown below)", len(text))
					} else {
						shown = kv.Value.FullString()
					}
				}
				fmt.Fprintf(w, "  %s\t%s\t%s\n", kv.Key, kv.Value.Type, shown)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			for _, kv := range texts {
				text, _ := textBlock(kv.Value)
				fmt.Fprintf(w, "\n%s (%d bytes):\n%s\n", kv.Key, len(text), strings.TrimSuffix(text, "\n"))
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
	cmd.Flags().BoolVar(&full, "full", false, "show long strings (the chat template) and arrays whole")
	return cmd
}

// textBlock returns a string value that reads better as lines of text than
// quoted on one line: it has line breaks, and only printable characters
// besides them (a hostile file's escape sequences stay quoted).
func textBlock(v gguf.Value) (string, bool) {
	s, ok := v.Str()
	if !ok || !strings.Contains(s, "\n") || !utf8.ValidString(s) {
		return "", false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return "", false
		}
	}
	return s, true
}
