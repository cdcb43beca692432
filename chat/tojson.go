package chat

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ardanlabs/jinja"
)

// The engine's tojson sorts keys when given indent= (it goes through a Go
// map), while Hugging Face's keeps the input order. Its filters cannot be
// replaced, but a filter it does not know is looked up among the template's
// variables, so preprocess renames the tojson filter in the source to this
// name and render supplies the implementation below.
const tojsonName = "__gollm_tojson"

func isIdentByte(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tojsonFilter is Hugging Face's tojson: json.dumps with ensure_ascii=False,
// keys in their order (sort_keys=False), and the indent, separators and
// sort_keys arguments.
func tojsonFilter(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), fmt.Errorf("tojson: no value")
	}
	e := jsonEncoder{itemSep: ", ", keySep: ": "}
	indent := jinja.Undefined()
	if len(args) > 1 {
		indent = args[1]
	}
	if v, ok := kwargs["indent"]; ok {
		indent = v
	}
	switch {
	case indent.IsInt():
		e.indent, e.indented = strings.Repeat(" ", int(max(indent.AsInt(), 0))), true
	case indent.IsString():
		e.indent, e.indented = indent.AsString(), true
	}
	if e.indented {
		e.itemSep = ","
	}
	if s, ok := kwargs["separators"]; ok && !s.IsNone() {
		if !s.IsList() || s.AsList().Len() != 2 || !s.AsList().Items[0].IsString() || !s.AsList().Items[1].IsString() {
			return jinja.Undefined(), fmt.Errorf("tojson: separators must be two strings")
		}
		e.itemSep, e.keySep = s.AsList().Items[0].AsString(), s.AsList().Items[1].AsString()
	}
	if s, ok := kwargs["sort_keys"]; ok {
		e.sortKeys = s.IsTruthy()
	}
	if err := e.encode(args[0], 0); err != nil {
		return jinja.Undefined(), err
	}
	return jinja.NewString(e.b.String()), nil
}

type jsonEncoder struct {
	b                  strings.Builder
	indent             string
	indented, sortKeys bool
	itemSep, keySep    string
}

func (e *jsonEncoder) newline(depth int) {
	if e.indented {
		e.b.WriteByte('\n')
		for range depth {
			e.b.WriteString(e.indent)
		}
	}
}

func (e *jsonEncoder) encode(v jinja.Value, depth int) error {
	switch {
	case v.IsUndefined(), v.IsNone(), v.IsCallable():
		e.b.WriteString("null")
	case v.IsBool():
		e.b.WriteString(strconv.FormatBool(v.AsBool()))
	case v.IsInt():
		e.b.WriteString(strconv.FormatInt(v.AsInt(), 10))
	case v.IsFloat():
		s, err := pythonFloat(v.AsFloat())
		if err != nil {
			return err
		}
		e.b.WriteString(s)
	case v.IsString():
		writeJSONString(&e.b, v.AsString())
	case v.IsList():
		items := v.AsList().Items
		if len(items) == 0 {
			e.b.WriteString("[]")
			return nil
		}
		e.b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				e.b.WriteString(e.itemSep)
			}
			e.newline(depth + 1)
			if err := e.encode(it, depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.b.WriteByte(']')
	case v.IsDict():
		d := v.AsDict()
		if d.Len() == 0 {
			e.b.WriteString("{}")
			return nil
		}
		keys := d.Keys
		if e.sortKeys {
			keys = append([]string(nil), keys...)
			slices.Sort(keys)
		}
		e.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.b.WriteString(e.itemSep)
			}
			e.newline(depth + 1)
			writeJSONString(&e.b, k)
			e.b.WriteString(e.keySep)
			if err := e.encode(d.Data[k], depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.b.WriteByte('}')
	default:
		e.b.WriteString("null")
	}
	return nil
}

// pythonFloat formats f as Python's repr does (1.0, 0.5, 1e-05, 1e+16).
func pythonFloat(f float64) (string, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("tojson: cannot encode %v", f)
	}
	a := math.Abs(f)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e-05 / e+16 as Python does; nothing to fix but "e+00" forms.
		return s, nil
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s, nil
}

// writeJSONString writes s as json.dumps(ensure_ascii=False) does: only the
// quote, the backslash and control characters are escaped.
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
