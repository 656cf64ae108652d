"""threadwise.client against a real server on 127.0.0.1: tokens, REST, WebSocket, timeouts,
the typed calls and the blocking wrapper. Fast-tier translations only, but for the streamed
summary (marked model)."""

from __future__ import annotations

import asyncio
import itertools
import threading
from typing import Any

import pytest

from tests.client.live import ENGLISH, new_account
from tests.conftest import LiveServer, eventually, minimal_body
from threadwise.client import (
    Conversation,
    GlossaryEntry,
    Message,
    Participant,
    SyncClient,
    ThreadwiseClient,
    ThreadwiseError,
)
from threadwise.services import Services

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def english(*contents: str) -> dict[str, Any]:
    body = minimal_body(settings={"translationMode": "fast", "overrideOutputLanguage": "es"})
    body["request"]["scope"]["conversations"][0]["messages"] = [
        {"participantId": "c", "content": c} for c in contents
    ]
    return body


BODY = english("My parcel 7781 has not arrived yet.")


def client(live: LiveServer, **options: Any) -> ThreadwiseClient:
    return ThreadwiseClient(
        live.url, client_id=live.client_id, client_secret=live.client_secret, **options
    )


def content(envelope: dict[str, Any]) -> str:
    text: str = envelope["message"]["results"][0]["response"][0]["content"]
    return text


async def test_token_is_fetched_once_and_reused(live_server: LiveServer) -> None:
    async with client(live_server) as threadwise:
        token = await threadwise.token()
        assert token == await threadwise.token()
        assert token != await threadwise.token(refresh=True)


async def test_wrong_secret_is_an_oauth_error(live_server: LiveServer) -> None:
    async with ThreadwiseClient(
        live_server.url, client_id=live_server.client_id, client_secret="tws_wrong"
    ) as threadwise:
        with pytest.raises(ThreadwiseError) as refused:
            await threadwise.token()
    assert refused.value.code == "invalid_client" and refused.value.status == 401


async def test_rest_and_websocket_give_the_same_answer(live_server: LiveServer) -> None:
    async with client(live_server) as threadwise:
        over_rest = await threadwise.call("translate", BODY)
        async with threadwise.connect() as socket:
            over_socket = await socket.translate(BODY)
    assert content(over_rest) == content(over_socket)
    assert "7781" in content(over_rest)
    assert over_socket["correlationId"] == over_socket["headers"]["correlationId"]


async def test_rest_errors_carry_code_and_status(live_server: LiveServer) -> None:
    body = minimal_body(context={"organizationId": "org-globex"})
    async with client(live_server) as threadwise:
        with pytest.raises(ThreadwiseError) as refused:
            await threadwise.call("summarize", body)
    assert refused.value.code == "FORBIDDEN_ORGANIZATION" and refused.value.status == 403
    assert refused.value.reply["state"] == "error"


async def test_bad_token_refuses_the_socket_with_its_code(live_server: LiveServer) -> None:
    async with ThreadwiseClient(live_server.url, token="not.a.token") as threadwise:
        for transport in ("subprotocol", "query"):
            with pytest.raises(ThreadwiseError) as refused:
                async with threadwise.connect(transport=transport):
                    pass
            assert refused.value.code == "INVALID_TOKEN" and refused.value.status == 401


async def test_concurrent_requests_are_matched_to_their_callers(live_server: LiveServer) -> None:
    numbers = range(4100, 4112)
    async with client(live_server) as threadwise, threadwise.connect() as socket:
        answers = await asyncio.gather(
            *(socket.translate(english(f"Order {n} is late.")) for n in numbers)
        )
    for number, answer in zip(numbers, answers, strict=True):
        assert str(number) in content(answer)


async def test_timeout_cancels_the_request_on_the_server(
    live_server: LiveServer, services: Services
) -> None:
    release = threading.Event()
    blocker = services.llm_queue.submit(release.wait)  # the summary waits behind it
    try:
        async with client(live_server) as threadwise, threadwise.connect() as socket:
            with pytest.raises(TimeoutError):
                await socket.summarize(minimal_body(), timeout=0.5)
            # The cancel took it out of the queue (the blocker does not count).
            await asyncio.to_thread(
                eventually, lambda: services.llm_queue.depth == 0, 10, "the summary stayed queued"
            )
            assert "7781" in content(await socket.translate(BODY))  # the socket goes on
    finally:
        release.set()
        blocker.result(timeout=30)


def test_sync_client_over_rest_and_websocket(live_server: LiveServer) -> None:
    with SyncClient(
        live_server.url, client_id=live_server.client_id, client_secret=live_server.client_secret
    ) as threadwise:
        assert threadwise.token()
        assert "7781" in content(threadwise.call("translate", BODY))
        assert "7781" in content(threadwise.call("translate", BODY, websocket=True))


# --- the typed calls -------------------------------------------------------------------------


async def test_texts_become_one_conversation_translated_in_order(
    live_server: LiveServer, services: Services
) -> None:
    account = new_account(live_server, services)
    texts = [ENGLISH, "Order 4410 was cancelled."]
    async with account.client() as threadwise:
        translations = await threadwise.translate(
            texts, organization=account.organization, targets=["es"], mode="fast"
        )
    assert [t.target_language for t in translations] == ["es", "es"]
    assert "7781" in translations[0].text and "4410" in translations[1].text
    assert all(t.engine and t.source_language == "en" for t in translations)


async def test_conversations_into_several_targets_target_by_target(
    live_server: LiveServer, services: Services
) -> None:
    account = new_account(live_server, services)
    conversation = Conversation(
        [Message(ENGLISH, participant_id="c"), "Thank you for your patience."],
        conversation_id="conv-7",
        participants=[Participant("c", role="user", display_name="Ana")],
    )
    async with account.client() as threadwise:
        translations = await threadwise.translate(
            [conversation], organization=account.organization, targets=["es", "pt"], mode="fast"
        )
    assert [t.target_language for t in translations] == ["es", "es", "pt", "pt"]
    assert translations[0].participant_id == "c" and translations[0].conversation_id == "conv-7"
    assert "7781" in translations[2].text


async def test_glossaries_created_listed_used_and_deleted(
    live_server: LiveServer, services: Services
) -> None:
    account = new_account(live_server, services)
    organization = account.organization
    async with account.client() as threadwise:
        created = await threadwise.create_glossary(
            organization, name="support", source="en", target="es", entries={"parcel": "bulto"}
        )
        listed = await threadwise.glossaries(organization)
        read = await threadwise.glossary(organization, created.glossary_id)
        [translation] = await threadwise.translate(
            ENGLISH,
            organization=organization,
            targets="es",
            mode="fast",
            glossary=created.glossary_id,
        )
        await threadwise.delete_glossary(organization, created.glossary_id)
        with pytest.raises(ThreadwiseError) as gone:
            await threadwise.glossary(organization, created.glossary_id)
        assert await threadwise.glossaries(organization) == []
    assert [g.glossary_id for g in listed] == [created.glossary_id] and listed[0].entries is None
    assert read.entries == [GlossaryEntry("parcel", "bulto")] and read.entry_count == 1
    assert "bulto" in translation.text.lower()
    assert gone.value.code == "NOT_FOUND" and gone.value.status == 404


async def test_usage_and_languages(live_server: LiveServer, services: Services) -> None:
    account = new_account(live_server, services)
    async with account.client() as threadwise:
        await threadwise.translate(
            ENGLISH, organization=account.organization, targets=["es", "pt"], mode="fast"
        )
        usage = await threadwise.usage(account.organization)
        languages = await threadwise.languages()
        from_english = await threadwise.languages(source="en-US")
    assert usage.organization_id == account.organization and usage.requests == 1
    assert usage.characters_translated == 2 * len(ENGLISH) and usage.quota is None
    assert any(
        p.source == "en" and p.target == "es" and p.fast_engine and p.quality_label == "good"
        for p in languages.translation
    )
    assert "en" in languages.summary
    assert {p.source for p in from_english.translation} == {"en"}
    assert len(from_english.translation) == len(languages.raw["languages"]) - 1


async def test_an_api_key_is_sent_as_the_bearer(
    live_server: LiveServer, services: Services
) -> None:
    account = new_account(live_server, services)
    key = services.auth.api_keys.create(account.client_id, "client tests").key
    async with ThreadwiseClient(live_server.url, api_key=key) as threadwise:
        [translation] = await threadwise.translate(
            ENGLISH, organization=account.organization, targets="es", mode="fast"
        )
        async with threadwise.connect() as socket:  # and opens the WebSocket
            body = english("Order 5512 is late.")
            body["request"]["context"]["organizationId"] = account.organization
            assert "5512" in content(await socket.translate(body))
    assert "7781" in translation.text


def test_sync_client_typed_calls(live_server: LiveServer, services: Services) -> None:
    account = new_account(live_server, services)
    with SyncClient(
        live_server.url, client_id=account.client_id, client_secret=account.client_secret
    ) as threadwise:
        [translation] = threadwise.translate(
            ENGLISH, organization=account.organization, targets="es", mode="fast"
        )
        assert threadwise.usage(account.organization).requests == 1
    assert "7781" in translation.text


@pytest.mark.model
async def test_a_summary_streamed_as_drafts(
    live_server: LiveServer, services: Services, support_chat: dict[str, Any]
) -> None:
    account = new_account(live_server, services)
    # A conversation with its participants: the checks need to know who said what.
    conversations = support_chat["request"]["scope"]["conversations"]
    async with account.client(timeout=600) as threadwise:
        drafts = [
            draft
            async for draft in threadwise.stream_summary(
                conversations, organization=account.organization, language="en"
            )
        ]
        usage = await threadwise.usage(account.organization)
    *partial, last = drafts
    assert last.done and last.summary is not None and last.summary.text == last.text
    assert all(not d.done for d in partial)
    for before, after in itertools.pairwise([*partial, last]):
        assert after.text.startswith(before.text.rstrip()[:20])
    assert usage.requests == 1 and usage.characters_summarized > 0


async def test_jobs_submitted_in_a_batch_each_answered(
    live_server: LiveServer, services: Services
) -> None:
    account = new_account(live_server, services)
    body = english(ENGLISH)
    body["request"]["context"] = {"organizationId": account.organization}
    body["request"]["settings"] = {"translationMode": "fast", "targetLanguages": ["es"]}
    klingon = {**body, "request": {**body["request"], "settings": {"targetLanguages": ["tlh"]}}}
    async with account.client() as threadwise:
        first, refused, second = await threadwise.submit_many(
            [("translate", body), ("translate", klingon), ("translate", body)]
        )
        assert isinstance(refused, ThreadwiseError) and refused.code == "UNSUPPORTED_LANGUAGE"
        assert refused.status == 422 and refused.message.startswith("jobs[1]: ")
        for handle in (first, second):
            assert not isinstance(handle, ThreadwiseError)
            job = await handle.wait(poll_interval=0.2, timeout=60)
            translations = job.result()
            assert job.status == "completed" and isinstance(translations, list)
            assert translations[0].text
