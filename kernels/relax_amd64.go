//go:build !purego

package kernels

// cpuRelax executes one PAUSE: a spin-wait hint that frees the core's
// resources (and a sibling hyperthread's) while polling, and delays the
// next poll by tens of nanoseconds (~140 cycles on recent Intel cores).
//
//go:noescape
func cpuRelax()
