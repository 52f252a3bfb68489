"""toolcap's Python runner for Pylot-style tools (the `python` provider).

Two modes, both started by toolcap (never by hand):

  serve SPEC_JSON   load one tool class and answer calls: newline-delimited
                    JSON over stdin/stdout, one object per line.
                    in:  {"id": 1, "op": "call", "inputs": {...}} | {"id": 2, "op": "ping"}
                    out: {"op": "ready", "class_name": "WordCount", "file": "..."}
                         | {"op": "load_failed", "error": {...}}   (then exit 3)
                         {"id": 1, "ok": true, "result": ..., "output": "..."}
                         {"id": 1, "ok": false, "error": {"type": "ValueError", "message": "..."}, "output": "..."}
  check             read {"root", "allow", "tools": [{"key", "module", "class_name"}]}
                    from stdin, import each module (no instance is made) and
                    write {"results": [{"key", "ok", "error"?, "class_name"?, "file"?}]}.

A module path is absolute from the project root (`src.tools.text`) or
package-relative to it (`.tools.text`); its top-level package must be found
under the project root or an allowed folder, never in the standard library or
site-packages. Without a class name, the first subclass of a class named
`Tool` defined in the module is used (then one imported into it).

Whatever a tool prints goes to a per-call buffer (bounded) that is returned
as "output", never to the protocol stream: file descriptor 1 is pointed at
stderr, and the protocol writes to a private duplicate of the original.
Requests are read from a private copy of stdin, which then reads nothing
(a tool calling input() cannot swallow them). Errors carry the exception's
type and message only, no traceback.
"""

import importlib
import importlib.machinery
import inspect
import json
import os
import re
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

MAX_OUTPUT_CHARS = 16 * 1024
MAX_MESSAGE_CHARS = 2000
# The id toolcap writes first on every request line (python-worker.ts), read when the line cannot be decoded.
REQUEST_ID = re.compile(r'\{"id":(\d+),')
IDENTIFIER_OK = str.isidentifier

# This folder holds only the runner: keep its modules from shadowing a project's.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)


class LoadError(Exception):
    """Why a tool cannot be loaded: kind is absent, not_found, outside, import, class or init."""

    def __init__(self, kind, message, exc_type=None):
        super().__init__(message)
        self.kind = kind
        self.exc_type = exc_type

    def as_json(self):
        out = {"kind": self.kind, "message": str(self)}
        if self.exc_type:
            out["type"] = self.exc_type
        return out


def short(text, limit=MAX_MESSAGE_CHARS):
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."


def inside(path, roots):
    real = os.path.realpath(path)
    for root in roots:
        r = os.path.realpath(root)
        if real == r or real.startswith(r.rstrip(os.sep) + os.sep):
            return True
    return False


def absolute_module(module):
    """`.tools.text` is `tools.text` from the project root; `..x` would leave it."""
    dots = len(module) - len(module.lstrip("."))
    if dots > 1:
        raise LoadError("outside", "module %r climbs above the project root (one leading dot at most)" % module)
    name = module[dots:]
    if not name or not all(IDENTIFIER_OK(part) for part in name.split(".")):
        raise LoadError("not_found", "module %r is not a dotted Python import path" % module)
    return name


def import_module(root, allow, module):
    roots = [root] + list(allow)
    name = absolute_module(module)
    top = name.split(".")[0]
    stdlib = getattr(sys, "stdlib_module_names", ())
    if top in sys.builtin_module_names or top in stdlib:
        raise LoadError("outside", "module %r is part of Python's standard library, not a module of the project" % module)
    if importlib.machinery.PathFinder.find_spec(top, roots) is None:
        # not even the top-level package: the project's code is not on this machine
        raise LoadError("absent", "no package or module %r under the project root %s" % (top, root), "ModuleNotFoundError")
    for r in reversed(roots):
        if r not in sys.path:
            sys.path.insert(0, r)
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as e:
        missing = e.name or ""
        kind = "not_found" if name == missing or name.startswith(missing + ".") else "import"
        raise LoadError(kind, "importing %r failed: %s" % (module, short(e)), type(e).__name__)
    except BaseException as e:  # a module may raise anything, SystemExit included
        raise LoadError("import", "importing %r failed: %s: %s" % (module, type(e).__name__, short(e)), type(e).__name__)
    origin = getattr(mod, "__file__", None)
    if origin is None or not inside(origin, roots):
        raise LoadError("outside", "module %r was loaded from %s, outside the project root %s" % (module, origin or "no file", root))
    return mod


def is_tool_class(obj):
    return inspect.isclass(obj) and obj.__name__ != "Tool" and any(base.__name__ == "Tool" for base in obj.__mro__[1:])


def find_class(mod, module, class_name):
    if class_name:
        cls = getattr(mod, class_name, None)
        if cls is None:
            raise LoadError("class", "module %r has no class %r" % (module, class_name))
        if not inspect.isclass(cls):
            raise LoadError("class", "%r in module %r is not a class" % (class_name, module))
    else:
        candidates = [o for o in vars(mod).values() if is_tool_class(o) and not inspect.isabstract(o)]
        own = [o for o in candidates if o.__module__ == mod.__name__]
        if not candidates:
            raise LoadError("class", "module %r defines no subclass of Tool (give class_name, or subclass Tool)" % module)
        cls = (own or candidates)[0]
    if not callable(getattr(cls, "run", None)):
        raise LoadError("class", "class %r of module %r has no run method" % (cls.__name__, module))
    return cls


def load_class(root, allow, module, class_name):
    mod = import_module(root, allow, module)
    return find_class(mod, module, class_name), getattr(mod, "__file__", None)


class Output:
    """Print output of the calls under way, one bounded buffer per thread."""

    def __init__(self, fallback):
        self.local = threading.local()
        self.fallback = fallback

    def begin(self):
        self.local.parts, self.local.size, self.local.dropped = [], 0, 0

    def end(self):
        parts, dropped = getattr(self.local, "parts", None), getattr(self.local, "dropped", 0)
        self.local.parts = None
        text = "".join(parts or [])
        return text + ("\n[... %d characters not kept]" % dropped if dropped else "")

    def write(self, text):
        parts = getattr(self.local, "parts", None)
        if parts is None:
            return self.fallback.write(text)
        room = MAX_OUTPUT_CHARS - self.local.size
        if room > 0:
            parts.append(text[:room])
            self.local.size += min(len(text), room)
        self.local.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


def protocol_stream():
    """A private copy of stdout for the protocol; fd 1 then points at stderr."""
    sys.stdout.flush()
    stream = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    return stream


def request_stream():
    """A private copy of stdin for the protocol; a tool reading stdin (input()) reads nothing."""
    stream = os.fdopen(os.dup(0), "r", encoding="utf-8", newline="\n")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, "r")
    return stream


def serve(spec):
    out = protocol_stream()
    requests = request_stream()
    lock = threading.Lock()

    # The protocol is written ASCII-escaped: a lone surrogate (a caller may send
    # "\ud800", which json.loads accepts) cannot be encoded as UTF-8, and the
    # write raising in a pool thread left the call unanswered until its timeout.
    def send(message):
        line = json.dumps(message)
        with lock:
            out.write(line + "\n")
            out.flush()

    output = Output(sys.stderr)
    sys.stdout = output
    try:
        cls, origin = load_class(spec["root"], spec.get("allow") or [], spec["module"], spec.get("class_name"))
        try:
            tool = cls()
        except BaseException as e:
            raise LoadError("init", "%s() failed: %s: %s" % (cls.__name__, type(e).__name__, short(e)), type(e).__name__)
    except LoadError as e:
        send({"op": "load_failed", "error": e.as_json()})
        sys.exit(3)
    send({"op": "ready", "class_name": cls.__name__, "file": origin})

    def answer(request):
        try:
            call(request)
        except BaseException as e:  # a call never goes unanswered: it would wait for its timeout, which ends the worker
            send({"id": request.get("id"), "ok": False, "error": {"type": type(e).__name__, "message": "the answer could not be sent"}, "output": ""})

    def call(request):
        output.begin()
        try:
            inputs = request.get("inputs") or {}
            if not isinstance(inputs, dict):
                raise TypeError("inputs must be an object")
            result = tool.run(**inputs)
        except BaseException as e:  # SystemExit too: a tool must not end the worker
            return fail(request, e, output.end())
        try:
            text = json.dumps(result, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as e:
            return fail(request, e, output.end(), "ResultNotJSON")
        reply = '{"id": %s, "ok": true, "result": %s, "output": %s}' % (
            json.dumps(request.get("id")), text, json.dumps(output.end()))
        with lock:
            out.write(reply + "\n")
            out.flush()

    def fail(request, e, printed, kind=None):
        error = {"type": kind or type(e).__name__, "message": short(e)}
        send({"id": request.get("id"), "ok": False, "error": error, "output": printed})

    pool = ThreadPoolExecutor(max_workers=max(1, int(spec.get("concurrency") or 1)))
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except RecursionError:
            # inputs nested past the decoder's recursion limit: the caller's, so that call fails
            # (a RecursionError is no ValueError: it ended the worker and every call in it)
            found = REQUEST_ID.match(line)
            if found:
                send({"id": int(found.group(1)), "ok": False, "output": "",
                      "error": {"type": "InputTooDeep", "message": "the arguments are nested too deep for Python's JSON decoder"}})
            continue
        except ValueError:
            continue
        if request.get("op") == "ping":
            send({"id": request.get("id"), "ok": True, "result": True, "output": ""})
        elif request.get("op") == "call":
            pool.submit(answer, request)
    pool.shutdown(wait=True)


def check(timeout):
    out = protocol_stream()
    sys.stdout = sys.stderr
    request = json.load(sys.stdin)
    results = []

    def finish(*_):
        out.write(json.dumps({"results": results, "complete": len(results) == len(request["tools"])}) + "\n")
        out.flush()
        os._exit(0)

    if timeout and hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, finish)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    for item in request["tools"]:
        try:
            cls, origin = load_class(request["root"], request.get("allow") or [], item["module"], item.get("class_name"))
            results.append({"key": item["key"], "ok": True, "class_name": cls.__name__, "file": origin})
        except LoadError as e:
            results.append({"key": item["key"], "ok": False, "error": e.as_json()})
    finish()


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "serve":
        serve(json.loads(sys.argv[2]))
    elif len(sys.argv) >= 2 and sys.argv[1] == "check":
        check(float(sys.argv[2]) if len(sys.argv) >= 3 else 0)
    else:
        sys.stderr.write("usage: pylot_runner.py serve SPEC_JSON | check [TIMEOUT_S]\n")
        sys.exit(2)
