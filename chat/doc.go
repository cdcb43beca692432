// Package chat renders a model's chat template (the Jinja2 text a GGUF file
// carries in tokenizer.chat_template) exactly as Hugging Face's reference
// renderer does, and splits a reasoning model's <think>...</think> output from
// its answer.
//
// The Jinja engine is github.com/ardanlabs/jinja (chosen by measurement on the
// templates in ../shared/templates, see the package tests); this package is the
// thin layer chat templates need around it:
//
//   - the conversation keeps the key order of its JSON (a template's tojson
//     prints keys in input order, as Python does), so messages, tools and
//     keyword arguments are converted to ordered values, never to Go maps;
//   - strftime_now reads an injectable clock (Options.Now);
//   - raise_exception comes back as a *RaiseError carrying the template's text;
//   - a template that does not parse gives an error naming the line.
//
// The package does no I/O and no model math. A Template is immutable after
// Parse and safe for concurrent use by any number of goroutines; a
// ReasoningSplitter is not (one per stream).
package chat
