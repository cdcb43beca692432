package kvcache

import "fmt"

// Reserve makes positions [Len, Len+n) of seq writable in every layer:
// it appends the blocks they need and copies any shared block they fall in
// (copy-on-write), so that the Puts of a forward pass neither allocate nor
// fail. Len does not change until Commit. Reserving less than an earlier,
// uncommitted reservation keeps the larger one.
//
// When the cache has too few free blocks it returns an error wrapping
// ErrCacheFull and changes nothing.
func (c *Cache) Reserve(seq SeqID, n int) error {
	s, err := c.seq(seq, "Reserve")
	if err != nil {
		return err
	}
	if n < 0 {
		return fmt.Errorf("%w: Reserve(%d, %d): negative count", ErrBadPos, seq, n)
	}
	end := s.length + n
	if n == 0 || end <= s.resEnd {
		return nil
	}
	if end > c.cfg.MaxPositions {
		return c.fullError(seq, c.blocksFor(end)-len(s.blocks))
	}
	// Table indexes written: those holding positions [length, end).
	i0, i1 := s.length/c.cfg.BlockLen, c.blocksFor(end)
	need := c.sharedIn(s, i0, i1) + max(0, i1-len(s.blocks))
	if need > c.available() {
		return c.fullError(seq, need)
	}
	c.privatize(s, i0, min(i1, len(s.blocks)))
	for len(s.blocks) < i1 {
		s.blocks = append(s.blocks, c.allocBlock())
	}
	s.resEnd = end
	return nil
}

// Put stores the K and V of position pos of seq in layer, converted to the
// storage type. pos must be reserved (Len <= pos < Len+n of the last
// Reserve); k and v hold at least KVDim and VDim values. Put neither
// allocates nor fails; a call outside that contract panics.
func (c *Cache) Put(layer int, seq SeqID, pos int, k, v []float32) {
	if seq < 0 || int(seq) >= len(c.seqs) || layer < 0 || layer >= c.cfg.Layers {
		badCall("Put", layer, seq, pos)
	}
	s := &c.seqs[seq]
	if pos < s.length || pos >= s.resEnd || len(k) < c.cfg.KVDim || len(v) < c.cfg.VDim { // a dead sequence has resEnd 0
		badCall("Put", layer, seq, pos)
	}
	b, i := s.blocks[pos/c.cfg.BlockLen], pos%c.cfg.BlockLen
	encodeRow(c.cfg.Type, c.kData(layer, b)[i*c.kRow:(i+1)*c.kRow], k[:c.cfg.KVDim])
	encodeRow(c.cfg.Type, c.vData(layer, b)[i*c.vRow:(i+1)*c.vRow], v[:c.cfg.VDim])
}

// Commit makes n more positions of seq visible in Len, once every layer
// has written them. The n positions must have been reserved; a call
// outside that contract panics.
func (c *Cache) Commit(seq SeqID, n int) {
	if seq < 0 || int(seq) >= len(c.seqs) {
		badCall("Commit", -1, seq, n)
	}
	s := &c.seqs[seq]
	if n < 0 || !s.live || s.length+n > s.resEnd {
		badCall("Commit", -1, seq, n)
	}
	s.length += n
}

// Truncate keeps positions [0, n) of seq and releases the blocks past them.
// It also cancels any uncommitted reservation.
func (c *Cache) Truncate(seq SeqID, n int) error {
	s, err := c.seq(seq, "Truncate")
	if err != nil {
		return err
	}
	if n < 0 || n > s.length {
		return fmt.Errorf("%w: Truncate(%d, %d) of a sequence of %d positions", ErrBadPos, seq, n, s.length)
	}
	c.truncate(s, n)
	return nil
}

func (c *Cache) truncate(s *seqState, n int) {
	c.releaseFrom(s, c.blocksFor(n))
	s.length, s.resEnd = n, n
}

// Remove drops positions [p0, p1) of seq; positions from p1 on move down by
// p1-p0. It also cancels any uncommitted reservation.
//
// The moved K and V are kept exactly as stored: keys that were rotated
// with RoPE for their old positions are NOT re-rotated for the new ones.
// Use Remove to drop a suffix, or for caches whose keys carry no position;
// removing from the middle of a RoPE'd sequence leaves keys whose relative
// positions are off by p1-p0.
//
// When both ends are block-aligned whole blocks are unlinked without
// copying; otherwise the later rows are copied down, after the blocks they
// land in are made private (which may need free blocks: ErrCacheFull, with
// the sequence unchanged).
func (c *Cache) Remove(seq SeqID, p0, p1 int) error {
	s, err := c.seq(seq, "Remove")
	if err != nil {
		return err
	}
	if p0 < 0 || p1 < p0 || p1 > s.length {
		return fmt.Errorf("%w: Remove(%d, %d, %d) of a sequence of %d positions", ErrBadPos, seq, p0, p1, s.length)
	}
	bl := c.cfg.BlockLen
	newLen := s.length - (p1 - p0)
	switch {
	case p0 == p1:
		c.truncate(s, s.length) // only cancels the reservation
		return nil
	case p1 == s.length:
		c.truncate(s, p0)
		return nil
	case p0%bl == 0 && p1%bl == 0:
		c.truncate(s, s.length)
		i0, i1 := p0/bl, p1/bl
		for _, b := range s.blocks[i0:i1] {
			c.release(b)
		}
		s.blocks = append(s.blocks[:i0], s.blocks[i1:]...)
		s.length, s.resEnd = newLen, newLen
		return nil
	}
	// Rows land in positions [p0, newLen): make those blocks private.
	i0, i1 := p0/bl, c.blocksFor(newLen)
	if need := c.sharedIn(s, i0, i1); need > c.available() {
		return c.fullError(seq, need)
	}
	c.truncate(s, s.length)
	c.privatize(s, i0, i1)
	d := p1 - p0
	for l := 0; l < c.cfg.Layers; l++ {
		for p := p0; p < newLen; p++ {
			c.moveRow(l, s, p+d, p)
		}
	}
	c.truncate(s, newLen)
	return nil
}

// moveRow copies position from to position to (to < from) in layer l.
func (c *Cache) moveRow(l int, s *seqState, from, to int) {
	bl := c.cfg.BlockLen
	fb, fi := s.blocks[from/bl], from%bl
	tb, ti := s.blocks[to/bl], to%bl
	copy(c.kData(l, tb)[ti*c.kRow:(ti+1)*c.kRow], c.kData(l, fb)[fi*c.kRow:(fi+1)*c.kRow])
	copy(c.vData(l, tb)[ti*c.vRow:(ti+1)*c.vRow], c.vData(l, fb)[fi*c.vRow:(fi+1)*c.vRow])
}

// badCall reports a hot-path call outside its contract. It is kept out of
// line so that the callers stay small and their arguments do not escape.
//
//go:noinline
func badCall(method string, layer int, seq SeqID, pos int) {
	panic(fmt.Sprintf("kvcache: %s(layer %d, seq %d, %d) outside the sequence's reserved positions or the cache's layers", method, layer, seq, pos))
}
