//go:build !unix

package gguf

import "os"

// mapFile reads the whole file where golang.org/x/sys/unix's mmap is not
// available. This copies the weights, so it is a fallback, not the fast
// path.
func mapFile(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	return data, nil, err
}
