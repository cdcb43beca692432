# A second reference for the chat templates: the environment Hugging Face
# transformers' apply_chat_template renders in (Jinja2's
# ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks, loopcontrols
# and {% generation %} blocks; tojson, raise_exception and strftime_now as
# transformers defines them), with the clock fixed at 2024-07-26.
#
# Input on stdin, one JSON object a line: {"source": TEMPLATE TEXT, "context":
# {...variables}}. Output, a line each: {"ok": RENDERING} or {"err": MESSAGE}.
import json
import sys
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


class AssistantTracker(Extension):
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime(2024, 7, 26).strftime(fmt)


env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[AssistantTracker, loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
env.globals["strftime_now"] = strftime_now

compiled = {}
for line in sys.stdin:
    job = json.loads(line)
    try:
        src = job["source"]
        if src not in compiled:
            compiled[src] = env.from_string(src)
        out = {"ok": compiled[src].render(**job["context"])}
    except Exception as e:  # the template's or the engine's error: reported, not fatal
        out = {"err": type(e).__name__ + ": " + str(e)}
    print(json.dumps(out))
