package chat

import (
	"strings"
	"unicode"
)

// preprocess rewrites a template's source so that the engine's whitespace
// handling cannot differ from Jinja2's, and renames the tojson filter (see
// tojsonName).
//
// Hugging Face renders with trim_blocks, lstrip_blocks and
// keep_trailing_newline=False. The engine applies trim_blocks and
// lstrip_blocks to the nearest text segment even across an expression tag,
// so `{% for m in x %}{{ m }}\n{% endfor %}` loses its newlines. Here the
// rules are applied the way Jinja2's lexer does (jinja2/lexer.py: "-" strips
// all whitespace, "+" turns the defaults off, lstrip only when the tag starts
// its line, one newline after a block or comment tag), and every piece of
// text is then handed to the engine as a string expression {{ '...' }}, so no
// text segment is left for it to trim. Newlines keep their lines: those
// inside text stay in the string literals, stripped ones move into empty
// comments, so the engine's parse errors name the source's lines.
func preprocess(src string) string {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	src = strings.TrimSuffix(src, "\n") // keep_trailing_newline=False
	items := lexTemplate(src)

	var out strings.Builder
	out.Grow(len(src) + len(src)/4)
	for i, it := range items {
		if it.kind != itemText {
			writeTag(&out, it)
			continue
		}
		text := it.src
		lineStarting := true // start of template
		if i > 0 {
			p := items[i-1]
			switch {
			case p.rmark == '-':
				trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
				lineStarting = strings.HasSuffix(text[:len(text)-len(trimmed)], "\n")
				text = trimmed
			case (p.kind == itemStmt || p.kind == itemComment) && p.rmark != '+' && !p.rawBegin && strings.HasPrefix(text, "\n"):
				text, lineStarting = text[1:], true
			default:
				lineStarting = false
			}
		}
		if i+1 < len(items) {
			n := items[i+1]
			switch {
			case n.lmark == '-':
				text = strings.TrimRightFunc(text, unicode.IsSpace)
			case (n.kind == itemStmt || n.kind == itemComment) && n.lmark != '+' && !n.rawBody:
				lpos := strings.LastIndexByte(text, '\n') + 1
				if (lpos > 0 || lineStarting) && lpos < len(text) && strings.TrimLeft(text[lpos:], " \t\v\f") == "" {
					text = text[:lpos]
				}
			}
		}
		if text != "" {
			out.WriteString("{{ '")
			for j := 0; j < len(text); j++ {
				if c := text[j]; c == '\\' || c == '\'' {
					out.WriteByte('\\')
				}
				out.WriteByte(text[j])
			}
			out.WriteString("' }}")
		}
		// The newlines stripped from this text keep their lines in a comment.
		if lost := strings.Count(it.src, "\n") - strings.Count(text, "\n"); lost > 0 {
			out.WriteString("{#" + strings.Repeat("\n", lost) + "#}")
		}
	}
	return out.String()
}

type itemKind uint8

const (
	itemText itemKind = iota
	itemExpr
	itemStmt
	itemComment
	itemVerbatim // passed to the engine as it is (an unclosed tag)
)

type item struct {
	kind         itemKind
	src          string // text, or a tag's content between its markers
	lmark, rmark byte   // '-', '+' or 0
	rawBegin     bool   // a {% raw %} tag: no trim_blocks after it
	rawBody      bool   // the text of a raw block (before {% endraw %}): no lstrip
}

// lexTemplate splits src into text and tags as the engine's scanner does
// (closers inside string literals do not count), with raw blocks' bodies as
// text.
func lexTemplate(src string) []item {
	var items []item
	i, textStart := 0, 0
	for i+1 < len(src) {
		if src[i] != '{' || (src[i+1] != '{' && src[i+1] != '%' && src[i+1] != '#') {
			i++
			continue
		}
		kind, closer := itemExpr, "}}"
		switch src[i+1] {
		case '%':
			kind, closer = itemStmt, "%}"
		case '#':
			kind, closer = itemComment, "#}"
		}
		end := findCloser(src, i+2, closer, kind != itemComment)
		if end < 0 { // unclosed: the engine reports it with its line
			if i > textStart {
				items = append(items, item{kind: itemText, src: src[textStart:i]})
			}
			return append(items, item{kind: itemVerbatim, src: src[i:]})
		}
		if i > textStart {
			items = append(items, item{kind: itemText, src: src[textStart:i]})
		}
		it := item{kind: kind}
		inner := src[i+2 : end]
		if len(inner) > 0 && (inner[0] == '-' || inner[0] == '+') {
			it.lmark, inner = inner[0], inner[1:]
		}
		if n := len(inner); n > 0 && (inner[n-1] == '-' || inner[n-1] == '+') {
			it.rmark, inner = inner[n-1], inner[:n-1]
		}
		it.src = inner
		i = end + 2
		textStart = i
		if kind == itemStmt && strings.TrimSpace(inner) == "raw" {
			it.rawBegin = true
			items = append(items, it)
			// The body runs to the next {% endraw %}, tags in it are text.
			body, endTag, next, ok := findEndraw(src, i)
			if !ok {
				i, textStart = len(src), len(src)
				items = append(items, item{kind: itemText, src: src[textStart:]})
				break
			}
			if body != "" {
				items = append(items, item{kind: itemText, src: body, rawBody: true})
			}
			items = append(items, endTag)
			i, textStart = next, next
			continue
		}
		items = append(items, it)
	}
	if textStart < len(src) {
		items = append(items, item{kind: itemText, src: src[textStart:]})
	}
	return items
}

// findCloser returns the index of closer in src from i, skipping string
// literals when quotes is set, or -1.
func findCloser(src string, i int, closer string, quotes bool) int {
	for i < len(src) {
		c := src[i]
		if quotes && (c == '\'' || c == '"') {
			i++
			for i < len(src) && src[i] != c {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
			continue
		}
		if strings.HasPrefix(src[i:], closer) {
			return i
		}
		i++
	}
	return -1
}

// findEndraw finds the {% endraw %} tag closing a raw block whose body
// starts at i.
func findEndraw(src string, i int) (body string, tag item, next int, ok bool) {
	for j := i; j+1 < len(src); j++ {
		if src[j] != '{' || src[j+1] != '%' {
			continue
		}
		end := strings.Index(src[j+2:], "%}")
		if end < 0 {
			return "", item{}, 0, false
		}
		inner := src[j+2 : j+2+end]
		t := item{kind: itemStmt}
		if len(inner) > 0 && (inner[0] == '-' || inner[0] == '+') {
			t.lmark, inner = inner[0], inner[1:]
		}
		if n := len(inner); n > 0 && (inner[n-1] == '-' || inner[n-1] == '+') {
			t.rmark, inner = inner[n-1], inner[:n-1]
		}
		if strings.TrimSpace(inner) != "endraw" {
			continue
		}
		// The engine needs no raw tags around a string: emit nothing for
		// them but their newlines.
		t.src = ""
		t.kind = itemComment
		return src[i:j], t, j + 2 + end + 2, true
	}
	return "", item{}, 0, false
}

// writeTag writes a tag without its whitespace markers (already applied).
// Comments keep only their newlines; raw tags become empty comments.
func writeTag(out *strings.Builder, it item) {
	switch {
	case it.kind == itemVerbatim:
		out.WriteString(it.src)
	case it.kind == itemComment || it.rawBegin:
		if n := strings.Count(it.src, "\n"); n > 0 || it.kind == itemComment {
			out.WriteString("{#" + strings.Repeat("\n", n) + "#}")
		}
	case it.kind == itemExpr:
		out.WriteString("{{")
		out.WriteString(renameTojson(it.src))
		out.WriteString("}}")
	default:
		out.WriteString("{%")
		out.WriteString(renameTojson(it.src))
		out.WriteString("%}")
	}
}

// renameTojson renames `| tojson` filter applications in a tag's content
// (outside string literals) to tojsonName.
func renameTojson(s string) string {
	if !strings.Contains(s, "tojson") {
		return s
	}
	var b strings.Builder
	lastPipe := false
	for j := 0; j < len(s); {
		c := s[j]
		if c == '\'' || c == '"' {
			k := j + 1
			for k < len(s) && s[k] != c {
				if s[k] == '\\' {
					k++
				}
				k++
			}
			k = min(k+1, len(s))
			b.WriteString(s[j:k])
			j, lastPipe = k, false
			continue
		}
		if lastPipe && strings.HasPrefix(s[j:], "tojson") && !isIdentByte(s, j+6) {
			b.WriteString(tojsonName)
			j, lastPipe = j+6, false
			continue
		}
		switch {
		case c == '|':
			lastPipe = true
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			lastPipe = false
		}
		b.WriteByte(c)
		j++
	}
	return b.String()
}
