//go:build !purego

package kernels

import (
	"github.com/gollm/gollm/quant"
	"golang.org/x/sys/cpu"
)

// hasKSearchAVX2 reports whether the AVX2 search kernels can run (they use
// AVX2 integer min/max and gathers, nothing of FMA).
var hasKSearchAVX2 = cpu.X86.HasAVX2

// kSearchAVX2 is the AVX2 sets' k-quant search kernels (kernelSet.kSearch).
var kSearchAVX2 = quant.KSearchKernels{QKX2: qkx2Block8Asm, QKX2Pair: qkx2Block8x2Asm, Q6K: q6kBlock16Asm, Levels: kLevelsAsm}

// qkx2Scratch is the working memory of one super-block in qkx2Block8AVX2
// and qkx2Block8x2AVX2 (offsets in the .s file): the sub-blocks transposed
// (x[i][j] is value i of sub-block j), their weights, the current
// candidate's levels, per-lane constants, the search state and the results.
type qkx2Scratch struct {
	x, w, lv                       [32][8]float32
	max, minX, sumW, sumX, notDone [8]float32
	scales, negMins                [8]float32
	min, best, scale, bound, dPos  [8]float32
}

//go:noescape
func qkx2Block8AVX2(x *[256]float32, s *qkx2Scratch, nums *float32, n int, nmax float32, top uint32) bool

//go:noescape
func qkx2Block8x2AVX2(x *[512]float32, s *[2]qkx2Scratch, nums *float32, n int, nmax float32, top uint32) bool

func qkx2Block8Asm(x *[256]float32, nmax int, nums []float32) (scales, negMins [8]float32, ok bool) {
	if len(nums) == 0 {
		return qkx2Block8Generic(x, nmax, nums)
	}
	var s qkx2Scratch
	ok = qkx2Block8AVX2(x, &s, &nums[0], len(nums), float32(nmax), kqsMagicBits+uint32(nmax))
	return s.scales, s.negMins, ok
}

func qkx2Block8x2Asm(x *[512]float32, nmax int, nums []float32) (scales, negMins [16]float32, ok bool) {
	if len(nums) == 0 {
		return qkx2Block8x2Generic(x, nmax, nums)
	}
	var s [2]qkx2Scratch
	ok = qkx2Block8x2AVX2(x, &s, &nums[0], len(nums), float32(nmax), kqsMagicBits+uint32(nmax))
	copy(scales[:8], s[0].scales[:])
	copy(scales[8:], s[1].scales[:])
	copy(negMins[:8], s[0].negMins[:])
	copy(negMins[8:], s[1].negMins[:])
	return scales, negMins, ok
}

// q6kScratch is the working memory of q6kBlock16AVX2: x transposed in two
// halves of eight sub-blocks (x[h][i][j] is value i of sub-block 8h+j),
// the weights x*x and x*x*x, the largest |x| of each sub-block, the best
// scale and best value of each half (scale, best, scale, best) and the
// results.
type q6kScratch struct {
	x, w, wx [2][16][8]float32
	amax     [2][8]float32
	sb       [4][8]float32
	scales   [16]float32
}

//go:noescape
func q6kBlock16AVX2(x *[256]float32, s *q6kScratch, nums *float32, n int) bool

func q6kBlock16Asm(x *[256]float32, nums []float32) (scales [16]float32, ok bool) {
	if len(nums) == 0 {
		return q6kBlock16Generic(x, nums)
	}
	var s q6kScratch
	ok = q6kBlock16AVX2(x, &s, &nums[0], len(nums))
	return s.scales, ok
}

//go:noescape
func kLevelsAVX2(x *[256]float32, d, a *[16]float32, h int, lo, hi, off int32, L *[256]uint8)

func kLevelsAsm(x *[256]float32, g int, d, a [16]float32, lo, hi, off int) (L [256]uint8) {
	// Each step of the assembly does 32 values: one sub-block of 32, or
	// two of 16 (the second's d and a h bytes after the first's).
	var h int
	switch g {
	case 32:
		h = 0
	case 16:
		h = 4
	default:
		return kLevelsGeneric(x, g, d, a, lo, hi, off)
	}
	kLevelsAVX2(x, &d, &a, h, int32(lo), int32(hi), int32(off), &L)
	return L
}
