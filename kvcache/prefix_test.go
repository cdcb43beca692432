package kvcache

import (
	"errors"
	"testing"

	"github.com/gollm/gollm/ggml"
)

func prefixTestCache(t *testing.T, positions int) *Cache {
	return mustNew(t, Config{Layers: 2, KVDim: 8, VDim: 8, BlockLen: 4, Type: ggml.F16, MaxPositions: positions})
}

func seqTokens(n int, base int32) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = base + int32(i)
	}
	return out
}

// TestPrefixCacheReuse: a finished sequence's full blocks serve a later
// sequence with the same prefix, their contents intact; a different
// prefix or a diverging block does not match.
func TestPrefixCacheReuse(t *testing.T) {
	c := prefixTestCache(t, 64)
	p := NewPrefixCache(c)
	toks := seqTokens(10, 100) // two full blocks and a partial one
	a := c.NewSeq()
	fill(t, c, a, 10, 1)
	hashes := p.HashBlocks(nil, toks)
	if len(hashes) != 2 {
		t.Fatalf("%d hashes for 10 tokens of blocks of 4", len(hashes))
	}
	if inc := p.HashBlocks(p.HashBlocks(nil, toks[:5]), toks); inc[0] != hashes[0] || inc[1] != hashes[1] {
		t.Fatal("incremental hashes differ")
	}
	if err := p.Insert(a, toks, hashes, 0); err != nil {
		t.Fatal(err)
	}
	c.Free(a)
	if used, _, _ := c.Blocks(); used != 2 || p.Evictable() != 2 {
		t.Fatalf("after the sequence ended: %d blocks used, %d evictable; want 2, 2", used, p.Evictable())
	}

	// Same first 9 tokens, then different: both blocks match.
	other := append(seqTokens(9, 100), 7, 7, 7)
	got := p.Match(nil, other, p.HashBlocks(nil, other))
	if len(got) != 2 {
		t.Fatalf("matched %d blocks, want 2", len(got))
	}
	b := c.NewSeq()
	if err := c.AppendBlocks(b, got); err != nil {
		t.Fatal(err)
	}
	if c.Len(b) != 8 || p.Evictable() != 0 {
		t.Fatalf("adopted sequence has %d positions, %d evictable", c.Len(b), p.Evictable())
	}
	expectRows(t, c, b, tagsOf(1, 8))
	// Writing past the adopted blocks leaves them alone.
	fill(t, c, b, 3, 2)
	expectRows(t, c, b, append(tagsOf(1, 8), tagsOf(2, 3)...))

	// A second block that differs in one token matches only the first.
	diverge := seqTokens(8, 100)
	diverge[6] = 0
	if got := p.Match(nil, diverge, p.HashBlocks(nil, diverge)); len(got) != 1 {
		t.Fatalf("diverging second block: matched %d blocks, want 1", len(got))
	}
	// A different first block matches nothing, even with equal later blocks.
	if got := p.Match(nil, seqTokens(8, 99), p.HashBlocks(nil, seqTokens(8, 99))); len(got) != 0 {
		t.Fatalf("different prefix: matched %d blocks", len(got))
	}
	c.Free(b)
	p.Clear()
	if used, _, _ := c.Blocks(); used != 0 {
		t.Fatalf("%d blocks used after Clear", used)
	}
}

// TestPrefixCacheEvictLRU: eviction frees the least recently used blocks
// nobody references, never a block a sequence holds.
func TestPrefixCacheEvictLRU(t *testing.T) {
	c := prefixTestCache(t, 16) // 4 blocks
	p := NewPrefixCache(c)
	var chains [][]int32
	for i := 0; i < 2; i++ {
		toks := seqTokens(4, int32(10*i))
		s := c.NewSeq()
		fill(t, c, s, 4, 1)
		if err := p.Insert(s, toks, p.HashBlocks(nil, toks), 0); err != nil {
			t.Fatal(err)
		}
		c.Free(s)
		chains = append(chains, toks)
	}
	// Use chain 0 again: chain 1 is now the least recently used.
	held := c.NewSeq()
	if err := c.AppendBlocks(held, p.Match(nil, chains[0], p.HashBlocks(nil, chains[0]))); err != nil {
		t.Fatal(err)
	}
	if c.FreeBlocks() != 2 {
		t.Fatalf("%d free blocks, want 2", c.FreeBlocks())
	}
	if n := p.Evict(3); n != 1 || c.FreeBlocks() != 3 {
		t.Fatalf("Evict(3) evicted %d, %d free; want 1, 3", n, c.FreeBlocks())
	}
	if got := p.Match(nil, chains[1], p.HashBlocks(nil, chains[1])); len(got) != 0 {
		t.Fatal("the evicted chain still matches")
	}
	// Chain 0 is held by a sequence: it cannot be evicted.
	if n := p.Evict(4); n != 0 || p.Len() != 1 {
		t.Fatalf("Evict of a held block: evicted %d, %d left", n, p.Len())
	}
}

func TestBlockAPIErrors(t *testing.T) {
	c := prefixTestCache(t, 16)
	s := c.NewSeq()
	fill(t, c, s, 3, 1)
	if _, err := c.BlockAt(s, 1); !errors.Is(err, ErrBadPos) {
		t.Errorf("BlockAt past the table: %v", err)
	}
	if err := c.Retain(7); !errors.Is(err, ErrBadPos) {
		t.Errorf("Retain of an unused block: %v", err)
	}
	b, err := c.BlockAt(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AppendBlocks(s, []BlockID{b}); !errors.Is(err, ErrBadPos) {
		t.Errorf("AppendBlocks off a block boundary: %v", err)
	}
	t2 := c.NewSeq()
	if err := c.AppendBlocks(t2, []BlockID{b, 9}); !errors.Is(err, ErrBadPos) || c.Len(t2) != 0 || c.Refs(b) != 1 {
		t.Errorf("AppendBlocks of a free block: %v, len %d, refs %d", err, c.Len(t2), c.Refs(b))
	}
	if err := c.AppendBlocks(99, nil); !errors.Is(err, ErrBadSeq) {
		t.Errorf("AppendBlocks to a dead sequence: %v", err)
	}
}
