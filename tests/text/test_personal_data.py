from __future__ import annotations

import pytest

from threadwise.text.personal_data import Placeholders, find


def kinds(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.value) for f in find(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Write to maya.chen+orders@example.co.uk please",
            [("EMAIL", "maya.chen+orders@example.co.uk")],
        ),
        ("call me on (415) 555-2671 after 5", [("PHONE", "(415) 555-2671")]),
        ("mi móvil es 612 34 56 78", [("PHONE", "612 34 56 78")]),
        ("London office: +44 20 7946 0958.", [("PHONE", "+44 20 7946 0958")]),
        ("portable : 01 23 45 67 89", [("PHONE", "01 23 45 67 89")]),
        ("celular (11) 91234-5678", [("PHONE", "(11) 91234-5678")]),
        ("text 07700 900123", [("PHONE", "07700 900123")]),
        ("card 4111 1111 1111 1111 exp 12/27", [("CARD", "4111 1111 1111 1111")]),
        ("charged to 5500-0000-0000-0004!", [("CARD", "5500-0000-0000-0004")]),
        ("IBAN: DE89 3704 0044 0532 0130 00 THANKS", [("IBAN", "DE89 3704 0044 0532 0130 00")]),
        ("pay to GB82WEST12345698765432", [("IBAN", "GB82WEST12345698765432")]),
        ("my SSN is 536-90-4399", [("NATIONAL_ID", "536-90-4399")]),
        ("social security number: 536904399", [("NATIONAL_ID", "536904399")]),
        (
            "DNI 12345678Z, NIE X1234567L",
            [("NATIONAL_ID", "12345678Z"), ("NATIONAL_ID", "X1234567L")],
        ),
        ("CPF 390.533.447-05", [("NATIONAL_ID", "390.533.447-05")]),
        ("NI number AB 12 34 56 C", [("NATIONAL_ID", "AB 12 34 56 C")]),
        ("NIR 1 24 06 35 832 364 52", [("NATIONAL_ID", "1 24 06 35 832 364 52")]),
        ("CPF 99722003372 (sem pontos)", [("NATIONAL_ID", "99722003372")]),
        # Bare digits a few words after the number's name.
        ("o cpf da titular é 99722003372", [("NATIONAL_ID", "99722003372")]),
        ("SSN (for the tax form): 536904399", [("NATIONAL_ID", "536904399")]),
    ],
)
def test_planted_values_are_found(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "My order 48213 has not arrived.",
        "It cost $1,299.00 on 2024-01-15 at 10:30.",
        "Tracking number 1Z999AA10123456784 says delivered.",
        "Ticket #4471, case 2024-000123.",
        "The card ending in 1111 was declined.",
        "4111 1111 1111 1112 is not a card number (Luhn).",
        "Model ABC-123-45 and serial 000-00-0000.",
        "Room 101, floor 3; see page 12 of 300.",
        "Error when installing build 22631.3007.",
        "This IBAN has a wrong check: DE13 5001 0517 0648 4898 90.",
    ],
)
def test_ordinary_numbers_are_not_personal_data(text: str) -> None:
    assert kinds(text) == []


def test_placeholders_are_typed_shared_and_restored() -> None:
    placeholders = Placeholders()
    first = "Mail maya@example.com or call +1 415 555 2671."
    second = "Again: MAYA@example.com, and bob@example.org."
    masked = [placeholders.mask(text, find(text)) for text in (first, second)]
    assert masked == [
        "Mail [EMAIL_1] or call [PHONE_1].",
        "Again: [EMAIL_1], and [EMAIL_2].",
    ]
    assert placeholders.restore("Reply to [EMAIL_2] about [PHONE_1]; [CARD_9] stays.") == (
        "Reply to bob@example.org about +1 415 555 2671; [CARD_9] stays."
    )
    assert placeholders.restore(masked[0]) == first


def test_an_iban_is_not_also_a_phone_or_a_card() -> None:
    text = "ES91 2100 0418 4502 0005 1332"
    assert kinds(text) == [("IBAN", text)]
