package kvcache

import "fmt"

// check verifies the allocator's invariants: every block's refcount equals
// the number of block tables holding it (so none is negative or leaked),
// the free list holds exactly the unreferenced blocks once each, the used
// counter agrees, and every live table covers its reservation.
func (c *Cache) check() error {
	count := make([]int32, len(c.refs))
	dead := 0
	for id, s := range c.seqs {
		if !s.live {
			dead++
			if len(s.blocks) != 0 {
				return fmt.Errorf("dead sequence %d holds %d blocks", id, len(s.blocks))
			}
			continue
		}
		if s.length > s.resEnd {
			return fmt.Errorf("sequence %d: length %d > reserved %d", id, s.length, s.resEnd)
		}
		if want := c.blocksFor(s.resEnd); len(s.blocks) != want {
			return fmt.Errorf("sequence %d: %d blocks for %d reserved positions, want %d", id, len(s.blocks), s.resEnd, want)
		}
		for _, b := range s.blocks {
			if b < 0 || int(b) >= len(c.refs) {
				return fmt.Errorf("sequence %d: block id %d out of range", id, b)
			}
			count[b]++
		}
	}
	if dead != len(c.freeSeqs) {
		return fmt.Errorf("%d dead sequences but %d free ids", dead, len(c.freeSeqs))
	}
	used := 0
	for b, r := range c.refs {
		if r < 0 {
			return fmt.Errorf("block %d: negative refcount %d", b, r)
		}
		if r != count[b] {
			return fmt.Errorf("block %d: refcount %d but %d tables hold it", b, r, count[b])
		}
		if r > 0 {
			used++
		}
	}
	if used != c.used {
		return fmt.Errorf("used counter %d, counted %d", c.used, used)
	}
	onFree := make([]bool, len(c.refs))
	for _, b := range c.free {
		if c.refs[b] != 0 || onFree[b] {
			return fmt.Errorf("free list: block %d has refcount %d or is listed twice", b, c.refs[b])
		}
		onFree[b] = true
	}
	if len(c.free)+used != len(c.refs) {
		return fmt.Errorf("%d free + %d used != %d blocks handed out", len(c.free), used, len(c.refs))
	}
	if u, f, t := c.Blocks(); u+f != t || t != c.totalBlocks {
		return fmt.Errorf("Blocks() = %d, %d, %d", u, f, t)
	}
	return nil
}
