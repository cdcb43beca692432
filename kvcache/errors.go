package kvcache

import "errors"

// ErrCacheFull is returned (wrapped with the block counts and a hint) when a
// Reserve or Remove needs more blocks than the cache has free. The cache is
// unchanged when it is returned.
var ErrCacheFull = errors.New("kvcache: out of blocks")

// ErrBadSeq is returned for a sequence id that is not live (never created
// or already freed).
var ErrBadSeq = errors.New("kvcache: unknown sequence")

// ErrBadPos is returned for a position, length or range outside what the
// sequence holds.
var ErrBadPos = errors.New("kvcache: bad position")

// ErrBadConfig is returned by New for an unusable Config.
var ErrBadConfig = errors.New("kvcache: bad config")
