from __future__ import annotations

import pytest

from threadwise.text.street_addresses import find_addresses


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "Ship it to 1200 N Lake Shore Dr, Chicago, IL 60610 please",
            "1200 N Lake Shore Dr, Chicago, IL 60610",
        ),
        (
            "I live at 7 Acacia Avenue, Apt 2, Reading RG1 3AB now.",
            "7 Acacia Avenue, Apt 2, Reading RG1 3AB",
        ),
        ("Unit 4, 18 Station Road, Oxford OX1 1AA", "Unit 4, 18 Station Road, Oxford OX1 1AA"),
        ("envoyez-le au 3 place du Marché, 33000 Bordeaux", "3 place du Marché, 33000 Bordeaux"),
        (
            "vivo en Paseo de la Castellana 100, 4º A, 28046 Madrid",
            "Paseo de la Castellana 100, 4º A, 28046 Madrid",
        ),
        (
            "moro na Avenida da Liberdade 245, 1250-143 Lisboa",
            "Avenida da Liberdade 245, 1250-143 Lisboa",
        ),
        ("Lieferung an Goethestraße 12b, 60313 Frankfurt", "Goethestraße 12b, 60313 Frankfurt"),
    ],
)
def test_addresses_are_found_with_what_follows_them(text: str, address: str) -> None:
    assert [f.value for f in find_addresses(text)] == [address]


@pytest.mark.parametrize(
    "text",
    [
        "Room 101, floor 3; see page 12 of 300.",
        "It arrives in 3 days, Monday at the latest.",
        "I bought 2 Samsung Galaxy phones and 1 Apple Watch.",
        "Order 48213 from London, shipped 12 March.",
        "The street was closed, so the courier came back.",
    ],
)
def test_other_numbers_and_places_are_not_addresses(text: str) -> None:
    assert find_addresses(text) == []
