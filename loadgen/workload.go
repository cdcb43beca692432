package loadgen

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Prompt is one request's input.
type Prompt struct {
	Text string
	// InputTokens is the prompt's length as the workload's vocabulary
	// counts it (0 when unknown); the server's usage count, when it sends
	// one, takes precedence in the results.
	InputTokens int
	// OutputLen is the number of tokens to ask for (max_tokens).
	OutputLen int
}

// Workload gives the prompt of request i. The same i gives the same prompt,
// so runs are reproducible; the runner gives every request of a run (warm-up
// and measured, across levels) its own i, so no two requests share a prompt
// beyond a deliberate prefix. Implementations must be safe for concurrent
// use.
type Workload interface {
	Prompt(i int) Prompt
}

// Vocab is what random prompts need from a tokenizer.
type Vocab interface {
	// Encode tokenizes text as the server will (without BOS/EOS).
	Encode(text string) []int32
	// Decode turns ids back into text.
	Decode(ids []int32) string
	// Size is the number of ids.
	Size() int
	// Usable reports whether id may appear in a random prompt (no control,
	// byte or unused tokens).
	Usable(id int32) bool
}

// ErrWorkload marks a workload that cannot be built (bad lengths, an empty
// or malformed dataset).
var ErrWorkload = errors.New("loadgen: bad workload")

// Random builds prompts of random tokens: PrefixLen tokens shared by every
// prompt, then InputLen tokens (spread uniformly over
// InputLen*(1±RangeRatio) when RangeRatio > 0) drawn at random from the
// usable ids of Vocab. The text is decoded and re-encoded until it encodes
// to exactly the intended count (as vLLM's random dataset does), since a
// decoded id sequence does not always re-encode to itself.
type Random struct {
	vocab      Vocab
	usable     []int32
	inputLen   int
	rangeRatio float64
	outputLen  int
	seed       uint64
	prefix     string
	prefixIDs  []int32
}

// NewRandom checks the lengths and builds the shared prefix.
func NewRandom(v Vocab, inputLen int, rangeRatio float64, prefixLen, outputLen int, seed uint64) (*Random, error) {
	switch {
	case inputLen < 1:
		return nil, fmt.Errorf("%w: input length %d < 1", ErrWorkload, inputLen)
	case outputLen < 1:
		return nil, fmt.Errorf("%w: output length %d < 1", ErrWorkload, outputLen)
	case prefixLen < 0:
		return nil, fmt.Errorf("%w: prefix length %d < 0", ErrWorkload, prefixLen)
	case rangeRatio < 0 || rangeRatio >= 1:
		return nil, fmt.Errorf("%w: input length range ratio %g outside [0, 1)", ErrWorkload, rangeRatio)
	}
	r := &Random{vocab: v, inputLen: inputLen, rangeRatio: rangeRatio, outputLen: outputLen, seed: seed}
	for id := int32(0); int(id) < v.Size(); id++ {
		if v.Usable(id) {
			r.usable = append(r.usable, id)
		}
	}
	if len(r.usable) == 0 {
		return nil, fmt.Errorf("%w: the vocabulary has no usable tokens", ErrWorkload)
	}
	if prefixLen > 0 {
		rng := rand.New(rand.NewPCG(seed, 0xfeed))
		r.prefix, r.prefixIDs = r.fit(rng, "", nil, prefixLen)
	}
	return r, nil
}

// Prompt implements Workload.
func (r *Random) Prompt(i int) Prompt {
	rng := rand.New(rand.NewPCG(r.seed, uint64(i)+1))
	n := r.inputLen
	if r.rangeRatio > 0 {
		lo := int(float64(r.inputLen) * (1 - r.rangeRatio))
		hi := int(float64(r.inputLen) * (1 + r.rangeRatio))
		lo = max(lo, 1)
		n = lo + rng.IntN(hi-lo+1)
	}
	text, ids := r.fit(rng, r.prefix, r.prefixIDs, n)
	return Prompt{Text: text, InputTokens: len(ids), OutputLen: r.outputLen}
}

// fit returns prefix followed by text of n random tokens, and its encoding,
// which has len(prefixIDs)+n ids unless 8 rounds of adjusting could not get
// there (then the closest found).
func (r *Random) fit(rng *rand.Rand, prefix string, prefixIDs []int32, n int) (string, []int32) {
	body := r.draw(rng, nil, n)
	want := len(prefixIDs) + n
	var text string
	var got []int32
	for range 8 {
		text = join(prefix, r.vocab.Decode(body))
		got = r.vocab.Encode(text)
		if len(got) == want {
			break
		}
		// Keep what the tokenizer made of the body and cut or extend it.
		rest := got
		if len(rest) >= len(prefixIDs) && equalIDs(rest[:len(prefixIDs)], prefixIDs) {
			rest = rest[len(prefixIDs):]
		} else {
			rest = nil
		}
		if len(rest) > n {
			body = append(body[:0], rest[:n]...)
		} else {
			body = r.draw(rng, append(body[:0], rest...), n-len(rest))
		}
	}
	return text, got
}

// join puts a space between a prefix and a body that has none at the seam
// (a decoder drops the first token's leading space), so the prefix's last
// word does not run into the body's first.
func join(prefix, body string) string {
	if prefix == "" || body == "" || strings.HasSuffix(prefix, " ") || strings.HasPrefix(body, " ") {
		return prefix + body
	}
	return prefix + " " + body
}

func (r *Random) draw(rng *rand.Rand, ids []int32, n int) []int32 {
	for range n {
		ids = append(ids, r.usable[rng.IntN(len(r.usable))])
	}
	return ids
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Dataset cycles through prompts read from a file.
type Dataset struct {
	prompts []Prompt
}

// datasetLine is one JSONL record: the prompt as "prompt" (or "text"), and
// optionally its output length as "output_len" (or "max_tokens").
type datasetLine struct {
	Prompt    string `json:"prompt"`
	Text      string `json:"text"`
	OutputLen int    `json:"output_len"`
	MaxTokens int    `json:"max_tokens"`
}

// ReadDataset reads JSONL prompts. outputLen applies to records that do not
// give their own; v (may be nil) counts their input tokens.
func ReadDataset(rd io.Reader, v Vocab, outputLen int) (*Dataset, error) {
	d := &Dataset{}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var rec datasetLine
		if err := json.Unmarshal([]byte(b), &rec); err != nil {
			return nil, fmt.Errorf("%w: dataset line %d: %v", ErrWorkload, line, err)
		}
		p := Prompt{Text: rec.Prompt, OutputLen: outputLen}
		if p.Text == "" {
			p.Text = rec.Text
		}
		if p.Text == "" {
			return nil, fmt.Errorf("%w: dataset line %d: no \"prompt\" or \"text\"", ErrWorkload, line)
		}
		if rec.OutputLen > 0 {
			p.OutputLen = rec.OutputLen
		} else if rec.MaxTokens > 0 {
			p.OutputLen = rec.MaxTokens
		}
		if p.OutputLen < 1 {
			return nil, fmt.Errorf("%w: dataset line %d: no output length", ErrWorkload, line)
		}
		if v != nil {
			p.InputTokens = len(v.Encode(p.Text))
		}
		d.prompts = append(d.prompts, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: reading dataset: %v", ErrWorkload, err)
	}
	if len(d.prompts) == 0 {
		return nil, fmt.Errorf("%w: the dataset has no prompts", ErrWorkload)
	}
	return d, nil
}

// Prompt implements Workload (cycling through the file).
func (d *Dataset) Prompt(i int) Prompt { return d.prompts[i%len(d.prompts)] }

// Len is the number of prompts in the file.
func (d *Dataset) Len() int { return len(d.prompts) }
