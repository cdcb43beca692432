package chat

import (
	"fmt"
	"slices"
	"strings"
)

// Built-in templates serve GGUF files that carry no tokenizer.chat_template
// (and --chat-template NAME). Each is the model family's published template,
// shortened where it only validated; where the original rejects a system
// turn (Gemma, Mistral v0.1) the system text is put before the first user
// turn, as the families' later templates do.
var builtins = map[string]string{
	// ChatML (Qwen, Hermes, SmolLM and the fallback for files without a template).
	"chatml": `{%- for message in messages -%}
{{- '<|im_start|>' + message['role'] + '\n' + (message['content'] or '') + '<|im_end|>\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<|im_start|>assistant\n' -}}
{%- endif -%}`,

	// Llama 2 chat: [INST] turns, the system prompt in <<SYS>> inside the first.
	"llama2": `{%- if messages[0]['role'] == 'system' -%}
{%- set loop_messages = messages[1:] -%}{%- set system_message = messages[0]['content'] -%}
{%- else -%}
{%- set loop_messages = messages -%}{%- set system_message = false -%}
{%- endif -%}
{%- for message in loop_messages -%}
{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
{{- raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') -}}
{%- endif -%}
{%- if loop.index0 == 0 and system_message != false -%}
{%- set content = '<<SYS>>\n' + system_message + '\n<</SYS>>\n\n' + message['content'] -%}
{%- else -%}
{%- set content = message['content'] -%}
{%- endif -%}
{%- if message['role'] == 'user' -%}
{{- bos_token + '[INST] ' + content.strip() + ' [/INST]' -}}
{%- elif message['role'] == 'assistant' -%}
{{- ' ' + content.strip() + ' ' + eos_token -}}
{%- endif -%}
{%- endfor -%}`,

	// Llama 3 instruct.
	"llama3": `{%- for message in messages -%}
{%- set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + (message['content'] or '') | trim + '<|eot_id|>' -%}
{%- if loop.index0 == 0 -%}{%- set content = bos_token + content -%}{%- endif -%}
{{- content -}}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<|start_header_id|>assistant<|end_header_id|>\n\n' -}}
{%- endif -%}`,

	// Mistral instruct (v0.1/v0.2 layout; a system prompt goes before the first user turn).
	"mistral": `{%- if messages[0]['role'] == 'system' -%}
{%- set loop_messages = messages[1:] -%}{%- set system_message = messages[0]['content'] + '\n\n' -%}
{%- else -%}
{%- set loop_messages = messages -%}{%- set system_message = '' -%}
{%- endif -%}
{{- bos_token -}}
{%- for message in loop_messages -%}
{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
{{- raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') -}}
{%- endif -%}
{%- if message['role'] == 'user' -%}
{%- if loop.index0 == 0 -%}{%- set content = system_message + message['content'] -%}{%- else -%}{%- set content = message['content'] -%}{%- endif -%}
{{- '[INST] ' + content + ' [/INST]' -}}
{%- elif message['role'] == 'assistant' -%}
{{- message['content'] + eos_token -}}
{%- else -%}
{{- raise_exception('Only user, assistant and a first system role are supported') -}}
{%- endif -%}
{%- endfor -%}`,

	// Gemma (2 and 3): <start_of_turn>user/model; a system prompt goes before the first user turn.
	"gemma": `{{- bos_token -}}
{%- if messages[0]['role'] == 'system' -%}
{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}{%- set loop_messages = messages[1:] -%}
{%- else -%}
{%- set first_user_prefix = '' -%}{%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
{{- raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') -}}
{%- endif -%}
{%- if message['role'] == 'assistant' -%}{%- set role = 'model' -%}{%- else -%}{%- set role = message['role'] -%}{%- endif -%}
{{- '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else '') + message['content'] | trim + '<end_of_turn>\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<start_of_turn>model\n' -}}
{%- endif -%}`,

	// Phi-3 / Phi-3.5 instruct.
	"phi3": `{%- for message in messages -%}
{%- if message['role'] == 'system' and message['content'] -%}
{{- '<|system|>\n' + message['content'] + '<|end|>\n' -}}
{%- elif message['role'] == 'user' -%}
{{- '<|user|>\n' + message['content'] + '<|end|>\n' -}}
{%- elif message['role'] == 'assistant' -%}
{{- '<|assistant|>\n' + message['content'] + '<|end|>\n' -}}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<|assistant|>\n' -}}
{%- else -%}
{{- eos_token -}}
{%- endif -%}`,
}

// DefaultName is the built-in template used for a model without one.
const DefaultName = "chatml"

// BuiltinNames lists the built-in template names, sorted.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Builtin returns the built-in template called name (see BuiltinNames).
func Builtin(name string) (*Template, error) {
	src, ok := builtins[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("chat: no built-in template %q (have %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	return Parse(name, src)
}

// IsBuiltin reports whether name is a built-in template's name.
func IsBuiltin(name string) bool {
	_, ok := builtins[strings.ToLower(name)]
	return ok
}
