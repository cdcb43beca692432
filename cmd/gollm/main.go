// Command gollm runs GGUF language models on the CPU and reports where the
// time goes.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "gollm",
		Short:         "Run GGUF language models on the CPU, in pure Go, and measure them",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	addKernelsFlag(root)
	root.AddCommand(generateCmd(), logitsCmd(), tokenizeCmd(), perplexityCmd(), inspectCmd(), synthCmd(), quantizeCmd(), benchCmd(), serveCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "gollm: "+oneLine(err))
		os.Exit(exitCode(err))
	}
}

// oneLine keeps an error message to a single line.
func oneLine(err error) string {
	b := []byte(err.Error())
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}

// errUsage marks bad flag values, so they exit with status 2 like a parse error.
var errUsage = errors.New("usage")

func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}
