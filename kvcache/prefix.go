package kvcache

import "slices"

// PrefixCache is automatic prefix caching in vLLM's manner: every full
// block a sequence has computed is addressed by a hash of (its parent
// block's hash, its tokens), so equal token prefixes map to equal chains
// of hashes whatever the sequence. The cache holds one reference to each
// registered block; a block nobody else references any more (its
// sequences finished) stays reusable until its memory is needed, and is
// then evicted least recently used first.
//
// Entries keep their tokens and parent hash and Match compares them, so a
// hash collision can cost a cache miss, never a wrong block.
//
// A PrefixCache shares its Cache's concurrency contract: one goroutine.
type PrefixCache struct {
	c       *Cache
	entries map[uint64]*prefixEntry
	// LRU list of every entry, most recently used at head.next; the
	// sentinel head closes the ring.
	head prefixEntry
}

type prefixEntry struct {
	hash, parent uint64
	tokens       []int32
	block        BlockID
	prev, next   *prefixEntry
}

// NewPrefixCache returns an empty prefix cache over c.
func NewPrefixCache(c *Cache) *PrefixCache {
	p := &PrefixCache{c: c, entries: make(map[uint64]*prefixEntry)}
	p.head.prev, p.head.next = &p.head, &p.head
	return p
}

// prefixSeed is the parent hash of a sequence's first block.
const prefixSeed uint64 = 0x9e3779b97f4a7c15

// HashBlocks appends to dst the chain hashes of the full blocks of tokens
// (len(tokens)/BlockLen of them; a partial last block has none) after the
// len(dst) blocks whose hashes dst already holds, so that a growing
// sequence hashes each block once.
func (p *PrefixCache) HashBlocks(dst []uint64, tokens []int32) []uint64 {
	bl := p.c.cfg.BlockLen
	parent := prefixSeed
	if len(dst) > 0 {
		parent = dst[len(dst)-1]
	}
	for i := len(dst) * bl; i+bl <= len(tokens); i += bl {
		parent = blockHash(parent, tokens[i:i+bl])
		dst = append(dst, parent)
	}
	return dst
}

// blockHash mixes the parent hash with the block's tokens (splitmix64
// steps: cheap, well spread; collisions are caught by Match anyway).
func blockHash(parent uint64, tokens []int32) uint64 {
	h := parent
	for _, t := range tokens {
		h ^= uint64(uint32(t)) + 0x9e3779b97f4a7c15 + h<<6 + h>>2
		h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
		h = (h ^ h>>27) * 0x94d049bb133111eb
		h ^= h >> 31
	}
	return h
}

// Match returns the cached blocks of the longest chain of tokens' full
// blocks that is cached (hashes from HashBlocks of the same tokens), most
// recently used now. Pass them to Cache.AppendBlocks.
func (p *PrefixCache) Match(dst []BlockID, tokens []int32, hashes []uint64) []BlockID {
	bl := p.c.cfg.BlockLen
	parent := prefixSeed
	for i, h := range hashes {
		e := p.entries[h]
		if e == nil || e.parent != parent || !slices.Equal(e.tokens, tokens[i*bl:(i+1)*bl]) {
			break
		}
		p.touch(e)
		dst = append(dst, e.block)
		parent = h
	}
	return dst
}

// Insert registers blocks [from, len(hashes)) of seq under their hashes
// (tokens are the sequence's tokens, at least len(hashes)*BlockLen of
// them). A hash already cached keeps its block: the sequence's own copy
// is then simply not shared.
func (p *PrefixCache) Insert(seq SeqID, tokens []int32, hashes []uint64, from int) error {
	bl := p.c.cfg.BlockLen
	for i := from; i < len(hashes); i++ {
		h := hashes[i]
		if e := p.entries[h]; e != nil {
			p.touch(e)
			continue
		}
		b, err := p.c.BlockAt(seq, i)
		if err != nil {
			return err
		}
		if err := p.c.Retain(b); err != nil {
			return err
		}
		parent := prefixSeed
		if i > 0 {
			parent = hashes[i-1]
		}
		e := &prefixEntry{hash: h, parent: parent, tokens: slices.Clone(tokens[i*bl : (i+1)*bl]), block: b}
		p.entries[h] = e
		p.link(e)
	}
	return nil
}

// Evict releases least recently used blocks that only the prefix cache
// references until the Cache has at least need free blocks or none is
// left to evict; it returns the number evicted.
func (p *PrefixCache) Evict(need int) int {
	n := 0
	for e := p.head.prev; e != &p.head && p.c.FreeBlocks() < need; {
		prev := e.prev
		if p.c.Refs(e.block) == 1 {
			p.remove(e)
			n++
		}
		e = prev
	}
	return n
}

// Clear evicts every entry (blocks still used by sequences stay with them).
func (p *PrefixCache) Clear() {
	for e := p.head.next; e != &p.head; {
		next := e.next
		p.remove(e)
		e = next
	}
}

// Len is the number of cached blocks.
func (p *PrefixCache) Len() int { return len(p.entries) }

// Evictable is the number of cached blocks no sequence uses: memory that
// is cached but free for the taking.
func (p *PrefixCache) Evictable() int {
	n := 0
	for _, e := range p.entries {
		if p.c.Refs(e.block) == 1 {
			n++
		}
	}
	return n
}

func (p *PrefixCache) remove(e *prefixEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	delete(p.entries, e.hash)
	p.c.Release(e.block) // held since Insert: cannot fail
}

func (p *PrefixCache) link(e *prefixEntry) {
	e.prev, e.next = &p.head, p.head.next
	p.head.next.prev = e
	p.head.next = e
}

func (p *PrefixCache) touch(e *prefixEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	p.link(e)
}
