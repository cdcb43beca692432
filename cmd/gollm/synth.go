package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gollm/gollm/synth"
	"github.com/spf13/cobra"
)

func synthCmd() *cobra.Command {
	var (
		preset, typ, out string
		seed             uint64
		threads          int
		vocabFrom, tmpl  string
	)
	cmd := &cobra.Command{
		Use:   "synth --preset NAME [--type Q4_0] -o FILE",
		Short: "Write a random-weight GGUF model of a real shape (nothing to download)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageErr("-o/--output is required")
			}
			shape, err := synth.Lookup(preset)
			if err != nil {
				return usageErr("%v", err)
			}
			start := time.Now()
			opt := synth.Options{FileType: typ, Seed: seed, Threads: threads, VocabFrom: vocabFrom}
			if tmpl != "" {
				b, err := os.ReadFile(tmpl)
				if err != nil {
					return fmt.Errorf("chat template: %w", err)
				}
				opt.ChatTemplate = string(b)
			}
			progress, finish := progressBar(fmt.Sprintf("synth %s %s", shape.Name, strings.ToUpper(typ)))
			opt.Progress = progress
			guardTemp(out)
			err = synth.WriteContext(cmd.Context(), out, shape, opt)
			finish()
			if err != nil {
				return writeErr(err, out)
			}
			st, _ := os.Stat(out)
			fmt.Fprintf(os.Stderr, "synth: wrote %s (%s, %s, %.1fM params, %.1f MiB) in %.1f s\n", out, shape.Name,
				strings.ToUpper(typ), float64(shape.Params())/1e6, float64(st.Size())/(1<<20), time.Since(start).Seconds())
			return nil
		},
	}
	cmd.Flags().StringVar(&preset, "preset", "tinyllama-1.1b", "model shape: "+strings.Join(synth.Names(), ", "))
	cmd.Flags().StringVar(&typ, "type", "Q4_0", "llama-quantize type (F32, F16, Q8_0, Q4_0, Q4_K_M, ...)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "output GGUF file (required)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "weight RNG seed")
	cmd.Flags().IntVarP(&threads, "threads", "t", 0, "threads (0: all cores)")
	cmd.Flags().StringVar(&vocabFrom, "vocab", "", "take the tokenizer (and vocabulary size) from this GGUF model or vocabulary file")
	cmd.Flags().StringVar(&tmpl, "chat-template", "", "write this Jinja file as tokenizer.chat_template")
	return cmd
}
