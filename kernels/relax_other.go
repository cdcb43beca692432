//go:build !amd64 || purego

package kernels

// cpuRelax is a spin-wait step; without assembly it is an empty call.
func cpuRelax() {}
