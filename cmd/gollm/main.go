// Command gollm runs GGUF language models on the CPU and reports where the
// time goes.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/kvcache"
	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := interruptContext()
	root := rootCmd()
	args, err := llamaArgs(root, os.Args[1:])
	if err == nil {
		root.SetArgs(args)
		err = root.ExecuteContext(ctx)
	}
	stop()
	runAtExit()
	if err != nil {
		if !errors.Is(err, errInterrupted) {
			fmt.Fprintln(os.Stderr, "gollm: "+oneLine(err)+flagHint(err))
		}
		os.Exit(exitCode(err))
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "gollm",
		Short:         "Run GGUF language models on the CPU, in pure Go, and measure them",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("gollm {{.Version}}\n")
	// Bad flags and values exit 2, as a usage error.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	addKernelsFlag(root)
	root.AddCommand(generateCmd(), logitsCmd(), tokenizeCmd(), perplexityCmd(), inspectCmd(), synthCmd(), quantizeCmd(), benchCmd(), serveCmd())
	return root
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

// flagHint names the flag that gets past a library error.
func flagHint(err error) string {
	switch {
	case errors.Is(err, kvcache.ErrCacheFull):
		return " (raise --kv-size or -c)"
	case errors.Is(err, engine.ErrPromptTooLong), errors.Is(err, engine.ErrContextFull):
		return " (raise -c)"
	}
	return ""
}

func exitCode(err error) int {
	switch {
	case interrupted(err):
		return 130
	case errors.Is(err, errUsage), strings.HasPrefix(err.Error(), "unknown command"),
		strings.Contains(err.Error(), " arg(s), "):
		return 2
	}
	return 1
}
