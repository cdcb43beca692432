//go:build race || purego

package scheduler

// slowBuild: the race detector or the generic kernels make the full
// determinism runs minutes long; the tests run a smaller set.
const slowBuild = true
