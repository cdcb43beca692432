package main

import (
	"bytes"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/spf13/cobra"
)

// instrRun runs `gollm <args>` in-process with the commands of this issue
// (generate, bench) and returns what it wrote to stdout and stderr. The
// commands write to os.Stdout/os.Stderr, so both are swapped for pipes
// while it runs (tests in this package must not run in parallel).
func instrRun(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := &cobra.Command{Use: "gollm", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(generateCmd(), benchCmd())
	root.SetArgs(args)

	var outBuf, errBuf bytes.Buffer
	oldOut, oldErr := os.Stdout, os.Stderr
	outR, outW, perr := os.Pipe()
	if perr != nil {
		t.Fatal(perr)
	}
	errR, errW, perr := os.Pipe()
	if perr != nil {
		t.Fatal(perr)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(&outBuf, outR) }()
	go func() { defer wg.Done(); io.Copy(&errBuf, errR) }()
	os.Stdout, os.Stderr = outW, errW
	defer func() {
		os.Stdout, os.Stderr = oldOut, oldErr
	}()
	err = root.Execute()
	outW.Close()
	errW.Close()
	wg.Wait()
	outR.Close()
	errR.Close()
	return outBuf.String(), errBuf.String(), err
}
