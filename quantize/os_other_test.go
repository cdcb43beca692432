//go:build !linux

package quantize

import "errors"

func limitFileSize(uint64) error { return errors.New("not supported") }

func cpuSeconds() float64 { return 0 }
