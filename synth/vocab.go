package synth

import (
	"fmt"
	"strings"
)

// Token types of tokenizer.ggml.token_type.
const (
	tokNormal  = 1
	tokUnknown = 2
	tokControl = 3
	tokByte    = 6
)

// spmVocab builds a SentencePiece-style vocabulary of n tokens: <unk>, <s>,
// </s>, the 256 byte-fallback tokens, then pieces of growing length over a
// small alphabet (with and without the '▁' word marker), scored so that
// longer pieces win. Any text tokenizes with it (bytes are the fallback), so
// prompts behave as with a real model, just with a made-up segmentation.
func spmVocab(n int) (tokens []string, scores []float32, types []int32) {
	add := func(t string, score float32, typ int32) {
		tokens = append(tokens, t)
		scores = append(scores, score)
		types = append(types, typ)
	}
	add("<unk>", 0, tokUnknown)
	add("<s>", 0, tokControl)
	add("</s>", 0, tokControl)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), 0, tokByte)
	}
	const alphabet = "etaoinshrdlucmfwypvbgkjqxzETAOINSHRDLUCMFWYPVBGKJQXZ0123456789.,!?'\"-:;()"
	seen := map[string]bool{}
	frontier := []string{""}
	for len(tokens) < n && len(frontier) > 0 {
		var next []string
		for _, prefix := range frontier {
			for _, r := range alphabet {
				for _, piece := range []string{"▁" + prefix + string(r), prefix + string(r)} {
					if len(tokens) >= n {
						break
					}
					if seen[piece] {
						continue
					}
					seen[piece] = true
					// Longer pieces score higher so merges go as far as they can.
					add(piece, float32(-len(tokens))/float32(n)+float32(strings.Count(piece, "")), tokNormal)
				}
				next = append(next, prefix+string(r))
			}
		}
		frontier = next
	}
	for len(tokens) < n { // only for absurdly large n: pad with unused pieces
		add(fmt.Sprintf("<unused%d>", len(tokens)), -1e9, tokNormal)
	}
	return tokens[:n], scores[:n], types[:n]
}
