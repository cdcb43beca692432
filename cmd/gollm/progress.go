package main

import (
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressBar returns a byte-progress callback that draws a bar on stderr
// when stderr is a terminal (nil otherwise, so that logs and pipes get no
// control characters), and a function that clears the bar when done.
func progressBar(desc string) (update func(done, total int64), finish func()) {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil, func() {}
	}
	bar := progressbar.NewOptions64(1,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish())
	update = func(done, total int64) {
		if bar.GetMax64() != total {
			bar.ChangeMax64(total)
		}
		bar.Set64(done)
	}
	return update, func() { bar.Finish() }
}
