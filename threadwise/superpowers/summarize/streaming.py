"""The summary passed on to the caller while the model writes it."""

from __future__ import annotations

from collections.abc import Callable


class DraftStream:
    """Passes the summary on as the model writes its first draft: the cumulative text of the
    summary (after the notes' "Summary:"), or of its translation when another language is
    asked for. Later revisions are not streamed; the final text comes with the answer.
    ``present`` turns the model's text into what the caller may see (speakers' own names)."""

    def __init__(
        self, on_partial: Callable[[str], None], present: Callable[[str], str] = str
    ) -> None:
        self.on_partial = on_partial
        self.present = present
        self.sent = ""

    def step(self, extract: Callable[[str], str]) -> Callable[[str], None] | None:
        """The ``on_text`` hook for one generation, whose text so far ``extract`` turns into
        the partial summary; ``None`` once a draft has been streamed."""
        if self.sent:
            return None
        pieces: list[str] = []

        def on_text(piece: str) -> None:
            pieces.append(piece)
            partial = self.present(extract("".join(pieces)))
            if partial and partial != self.sent:
                self.sent = partial
                self.on_partial(partial)

        return on_text


def summary_so_far(text: str) -> str:
    """The summary part of an answer being written: after "Summary:" if the answer began
    with notes ("Issue: …"), else all of it (the model sometimes skips the notes)."""
    _, marker, summary = text.partition("Summary:")
    if marker:
        return summary.strip()
    start = text.lstrip()
    if start.startswith("Issue:") or "Issue:".startswith(start):
        return ""  # notes, or perhaps the start of them: not for the reader
    if start.startswith("Summary") or "Summary".startswith(start):
        return ""  # the label, being written
    return text.strip()
