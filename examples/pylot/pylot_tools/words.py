"""Word counting: no class_name in the manifest, so the first Tool subclass here is used."""

import collections
import re

from .base import Tool


class WordCountTool(Tool):
    def run(self, text, top=3):
        words = re.findall(r"[\w']+", text.lower())
        common = collections.Counter(words).most_common(int(top))
        # printed output goes to toolcap's log, never into the result
        print("counted %d words" % len(words))
        return {"words": len(words), "lines": len(text.splitlines()) or (1 if text else 0), "top": [{"word": w, "count": n} for w, n in common]}
