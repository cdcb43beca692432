package tokenizer

import (
	"sort"
	"strings"
)

// preKind names one list of pre-tokenizer regexes of llama.cpp's
// llm_tokenizer_bpe; several tokenizer.ggml.pre names share a list.
type preKind int

const (
	preDefault       preKind = iota // llama.cpp's fallback list (pre "default")
	preGPT2                         // gpt-2, mpt, olmo, jais, ...
	preLlama3                       // llama-bpe, dbrx, smaug, chatglm4, ...
	preQwen2                        // qwen2, stablelm2, megrez, hunyuan, ...
	preDeepseekLLM                  // deepseek-llm
	preDeepseekCoder                // deepseek-coder
	preFalcon                       // falcon
	preStarcoder                    // starcoder, refact, command-r, smollm, ...
	preBloom                        // bloom, poro-chat, gpt3-finnish
	preViking                       // viking
)

// preConfig is what a tokenizer.ggml.pre name implies in llama_vocab::load.
type preConfig struct {
	kind         preKind
	cleanSpaces  bool // detokenizer removes spaces before punctuation
	ignoreMerges bool // a pre-token that is itself a token is not merged
	addBOS       bool // default of add_bos_token
	noBOS        bool // default BOS id is none (chatglm)
}

// preConfigs maps every tokenizer.ggml.pre name llama.cpp accepts whose
// regex list is implemented here.
var preConfigs = func() map[string]preConfig {
	m := map[string]preConfig{}
	add := func(c preConfig, names ...string) {
		for _, n := range names {
			m[n] = c
		}
	}
	add(preConfig{kind: preDefault, cleanSpaces: true}, "default")
	add(preConfig{kind: preLlama3, cleanSpaces: true, ignoreMerges: true, addBOS: true},
		"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano")
	add(preConfig{kind: preLlama3, cleanSpaces: true}, "dbrx", "smaug-bpe")
	add(preConfig{kind: preLlama3, cleanSpaces: true, noBOS: true}, "glm4", "chatglm-bpe")
	add(preConfig{kind: preDeepseekLLM}, "deepseek-llm")
	add(preConfig{kind: preDeepseekCoder}, "deepseek-coder")
	add(preConfig{kind: preFalcon, cleanSpaces: true}, "falcon")
	add(preConfig{kind: preGPT2, cleanSpaces: true},
		"mpt", "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de",
		"a.x-4.0", "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe",
		"olmo", "jais", "exaone4")
	add(preConfig{kind: preGPT2}, "trillion", "granite-docling")
	add(preConfig{kind: preStarcoder, cleanSpaces: true}, "starcoder", "refact", "codeshell", "exaone", "minerva-7b", "mellum2")
	add(preConfig{kind: preStarcoder}, "command-r", "smollm")
	add(preConfig{kind: preQwen2}, "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "hunyuan", "solar-open", "grok-2")
	add(preConfig{kind: preQwen2, cleanSpaces: true}, "stablelm2", "megrez")
	add(preConfig{kind: preBloom}, "poro-chat")
	add(preConfig{kind: preBloom, cleanSpaces: true}, "bloom", "gpt3-finnish")
	add(preConfig{kind: preViking}, "viking")
	return m
}()

func supportedPreList() string {
	names := make([]string, 0, len(preConfigs))
	for n := range preConfigs {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// A splitter refines one chunk [ini, end) of code points into pieces,
// appending the end offset of each (the last is end). It mirrors one regex
// of llama.cpp's list applied by unicode_regex_split.
type splitter func(cps []rune, fl []uint8, ini, end int, out []int) []int

// splittersFor returns the regex list of a pre-tokenizer kind, in order.
func splittersFor(k preKind) []splitter {
	switch k {
	case preGPT2:
		return []splitter{splitGPT2}
	case preLlama3:
		return []splitter{splitLlama3}
	case preQwen2:
		return []splitter{splitQwen2}
	case preFalcon:
		return []splitter{
			regexSplit(matchRun(isFalconPunct)),
			splitGPT2,
			regexSplit(matchThreeDigits),
		}
	case preStarcoder:
		return []splitter{regexSplit(matchOne(isNumber)), splitGPT2}
	case preDeepseekCoder:
		return []splitter{
			regexSplit(matchOne(isCRLF)),
			regexSplit(matchOptRun(isSpace, isLetter)),
			regexSplit(matchOptRun(isSpace, isPunct)),
			regexSplit(matchRun(isDeepseekCJK)),
			regexSplit(matchOne(isNumber)),
		}
	case preDeepseekLLM:
		return []splitter{
			regexSplit(matchOne(isCRLF)),
			regexSplit(matchOptRun(isSpace, isDeepseekLetter)),
			regexSplit(matchOptRun(isSpace, isDeepseekPunct)),
			regexSplit(matchTrailingSpace),
			regexSplit(matchRun(isDeepseekCJK)),
			regexSplit(matchRun(isNumber)),
		}
	case preBloom:
		return []splitter{regexSplit(matchOptRun(isBlank, isBloomWord))}
	case preViking:
		return []splitter{regexSplit(matchOptRun(isBlank, isBloomWord)), regexSplit(matchOne(isNumber))}
	default: // preDefault
		return []splitter{
			regexSplit(matchRun(isDefaultPunct)),
			splitGPT2,
			regexSplit(matchRun(isNumber)),
			regexSplit(matchThreeDigits),
		}
	}
}

// preTokenize splits cps into pre-tokens by applying every splitter to
// every chunk the previous one produced (unicode_regex_split). It returns
// the end offsets of the final pieces; ends and tmp are scratch buffers.
func preTokenize(sp []splitter, cps []rune, fl []uint8, ends, tmp []int) ([]int, []int) {
	ends = append(ends[:0], len(cps))
	if len(cps) == 0 {
		return ends[:0], tmp
	}
	for _, s := range sp {
		tmp = tmp[:0]
		ini := 0
		for _, e := range ends {
			tmp = s(cps, fl, ini, e, tmp)
			ini = e
		}
		ends, tmp = tmp, ends
	}
	return ends, tmp
}
