//go:build !purego

package kernels

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestBF16MinExpAsm checks the assembly exponent scan against the Go one:
// lengths around its 32-value pieces, unaligned starts, and the smallest
// exponent (a denormal, a zero, a small value) at every position.
func TestBF16MinExpAsm(t *testing.T) {
	if !cpu.X86.HasAVX512BW {
		t.Skip("no AVX512BW on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 31, 32, 33, 64, 95, 200} {
		buf := make([]byte, 2*n+1)
		data := buf[1:]
		for i := range n {
			u := uint16(0x3c00 + r.IntN(0x0800)) // exponents 120-135
			if r.IntN(2) == 0 {
				u |= 0x8000
			}
			data[2*i], data[2*i+1] = byte(u), byte(u>>8)
		}
		for pos := range n {
			for _, v := range []uint16{0x0001, 0x8000, 0x0000, 0x8a00, 0x3b80} {
				save0, save1 := data[2*pos], data[2*pos+1]
				data[2*pos], data[2*pos+1] = byte(v), byte(v>>8)
				if got, want := bf16MinExpAsm(data), bf16MinExp(data); got != want {
					t.Fatalf("n=%d, %#04x at %d: bf16MinExpAsm = %d, bf16MinExp %d", n, v, pos, got, want)
				}
				data[2*pos], data[2*pos+1] = save0, save1
			}
		}
	}
}
