package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gollm/gollm/chat"
	"github.com/gollm/gollm/engine"
	"github.com/gollm/gollm/gguf"
	"github.com/gollm/gollm/tokenizer"
	"github.com/spf13/cobra"
)

// chatFlags are the flags of the commands that render a conversation
// (generate --chat, chat, template).
type chatFlags struct {
	template  string // --chat-template NAME|FILE
	kwargs    string // --chat-template-kwargs JSON object
	system    string // --system
	messages  string // --messages FILE
	reasoning string // --reasoning show|hide|separate
	tools     string // --tools FILE: a JSON list of tool definitions
	enabled   bool   // generate --chat
	cmd       *cobra.Command
}

func (c *chatFlags) registerTemplate(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.template, "chat-template", "", "chat template: a built-in name ("+strings.Join(chat.BuiltinNames(), ", ")+") or a Jinja file; default: the model's own")
	cmd.Flags().StringVar(&c.kwargs, "chat-template-kwargs", "", `extra template variables as a JSON object, e.g. '{"enable_thinking": false}'`)
	cmd.Flags().StringVar(&c.tools, "tools", "", "a JSON file with the list of tool definitions (OpenAI form) the template shows the model")
}

// readTools reads --tools: nil when not given.
func (c *chatFlags) readTools() (json.RawMessage, error) {
	if c.tools == "" {
		return nil, nil
	}
	b, err := os.ReadFile(c.tools)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("tools: %s is not a JSON list of tool definitions: %v", c.tools, err)
	}
	return b, nil
}

func (c *chatFlags) registerReasoning(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.reasoning, "reasoning", "show", "a reasoning model's <think> part: show (as generated), hide, or separate (to stderr)")
}

// resolveTemplate picks the chat template: --chat-template (a built-in name
// or a file), else the GGUF's tokenizer.chat_template, else ChatML with a
// notice on stderr. f may be nil (no model).
func resolveTemplate(flag string, f *gguf.File, stderr io.Writer) (*chat.Template, error) {
	if flag != "" {
		if chat.IsBuiltin(flag) {
			return chat.Builtin(flag)
		}
		src, err := os.ReadFile(flag)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, usageErr("--chat-template %q is neither a file nor a built-in template (%s)", flag, strings.Join(chat.BuiltinNames(), ", "))
			}
			return nil, fmt.Errorf("chat template: %w", err)
		}
		return chat.Parse(flag, string(src))
	}
	if f != nil {
		t, fallback, err := chat.ForModel(f.String("tokenizer.chat_template", ""))
		if fallback {
			fmt.Fprintf(stderr, "gollm: the model has no chat template; using %s (choose one with --chat-template)\n", chat.DefaultName)
		}
		return t, err
	}
	return nil, usageErr("give a model (-m) or --chat-template")
}

// parseKwargs reads --chat-template-kwargs.
func parseKwargs(s string) (map[string]json.RawMessage, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var kw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &kw); err != nil {
		return nil, usageErr("--chat-template-kwargs must be a JSON object: %v", err)
	}
	for k := range kw {
		switch k {
		case "messages", "add_generation_prompt", "bos_token", "eos_token", "tools":
			return nil, usageErr("--chat-template-kwargs cannot set %q", k)
		}
	}
	return kw, nil
}

// readMessagesFile reads an OpenAI-style JSON list of messages ("-": stdin).
func readMessagesFile(path string) ([]chat.Message, error) {
	var data []byte
	var err error
	if path == "-" {
		var s string
		s, err = readStdin()
		data = []byte(s)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	msgs, err := chat.ParseMessages(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("%s: %w: the list is empty", path, chat.ErrMessages)
	}
	return msgs, nil
}

// vocabOptions fills the template's bos_token and eos_token from the
// vocabulary (none without a model).
func vocabOptions(tok *tokenizer.Tokenizer, opts chat.Options) chat.Options {
	if tok == nil {
		return opts
	}
	return chat.WithVocab(opts, tok)
}

// tokenizeChat tokenizes a rendered conversation (specials parsed, one BOS).
func tokenizeChat(tok *tokenizer.Tokenizer, text string) []int32 { return chat.PromptTokens(tok, text) }

// parseNow reads --now: an RFC 3339 time, or the forms 2006-01-02T15:04:05
// and 2006-01-02 (UTC).
func parseNow(s string) (func() time.Time, error) {
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return func() time.Time { return t }, nil
		}
	}
	return nil, usageErr("--now %q: want a time like 2024-07-26T00:00:00", s)
}

// registerGenerate adds generate's chat flags.
func (c *chatFlags) registerGenerate(cmd *cobra.Command) {
	c.cmd = cmd
	fl := cmd.Flags()
	fl.BoolVar(&c.enabled, "chat", false, "render -p as one user turn with the model's chat template (stops at its end of turn)")
	fl.StringVar(&c.messages, "messages", "", `render an OpenAI-style JSON list of messages as the prompt ("-": stdin); implies --chat`)
	fl.StringVar(&c.system, "system", "", "with --chat: a system turn before the user's")
	c.registerTemplate(cmd)
	c.registerReasoning(cmd)
}

// active reports whether the prompt is a conversation to render.
func (c *chatFlags) active() bool { return c.enabled || c.messages != "" }

// readPrompt reads -p/-f/stdin, unless --messages supplies the conversation.
func (c *chatFlags) readPrompt(p *promptFlags) (string, error) {
	if err := c.check(); err != nil {
		return "", err
	}
	if _, err := newReasoningOutput(c.reasoning); err != nil {
		return "", err
	}
	if c.messages != "" {
		if p.cmd != nil && (p.cmd.Flags().Changed("prompt") || p.file != "") {
			return "", usageErr("give either --messages or a prompt (-p/-f), not both")
		}
		return "", nil
	}
	return p.read()
}

// check refuses chat flags given without --chat or --messages.
func (c *chatFlags) check() error {
	if c.active() || c.cmd == nil {
		return nil
	}
	for _, name := range []string{"system", "chat-template", "chat-template-kwargs", "tools", "reasoning"} {
		if c.cmd.Flags().Changed(name) {
			return usageErr("--%s needs --chat or --messages", name)
		}
	}
	return nil
}

// apply renders the conversation (the --messages file, or --system and the
// prompt as one user turn) with the model's template and sets req.Tokens. It
// returns the output filter for --reasoning; nil when chat is off.
func (c *chatFlags) apply(m *engine.Model, prompt string, esc func(string) string, req *engine.Request) (*reasoningOutput, error) {
	if err := c.check(); err != nil || !c.active() {
		return nil, err
	}
	out, err := newReasoningOutput(c.reasoning)
	if err != nil {
		return nil, err
	}
	kwargs, err := parseKwargs(c.kwargs)
	if err != nil {
		return nil, err
	}
	tools, err := c.readTools()
	if err != nil {
		return nil, err
	}
	tmpl, err := resolveTemplate(c.template, m.File, os.Stderr)
	if err != nil {
		return nil, err
	}
	var msgs []chat.Message
	if c.messages != "" {
		if msgs, err = readMessagesFile(c.messages); err != nil {
			return nil, err
		}
	} else {
		msgs = []chat.Message{{Role: "user", Content: chat.Text(prompt)}}
	}
	if c.system != "" {
		msgs = append([]chat.Message{{Role: "system", Content: chat.Text(esc(c.system))}}, msgs...)
	}
	text, err := tmpl.Render(msgs, vocabOptions(m.Tokenizer, chat.Options{AddGenerationPrompt: true, Kwargs: kwargs, Tools: tools}))
	if err != nil {
		return nil, err
	}
	req.Prompt, req.Tokens, req.ParseSpecial = text, tokenizeChat(m.Tokenizer, text), true
	out.inReasoning = chat.OpensReasoning(text)
	return out, nil
}

// reasoningOutput routes a reasoning model's <think> part: show (as
// generated), hide, or separate (reasoning to stderr, answer to stdout).
type reasoningOutput struct {
	mode        string
	inReasoning bool
	split       *chat.ReasoningSplitter
}

func newReasoningOutput(mode string) (*reasoningOutput, error) {
	switch mode {
	case "", "show":
		return &reasoningOutput{mode: "show"}, nil
	case "hide", "separate":
		return &reasoningOutput{mode: mode}, nil
	}
	return nil, usageErr("--reasoning must be show, hide or separate, got %q", mode)
}

// wrap filters a text callback; flush must be called at the end. A nil
// *reasoningOutput passes text through.
func (r *reasoningOutput) wrap(onText func(string) bool, stderr io.Writer) (wrapped func(string) bool, flush func()) {
	if r == nil || r.mode == "show" || onText == nil {
		return onText, func() {}
	}
	r.split = chat.NewReasoningSplitter(r.inReasoning)
	wroteReasoning := false
	emit := func(reasoning, answer string) bool {
		if reasoning != "" && r.mode == "separate" {
			fmt.Fprint(stderr, reasoning)
			wroteReasoning = true
		}
		if answer != "" {
			return onText(answer)
		}
		return true
	}
	wrapped = func(s string) bool { return emit(r.split.Push(s)) }
	flush = func() {
		reasoning, answer := r.split.Flush()
		emit(reasoning, answer)
		if wroteReasoning {
			fmt.Fprintln(stderr)
		}
	}
	return wrapped, flush
}
