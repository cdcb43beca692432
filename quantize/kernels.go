package quantize

// Package kernels installs SIMD versions of the K-quant scale searches into
// package quant when the CPU has them (quant cannot import kernels, which
// depends on it); importing it here gives every user of this package the
// fast searches, not only binaries that happen to link the inference
// engine. The output bytes are the same either way.
import _ "github.com/gollm/gollm/kernels"
