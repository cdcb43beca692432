package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Message is one turn of a conversation, in the OpenAI chat format. It
// decodes from and encodes to that JSON; decoding remembers the order of the
// object's keys (and keeps keys it does not know in Extra) so that a template
// printing a message with tojson sees the keys in the order they came in.
type Message struct {
	Role             string
	Content          Content
	ReasoningContent string // the reasoning (<think>) of an assistant turn; "" = none
	ToolCalls        []ToolCall
	Name             string // optional author or tool name
	ToolCallID       string // the call a "tool" turn answers

	// Extra holds the object's other keys (raw JSON values) in their order.
	Extra []Field

	order []string // key order as decoded; nil for a message built in Go
}

// Field is one extra key of a JSON object and its raw JSON value.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Content is a message's content: a string, a list of parts, or null.
type Content struct {
	Text  string
	Parts []Part // non-nil: the content is a list of parts and Text is unused
	Null  bool   // JSON null (e.g. an assistant turn holding only tool calls)
}

// Text returns a string content.
func Text(s string) Content { return Content{Text: s} }

// String returns the content's text: the string, or the text parts joined.
func (c Content) String() string {
	if c.Parts == nil {
		return c.Text
	}
	var b bytes.Buffer
	for _, p := range c.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Part is one element of a list content, e.g. {"type":"text","text":"..."}.
// A part decoded from JSON keeps its whole object in Raw (images and other
// kinds the template may look at); Type and Text are read from it.
type Part struct {
	Type string
	Text string
	Raw  json.RawMessage // the part's JSON object; nil for a part built in Go
}

// ToolCall is a function call made by an assistant turn.
type ToolCall struct {
	ID       string
	Type     string // "function"
	Function FunctionCall
}

// FunctionCall names the function and its arguments. Arguments is raw JSON:
// an object, or (as the OpenAI API sends it) a string holding an object's
// JSON. Templates are given an object either way, as Hugging Face templates
// expect; a string that is not a JSON object is passed on as a string.
type FunctionCall struct {
	Name      string
	Arguments json.RawMessage
}

// ErrMessages reports messages that are not a JSON list of chat messages.
var ErrMessages = fmt.Errorf("chat: bad messages")

// ParseMessages decodes a JSON list of OpenAI-style messages.
func ParseMessages(data []byte) ([]Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return nil, fmt.Errorf("%w: want a JSON list of messages ([{\"role\": ..., \"content\": ...}, ...])", ErrMessages)
	}
	var msgs []Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMessages, err)
	}
	return msgs, nil
}

type messageJSON struct {
	Role             *string         `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	ToolCalls        []ToolCall      `json:"tool_calls"`
	Name             *string         `json:"name"`
	ToolCallID       *string         `json:"tool_call_id"`
}

var knownKeys = map[string]bool{"role": true, "content": true, "reasoning_content": true,
	"tool_calls": true, "name": true, "tool_call_id": true}

// UnmarshalJSON decodes an OpenAI-style message object.
func (m *Message) UnmarshalJSON(data []byte) error {
	keys, raws, err := objectFields(data)
	if err != nil {
		return fmt.Errorf("message: %w", err)
	}
	var mj messageJSON
	if err := json.Unmarshal(data, &mj); err != nil {
		return fmt.Errorf("message: %w", err)
	}
	if mj.Role == nil || *mj.Role == "" {
		return fmt.Errorf("message without a \"role\"")
	}
	*m = Message{Role: *mj.Role, order: keys}
	if mj.Content != nil {
		if err := m.Content.UnmarshalJSON(mj.Content); err != nil {
			return fmt.Errorf("message %q: %w", m.Role, err)
		}
	}
	if mj.ReasoningContent != nil {
		m.ReasoningContent = *mj.ReasoningContent
	}
	m.ToolCalls = mj.ToolCalls
	if mj.Name != nil {
		m.Name = *mj.Name
	}
	if mj.ToolCallID != nil {
		m.ToolCallID = *mj.ToolCallID
	}
	for i, k := range keys {
		if !knownKeys[k] {
			m.Extra = append(m.Extra, Field{Key: k, Value: raws[i]})
		}
	}
	return nil
}

// MarshalJSON encodes the message as an OpenAI-style object, keys in the
// order they were decoded in (role, content, ... for a message built in Go).
func (m Message) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	put := func(k string, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(raw)
		return nil
	}
	for _, k := range m.keys() {
		var err error
		switch k {
		case "role":
			err = put(k, m.Role)
		case "content":
			err = put(k, m.Content)
		case "reasoning_content":
			err = put(k, m.ReasoningContent)
		case "tool_calls":
			err = put(k, m.ToolCalls)
		case "name":
			err = put(k, m.Name)
		case "tool_call_id":
			err = put(k, m.ToolCallID)
		default:
			for _, f := range m.Extra {
				if f.Key == k {
					err = put(k, f.Value)
					break
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("message %s: %w", k, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// keys lists the message's keys in order: as decoded, or for a message built
// in Go role, content, then the optional fields that are set and Extra.
func (m *Message) keys() []string {
	if m.order != nil {
		return m.order
	}
	ks := []string{"role", "content"}
	if m.ReasoningContent != "" {
		ks = append(ks, "reasoning_content")
	}
	if len(m.ToolCalls) > 0 {
		ks = append(ks, "tool_calls")
	}
	if m.Name != "" {
		ks = append(ks, "name")
	}
	if m.ToolCallID != "" {
		ks = append(ks, "tool_call_id")
	}
	for _, f := range m.Extra {
		ks = append(ks, f.Key)
	}
	return ks
}

// UnmarshalJSON decodes a string, a list of parts, or null.
func (c *Content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	*c = Content{}
	switch {
	case bytes.Equal(data, []byte("null")):
		c.Null = true
		return nil
	case len(data) > 0 && data[0] == '"':
		return json.Unmarshal(data, &c.Text)
	case len(data) > 0 && data[0] == '[':
		var raws []json.RawMessage
		if err := json.Unmarshal(data, &raws); err != nil {
			return fmt.Errorf("content: %w", err)
		}
		c.Parts = make([]Part, 0, len(raws))
		for _, r := range raws {
			var p struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(r, &p); err != nil {
				return fmt.Errorf("content part: %w", err)
			}
			c.Parts = append(c.Parts, Part{Type: p.Type, Text: p.Text, Raw: r})
		}
		return nil
	}
	return fmt.Errorf("content must be a string, a list of parts or null")
}

// MarshalJSON encodes the content as a string, a list of parts, or null.
func (c Content) MarshalJSON() ([]byte, error) {
	switch {
	case c.Null:
		return []byte("null"), nil
	case c.Parts != nil:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, p := range c.Parts {
			if i > 0 {
				b.WriteByte(',')
			}
			raw := p.Raw
			if raw == nil {
				var err error
				raw, err = json.Marshal(struct {
					Type string `json:"type"`
					Text string `json:"text"`
				}{p.Type, p.Text})
				if err != nil {
					return nil, err
				}
			}
			b.Write(raw)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	}
	return json.Marshal(c.Text)
}

type toolCallJSON struct {
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	} `json:"function"`
}

// UnmarshalJSON decodes {"id", "type", "function": {"name", "arguments"}}.
func (tc *ToolCall) UnmarshalJSON(data []byte) error {
	var j toolCallJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("tool call: %w", err)
	}
	*tc = ToolCall{ID: j.ID, Type: j.Type, Function: FunctionCall{Name: j.Function.Name, Arguments: j.Function.Arguments}}
	return nil
}

// MarshalJSON encodes the call in the OpenAI form.
func (tc ToolCall) MarshalJSON() ([]byte, error) {
	var j toolCallJSON
	j.ID, j.Type, j.Function.Name, j.Function.Arguments = tc.ID, tc.Type, tc.Function.Name, tc.Function.Arguments
	return json.Marshal(j)
}

// objectFields returns the keys of a JSON object in order and their raw values.
func objectFields(data []byte) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("not a JSON object")
	}
	keys := []string{}
	var raws []json.RawMessage
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		keys = append(keys, kt.(string))
		raws = append(raws, raw)
	}
	return keys, raws, nil
}
