"""The base class every tool of this project subclasses, as in GC-Forged-Pylot."""


class Tool:
    """A tool: an instance is made once per worker, then `run(**inputs)` per call."""

    name = "tool"

    def run(self, **inputs):
        raise NotImplementedError
