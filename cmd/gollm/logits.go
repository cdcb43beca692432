package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/spf13/cobra"
)

func logitsCmd() *cobra.Command {
	var (
		mf             modelFlags
		pf             promptFlags
		top            int
		all, asJSON    bool
		noBOS          bool
		parseSpecial   bool
		noParseSpecial bool
	)
	cmd := &cobra.Command{
		Use:   "logits -m FILE -p TEXT",
		Short: "Print the teacher-forced logits of a prompt (for numerical parity checks)",
		Args:  mf.modelArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if top < 0 {
				return usageErr("--top must not be negative")
			}
			prompt, err := pf.read()
			if err != nil {
				return err
			}
			m, err := mf.load(false)
			if err != nil {
				return err
			}
			defer m.Close()
			ids := m.Tokenizer.Encode(prompt, !noBOS, parseSpecial && !noParseSpecial)
			if len(ids) == 0 {
				return fmt.Errorf("the prompt has no tokens")
			}
			if len(ids) > m.ContextSize() {
				return fmt.Errorf("prompt of %d tokens is longer than the context of %d (raise -c)", len(ids), m.ContextSize())
			}
			logits, err := m.Eval(ids, true)
			if err != nil {
				return err
			}
			vocab := m.Config.Vocab
			rows := make([][]float32, len(ids))
			tops := make([][][2]float64, len(ids))
			for i := range ids {
				rows[i] = logits[i*vocab : (i+1)*vocab]
				tops[i] = topK(rows[i], top)
			}
			if asJSON {
				out := map[string]any{"prompt_tokens": ids, "top": tops}
				if all {
					out["logits"] = rows
				}
				return writeJSON(os.Stdout, out)
			}
			for i, id := range ids {
				fmt.Printf("[%d] token %d %q:", i, id, m.Tokenizer.Piece(id))
				for _, t := range tops[i] {
					fmt.Printf(" %d:%.4f", int(t[0]), t[1])
				}
				fmt.Println()
				if all {
					fmt.Println(rows[i])
				}
			}
			return nil
		},
	}
	mf.register(cmd)
	pf.register(cmd)
	cmd.Flags().IntVar(&top, "top", 10, "highest logits to show per position")
	cmd.Flags().BoolVar(&all, "all", false, "also print every logit")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&noBOS, "no-bos", false, "do not add the BOS token")
	cmd.Flags().BoolVar(&parseSpecial, "parse-special", true, "turn control-token texts such as <s> into their ids")
	cmd.Flags().BoolVar(&noParseSpecial, "no-parse-special", false, "tokenize control-token texts as plain text")
	return cmd
}

// topK returns the k highest (id, logit) pairs, highest first (ties: lower id).
func topK(row []float32, k int) [][2]float64 {
	idx := make([]int, len(row))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] > row[idx[b]] })
	k = min(k, len(row))
	out := make([][2]float64, k)
	for i := 0; i < k; i++ {
		out[i] = [2]float64{float64(idx[i]), float64(row[idx[i]])}
	}
	return out
}
