from __future__ import annotations

from threadwise.text.protected import protected_counts, protected_spans


def found(text: str) -> list[str]:
    return sorted(protected_counts(text))


def test_each_kind_is_found_whole() -> None:
    text = (
        "See https://example.com/a_(b)?x=1. Mail ana.b+x@example.co.uk or @maria_r, "
        "{{ user.name }} {0} {} %s %1$s %(count)d ${HOME} :thumbsup: 👩‍💻 👍🏽 🇵🇹 1️⃣ "
        "[NATIONAL_ID_12]"
    )
    assert found(text) == sorted(
        [
            "https://example.com/a_(b)?x=1",
            "ana.b+x@example.co.uk",
            "@maria_r",
            "{{ user.name }}",
            "{0}",
            "{}",
            "%s",
            "%1$s",
            "%(count)d",
            "${HOME}",
            ":thumbsup:",
            "👩‍💻",
            "👍🏽",
            "🇵🇹",
            "1️⃣",
            "[NATIONAL_ID_12]",
        ]
    )


def test_ordinary_text_is_not_protected() -> None:
    assert found("It costs 50% less, at 10:30:45, ratio 3:1 — see you soon.") == []
    assert found("[Note] see [1] and [A_b] or [TODO]") == []


def test_direction_marks_are_protected() -> None:
    text = "رقم الطلب \u200f4471\u200f لم يصل \u2066ABC-12\u2069."
    spans = [text[start:end] for start, end in protected_spans(text)]
    assert spans == ["\u200f", "\u200f", "\u2066", "\u2069"]
