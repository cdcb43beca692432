package kvcache

import (
	"fmt"

	"github.com/gollm/gollm/ggml"
)

// DefaultBlockLen is the block size used when Config.BlockLen is 0.
const DefaultBlockLen = 16

// defaultChunkBytes is the target size of one on-demand allocation when
// Config.ChunkBlocks is 0: large enough that growth is rare (a few
// allocations per thousand positions on a 1B model), small enough that an
// idle cache stays far below the model's own footprint.
const defaultChunkBytes = 4 << 20

// maxBlocks bounds the block count so that block ids fit the int32 tables.
const maxBlocks = 1<<31 - 1

// Config describes a cache. Zero BlockLen and ChunkBlocks take their
// defaults (16 positions, about 4 MiB per chunk). Type has no "unset"
// value: ggml.F32 is type id 0, so callers choose F16 (the usual default,
// as in llama.cpp) explicitly.
type Config struct {
	Layers int
	KVDim  int // values per position of K (kv_heads * head_dim)
	VDim   int // values per position of V (kv_heads * head_dim_v)
	// BlockLen is the number of positions per block.
	BlockLen int
	// Type is the storage type: ggml.F16, ggml.Q8_0 or ggml.F32. Q8_0
	// needs KVDim and VDim to be multiples of 32.
	Type ggml.Type
	// MaxPositions bounds the positions held over all sequences together:
	// the cache has ceil(MaxPositions/BlockLen) blocks. Memory is allocated
	// as blocks are first used, not up front.
	MaxPositions int
	// ChunkBlocks is the number of blocks allocated at once when the cache
	// grows (0: as many as fit about 4 MiB over all layers, at least 1).
	ChunkBlocks int
}

// withDefaults fills the zero fields and validates the result.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.BlockLen == 0 {
		cfg.BlockLen = DefaultBlockLen
	}
	switch {
	case cfg.Layers <= 0:
		return cfg, fmt.Errorf("%w: %d layers", ErrBadConfig, cfg.Layers)
	case cfg.KVDim <= 0 || cfg.VDim <= 0:
		return cfg, fmt.Errorf("%w: KVDim %d, VDim %d", ErrBadConfig, cfg.KVDim, cfg.VDim)
	case cfg.BlockLen < 0:
		return cfg, fmt.Errorf("%w: block length %d", ErrBadConfig, cfg.BlockLen)
	case cfg.MaxPositions <= 0:
		return cfg, fmt.Errorf("%w: MaxPositions %d", ErrBadConfig, cfg.MaxPositions)
	case cfg.ChunkBlocks < 0:
		return cfg, fmt.Errorf("%w: ChunkBlocks %d", ErrBadConfig, cfg.ChunkBlocks)
	}
	switch cfg.Type {
	case ggml.F32, ggml.F16:
	case ggml.Q8_0:
		if cfg.KVDim%32 != 0 || cfg.VDim%32 != 0 {
			return cfg, fmt.Errorf("%w: Q8_0 storage needs KVDim and VDim multiples of 32, have %d and %d",
				ErrBadConfig, cfg.KVDim, cfg.VDim)
		}
	default:
		return cfg, fmt.Errorf("%w: storage type %v (want F16, Q8_0 or F32)", ErrBadConfig, cfg.Type)
	}
	if blocks := (int64(cfg.MaxPositions) + int64(cfg.BlockLen) - 1) / int64(cfg.BlockLen); blocks > maxBlocks {
		return cfg, fmt.Errorf("%w: %d blocks exceed %d", ErrBadConfig, blocks, maxBlocks)
	}
	return cfg, nil
}

// rowBytes is the storage size of one position of dim values.
func rowBytes(t ggml.Type, dim int) int {
	switch t {
	case ggml.F32:
		return 4 * dim
	case ggml.F16:
		return 2 * dim
	default: // Q8_0, validated
		return dim / 32 * 34
	}
}
