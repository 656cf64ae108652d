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


def full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        # Cards separated as people paste them, or typed with a full-width keyboard.
        ("card 4111.1111.1111.1111 ok", "CARD", "4111.1111.1111.1111"),
        ("tarjeta 4111/1111/1111/1111, caduca 11/27", "CARD", "4111/1111/1111/1111"),
        (
            "carte : 5500\u00a00000\u00a00000\u00a00004",
            "CARD",
            "5500\u00a00000\u00a00000\u00a00004",
        ),
        ("Karte 5500\u202f0000\u202f0000\u202f0004.", "CARD", "5500\u202f0000\u202f0000\u202f0004"),
        ("card 4111\u200b1111\u200b1111\u200b1111", "CARD", "4111\u200b1111\u200b1111\u200b1111"),
        ("card 41111111\u200b11111111 thanks", "CARD", "41111111\u200b11111111"),
        ("card 4111\u20131111\u20131111\u20131111", "CARD", "4111\u20131111\u20131111\u20131111"),
        ("cartão 4111 11\u00ad11 1111 1111", "CARD", "4111 11\u00ad11 1111 1111"),
        (f"card {full_width('4111 1111 1111 1111')}", "CARD", full_width("4111 1111 1111 1111")),
        # IBANs with dashes or dots, in lower case, full-width, or with a zero-width space.
        ("IBAN DE89-3704-0044-0532-0130-00 bitte", "IBAN", "DE89-3704-0044-0532-0130-00"),
        ("iban de89-3704-0044-0532-0130-00", "IBAN", "de89-3704-0044-0532-0130-00"),
        ("to GB82.WEST.1234.5698.7654.32", "IBAN", "GB82.WEST.1234.5698.7654.32"),
        ("IBAN GB82WEST1234\u200b5698765432", "IBAN", "GB82WEST1234\u200b5698765432"),
        (
            f"IBAN {full_width('DE89 3704 0044 0532 0130 00')}",
            "IBAN",
            full_width("DE89 3704 0044 0532 0130 00"),
        ),
        # E-mail addresses with invisible or full-width characters, or non-ASCII ones.
        ("mail maya.ch\u200ben@example.com now", "EMAIL", "maya.ch\u200ben@example.com"),
        ("mail \ufeffmaya@example.com", "EMAIL", "\ufeffmaya@example.com"),
        (f"mail {full_width('maya@example.com')}", "EMAIL", full_width("maya@example.com")),
        ("E-Mail k.braun\uff20example.de", "EMAIL", "k.braun\uff20example.de"),
        ("escríbeme a josé@correo.españa.es", "EMAIL", "josé@correo.españa.es"),
        ("an user@bücher.de.", "EMAIL", "user@bücher.de"),
        # Spelled out, in brackets or between spaces, in each language.
        ("mail me at john dot smith at gmail dot com", "EMAIL", "john dot smith at gmail dot com"),
        ("contact: john [at] example [dot] com", "EMAIL", "john [at] example [dot] com"),
        ("an m.weber (at) web (punkt) de", "EMAIL", "m.weber (at) web (punkt) de"),
        ("es ana.lima arroba uol punto es", "EMAIL", "ana.lima arroba uol punto es"),
        ("c'est luc arobase free point fr", "EMAIL", "luc arobase free point fr"),
        ("EMAIL: SAM AT EXAMPLE DOT ORG", "EMAIL", "SAM AT EXAMPLE DOT ORG"),
        # Phone numbers with every digit apart, full-width, or with no-break spaces.
        ("call me on 4 1 5 5 5 5 2 6 7 1 after five", "PHONE", "4 1 5 5 5 5 2 6 7 1"),
        ("rappelez-moi au 0 6 1 2 3 4 5 6 7 8", "PHONE", "0 6 1 2 3 4 5 6 7 8"),
        (f"tel {full_width('+44 20 7946 0958')}", "PHONE", full_width("+44 20 7946 0958")),
        (
            "tél\u00a0: +33\u00a06\u00a012\u00a034\u00a056\u00a078",
            "PHONE",
            "+33\u00a06\u00a012\u00a034\u00a056\u00a078",
        ),
        ("unter 0171 / 234 56 78 erreichbar", "PHONE", "0171 / 234 56 78"),
        ("zap +55 11 9 8765 4321", "PHONE", "+55 11 9 8765 4321"),
        # National IDs with spaces or dots, full-width, or named before a sample's prefix.
        ("SSN 536 90 4399", "NATIONAL_ID", "536 90 4399"),
        ("ssn 536.90.4399", "NATIONAL_ID", "536.90.4399"),
        (f"ssn {full_width('536-90-4399')}", "NATIONAL_ID", full_width("536-90-4399")),
        ("National Insurance number QQ 12 34 56 C", "NATIONAL_ID", "QQ 12 34 56 C"),
        ("my ni number is ab 12 34 56 c", "NATIONAL_ID", "ab 12 34 56 c"),
        ("NINO: AB-12-34-56-C", "NATIONAL_ID", "AB-12-34-56-C"),
        (
            "NIR 1\u00a024\u00a006\u00a035\u00a0832\u00a0364\u00a052",
            "NATIONAL_ID",
            "1\u00a024\u00a006\u00a035\u00a0832\u00a0364\u00a052",
        ),
        ("CPF 390.533.447\u200b-05", "NATIONAL_ID", "390.533.447\u200b-05"),
        ("cpf da titular 390 533 447 05", "NATIONAL_ID", "390 533 447 05"),
    ],
)
def test_values_written_in_other_forms_are_found_whole(text: str, kind: str, value: str) -> None:
    [found] = find(text)
    assert (found.kind, found.value) == (kind, value)
    assert text[found.start : found.end] == value


@pytest.mark.parametrize(
    "text",
    [
        "order 4111.1111.1111.1112 is late",  # fails Luhn
        "IBAN DE89-3704-0044-0532-0130-01 was refused",  # fails mod-97
        "it's available at amazon.com today",  # a bare "at" before a plain domain
        "I'll be at home at 6, the little dot at the top is a dead pixel",
        "go to example dot com and sign in",
        "the verification code 7 3 9 1 0 4 never came, nor 4 8 2 9 1 7 3 0",
        "version 3.12.1.4, router at 192.168.1.20, paid 1.299,00 € on 12.05.2024",
        f"order {full_width('#45391')} for {full_width('12,500')} yen",
    ],
)
def test_ordinary_text_in_other_forms_is_not_personal_data(text: str) -> None:
    assert kinds(text) == []


def test_a_find_is_mapped_back_to_the_characters_of_the_text() -> None:
    """Zero-width characters and full-width digits inside a value are part of it, so its
    placeholder replaces them and restoring gives the text back exactly."""
    card = full_width("4111\u200b 1111 11\u200d11 1111")
    mail = "maya\u200b.chen@exam\u2060ple.com"
    text = f"Née José, card {card}; mail {mail}."
    finds = find(text)
    assert [(f.kind, f.value) for f in finds] == [("CARD", card), ("EMAIL", mail)]
    assert all(text[f.start : f.end] == f.value for f in finds)
    placeholders = Placeholders()
    masked = placeholders.mask(text, finds)
    assert masked == "Née José, card [CARD_1]; mail [EMAIL_1]."
    assert placeholders.restore(masked) == text


def test_a_value_in_another_form_has_the_same_placeholder() -> None:
    placeholders = Placeholders()
    texts = ["card 4111 1111 1111 1111", f"card {full_width('4111.1111.1111.1111')}"]
    assert [placeholders.mask(t, find(t)) for t in texts] == ["card [CARD_1]", "card [CARD_1]"]
