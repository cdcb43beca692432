package kvcache

import "github.com/gollm/gollm/ggml"

// View lists the blocks holding positions [0, N) of one layer of one
// sequence, in order; see the package documentation for how to walk it.
// The slices alias the cache's storage: they stay valid until the next
// mutating call on the cache (a Free, Truncate, Remove, Reserve or Fork may
// recycle or copy blocks).
type View struct {
	Type      ggml.Type
	BlockLen  int
	N         int // positions in the view; the last block holds N-(len(K)-1)*BlockLen of them
	KRowBytes int // bytes of one position's K in a block
	VRowBytes int
	// K[b] and V[b] are block b (BlockLen rows each): position
	// b*BlockLen+i is K[b][i*KRowBytes:(i+1)*KRowBytes].
	K, V [][]byte
}

// View fills v with the blocks of layer holding positions [0, n) of seq. n
// may include reserved positions not yet committed (attention over the
// tokens of the current forward pass). v's slices are reused, so a View
// kept across calls allocates nothing once it has grown. A call outside
// the contract (unknown sequence or layer, n past the reservation) panics.
func (c *Cache) View(layer int, seq SeqID, n int, v *View) {
	if seq < 0 || int(seq) >= len(c.seqs) || layer < 0 || layer >= c.cfg.Layers {
		badCall("View", layer, seq, n)
	}
	s := &c.seqs[seq]
	if n < 0 || n > max(s.length, s.resEnd) || !s.live {
		badCall("View", layer, seq, n)
	}
	nb := c.blocksFor(n)
	v.Type, v.BlockLen, v.N = c.cfg.Type, c.cfg.BlockLen, n
	v.KRowBytes, v.VRowBytes = c.kRow, c.vRow
	if cap(v.K) < nb {
		v.K = make([][]byte, nb, max(nb, 2*cap(v.K)))
	}
	if cap(v.V) < nb {
		v.V = make([][]byte, nb, max(nb, 2*cap(v.V)))
	}
	v.K, v.V = v.K[:nb], v.V[:nb]
	for i, b := range s.blocks[:nb] {
		v.K[i] = c.kData(layer, b)
		v.V[i] = c.vData(layer, b)
	}
}

// Rows returns the number of positions block b of the view holds.
func (v *View) Rows(b int) int { return min(v.BlockLen, v.N-b*v.BlockLen) }

// KRow returns the stored K of position p (p < N).
func (v *View) KRow(p int) []byte {
	i := p % v.BlockLen
	return v.K[p/v.BlockLen][i*v.KRowBytes : (i+1)*v.KRowBytes]
}

// VRow returns the stored V of position p (p < N).
func (v *View) VRow(p int) []byte {
	i := p % v.BlockLen
	return v.V[p/v.BlockLen][i*v.VRowBytes : (i+1)*v.VRowBytes]
}

// KF16 returns K block b as IEEE halves (F16 storage only), without copying.
func (v *View) KF16(b int) []uint16 { return asU16(v.K[b]) }

// VF16 returns V block b as IEEE halves (F16 storage only), without copying.
func (v *View) VF16(b int) []uint16 { return asU16(v.V[b]) }

// KF32 returns K block b as float32s (F32 storage only), without copying.
func (v *View) KF32(b int) []float32 { return asF32(v.K[b]) }

// VF32 returns V block b as float32s (F32 storage only), without copying.
func (v *View) VF32(b int) []float32 { return asF32(v.V[b]) }
