// Package kvcache is a paged key/value cache for transformer attention, in
// the manner of vLLM's PagedAttention: storage is cut into fixed-size blocks
// of BlockLen positions, each sequence owns a block table (one table serves
// every layer: block id b names the same slot in each layer's storage), free
// blocks sit on a LIFO free list, and per-block reference counts let a
// sequence be forked without copying its prompt. A block shared by several
// sequences is copied (in all layers) when one of them is about to write
// into it: copy-on-write, done by Reserve so that Put never allocates.
//
// Memory is allocated on demand in chunks of blocks when a block id is first
// used, so a cache sized for a million positions costs nothing until it
// fills. Blocks are recycled through the free list, never returned to the Go
// heap (Bytes reports both figures).
//
// # Writing one forward pass
//
//	if err := c.Reserve(seq, n); err != nil { ... } // may fail: ErrCacheFull
//	for each layer L, for each new position p in [Len, Len+n):
//	    c.Put(L, seq, p, k, v)                      // never fails, never allocates
//	    c.View(L, seq, p+1, &view)                  // attention may read reserved positions
//	c.Commit(seq, n)                                // Len += n
//
// # Walking a View in attention
//
// View(layer, seq, n, &v) lists the blocks holding positions [0, n) in
// order. Every block but the last is full; the last holds
// n - (len(v.K)-1)*v.BlockLen positions (its remaining rows are stale
// bytes and must not be read). Position p lives in block p/BlockLen at row
// p%BlockLen:
//
//	for b := range v.K {
//	    rows := min(v.BlockLen, v.N-b*v.BlockLen)
//	    kb, vb := v.K[b], v.V[b]                  // or v.KF16(b), v.KF32(b), ...
//	    for i := 0; i < rows; i++ {
//	        k := kb[i*v.KRowBytes : (i+1)*v.KRowBytes] // position b*BlockLen+i
//	        ...                                        // head h: its HeadDim slice of k
//	    }
//	}
//
// A row is one position's KVDim (or VDim) values in the storage type: F32
// and F16 rows are plain arrays (KF32/KF16 reinterpret a block without
// copying); a Q8_0 row is KVDim/32 blocks of 34 bytes (fp16 scale, 32 int8
// codes), so a head of HeadDim values (a multiple of 32) starts at byte
// h*HeadDim/32*34. Walk the blocks once per query with an online softmax;
// within a block the rows are contiguous, which is what the SIMD kernels
// want.
//
// # Prefix caching
//
// PrefixCache (prefix.go) keeps the full blocks of finished sequences,
// addressed by a hash chain of their tokens, with a reference of its own
// (Retain/Release, blocks.go); a new sequence whose tokens begin with a
// cached chain adopts those blocks (AppendBlocks) instead of recomputing
// them, and unreferenced cached blocks are evicted least recently used
// first when memory is needed.
//
// # Concurrency
//
// A Cache is not safe for concurrent mutation: NewSeq, Fork, Free, Truncate,
// Remove, Reserve, Commit and Reset must not run concurrently with each
// other or with Put and View. Between a Reserve and the next mutating call,
// Put and View may run from many goroutines at once, as the engine's
// workers do, provided no two goroutines Put the same (layer, seq, pos):
// Put writes only the bytes of its own row and View only reads the block
// tables.
//
// # Programmer errors
//
// Put, View and Commit sit on the hot path and have no error result; a call
// outside their contract (unknown sequence, layer out of range, a position
// that was not reserved, short k or v) panics with a message naming the
// method, like an out-of-range slice index. Every other method reports bad
// arguments as errors wrapping ErrBadSeq or ErrBadPos.
package kvcache
