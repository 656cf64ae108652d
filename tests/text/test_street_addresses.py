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
    ("text", "address"),
    [
        # a building line, or a street before a street, joins the street after it
        (
            "post it to 12 Larch Court, 40 Wharf Street, Hull HU1 2BB by Friday",
            "12 Larch Court, 40 Wharf Street, Hull HU1 2BB",
        ),
        (
            "Flat 6, Orchard House, 2 Mill Road, Ely CB7 4DJ",
            "Flat 6, Orchard House, 2 Mill Road, Ely CB7 4DJ",
        ),
        (
            "c'est Bât. C, 9 rue des Lilas, 31000 Toulouse",
            "Bât. C, 9 rue des Lilas, 31000 Toulouse",
        ),
        # Spanish flats and floors after the number
        ("Calle Goya 7, 2º dcha, 28001 Madrid", "Calle Goya 7, 2º dcha, 28001 Madrid"),
        ("Calle Luna 31, ático, 28004 Madrid", "Calle Luna 31, ático, 28004 Madrid"),
        (
            "Avda. de la Paz 40, bajo A, 46001 Valencia. Gracias",
            "Avda. de la Paz 40, bajo A, 46001 Valencia",
        ),
        # German compounds with a capital suffix, separate words, abbreviations
        (
            "Wohne jetzt Rosa-Luxemburg-Allee 14, 04109 Leipzig",
            "Rosa-Luxemburg-Allee 14, 04109 Leipzig",
        ),
        ("Adresse: Potsdamer Str. 8a, 10785 Berlin", "Potsdamer Str. 8a, 10785 Berlin"),
        ("Neue Kasseler Straße 9", "Neue Kasseler Straße 9"),
        # Australian unit/number, suburb, state and postcode
        (
            "moved to 4/18 Wattle Rd, Brookvale NSW 2100 last week",
            "4/18 Wattle Rd, Brookvale NSW 2100",
        ),
        ("Unit 2, 9 Ocean Pde, Coogee, QLD 4221", "Unit 2, 9 Ocean Pde, Coogee, QLD 4221"),
        # US unit without a comma, town, state and ZIP with or without a comma
        (
            "deliver to 380 E Pine St #12B, Seattle WA 98122.",
            "380 E Pine St #12B, Seattle WA 98122",
        ),
        (
            "77 Harbor Blvd Suite 300, Tampa, FL 33602",
            "77 Harbor Blvd Suite 300, Tampa, FL 33602",
        ),
        ("9 Oak Ave Unit 5, Austin TX 78701", "9 Oak Ave Unit 5, Austin TX 78701"),
        # Irish locality, Dublin district, county, Eircode
        (
            "it's 4 Glen Road, Rathmines, Dublin 6, D06 F2X9 thanks",
            "4 Glen Road, Rathmines, Dublin 6, D06 F2X9",
        ),
        ("8 Main Street, Bandon, Co. Cork P72 XY12", "8 Main Street, Bandon, Co. Cork P72 XY12"),
        # a locality line before a UK town and postcode
        ("12 Elm Road, Headington, Oxford OX3 9HT", "12 Elm Road, Headington, Oxford OX3 9HT"),
    ],
)
def test_address_formats(text: str, address: str) -> None:
    assert [f.value for f in find_addresses(text)] == [address]


def test_a_capitalized_word_after_a_comma_is_not_taken_without_a_place_line() -> None:
    assert [f.value for f in find_addresses("at 5 Oak Road, Monday works")] == ["5 Oak Road"]


@pytest.mark.parametrize(
    "text",
    [
        "Room 101, floor 3; see page 12 of 300.",
        "It arrives in 3 days, Monday at the latest.",
        "I bought 2 Samsung Galaxy phones and 1 Apple Watch.",
        "Order 48213 from London, shipped 12 March.",
        "The street was closed, so the courier came back.",
        "shipping to Lyon, 69002 and Bath next week",
        "Order 48213, 12 March, Dublin 9 office",
        "Suite 300 costs 40 USD, Apt 2 is wrong",
        "build 7/22, version 3.8.1, 2 Galaxy S24 units",
        "Am Montag 14 Uhr passt, im Januar 2024 auch",
        "Im Schnitt 3 Tage, der Weg 5 Minuten",
    ],
)
def test_other_numbers_and_places_are_not_addresses(text: str) -> None:
    assert find_addresses(text) == []
