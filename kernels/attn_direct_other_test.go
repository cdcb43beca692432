//go:build !amd64 || purego

package kernels

import "testing"

// attnDirectTestSets: no other sets off amd64 (attn_direct_amd64_test.go).
func attnDirectTestSets(t testing.TB) []*kernelSet { return nil }
