"""Text tools: pure functions of their inputs."""

import re
import unicodedata

from .base import Tool


class SlugifyTool(Tool):
    """Turn a title into a URL slug."""

    def run(self, text, separator="-"):
        ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        words = re.findall(r"[a-z0-9]+", ascii_text.lower())
        return {"slug": separator.join(words)}


class ReverseTool(Tool):
    """Reverse a string (its characters, or its words)."""

    def run(self, text, words=False):
        return {"text": " ".join(reversed(text.split())) if words else text[::-1]}
