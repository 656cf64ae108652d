"""Request bodies from the client's typed arguments: texts, conversations and settings."""

from __future__ import annotations

import pytest

from threadwise.client import Conversation, Message, Participant
from threadwise.client.bodies import (
    message_body,
    summarize_body,
    texts_or_conversations,
    translate_settings,
)


def test_texts_are_one_conversation_of_one_message_each() -> None:
    assert texts_or_conversations(["Hello", "Bye"]) == [
        {"messages": [{"content": "Hello"}, {"content": "Bye"}]}
    ]
    assert texts_or_conversations("Hello") == [{"messages": [{"content": "Hello"}]}]


def test_one_conversation_as_a_mapping_is_not_taken_for_texts() -> None:
    one = {"conversationId": "c1", "messages": ["Hello", {"content": "Bye", "participantId": "a"}]}
    expected = [
        {
            "conversationId": "c1",
            "messages": [{"content": "Hello"}, {"content": "Bye", "participantId": "a"}],
        }
    ]
    assert texts_or_conversations(one) == expected
    assert texts_or_conversations([one]) == expected


def test_typed_conversations_in_the_wire_form() -> None:
    conversation = Conversation(
        [Message("Hi", participant_id="c", timestamp="2026-11-27T09:00:00Z"), "Hello"],
        conversation_id="c1",
        participants=[Participant("c", role="user", display_name="Ana")],
    )
    body = summarize_body(
        [conversation], "org-1", "t-1", language="es", aspects=None, format="bullets", mode=None
    )
    assert body == {
        "request": {
            "connections": {"threadId": "t-1"},
            "context": {"organizationId": "org-1"},
            "scope": {
                "conversations": [
                    {
                        "conversationId": "c1",
                        "participants": [
                            {"participantId": "c", "role": "user", "displayName": "Ana"}
                        ],
                        "messages": [
                            {
                                "content": "Hi",
                                "participantId": "c",
                                "timestamp": "2026-11-27T09:00:00Z",
                            },
                            {"content": "Hello"},
                        ],
                    }
                ]
            },
            "settings": {"overrideOutputLanguage": "es", "summaryFormat": "bullets"},
        }
    }


def test_a_thread_id_is_made_when_none_is_given() -> None:
    first = message_body([{"messages": [{"content": "x"}]}], "o", {})
    second = message_body([{"messages": [{"content": "x"}]}], "o", {})
    assert (
        first["request"]["connections"]["threadId"] != second["request"]["connections"]["threadId"]
    )
    assert "settings" not in first["request"]


def test_what_is_not_a_conversation_says_what_it_should_be() -> None:
    with pytest.raises(TypeError, match="mapping with 'messages'"):
        texts_or_conversations([{"content": "Hello"}])
    with pytest.raises(ValueError, match="target language"):
        translate_settings(targets=[], mode=None, glossary=None, formality=None)
