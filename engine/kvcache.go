package engine

import "github.com/gollm/gollm/kernels"

// KVCache stores the keys and values of one sequence, per layer, as IEEE
// half floats (llama.cpp's default cache type). It hands out block views; the
// attention math lives in the engine. The paged cache of package kvcache
// implements the same interface.
type KVCache interface {
	// Put stores position pos of layer: k has KVDim, v has VDim elements.
	Put(layer, pos int, k, v []float32)
	// View fills view with the blocks holding positions [0, n) of layer.
	View(layer, n int, view *KVView)
	// Capacity is the number of positions the cache can hold.
	Capacity() int
	// Reset forgets every position.
	Reset()
}

// KVView lists the blocks of one layer: block b holds positions
// [b*BlockLen, (b+1)*BlockLen), each position KVDim (K) or VDim (V) halves.
type KVView struct {
	K, V     [][]uint16
	BlockLen int
}

// flatCache is a contiguous cache: one block per layer spanning the whole
// context. Its memory is allocated up front but only touched pages become
// resident, so a large -c costs address space, not RSS.
type flatCache struct {
	kvDim, vDim, capacity int
	k, v                  [][]uint16 // [layer][capacity*kvDim]
}

func newFlatCache(layers, capacity, kvDim, vDim int) *flatCache {
	c := &flatCache{kvDim: kvDim, vDim: vDim, capacity: capacity,
		k: make([][]uint16, layers), v: make([][]uint16, layers)}
	for l := range c.k {
		c.k[l] = make([]uint16, capacity*kvDim)
		c.v[l] = make([]uint16, capacity*vDim)
	}
	return c
}

func (c *flatCache) Put(layer, pos int, k, v []float32) {
	kernels.F32ToF16(c.k[layer][pos*c.kvDim:(pos+1)*c.kvDim], k)
	kernels.F32ToF16(c.v[layer][pos*c.vDim:(pos+1)*c.vDim], v)
}

func (c *flatCache) View(layer, n int, view *KVView) {
	if cap(view.K) < 1 {
		view.K = make([][]uint16, 1)
		view.V = make([][]uint16, 1)
	}
	view.K, view.V = view.K[:1], view.V[:1]
	view.K[0] = c.k[layer][:n*c.kvDim]
	view.V[0] = c.v[layer][:n*c.vDim]
	view.BlockLen = c.capacity
}

func (c *flatCache) Capacity() int { return c.capacity }

func (c *flatCache) Reset() {}
