package kvcache

import (
	"fmt"
	"unsafe"
)

// SeqID names a sequence of a Cache. Ids of freed sequences are reused by
// later NewSeq/Fork calls.
type SeqID int

// seqState is one sequence: its block table and how far it is written.
type seqState struct {
	live   bool
	blocks []int32 // block table: blocks[i] holds positions [i*BlockLen, (i+1)*BlockLen)
	length int     // committed positions
	resEnd int     // Put may write positions [length, resEnd)
}

// Cache is a paged KV cache; see the package documentation.
type Cache struct {
	cfg Config

	kRow, vRow     int // bytes of one position's K / V
	kBlock, vBlock int // bytes of one block of one layer's K / V
	chunkBlocks    int // blocks per on-demand allocation
	totalBlocks    int

	// chunks[c] stores blocks [c*chunkBlocks, c*chunkBlocks+n) with
	// n = chunkLen(c), laid out [layer][K of n blocks | V of n blocks], so
	// one layer's blocks of a chunk are contiguous.
	chunks [][]byte
	refs   []int32 // reference count per block id ever handed out (len = high-water mark)
	free   []int32 // LIFO stack of ids with refs 0: the last freed is reused first (still in cache)
	used   int     // blocks with refs > 0

	seqs     []seqState
	freeSeqs []SeqID
}

// New returns an empty cache. It allocates no block storage.
func New(cfg Config) (*Cache, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Cache{cfg: cfg}
	c.kRow, c.vRow = rowBytes(cfg.Type, cfg.KVDim), rowBytes(cfg.Type, cfg.VDim)
	c.kBlock, c.vBlock = cfg.BlockLen*c.kRow, cfg.BlockLen*c.vRow
	c.totalBlocks = (cfg.MaxPositions + cfg.BlockLen - 1) / cfg.BlockLen
	c.chunkBlocks = cfg.ChunkBlocks
	if c.chunkBlocks == 0 {
		c.chunkBlocks = max(1, defaultChunkBytes/c.blockBytes())
	}
	c.chunkBlocks = min(c.chunkBlocks, c.totalBlocks)
	return c, nil
}

// Config returns the configuration with defaults filled in.
func (c *Cache) Config() Config { return c.cfg }

// blockBytes is the storage of one block over all layers, K and V.
func (c *Cache) blockBytes() int { return c.cfg.Layers * (c.kBlock + c.vBlock) }

// NewSeq starts an empty sequence.
func (c *Cache) NewSeq() SeqID {
	if n := len(c.freeSeqs); n > 0 {
		id := c.freeSeqs[n-1]
		c.freeSeqs = c.freeSeqs[:n-1]
		s := &c.seqs[id]
		*s = seqState{live: true, blocks: s.blocks[:0]}
		return id
	}
	c.seqs = append(c.seqs, seqState{live: true})
	return SeqID(len(c.seqs) - 1)
}

// Fork starts a sequence holding the same positions as src, sharing src's
// blocks (no copy). Whichever of the two later writes into a shared block
// gets a private copy of it first (in Reserve or Remove).
//
// Sharing src's partial last block is safe even while src holds a
// reservation into it: src only writes positions >= its Len, which the new
// sequence (of the same Len) never reads, and the new sequence copies the
// block before its own first write.
func (c *Cache) Fork(src SeqID) (SeqID, error) {
	s, err := c.seq(src, "Fork")
	if err != nil {
		return 0, err
	}
	n := c.blocksFor(s.length)
	length := s.length
	id := c.NewSeq() // may move c.seqs: do not use s below
	d := &c.seqs[id]
	d.blocks = append(d.blocks, c.seqs[src].blocks[:n]...)
	for _, b := range d.blocks {
		c.refs[b]++
	}
	d.length, d.resEnd = length, length
	return id, nil
}

// Free releases seq's blocks (a shared block stays with its other owners)
// and its id. Unknown or already freed ids are ignored.
func (c *Cache) Free(seq SeqID) {
	s, err := c.seq(seq, "Free")
	if err != nil {
		return
	}
	c.releaseFrom(s, 0)
	*s = seqState{blocks: s.blocks[:0]}
	c.freeSeqs = append(c.freeSeqs, seq)
}

// Reset frees every sequence. Storage stays allocated for reuse.
func (c *Cache) Reset() {
	for id := range c.seqs {
		if c.seqs[id].live {
			c.Free(SeqID(id))
		}
	}
}

// Len returns the positions committed to seq (0 for an unknown id).
func (c *Cache) Len(seq SeqID) int {
	s, err := c.seq(seq, "Len")
	if err != nil {
		return 0
	}
	return s.length
}

// Reserved returns the end of seq's reservation: Put may write positions
// [Len, Reserved). It equals Len when nothing is reserved (0 for an
// unknown id).
func (c *Cache) Reserved(seq SeqID) int {
	s, err := c.seq(seq, "Reserved")
	if err != nil {
		return 0
	}
	return s.resEnd
}

// Bytes returns the storage of blocks in use and the storage allocated
// (which never shrinks: freed blocks are kept for reuse).
func (c *Cache) Bytes() (used, reserved int64) {
	used = int64(c.used) * int64(c.blockBytes())
	for _, ch := range c.chunks {
		reserved += int64(len(ch))
	}
	return used, reserved
}

// Blocks returns the number of blocks in use, free (including blocks not
// allocated yet) and in all.
func (c *Cache) Blocks() (used, free, total int) {
	return c.used, c.totalBlocks - c.used, c.totalBlocks
}

// seq returns the live sequence id or an error naming the method.
func (c *Cache) seq(id SeqID, method string) (*seqState, error) {
	if id < 0 || int(id) >= len(c.seqs) || !c.seqs[id].live {
		return nil, fmt.Errorf("%w: %s(%d)", ErrBadSeq, method, id)
	}
	return &c.seqs[id], nil
}

// blocksFor is the number of blocks that hold n positions.
func (c *Cache) blocksFor(n int) int { return (n + c.cfg.BlockLen - 1) / c.cfg.BlockLen }

// available is the number of blocks that can still be handed out.
func (c *Cache) available() int { return len(c.free) + c.totalBlocks - len(c.refs) }

// fullError is ErrCacheFull with the counts and the way out.
func (c *Cache) fullError(seq SeqID, need int) error {
	return fmt.Errorf("%w: sequence %d needs %d more blocks but only %d of %d are free (%d positions of %d per block)",
		ErrCacheFull, seq, need, c.available(), c.totalBlocks, c.totalBlocks*c.cfg.BlockLen, c.cfg.BlockLen)
}

// allocBlock hands out a block with refcount 1, growing storage by a chunk
// when the high-water mark crosses into a new one. Callers check
// available() first.
func (c *Cache) allocBlock() int32 {
	var b int32
	if n := len(c.free); n > 0 {
		b = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		b = int32(len(c.refs))
		if int(b)%c.chunkBlocks == 0 {
			c.growChunk()
		}
		c.refs = append(c.refs, 0)
	}
	c.refs[b] = 1
	c.used++
	return b
}

// growChunk allocates the storage of the next chunk of blocks. It is
// allocated as uint64s so that rows can be reinterpreted as uint16 or
// float32 without alignment concerns.
func (c *Cache) growChunk() {
	n := c.chunkLen(len(c.chunks))
	size := n * c.blockBytes()
	words := make([]uint64, (size+7)/8)
	c.chunks = append(c.chunks, unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), size))
}

// chunkLen is the number of blocks chunk ch holds (the last may be short).
func (c *Cache) chunkLen(ch int) int {
	return min(c.chunkBlocks, c.totalBlocks-ch*c.chunkBlocks)
}

// release drops one reference to block b, returning it to the free list at 0.
func (c *Cache) release(b int32) {
	c.refs[b]--
	switch {
	case c.refs[b] == 0:
		c.free = append(c.free, b)
		c.used--
	case c.refs[b] < 0:
		panic(fmt.Sprintf("kvcache: block %d released more often than referenced", b))
	}
}

// releaseFrom drops s's blocks from table index i on.
func (c *Cache) releaseFrom(s *seqState, i int) {
	for j := len(s.blocks) - 1; j >= i; j-- {
		c.release(s.blocks[j])
	}
	s.blocks = s.blocks[:i]
}

// privatize gives s its own copy of each block of table indexes [i0, i1)
// that is shared, so that writing there cannot change another sequence.
// Callers check available() against sharedIn first.
func (c *Cache) privatize(s *seqState, i0, i1 int) {
	for i := i0; i < i1; i++ {
		old := s.blocks[i]
		if c.refs[old] <= 1 {
			continue
		}
		nb := c.allocBlock()
		c.copyBlock(nb, old)
		c.release(old)
		s.blocks[i] = nb
	}
}

// sharedIn counts the shared blocks among table indexes [i0, i1) of s.
func (c *Cache) sharedIn(s *seqState, i0, i1 int) int {
	n := 0
	for i := i0; i < min(i1, len(s.blocks)); i++ {
		if c.refs[s.blocks[i]] > 1 {
			n++
		}
	}
	return n
}

// copyBlock copies block src to dst in every layer, K and V.
func (c *Cache) copyBlock(dst, src int32) {
	for l := 0; l < c.cfg.Layers; l++ {
		copy(c.kData(l, dst), c.kData(l, src))
		copy(c.vData(l, dst), c.vData(l, src))
	}
}

// kData is the K storage of block b in layer l (BlockLen rows).
func (c *Cache) kData(l int, b int32) []byte {
	ch, i := int(b)/c.chunkBlocks, int(b)%c.chunkBlocks
	n := c.chunkLen(ch)
	off := l*n*(c.kBlock+c.vBlock) + i*c.kBlock
	return c.chunks[ch][off : off+c.kBlock : off+c.kBlock]
}

// vData is the V storage of block b in layer l (BlockLen rows).
func (c *Cache) vData(l int, b int32) []byte {
	ch, i := int(b)/c.chunkBlocks, int(b)%c.chunkBlocks
	n := c.chunkLen(ch)
	off := l*n*(c.kBlock+c.vBlock) + n*c.kBlock + i*c.vBlock
	return c.chunks[ch][off : off+c.vBlock : off+c.vBlock]
}
