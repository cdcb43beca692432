package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// Template is a parsed chat template. It is immutable and safe for
// concurrent use.
type Template struct {
	name string
	src  string
	tmpl *jinja.Template
}

// Options are the template variables besides the messages.
type Options struct {
	// AddGenerationPrompt ends the prompt with the opening of an assistant
	// turn (add_generation_prompt).
	AddGenerationPrompt bool
	// BOS and EOS are the vocabulary's bos_token and eos_token texts.
	BOS, EOS string
	// Tools is the JSON list of tool definitions (OpenAI form); nil leaves
	// `tools` undefined.
	Tools json.RawMessage
	// Kwargs are further template variables (e.g. "enable_thinking": false),
	// each a raw JSON value. They cannot replace messages, tools or the
	// options above.
	Kwargs map[string]json.RawMessage
	// Now is the clock strftime_now reads; nil means time.Now.
	Now func() time.Time
}

// ErrParse reports a template that does not parse; the error is a
// *ParseError.
var ErrParse = errors.New("chat template does not parse")

// ErrRender reports a template that failed while rendering (including one
// that raised; that error is also a *RaiseError).
var ErrRender = errors.New("chat template failed")

// ParseError says where a template fails to parse. Line is 1-based, 0 when
// the engine did not say.
type ParseError struct {
	Name string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("chat template %s does not parse: line %d: %s", e.Name, e.Line, e.Msg)
	}
	return fmt.Sprintf("chat template %s does not parse: %s", e.Name, e.Msg)
}

// Is makes errors.Is(err, ErrParse) true.
func (e *ParseError) Is(target error) bool { return target == ErrParse }

// RaiseError is a template's raise_exception("...") call: the template
// rejected the conversation (e.g. a role it does not support). Message is the
// template's own text.
type RaiseError struct {
	Message string
}

func (e *RaiseError) Error() string { return "chat template rejected the conversation: " + e.Message }

// Is makes errors.Is(err, ErrRender) true.
func (e *RaiseError) Is(target error) bool { return target == ErrRender }

var lineRE = regexp.MustCompile(`line (\d+)`)

// Parse parses a chat template's source. name labels errors (a file name,
// "tokenizer.chat_template", a built-in name).
func Parse(name, src string) (*Template, error) {
	t, err := compile(preprocess(src))
	if err != nil {
		msg := err.Error()
		for _, p := range []string{"jinja scan: ", "jinja parse: "} {
			msg = strings.TrimPrefix(msg, p)
		}
		pe := &ParseError{Name: name, Msg: msg}
		if m := lineRE.FindStringSubmatchIndex(msg); m != nil {
			pe.Line, _ = strconv.Atoi(msg[m[2]:m[3]])
			if m[0] == 0 { // "line N: rest": keep only the rest
				pe.Msg = strings.TrimPrefix(msg[m[1]:], ": ")
			}
		}
		return nil, pe
	}
	return &Template{name: name, src: src, tmpl: t}, nil
}

// compile guards against a panic in the engine on odd input.
func compile(src string) (t *jinja.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return jinja.Compile(src)
}

// Name returns the name the template was parsed under.
func (t *Template) Name() string { return t.name }

// Source returns the template's Jinja source.
func (t *Template) Source() string { return t.src }

// Render renders a conversation.
func (t *Template) Render(msgs []Message, opts Options) (string, error) {
	vars := make(map[string]jinja.Value, 8+len(opts.Kwargs))
	for k, raw := range opts.Kwargs {
		v, err := jsonValue(raw)
		if err != nil {
			return "", fmt.Errorf("%w: variable %s: %v", ErrRender, k, err)
		}
		vars[k] = v
	}
	mv, err := messagesValue(msgs)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrRender, err)
	}
	vars["messages"] = mv
	vars["add_generation_prompt"] = jinja.NewBool(opts.AddGenerationPrompt)
	vars["bos_token"] = jinja.NewString(opts.BOS)
	vars["eos_token"] = jinja.NewString(opts.EOS)
	if opts.Tools != nil {
		tv, err := jsonValue(opts.Tools)
		if err != nil {
			return "", fmt.Errorf("%w: tools: %v", ErrRender, err)
		}
		if !tv.IsList() && !tv.IsNone() {
			return "", fmt.Errorf("%w: tools must be a JSON list", ErrRender)
		}
		vars["tools"] = tv
	}
	return t.render(vars, opts.Now)
}

// RenderContext renders with every template variable given as one JSON
// object (messages, add_generation_prompt, bos_token, eos_token, tools and
// any other), the form of the `context` field of Hugging Face reference
// renderings. now is the clock strftime_now reads (nil: time.Now).
func (t *Template) RenderContext(context []byte, now func() time.Time) (string, error) {
	v, err := jsonValue(context)
	if err != nil {
		return "", fmt.Errorf("%w: context: %v", ErrRender, err)
	}
	if !v.IsDict() {
		return "", fmt.Errorf("%w: context must be a JSON object", ErrRender)
	}
	d := v.AsDict()
	vars := make(map[string]jinja.Value, d.Len()+2)
	for _, k := range d.Keys {
		vars[k] = d.Data[k]
	}
	return t.render(vars, now)
}

func (t *Template) render(vars map[string]jinja.Value, now func() time.Time) (out string, err error) {
	if now == nil {
		now = time.Now
	}
	// The data scope sits above the engine's builtins, so these replace its
	// raise_exception (to carry the text as a *RaiseError) and strftime_now
	// (to read the given clock, with the full strftime directives).
	vars["raise_exception"] = jinja.NewCallable("raise_exception", raiseException)
	vars[tojsonName] = jinja.NewCallable("tojson", tojsonFilter)
	vars["strftime_now"] = jinja.NewCallable("strftime_now", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) != 1 || !args[0].IsString() {
			return jinja.Undefined(), fmt.Errorf("strftime_now: want one format string")
		}
		return jinja.NewString(strftime(args[0].AsString(), now())), nil
	})
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("%w: %s: %v", ErrRender, t.name, r)
		}
	}()
	out, err = t.tmpl.RenderValues(vars)
	if err != nil {
		var re *RaiseError
		if errors.As(err, &re) {
			return "", re
		}
		return "", fmt.Errorf("%w: %s: %v", ErrRender, t.name, err)
	}
	return out, nil
}

func raiseException(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	msg := "raise_exception called"
	if len(args) > 0 {
		if args[0].IsString() {
			msg = args[0].AsString()
		} else {
			msg = args[0].String()
		}
	}
	return jinja.Undefined(), &RaiseError{Message: msg}
}
