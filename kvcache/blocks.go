package kvcache

import "fmt"

// Sharing whole blocks between sequences outside Fork: a prefix cache
// (prefix.go) keeps the full blocks of finished sequences alive by holding
// a reference of its own, and a new sequence whose tokens begin with a
// cached chain of blocks adopts them instead of recomputing them.

// BlockID names one block of the cache's storage (all layers, K and V).
type BlockID int32

// BlockAt returns the block holding positions [i*BlockLen, (i+1)*BlockLen)
// of seq.
func (c *Cache) BlockAt(seq SeqID, i int) (BlockID, error) {
	s, err := c.seq(seq, "BlockAt")
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= len(s.blocks) {
		return 0, fmt.Errorf("%w: BlockAt(%d, %d) of a sequence of %d blocks", ErrBadPos, seq, i, len(s.blocks))
	}
	return BlockID(s.blocks[i]), nil
}

// Retain adds a reference to block b, which must be in use: it stays
// allocated (and its contents unchanged, since sequences copy shared
// blocks before writing) until the matching Release, whatever happens to
// the sequences that hold it.
func (c *Cache) Retain(b BlockID) error {
	if err := c.inUse(b, "Retain"); err != nil {
		return err
	}
	c.refs[b]++
	return nil
}

// Release drops a reference taken by Retain; at zero the block is free.
func (c *Cache) Release(b BlockID) error {
	if err := c.inUse(b, "Release"); err != nil {
		return err
	}
	c.release(int32(b))
	return nil
}

// Refs returns the number of references to block b (sequences holding it
// plus Retains); 0 for a free or unknown block.
func (c *Cache) Refs(b BlockID) int {
	if b < 0 || int(b) >= len(c.refs) {
		return 0
	}
	return int(c.refs[b])
}

// AppendBlocks appends full blocks to seq, which must end on a block
// boundary with no reservation (an empty sequence, typically): its length
// grows by len(blocks)*BlockLen and each block gains a reference. The
// blocks' rows must hold the K and V of exactly the tokens the caller
// means them to stand for (a prefix cache's hash chain guarantees that).
// It changes nothing when it returns an error.
func (c *Cache) AppendBlocks(seq SeqID, blocks []BlockID) error {
	s, err := c.seq(seq, "AppendBlocks")
	if err != nil {
		return err
	}
	bl := c.cfg.BlockLen
	if s.length%bl != 0 || s.resEnd != s.length || len(s.blocks) != s.length/bl {
		return fmt.Errorf("%w: AppendBlocks to sequence %d at position %d (reserved to %d): not on a block boundary",
			ErrBadPos, seq, s.length, s.resEnd)
	}
	if s.length+len(blocks)*bl > c.cfg.MaxPositions {
		return c.fullError(seq, len(blocks))
	}
	for _, b := range blocks {
		if err := c.inUse(b, "AppendBlocks"); err != nil {
			return err
		}
	}
	for _, b := range blocks {
		c.refs[b]++
		s.blocks = append(s.blocks, int32(b))
	}
	s.length += len(blocks) * bl
	s.resEnd = s.length
	return nil
}

// FreeBlocks is the number of blocks that can still be handed out
// (never-used storage included).
func (c *Cache) FreeBlocks() int { return c.available() }

func (c *Cache) inUse(b BlockID, method string) error {
	if b < 0 || int(b) >= len(c.refs) || c.refs[b] <= 0 {
		return fmt.Errorf("%w: %s(block %d): not in use", ErrBadPos, method, b)
	}
	return nil
}
