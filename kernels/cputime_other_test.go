//go:build !unix

package kernels

func processCPU() int64 { return 0 }
