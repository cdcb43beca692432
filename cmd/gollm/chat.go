package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/chzyer/readline"
	"github.com/gollm/gollm/chat"
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/sampler"
	"github.com/spf13/cobra"
)

type chatCmdFlags struct {
	gen      generateFlags // the model and sampling flags
	chat     chatFlags
	noEscape bool
}

func chatCmd() *cobra.Command {
	var f chatCmdFlags
	cmd := &cobra.Command{
		Use:   "chat -m FILE [--system TEXT]",
		Short: "Talk to an instruct model in the terminal (one turn per line when stdin is not a terminal)",
		Long: `An interactive conversation rendered with the model's chat template. Line
editing and history on a terminal; a line ending in \ continues on the next.
Ctrl-C stops the reply being generated, Ctrl-D exits; /help lists the
commands. The KV cache is kept between turns, so a turn prefills only its
new tokens; when the context fills, the oldest turns are dropped (the system
prompt is kept). With standard input not a terminal, each line is one user
turn and each reply one block of text on stdout.`,
		Args: f.gen.model.modelArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runChat(cmd.Context(), &f) },
	}
	f.gen.model.register(cmd)
	registerSamplingFlags(cmd, &f.gen)
	fl := cmd.Flags()
	fl.IntVarP(&f.gen.n, "n-predict", "n", -1, "most tokens per reply (-1: until the end of the turn or a full context)")
	fl.StringVar(&f.chat.system, "system", "", `system prompt (escapes such as \n are processed, as llama.cpp does)`)
	fl.BoolVar(&f.noEscape, "no-escape", false, "take --system literally")
	f.chat.registerTemplate(cmd)
	f.chat.registerReasoning(cmd)
	return cmd
}

// registerSamplingFlags adds generate's sampling flags to another command.
func registerSamplingFlags(cmd *cobra.Command, g *generateFlags) {
	d := sampler.DefaultConfig()
	fl := cmd.Flags()
	fl.Float32Var(&g.temp, "temp", d.Temperature, "temperature, >= 0 (0: greedy)")
	fl.IntVar(&g.topK, "top-k", d.TopK, "top-k sampling, >= 0 (0: off)")
	fl.Float32Var(&g.topP, "top-p", d.TopP, "top-p sampling, in [0, 1] (1: off; 0: the most probable token only, as llama.cpp)")
	fl.Float32Var(&g.minP, "min-p", d.MinP, "min-p sampling, in [0, 1] (0: off)")
	fl.Float32Var(&g.repeat, "repeat-penalty", 1.0, "repetition penalty, >= 0 (1: off)")
	fl.IntVar(&g.repeatLastN, "repeat-last-n", d.PenaltyLastN, "tokens the penalties look back over (-1: the context)")
	fl.Float32Var(&g.presence, "presence-penalty", 0, "presence penalty, >= 0 (0: off)")
	fl.Float32Var(&g.frequency, "frequency-penalty", 0, "frequency penalty, >= 0 (0: off)")
	fl.Int64VarP(&g.seed, "seed", "s", -1, "RNG seed (-1: random)")
}

func runChat(ctx context.Context, f *chatCmdFlags) error {
	f.gen.parallel = 1
	scfg, err := f.gen.samplerConfig()
	if err != nil {
		return err
	}
	out, err := newReasoningOutput(f.chat.reasoning)
	if err != nil {
		return err
	}
	kwargs, err := parseKwargs(f.chat.kwargs)
	if err != nil {
		return err
	}
	tools, err := f.chat.readTools()
	if err != nil {
		return err
	}
	m, err := f.gen.model.load(false)
	if err != nil {
		return err
	}
	defer m.Close()
	tmpl, err := resolveTemplate(f.chat.template, m.File, os.Stderr)
	if err != nil {
		return err
	}
	smp, err := sampler.New(scfg, m.Config.Vocab)
	if err != nil {
		return usageErr("%v", err)
	}
	s := &chatSession{m: m, tmpl: tmpl, gen: f.gen, smp: smp, reasoning: out.mode,
		opts:   vocabOptions(m.Tokenizer, chat.Options{AddGenerationPrompt: true, Kwargs: kwargs, Tools: tools}),
		system: f.chat.system, stdout: os.Stdout, stderr: os.Stderr}
	if !f.noEscape {
		s.system = unescape(s.system)
	}

	// Ctrl-C stops the reply, not the program: this command takes SIGINT
	// from the process-wide handler (which would cancel ctx for good and
	// exit on the second one) for the time it runs.
	signal.Reset(os.Interrupt)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			if !s.interrupt() {
				// Not generating (piped input waiting): leave like a
				// plain Ctrl-C would.
				fmt.Fprintln(os.Stderr)
				runAtExit()
				os.Exit(130)
			}
		}
	}()

	if stdinIsTerminal() {
		return s.interactive(ctx)
	}
	return s.piped(ctx, os.Stdin)
}

// chatSession is one conversation with a model.
type chatSession struct {
	m         *engine.Model
	tmpl      *chat.Template
	opts      chat.Options
	gen       generateFlags
	smp       *sampler.Sampler
	reasoning string
	system    string
	msgs      []chat.Message // the turns after the system prompt
	last      *engine.Result // the last reply, for /stats
	stdout    io.Writer
	stderr    io.Writer
	failed    int // turns that failed (piped mode then exits 1)

	mu     sync.Mutex
	cancel context.CancelFunc // of the reply being generated
}

// interrupt stops the reply being generated; false if there is none.
func (s *chatSession) interrupt() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel == nil {
		return false
	}
	s.cancel()
	return true
}

// conversation is the system prompt (if any) and the turns.
func (s *chatSession) conversation() []chat.Message {
	if s.system == "" {
		return s.msgs
	}
	return append([]chat.Message{{Role: "system", Content: chat.Text(s.system)}}, s.msgs...)
}

// errTurnTooLong: the new message alone does not fit the context.
var errTurnTooLong = errors.New("the message does not fit the context")

// prompt renders the conversation and tokenizes it, dropping the oldest
// turns (never the system prompt or the newest message) until it fits with
// room for the reply.
func (s *chatSession) prompt() ([]int32, string, error) {
	ctxSize := s.m.ContextSize()
	room := ctxSize / 4
	if s.gen.n > 0 {
		room = min(s.gen.n, ctxSize/2)
	}
	dropped := 0
	for {
		text, err := s.tmpl.Render(s.conversation(), s.opts)
		if err != nil {
			return nil, "", err
		}
		ids := tokenizeChat(s.m.Tokenizer, text)
		if len(ids)+room <= ctxSize || len(ids) < ctxSize && len(s.msgs) <= 1 {
			if dropped > 0 {
				fmt.Fprintf(s.stderr, "gollm: the context is full: dropped the oldest %d messages (the system prompt is kept); the rest is prefilled again\n", dropped)
			}
			return ids, text, nil
		}
		if len(s.msgs) <= 1 {
			return nil, "", fmt.Errorf("%w: %d tokens with the system prompt, context %d (raise -c)", errTurnTooLong, len(ids), ctxSize)
		}
		// Drop the oldest exchange: up to the next user message, so the
		// conversation still starts with a user turn.
		k := 1
		for k < len(s.msgs)-1 && s.msgs[k].Role != "user" {
			k++
		}
		s.msgs = s.msgs[k:]
		dropped += k
	}
}

// turn adds a user message, generates the reply (streamed to stdout) and
// adds it to the conversation. An interrupted reply is kept as far as it got.
func (s *chatSession) turn(ctx context.Context, user string) (*engine.Result, error) {
	s.msgs = append(s.msgs, chat.Message{Role: "user", Content: chat.Text(user)})
	ids, text, err := s.prompt()
	if err != nil {
		s.msgs = s.msgs[:len(s.msgs)-1]
		return nil, err
	}
	turnCtx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}()

	w := bufio.NewWriter(s.stdout)
	ro := &reasoningOutput{mode: s.reasoning, inReasoning: chat.OpensReasoning(text)}
	onText, flush := ro.wrap(func(t string) bool { w.WriteString(t); w.Flush(); return true }, s.stderr)
	req := engine.Request{Tokens: ids, ParseSpecial: true, MaxTokens: s.gen.n, Sampler: s.smp, ReuseCache: true, OnText: onText}
	res, err := s.m.Generate(turnCtx, req)
	flush()
	fmt.Fprintln(w)
	w.Flush()
	if res == nil {
		s.msgs = s.msgs[:len(s.msgs)-1]
		return nil, err
	}
	s.last = res
	s.msgs = append(s.msgs, chat.Message{Role: "assistant", Content: chat.Text(res.Text)})
	switch {
	case res.StopReason == engine.StopInterrupted:
		fmt.Fprintln(s.stderr, "gollm: reply interrupted")
		return res, nil
	case res.StopReason == engine.StopContext:
		fmt.Fprintln(s.stderr, "gollm: the context is full; the oldest turns will be dropped next turn")
	}
	return res, err
}

// piped reads one user turn per line.
func (s *chatSession) piped(ctx context.Context, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return errInterrupted
		}
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if quit := s.handle(ctx, line); quit {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("standard input: %w", err)
	}
	if s.failed > 0 {
		return fmt.Errorf("chat: %d turn(s) failed", s.failed)
	}
	return nil
}

// interactive runs the terminal conversation with line editing.
func (s *chatSession) interactive(ctx context.Context) error {
	rl, err := readline.NewEx(&readline.Config{Prompt: "> ", HistoryLimit: 1000, DisableAutoSaveHistory: true})
	if err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	defer rl.Close()
	s.stdout, s.stderr = rl.Stdout(), rl.Stderr()
	fmt.Fprintf(s.stderr, "gollm chat: template %s, context %d tokens; /help for commands, Ctrl-C stops a reply, Ctrl-D exits\n", s.tmpl.Name(), s.m.ContextSize())
	var pending []string // lines of a message continued with a trailing backslash
	for {
		if ctx.Err() != nil {
			return nil
		}
		if len(pending) > 0 {
			rl.SetPrompt("… ")
		} else {
			rl.SetPrompt("> ")
		}
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			if len(pending) == 0 && line == "" {
				fmt.Fprintln(s.stderr, "(Ctrl-D or /exit to leave)")
			}
			pending = nil
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("terminal: %w", err)
		}
		if strings.HasSuffix(line, `\`) {
			pending = append(pending, strings.TrimSuffix(line, `\`))
			continue
		}
		msg := strings.Join(append(pending, line), "\n")
		pending = nil
		if strings.TrimSpace(msg) == "" {
			continue
		}
		rl.SaveHistory(msg)
		if quit := s.handle(ctx, msg); quit {
			return nil
		}
	}
}

// handle runs a command or a user turn; true means exit.
func (s *chatSession) handle(ctx context.Context, line string) bool {
	if strings.HasPrefix(line, "/") {
		quit, err := s.command(line)
		if err != nil {
			fmt.Fprintln(s.stderr, "gollm: "+oneLine(err))
		}
		return quit
	}
	if _, err := s.turn(ctx, line); err != nil {
		s.failed++
		if !interrupted(err) {
			fmt.Fprintln(s.stderr, "gollm: "+oneLine(err))
		}
	}
	return false
}
