"""Read a note from the project's notes/ folder (and nowhere else)."""

import os

from .base import Tool

NOTES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "notes")


class ReadNoteTool(Tool):
    def run(self, name):
        path = os.path.realpath(os.path.join(NOTES, name))
        if os.path.dirname(path) != os.path.realpath(NOTES):
            raise ValueError("note %r is not in the notes folder" % name)
        if not os.path.isfile(path):
            raise FileNotFoundError("no note named %r" % name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return {"name": name, "text": text, "bytes": len(text.encode("utf-8"))}


class ListNotesTool(Tool):
    def run(self):
        return {"notes": sorted(n for n in os.listdir(NOTES) if not n.startswith("."))}
