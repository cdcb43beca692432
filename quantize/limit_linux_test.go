package quantize

import (
	"os/signal"
	"syscall"
)

// limitFileSize makes writes past n bytes fail with EFBIG instead of
// killing the process with SIGXFSZ.
func limitFileSize(n uint64) error {
	signal.Ignore(syscall.SIGXFSZ)
	return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
}
