package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// errInterrupted is returned by a command that stopped on Ctrl-C after
// printing what it had: main exits 130 (128 + SIGINT) without another
// message.
var errInterrupted = errors.New("interrupted")

// interruptContext returns a context cancelled by the first SIGINT or
// SIGTERM, so a command can stop its work and still print what it made
// (partial text, tables, estimates). A second signal exits at once.
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
		cancel()
		if _, ok := <-ch; ok {
			fmt.Fprintln(os.Stderr, "\ngollm: interrupted twice, exiting")
			runAtExit()
			os.Exit(130)
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

// atExit holds clean-ups (temporary files) that must run even when a second
// Ctrl-C exits without unwinding.
var atExit struct {
	sync.Mutex
	fns []func()
}

// onExit registers fn to run if the process exits on a second signal.
func onExit(fn func()) {
	atExit.Lock()
	defer atExit.Unlock()
	atExit.fns = append(atExit.fns, fn)
}

func runAtExit() {
	atExit.Lock()
	defer atExit.Unlock()
	for i := len(atExit.fns) - 1; i >= 0; i-- {
		atExit.fns[i]()
	}
}

// interrupted reports whether err means the run was cut short by a signal.
func interrupted(err error) bool {
	return errors.Is(err, errInterrupted) || errors.Is(err, context.Canceled)
}
