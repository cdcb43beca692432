//go:build !purego

package kernels

import "testing"

// attnDirectTestSets returns sets that run the 512-bit score kernels
// where the CPU's own sets do not take them (an AMD Zen4 keeps the AVX2
// ones, fillAVX512AttnDirect), so that they are tested on every CPU with
// AVX-512.
func attnDirectTestSets(t testing.TB) []*kernelSet {
	if !zmmSet.available || !isZen4 {
		return nil
	}
	s := *zmmSet
	s.name += "+zmm-scores"
	s.attnScoresF16 = attnScoresF16AVX512Asm
	return []*kernelSet{&s}
}
