package main

import (
	"fmt"
	"strings"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/tokenizer"
	"github.com/spf13/cobra"
)

func tokenizeCmd() *cobra.Command {
	var (
		path           string
		pf             promptFlags
		noBOS          bool
		parseSpecial   bool
		noParseSpecial bool
		showPieces     bool
	)
	cmd := &cobra.Command{
		Use:   "tokenize -m FILE [-p TEXT]",
		Short: "Print the token ids of a text (from -p, -f or stdin), space separated",
		Args:  pathArgs(&path),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if path == "" {
				return usageErr("-m/--model is required")
			}
			text, err := pf.read()
			if err != nil {
				return err
			}
			// Only the vocabulary is needed: tokenizer-only GGUF files work too.
			f, err := gguf.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			tok, err := tokenizer.FromGGUF(f)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			ids := tok.Encode(text, !noBOS, parseSpecial && !noParseSpecial)
			if showPieces {
				for _, id := range ids {
					fmt.Printf("%6d -> '%s'\n", id, tok.PieceSpecial(id, true))
				}
				return nil
			}
			parts := make([]string, len(ids))
			for i, id := range ids {
				parts[i] = fmt.Sprint(id)
			}
			fmt.Println(strings.Join(parts, " "))
			return nil
		},
	}
	cmd.Flags().StringVarP(&path, "model", "m", "", "GGUF model or vocabulary file (required)")
	pf.register(cmd)
	cmd.Flags().BoolVar(&noBOS, "no-bos", false, "do not add BOS/EOS tokens")
	cmd.Flags().BoolVar(&parseSpecial, "parse-special", true, "turn control-token texts such as <s> into their ids")
	cmd.Flags().BoolVar(&noParseSpecial, "no-parse-special", false, "tokenize control-token texts as plain text (llama-tokenize's flag)")
	cmd.Flags().BoolVar(&showPieces, "show-pieces", false, "print one token a line with its text, as llama-tokenize does")
	return cmd
}
