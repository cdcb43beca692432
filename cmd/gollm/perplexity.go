package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func perplexityCmd() *cobra.Command {
	var (
		mf   modelFlags
		file string
	)
	cmd := &cobra.Command{
		Use:   "perplexity -m FILE -f TEXT -c N",
		Short: "Perplexity of a text, by llama.cpp's method (chunks of -c tokens, second halves scored)",
		Args:  mf.modelArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return usageErr("-f/--file is required")
			}
			n := mf.ctx
			if n == 0 {
				n = 512
				mf.ctx = n
			}
			if n < 4 {
				return usageErr("-c must be at least 4, got %d", n)
			}
			text, err := os.ReadFile(file)
			if err != nil {
				return fmt.Errorf("text: %w", err)
			}
			if mf.batch == 0 || mf.batch > n {
				mf.batch = n
			}
			m, err := mf.load(false)
			if err != nil {
				return err
			}
			defer m.Close()
			ids := m.Tokenizer.Encode(string(text), true, false)
			fmt.Fprintf(os.Stderr, "perplexity: %d tokens, %d chunks of %d\n", len(ids), len(ids)/n, n)
			res, err := m.Perplexity(cmd.Context(), ids, n, func(i int, ppl float64) {
				fmt.Printf("[%d]%.4f,", i+1, ppl)
			})
			fmt.Println()
			switch {
			case res != nil && res.Partial:
				fmt.Printf("Partial estimate (interrupted after %d of %d chunks): PPL = %.4f +/- %.5f\n", res.Chunks, len(ids)/n, res.PPL, res.PlusMinus)
				return errInterrupted
			case err != nil:
				return err
			}
			fmt.Printf("Final estimate: PPL = %.4f +/- %.5f\n", res.PPL, res.PlusMinus)
			return nil
		},
	}
	mf.register(cmd)
	cmd.Flags().Lookup("ctx-size").Usage = "tokens per chunk (default 512)"
	cmd.Flags().StringVarP(&file, "file", "f", "", "text file to score (required)")
	cmd.Flags().Lookup("batch-size").DefValue = "0"
	mf.batch = 0
	return cmd
}
