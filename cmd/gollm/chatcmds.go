package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gollm/gollm/sampler"
)

const chatHelp = `commands:
  /help               this list
  /clear              forget the conversation (the system prompt stays)
  /system TEXT        set the system prompt ("/system" alone removes it)
  /set NAME VALUE     sampling: temp, top-k, top-p, min-p, repeat-penalty,
                      repeat-last-n, presence-penalty, frequency-penalty, seed,
                      n-predict; "/set" alone shows them
  /save FILE          write the conversation as OpenAI-style JSON messages
  /load FILE          read a conversation written by /save (or any such file)
  /stats              the last reply's prompt, prefill and decode figures
  /exit               leave (also Ctrl-D)
a line ending in \ continues on the next line; Ctrl-C stops a reply`

// command runs a /command; true means exit.
func (s *chatSession) command(line string) (quit bool, err error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/help", "/?":
		fmt.Fprintln(s.stdout, chatHelp)
	case "/exit", "/quit", "/bye":
		return true, nil
	case "/clear":
		s.msgs, s.last = nil, nil
		fmt.Fprintln(s.stderr, "gollm: conversation cleared")
	case "/system":
		s.system = arg
	case "/set":
		return false, s.set(arg)
	case "/save":
		if arg == "" {
			return false, fmt.Errorf("/save needs a file name")
		}
		b, err := json.MarshalIndent(s.conversation(), "", "  ")
		if err != nil {
			return false, err
		}
		if err := os.WriteFile(arg, append(b, '\n'), 0o644); err != nil {
			return false, fmt.Errorf("/save: %w", err)
		}
		fmt.Fprintf(s.stderr, "gollm: saved %d messages to %s\n", len(s.conversation()), arg)
	case "/load":
		if arg == "" {
			return false, fmt.Errorf("/load needs a file name")
		}
		msgs, err := readMessagesFile(arg)
		if err != nil {
			return false, fmt.Errorf("/load: %w", err)
		}
		s.system = ""
		if msgs[0].Role == "system" {
			s.system, msgs = msgs[0].Content.String(), msgs[1:]
		}
		s.msgs, s.last = msgs, nil
		fmt.Fprintf(s.stderr, "gollm: loaded %d messages from %s\n", len(msgs), arg)
	case "/stats":
		s.stats()
	default:
		return false, fmt.Errorf("unknown command %s (/help lists them)", name)
	}
	return false, nil
}

// set changes one sampling option; the sampler is rebuilt.
func (s *chatSession) set(arg string) error {
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		g := &s.gen
		fmt.Fprintf(s.stdout, "temp %v, top-k %d, top-p %v, min-p %v, repeat-penalty %v, repeat-last-n %d, presence-penalty %v, frequency-penalty %v, seed %d, n-predict %d\n",
			g.temp, g.topK, g.topP, g.minP, g.repeat, g.repeatLastN, g.presence, g.frequency, g.seed, g.n)
		return nil
	}
	if len(fields) != 2 {
		return fmt.Errorf("/set NAME VALUE, e.g. /set temp 0.7")
	}
	g := s.gen // a copy: applied only if valid
	name, v := fields[0], fields[1]
	f32 := func(p *float32) error {
		x, err := strconv.ParseFloat(v, 32)
		*p = float32(x)
		return err
	}
	i := func(p *int) error {
		x, err := strconv.Atoi(v)
		*p = x
		return err
	}
	var err error
	switch name {
	case "temp", "temperature":
		err = f32(&g.temp)
	case "top-k":
		err = i(&g.topK)
	case "top-p":
		err = f32(&g.topP)
	case "min-p":
		err = f32(&g.minP)
	case "repeat-penalty":
		err = f32(&g.repeat)
	case "repeat-last-n":
		err = i(&g.repeatLastN)
	case "presence-penalty":
		err = f32(&g.presence)
	case "frequency-penalty":
		err = f32(&g.frequency)
	case "seed":
		g.seed, err = strconv.ParseInt(v, 10, 64)
	case "n-predict", "n":
		err = i(&g.n)
	default:
		return fmt.Errorf("/set: unknown option %q (/help lists them)", name)
	}
	if err != nil {
		return fmt.Errorf("/set %s: %q is not a number", name, v)
	}
	cfg, err := g.samplerConfig()
	if err != nil {
		return fmt.Errorf("/set: %w", err)
	}
	smp, err := sampler.New(cfg, s.m.Config.Vocab)
	if err != nil {
		return fmt.Errorf("/set: %w", err)
	}
	s.gen, s.smp = g, smp
	return nil
}

// stats prints the last reply's figures.
func (s *chatSession) stats() {
	r := s.last
	if r == nil {
		fmt.Fprintln(s.stdout, "no reply yet")
		return
	}
	fmt.Fprintf(s.stdout, "prompt %d tokens: %d reused from the cache, %d prefilled in %.1f ms (%.1f tok/s); TTFT %.1f ms\n",
		len(r.PromptTokens), r.CachedTokens, len(r.PromptTokens)-r.CachedTokens, ms(r.Stats.Prefill), r.PrefillTPS(), ms(r.Stats.TTFT))
	fmt.Fprintf(s.stdout, "reply %d tokens, decode %.1f ms (%.2f tok/s), stop: %s; context %d/%d\n",
		len(r.Tokens), ms(r.Stats.Decode), r.DecodeTPS(), r.StopReason, len(r.PromptTokens)+len(r.Tokens), s.m.ContextSize())
}
