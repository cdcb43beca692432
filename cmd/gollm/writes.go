package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gollm/gollm/internal/tmpfile"
)

// guardTemp makes sure this process's temporary file for path goes even if
// a second Ctrl-C exits without unwinding (the writers remove it themselves
// on a first Ctrl-C or an error, and a later run removes what SIGKILL left).
func guardTemp(path string) {
	tmp := tmpfile.Name(path)
	onExit(func() { os.Remove(tmp) })
}

// writeErr says plainly that an interrupted write left nothing behind; it
// still wraps context.Canceled, so the exit status is 130.
func writeErr(err error, path string) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: %s not written: %w", path, context.Canceled)
	}
	return err
}
