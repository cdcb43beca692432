package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// promptFlags read a prompt from -p, -f/--file or standard input, and
// carry the escape switch that also applies to --stop, -r and --system.
type promptFlags struct {
	text     string
	file     string
	escape   bool
	noEscape bool
	cmd      *cobra.Command
}

func (p *promptFlags) register(cmd *cobra.Command) {
	p.cmd = cmd
	fl := cmd.Flags()
	fl.StringVarP(&p.text, "prompt", "p", "", `prompt text (escapes such as \n are processed; "-": standard input; "": BOS only)`)
	fl.StringVarP(&p.file, "file", "f", "", `read the prompt from a file ("-": standard input), as is`)
	fl.BoolVarP(&p.escape, "escape", "e", true, `process escapes (\n \r \t \' \" \\ \xNN) in -p, --stop, -r and --system, as llama.cpp does`)
	fl.BoolVar(&p.noEscape, "no-escape", false, "take -p, --stop, -r and --system literally")
}

// esc applies the escape setting to a flag's text.
func (p *promptFlags) esc(s string) string {
	if p.noEscape || !p.escape {
		return s
	}
	return unescape(s)
}

// read returns the prompt: -p (escapes processed; "-" reads standard
// input), -f FILE or -f - (as is), or, with neither, standard input when it
// is not a terminal.
func (p *promptFlags) read() (string, error) {
	given := p.cmd != nil && p.cmd.Flags().Changed("prompt")
	switch {
	case given && p.file != "":
		return "", usageErr("give either -p or -f/--file, not both")
	case p.file == "-" || given && p.text == "-":
		return readStdin()
	case p.file != "":
		b, err := os.ReadFile(p.file)
		if err != nil {
			return "", fmt.Errorf("prompt: %w", err)
		}
		return string(b), nil
	case given:
		return p.esc(p.text), nil
	case !stdinIsTerminal():
		s, err := readStdin()
		if err == nil && s == "" {
			return "", usageErr("a prompt is required: -p TEXT, -f FILE, or text on standard input (it was empty)")
		}
		return s, err
	}
	return "", usageErr("a prompt is required: -p TEXT, -f FILE, or text on standard input")
}

func stdinIsTerminal() bool { return term.IsTerminal(int(os.Stdin.Fd())) }

func readStdin() (string, error) {
	b, err := io.ReadAll(os.Stdin)
	if err != nil {
		return "", fmt.Errorf("standard input: %w", err)
	}
	return string(b), nil
}
