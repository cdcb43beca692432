//go:build unix

package gguf

import (
	"fmt"
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the file at path read-only and shared: pages load on first
// touch and stay in the page cache, so opening costs nothing per weight byte
// and several processes share one copy of a model.
func mapFile(path string) ([]byte, func() error, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fd.Close() // the mapping outlives the descriptor
	st, err := fd.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	switch {
	case !st.Mode().IsRegular():
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	case size == 0: // mmap refuses empty files; the parser reports the truncation
		return []byte{}, nil, nil
	case size > math.MaxInt:
		return nil, nil, fmt.Errorf("%s: %d bytes do not fit in the address space", path, size)
	}
	data, err := unix.Mmap(int(fd.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return data, func() error { return unix.Munmap(data) }, nil
}
