//go:build !linux

package kernels

// allocPacked returns n zeroed bytes for a packed copy owned by owner.
func allocPacked(owner *packedCopy, n int) []byte { return make([]byte, n) }
