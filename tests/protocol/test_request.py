from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from threadwise.protocol import Request, RequestSettings


def test_timestamps_keep_the_callers_text_and_settings_take_translate_extensions() -> None:
    request = Request.model_validate(
        {
            "connections": {"threadId": "t"},
            "context": {"organizationId": "o"},
            "settings": {"targetLanguages": ["es-ES", "fr"], "translationMode": "fast"},
            "scope": {
                "conversations": [
                    {"messages": [{"content": "hi", "timestamp": "2026-03-02T14:05:11.000Z"}]}
                ]
            },
        }
    )
    message = request.scope.conversations[0].messages[0]
    assert message.timestamp is not None and message.timestamp.minute == 5
    assert message.timestamp_text == "2026-03-02T14:05:11.000Z"
    assert request.settings.targetLanguages == ["es-ES", "fr"]
    assert request.settings.translationMode == "fast"


@pytest.mark.parametrize("absent", [None, "", " "])
def test_every_optional_setting_takes_null_and_blank_as_not_set(absent: Any) -> None:
    # The AsyncAPI document gives null as their default; an empty string counts as absent.
    names = list(RequestSettings.model_fields)
    settings = RequestSettings.model_validate(dict.fromkeys(names, absent))
    assert settings == RequestSettings()


def test_max_response_length_is_a_non_negative_integer_in_json_schema() -> None:
    schema = RequestSettings.model_json_schema()["properties"]["maxResponseLength"]
    assert schema["anyOf"] == [{"minimum": 0, "type": "integer"}, {"type": "null"}]
    assert "ge" not in schema


def test_text_format_is_one_of_four_and_the_other_text_settings_are_text() -> None:
    settings = RequestSettings.model_validate(
        {"textFormat": "html", "sourceLanguage": "en", "translationContext": "A chat."}
    )
    assert (settings.textFormat, settings.sourceLanguage) == ("html", "en")
    assert RequestSettings().textFormat is None  # Markdown, as before
    with pytest.raises(ValidationError) as refused:
        RequestSettings.model_validate({"textFormat": "docx"})
    assert "'markdown', 'html', 'xml' or 'plain'" in str(refused.value)
