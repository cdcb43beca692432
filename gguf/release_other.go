//go:build !unix

package gguf

// releasePages is a no-op where the file was read into memory.
func releasePages(mapping []byte, lo, hi int) {}
