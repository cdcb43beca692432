package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ardanlabs/jinja"
)

// jsonValue decodes JSON into the engine's values, keeping the order of
// object keys (jinja.FromGoValue would sort a Go map's keys, and a template's
// tojson must print them in input order as Python's json.dumps does).
// Integers stay integers.
func jsonValue(data []byte) (jinja.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return jinja.Undefined(), err
	}
	if _, err := dec.Token(); err == nil {
		return jinja.Undefined(), fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (jinja.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return jinja.Undefined(), err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := jinja.NewDict()
			dict := d.AsDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jinja.Undefined(), err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return jinja.Undefined(), err
				}
				dict.Set(kt.(string), v)
			}
			_, err := dec.Token() // '}'
			return d, err
		case '[':
			items := []jinja.Value{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return jinja.Undefined(), err
				}
				items = append(items, v)
			}
			_, err := dec.Token() // ']'
			return jinja.NewList(items), err
		}
		return jinja.Undefined(), fmt.Errorf("unexpected %v", t)
	case nil:
		return jinja.None(), nil
	default:
		return jinja.FromGoValue(t), nil // bool, string, json.Number
	}
}

// messagesValue converts a conversation to the template's `messages`.
func messagesValue(msgs []Message) (jinja.Value, error) {
	items := make([]jinja.Value, len(msgs))
	for i := range msgs {
		v, err := messageValue(&msgs[i])
		if err != nil {
			return jinja.Undefined(), fmt.Errorf("message %d: %w", i, err)
		}
		items[i] = v
	}
	return jinja.NewList(items), nil
}

func messageValue(m *Message) (jinja.Value, error) {
	d := jinja.NewDict()
	dict := d.AsDict()
	for _, k := range m.keys() {
		switch k {
		case "role":
			dict.Set(k, jinja.NewString(m.Role))
		case "content":
			v, err := contentValue(m.Content)
			if err != nil {
				return jinja.Undefined(), err
			}
			dict.Set(k, v)
		case "reasoning_content":
			dict.Set(k, jinja.NewString(m.ReasoningContent))
		case "tool_calls":
			calls := make([]jinja.Value, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				v, err := toolCallValue(tc)
				if err != nil {
					return jinja.Undefined(), fmt.Errorf("tool call %d: %w", i, err)
				}
				calls[i] = v
			}
			dict.Set(k, jinja.NewList(calls))
		case "name":
			dict.Set(k, jinja.NewString(m.Name))
		case "tool_call_id":
			dict.Set(k, jinja.NewString(m.ToolCallID))
		default:
			for _, f := range m.Extra {
				if f.Key == k {
					v, err := jsonValue(f.Value)
					if err != nil {
						return jinja.Undefined(), fmt.Errorf("%s: %w", k, err)
					}
					dict.Set(k, v)
					break
				}
			}
		}
	}
	return d, nil
}

func contentValue(c Content) (jinja.Value, error) {
	switch {
	case c.Null:
		return jinja.None(), nil
	case c.Parts != nil:
		items := make([]jinja.Value, len(c.Parts))
		for i, p := range c.Parts {
			if p.Raw != nil {
				v, err := jsonValue(p.Raw)
				if err != nil {
					return jinja.Undefined(), fmt.Errorf("content part %d: %w", i, err)
				}
				items[i] = v
				continue
			}
			d := jinja.NewDict()
			d.AsDict().Set("type", jinja.NewString(p.Type))
			d.AsDict().Set("text", jinja.NewString(p.Text))
			items[i] = d
		}
		return jinja.NewList(items), nil
	}
	return jinja.NewString(c.Text), nil
}

func toolCallValue(tc ToolCall) (jinja.Value, error) {
	fn := jinja.NewDict()
	fn.AsDict().Set("name", jinja.NewString(tc.Function.Name))
	if len(tc.Function.Arguments) > 0 {
		args, err := argumentsValue(tc.Function.Arguments)
		if err != nil {
			return jinja.Undefined(), err
		}
		fn.AsDict().Set("arguments", args)
	}
	d := jinja.NewDict()
	if tc.ID != "" {
		d.AsDict().Set("id", jinja.NewString(tc.ID))
	}
	if tc.Type != "" {
		d.AsDict().Set("type", jinja.NewString(tc.Type))
	}
	d.AsDict().Set("function", fn)
	return d, nil
}

// argumentsValue gives templates the arguments as an object: the OpenAI API
// sends them as a string of JSON, Hugging Face templates expect a dict (as
// llama.cpp's renderer also arranges).
func argumentsValue(raw json.RawMessage) (jinja.Value, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return jinja.Undefined(), fmt.Errorf("arguments: %w", err)
	}
	if v.IsString() {
		s := strings.TrimSpace(v.AsString())
		if strings.HasPrefix(s, "{") {
			if obj, err := jsonValue([]byte(s)); err == nil {
				return obj, nil
			}
		}
	}
	return v, nil
}
