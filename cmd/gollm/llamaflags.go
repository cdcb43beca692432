package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// llama.cpp spells many flags with one dash and several letters (-ngl,
// -ctk, -fa). pflag would read "-ngl 0" as "-n gl 0", so llamaArgs rewrites
// the ones gollm accepts to their long names before cobra parses, and
// refuses the others by their whole name.

// llamaShort maps llama.cpp's multi-letter single-dash flags to gollm's long
// names.
var llamaShort = map[string]string{
	"ngl": "n-gpu-layers",
	"fa":  "flash-attn",
	"ctk": "cache-type-k",
	"ctv": "cache-type-v",
	"ub":  "ubatch-size",
	"sys": "system",
	"np":  "parallel",
	"mmp": "mmap",
	"pg":  "pg",
}

// llamaLong maps llama.cpp's long names to gollm's where they differ.
var llamaLong = map[string]string{
	"gpu-layers":    "n-gpu-layers",
	"system-prompt": "system",
	"n-parallel":    "parallel",
}

// llamaHints explains llama.cpp flags gollm has no counterpart for, or has
// under another command.
var llamaHints = map[string]string{
	"cnv":     "conversation mode is the `gollm chat` command",
	"no-cnv":  "gollm generate never starts a conversation",
	"i":       "interactive mode is the `gollm chat` command",
	"if":      "interactive mode is the `gollm chat` command",
	"ins":     "interactive mode is the `gollm chat` command",
	"st":      "single-turn chat is `gollm generate --chat`",
	"tb":      "gollm uses one thread count (-t) for prompt and generation",
	"nkvo":    "gollm runs on the CPU: the KV cache is always in host memory",
	"sm":      "gollm runs on the CPU: there is nothing to split",
	"mg":      "gollm runs on the CPU: there is no main GPU",
	"ts":      "gollm runs on the CPU: there is nothing to split",
	"dev":     "gollm runs on the CPU",
	"cb":      "continuous batching is what `gollm serve` does",
	"dt":      "KV defragmentation does not apply to gollm's paged cache",
	"lv":      "gollm has no verbosity levels",
	"cml":     "use --chat-template chatml",
	"jinja":   "gollm always renders Jinja chat templates",
	"nocb":    "gollm has no continuous-batching switch",
	"rea":     "use --reasoning",
	"mli":     "gollm chat reads multi-line input with a trailing backslash",
	"ctxcp":   "gollm has no context checkpoints",
	"kvu":     "gollm's paged cache is always unified",
	"hff":     "gollm does not download models",
	"hfr":     "gollm does not download models",
	"hf":      "gollm does not download models",
	"mu":      "gollm does not download models",
	"ot":      "gollm runs on the CPU: there are no tensor buffer overrides",
	"cmoe":    "gollm runs on the CPU: experts are always on the CPU",
	"dio":     "gollm always memory-maps the model",
	"nr":      "gollm has no repacking switch: see --pack",
	"sp":      "gollm prints special tokens as text by default",
	"nocache": "see --kv-size",
}

// llamaArgs rewrites llama.cpp-style arguments for the command they are
// meant for (found from args) and returns a usage error naming any
// multi-letter single-dash flag gollm does not know.
func llamaArgs(root *cobra.Command, args []string) ([]string, error) {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return args, nil // cobra reports the unknown command
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		var name string
		switch {
		case strings.HasPrefix(a, "--"):
			n, val, hasVal := strings.Cut(a[2:], "=")
			if to, ok := llamaLong[n]; ok && cmd.Flag(to) != nil {
				n = to
				a = "--" + n
				if hasVal {
					a += "=" + val
				}
			}
			if hasVal {
				out = append(out, a)
				continue
			}
			name = n
		case len(a) > 2 && a[0] == '-' && isFlagWord(a[1:]):
			word := a[1:]
			if to, ok := llamaShort[word]; ok && cmd.Flag(to) != nil {
				name, a = to, "--"+to
			} else if cmd.Flag(word) != nil && len(word) > 1 {
				name, a = word, "--"+word // e.g. -pg
			} else if hint, ok := llamaHints[word]; ok {
				return nil, usageErr("flag %s (llama.cpp) is not supported: %s", a, hint)
			} else {
				return nil, usageErr("unknown flag %s for %q (gollm's flags: gollm %s --help)", a, cmd.CommandPath(), cmd.Name())
			}
		case len(a) == 2 && a[0] == '-':
			if f := shorthand(cmd, a[1:]); f != nil && takesValue(f) && i+1 < len(args) {
				out = append(out, a, args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
		if name != "" {
			if f := cmd.Flag(name); f != nil && takesValue(f) && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
		}
	}
	return out, nil
}

// isFlagWord is true for the letters-and-dashes body of a flag such as
// "ngl" or "no-cnv", and false for values such as "1" or "0.5".
func isFlagWord(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	letters := 0
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		case c == '-' || c == '_':
		default:
			return false // "-n5", "-t2": a shorthand with its value attached
		}
	}
	return letters > 1
}

func shorthand(cmd *cobra.Command, s string) *pflag.Flag {
	if f := cmd.Flags().ShorthandLookup(s); f != nil {
		return f
	}
	return cmd.InheritedFlags().ShorthandLookup(s)
}

func takesValue(f *pflag.Flag) bool { return f.NoOptDefVal == "" }
