//go:build !purego

package kernels

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestAsmLayoutHeader checks that the sizes quad_amd64.h gives the assembly
// are the Go constants' (a stale value would walk the kernels off their
// blocks).
func TestAsmLayoutHeader(t *testing.T) {
	src, err := os.ReadFile("quad_amd64.h")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"Q8K_QUAD_MAIN":     q8_KQuadMain,
		"Q8K_QUAD_SUMS":     q8_KQuadSums,
		"Q8K_QUADTOK_BYTES": q8_KQuadTokBytes,
		"Q3K_GROUP_BYTES":   q3_KGroupBytes,
	}
	got := map[string]int{}
	for _, line := range strings.Split(string(src), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "#define" {
			continue
		}
		v, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("quad_amd64.h: %s: %v", line, err)
		}
		got[f[1]] = v
	}
	for name, v := range want {
		if g, ok := got[name]; !ok || g != v {
			t.Errorf("quad_amd64.h: %s = %d (defined %v), the Go constant is %d", name, g, ok, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("quad_amd64.h defines %d sizes, the test knows %d", len(got), len(want))
	}
}
