package quantize

import (
	"math"
	"sort"
	"strings"
)

// blkLayer parses the layer number of a "blk.N..." name the way C's
// sscanf(name, "blk.%d.", &n) does: leading white space and a sign are
// accepted, and whatever follows the digits does not matter.
func blkLayer(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "blk.")
	if !ok {
		return 0, false
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	n := int64(0)
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if n < math.MaxInt32 {
			n = n*10 + int64(s[i]-'0')
		}
		i++
	}
	if i == start {
		return 0, false
	}
	n = min(n, math.MaxInt32) // glibc saturates out-of-range conversions
	if neg {
		n = -n
	}
	return int(n), true
}

// Order returns the indices of names in the order llama-quantize processes
// and writes tensors: its loader keeps them in a map sorted by layer
// (tensors outside "blk.N." first, as layer -1), then by name bytewise.
// The type rules count attn_v/ffn_down tensors in this order, and the
// output file lists tensors in it.
func Order(names []string) []int {
	layer := make([]int, len(names))
	idx := make([]int, len(names))
	for i, n := range names {
		idx[i] = i
		layer[i] = -1
		if l, ok := blkLayer(n); ok {
			layer[i] = l
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ia, ib := idx[a], idx[b]
		if layer[ia] != layer[ib] {
			return layer[ia] < layer[ib]
		}
		return names[ia] < names[ib]
	})
	return idx
}
