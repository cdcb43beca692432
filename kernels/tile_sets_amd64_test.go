//go:build !purego

package kernels

// droppedTileSets are the sets the tile tests check besides the registered
// ones: where the CPU splits 512-bit instructions in two (halfWidth512),
// the avx512zmm set keeps the 256-bit tiles of some types, and its own
// 512-bit ones (and their prefetching twins) would go untested there. It
// returns that set with them.
func droppedTileSets() []*kernelSet {
	if !halfWidth512 || !zmmSet.available {
		return nil
	}
	s := *vnniSet
	s.name = "avx512zmm (512-bit tiles)"
	fillZMM(&s)
	return []*kernelSet{&s}
}
