//go:build purego || !amd64

package kernels

// droppedTileSets: no set leaves tiles out on this build.
func droppedTileSets() []*kernelSet { return nil }
