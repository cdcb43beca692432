package tokenizer_test

import (
	"fmt"
	"log"
	"strconv"
	"strings"

	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/tokenizer"
)

// A SentencePiece vocabulary built by hand: the tokenizer merges the
// characters of each word into the highest-scoring pieces the vocabulary
// has, after the "▁" that marks a word's start.
func Example() {
	v := &tokenizer.Vocab{
		Model:  "llama",
		Tokens: []string{"<unk>", "<s>", "</s>", "▁", "h", "i", "!", "▁h", "▁hi"},
		Scores: []float32{0, 0, 0, -1, -1, -1, -1, -0.5, -0.1},
		Types: []int32{tokenizer.TypeUnknown, tokenizer.TypeControl, tokenizer.TypeControl,
			tokenizer.TypeNormal, tokenizer.TypeNormal, tokenizer.TypeNormal, tokenizer.TypeNormal,
			tokenizer.TypeNormal, tokenizer.TypeNormal},
		BOS: 1, EOS: 2, UNK: 0, PAD: -1, EOT: -1, EOM: -1, FIMPad: -1, FIMRep: -1, FIMSep: -1,
		AddBOS: true, AddSpacePrefix: true,
	}
	tok, err := tokenizer.New(v)
	if err != nil {
		log.Fatal(err)
	}
	ids := tok.Encode("hi hi!", true, false) // with BOS, control-token texts left as text
	var pieces []string
	for _, id := range ids {
		pieces = append(pieces, tok.Token(id))
	}
	fmt.Println(ids, strings.Join(pieces, " "))
	// Without the BOS, the first word loses the space Encode put before it.
	fmt.Printf("%q\n", tok.Decode(ids[1:]))
	// Output:
	// [1 8 8 6] <s> ▁hi ▁hi !
	// "hi hi!"
}

// The tokenizer of a GGUF model (or vocabulary-only) file, as llama.cpp
// reads it. (Compile-only: it needs a file.)
func ExampleFromGGUF() {
	f, err := gguf.Open("ggml-vocab-llama-spm.gguf")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		log.Fatal(err)
	}
	ids := tok.Encode("Hello world", true, false)
	fmt.Println(ids, tok.Decode(ids))
}

// Text streamed token by token: a piece that ends inside a UTF-8 character
// is held back until the character is whole.
func ExampleTokenizer_NewStreamDecoder() {
	v := &tokenizer.Vocab{
		Model:  "llama",
		Tokens: []string{"<unk>", "<s>", "</s>", "<0xC3>", "<0xA9>", "▁", "c", "a", "f", "▁c", "▁ca", "▁caf"},
		Scores: []float32{0, 0, 0, 0, 0, -1, -1, -1, -1, -0.5, -0.4, -0.3},
		Types: []int32{tokenizer.TypeUnknown, tokenizer.TypeControl, tokenizer.TypeControl,
			tokenizer.TypeByte, tokenizer.TypeByte, tokenizer.TypeNormal, tokenizer.TypeNormal, tokenizer.TypeNormal,
			tokenizer.TypeNormal, tokenizer.TypeNormal, tokenizer.TypeNormal, tokenizer.TypeNormal},
		BOS: 1, EOS: 2, UNK: 0, PAD: -1, EOT: -1, EOM: -1, FIMPad: -1, FIMRep: -1, FIMSep: -1,
		AddSpacePrefix: true,
	}
	tok, err := tokenizer.New(v)
	if err != nil {
		log.Fatal(err)
	}
	ids := tok.Encode("café", false, false) // "é" has no piece: its two bytes
	fmt.Println(ids)
	d := tok.NewStreamDecoder()
	var parts []string
	for _, id := range ids {
		parts = append(parts, strconv.Quote(d.Add(id)))
	}
	fmt.Println(strings.Join(parts, " "), strconv.Quote(d.Flush()))
	// Output:
	// [11 3 4]
	// " caf" "" "é" ""
}
