"""Example Pylot tools run by toolcap's `python` provider (see ../README.md)."""
