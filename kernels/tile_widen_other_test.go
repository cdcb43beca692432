//go:build !amd64 || purego

package kernels

import "testing"

// rewriteTestSets: no sets with optional rewritten-row tiles here.
func rewriteTestSets(t testing.TB) []*kernelSet { return nil }
