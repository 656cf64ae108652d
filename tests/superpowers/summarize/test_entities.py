"""The entities aspect: what the conversation names, copied exactly."""

from __future__ import annotations

from threadwise.protocol import Conversation
from threadwise.superpowers.summarize.entities import entities_in
from threadwise.text.transcript import Transcript, build_transcript


def transcript(*texts: str) -> Transcript:
    conversation = Conversation.model_validate(
        {
            "participants": [{"participantId": "c", "displayName": "Lena Park"}],
            "messages": [{"participantId": "c", "content": t} for t in texts],
        }
    )
    return build_transcript([conversation])


def found(*texts: str, products: str = "") -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in entities_in(transcript(*texts), products)]


def test_ids_amounts_and_dates_in_order_of_mention_each_once() -> None:
    assert found(
        "Order INV-10443 was charged $49.99 twice on March 1.",
        "Refund INV-10443 by Thursday, March 19, or 12/03/2026: 1.250,00 € in all.",
    ) == [
        ("identifier", "INV-10443"),
        ("amount", "$49.99"),
        ("date", "March 1"),
        ("date", "Thursday, March 19"),
        ("date", "12/03/2026"),
        ("amount", "1.250,00 €"),
    ]


def test_dates_in_other_languages() -> None:
    assert found("Llega el 14 de marzo, pedido 558210.") == [
        ("date", "14 de marzo"),
        ("identifier", "558210"),
    ]


def test_products_are_kept_only_as_the_conversation_wrote_them() -> None:
    assert found(
        "My Sonora headphones broke.", products="sonora headphones; golden unicorn; Lena Park"
    ) == [("product", "Sonora headphones")]


def test_a_listed_product_holding_an_id_is_the_id() -> None:
    assert found("Where is order 4471?", products="order 4471") == [("identifier", "4471")]


def test_placeholders_of_redacted_values_are_not_entities() -> None:
    assert found("Call me on [PHONE_1] about order 55821.") == [("identifier", "55821")]
