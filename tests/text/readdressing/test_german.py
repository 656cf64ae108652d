"""German by the words' shapes: "Sie" and its verb made "du"."""

from __future__ import annotations

import pytest

from threadwise.text.readdressing import german_informal


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bitte prüfen Sie Ihre Daten.", "Bitte prüfe deine Daten."),
        ("Können Sie uns helfen?", "Kannst du uns helfen?"),
        ("Sie erhalten morgen eine E-Mail.", "Du erhältst morgen eine E-Mail."),
        ("Wir rufen Sie an, wenn Sie Zeit haben.", "Wir rufen dich an, wenn du Zeit hast."),
        ("Das ist für Sie; Ihnen gehört es.", "Das ist für dich; dir gehört es."),
        ("Geben Sie den Code ein.", "Gib den Code ein."),
    ],
)
def test_german_sie_becomes_du(text: str, expected: str) -> None:
    assert german_informal(text) == expected
