"""/glossaries through the HTTP app: a client's token manages its organizations' glossaries and
do-not-translate terms, and only theirs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from openapi_spec_validator import validate

from tests.conftest import signed_in
from threadwise.services import Services

ENTRIES = [
    {"source": "ticket", "target": "incidencia", "caseSensitive": False},
    {"source": "Optave", "target": "Optave", "caseSensitive": True},
]


@pytest.fixture(scope="module")
def http(engineless: Services) -> Iterator[TestClient]:
    """A client of the app with a token for org-1 and org-2."""
    with signed_in(engineless, ["org-1", "org-2"], "glossary tests") as client:
        yield client


@pytest.fixture(autouse=True)
def no_glossaries(engineless: Services) -> Iterator[None]:
    yield
    for organization in ("org-1", "org-2"):
        for glossary in engineless.glossaries.list("default", organization):
            engineless.glossaries.delete("default", organization, glossary.glossary_id)


def body(**fields: Any) -> dict[str, Any]:
    return {
        "organizationId": "org-1",
        "name": "Support",
        "sourceLanguage": "en",
        "targetLanguage": "es-ES",
        "entries": ENTRIES,
        **fields,
    }


def refused(response: httpx2.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code
    message: str = error["message"]
    return message


def test_a_glossarys_life(http: TestClient) -> None:
    response = http.post("/glossaries", json=body(default=True))
    assert response.status_code == 201, response.text
    created = response.json()
    glossary_id = created.pop("glossaryId")
    assert created == {
        "organizationId": "org-1",
        "name": "Support",
        "sourceLanguage": "en",
        "targetLanguage": "es",
        "default": True,
        "entryCount": 2,
        "entries": ENTRIES,
    }
    one = {"organizationId": "org-1"}
    shown = http.get(f"/glossaries/{glossary_id}", params=one)
    assert shown.status_code == 200 and shown.json() == {**created, "glossaryId": glossary_id}
    listed = http.get("/glossaries", params=one)
    assert listed.status_code == 200
    summary = {key: value for key, value in created.items() if key != "entries"}
    assert listed.json() == {"glossaries": [{**summary, "glossaryId": glossary_id}]}

    replaced = http.put(
        f"/glossaries/{glossary_id}",
        json=body(name="Billing", targetLanguage="fr", entries=[{"source": "a", "target": "b"}]),
    )
    assert replaced.status_code == 200, replaced.text
    assert replaced.json() == {
        "glossaryId": glossary_id,
        "organizationId": "org-1",
        "name": "Billing",
        "sourceLanguage": "en",
        "targetLanguage": "fr",
        "default": False,
        "entryCount": 1,
        "entries": [{"source": "a", "target": "b", "caseSensitive": False}],
    }

    deleted = http.delete(f"/glossaries/{glossary_id}", params=one)
    assert deleted.status_code == 204 and deleted.content == b""
    message = refused(http.get(f"/glossaries/{glossary_id}", params=one), 404, "NOT_FOUND")
    assert f"no glossary '{glossary_id}'" in message
    refused(http.delete(f"/glossaries/{glossary_id}", params=one), 404, "NOT_FOUND")
    refused(http.put(f"/glossaries/{glossary_id}", json=body()), 404, "NOT_FOUND")
    assert http.get("/glossaries", params=one).json() == {"glossaries": []}


def test_a_glossary_is_only_its_organizations(http: TestClient) -> None:
    glossary_id = http.post("/glossaries", json=body()).json()["glossaryId"]
    elsewhere = {"organizationId": "org-2"}
    refused(http.get(f"/glossaries/{glossary_id}", params=elsewhere), 404, "NOT_FOUND")
    refused(http.delete(f"/glossaries/{glossary_id}", params=elsewhere), 404, "NOT_FOUND")
    assert http.get("/glossaries", params=elsewhere).json() == {"glossaries": []}


def test_do_not_translate(http: TestClient) -> None:
    one = {"organizationId": "org-1"}
    assert http.get("/glossaries/do-not-translate", params=one).json() == {"terms": []}
    terms = [{"term": "Optave", "caseSensitive": True}, {"term": " acme "}]
    response = http.put("/glossaries/do-not-translate", json={**one, "terms": terms})
    assert response.status_code == 200, response.text
    stored = {
        "terms": [
            {"term": "acme", "caseSensitive": False},
            {"term": "Optave", "caseSensitive": True},
        ]
    }
    assert response.json() == stored
    assert http.get("/glossaries/do-not-translate", params=one).json() == stored
    emptied = http.put("/glossaries/do-not-translate", json={**one, "terms": []})
    assert emptied.json() == {"terms": []}


@pytest.mark.parametrize(
    ("method", "path", "arguments"),
    [
        ("GET", "/glossaries", {"params": {"organizationId": "org-3"}}),
        ("POST", "/glossaries", {"json": body(organizationId="org-3")}),
        ("GET", "/glossaries/x", {"params": {"organizationId": "org-3"}}),
        ("PUT", "/glossaries/x", {"json": body(organizationId="org-3")}),
        ("DELETE", "/glossaries/x", {"params": {"organizationId": "org-3"}}),
        ("GET", "/glossaries/do-not-translate", {"params": {"organizationId": "org-3"}}),
        ("PUT", "/glossaries/do-not-translate", {"json": {"organizationId": "org-3", "terms": []}}),
    ],
)
def test_only_the_tokens_organizations_and_only_with_a_token(
    http: TestClient, method: str, path: str, arguments: dict[str, Any]
) -> None:
    message = refused(http.request(method, path, **arguments), 403, "FORBIDDEN_ORGANIZATION")
    assert "'org-3'" in message
    anonymous = http.request(method, path, headers={"Authorization": ""}, **arguments)
    refused(anonymous, 401, "MISSING_TOKEN")
    assert anonymous.headers["www-authenticate"] == "Bearer"
    forged = http.request(method, path, headers={"Authorization": "Bearer x.y.z"}, **arguments)
    refused(forged, 401, "INVALID_TOKEN")


MISMATCH, MISSING = "PAYLOAD_SCHEMA_MISMATCH", "REQUIRED_FIELDS_MISSING"


@pytest.mark.parametrize(
    ("sent", "error", "said"),
    [
        (
            body(targetLanguage="tlh"),
            MISMATCH,
            "A glossary's target language is one of en, es, fr, de, pt",
        ),
        (body(targetLanguage="en"), MISMATCH, "must differ, got 'en' for both"),
        (body(entries=[]), MISMATCH, "A glossary has 1 to 1000 entries, got 0"),
        (
            body(entries=[{"source": "a", "target": ""}]),
            MISMATCH,
            "entry 1's target must not be empty",
        ),
        (
            {**body(), "name": None},
            MISMATCH,
            "does not match GlossaryRequest (see /openapi.json): name: Input should be a valid "
            "string",
        ),
        (
            {k: v for k, v in body().items() if k != "name"},
            MISSING,
            "Required field is missing or empty: name.",
        ),
        (
            body(entries=[{"source": "a", "target": "b", "caseSensitve": True}]),
            MISMATCH,
            "caseSensitve",
        ),
        (body(entries="ticket=incidencia"), MISMATCH, "entries: Input should be a valid list"),
        ([body()], MISMATCH, "The body must be a JSON object (GlossaryRequest in /openapi.json)"),
    ],
)
def test_a_bad_body_is_refused_naming_what_to_fix(
    http: TestClient, sent: Any, error: str, said: str
) -> None:
    message = refused(http.post("/glossaries", json=sent), 422, error)
    assert said in message
    assert http.get("/glossaries", params={"organizationId": "org-1"}).json()["glossaries"] == []


def test_bad_do_not_translate_terms_and_parameters(http: TestClient) -> None:
    terms = {"organizationId": "org-1", "terms": [{"term": "a\nb"}]}
    message = refused(
        http.put("/glossaries/do-not-translate", json=terms), 422, "PAYLOAD_SCHEMA_MISMATCH"
    )
    assert message == "Do-not-translate term 1 must be on one line, got 'a\\nb'."
    message = refused(http.get("/glossaries"), 422, "PAYLOAD_SCHEMA_MISMATCH")
    assert "query.organizationId: Field required" in message


def test_the_openapi_document_describes_the_routes(http: TestClient) -> None:
    document = http.get("/openapi.json").json()
    validate(document)
    paths = document["paths"]
    assert set(paths["/glossaries"]) == {"get", "post"}
    assert set(paths["/glossaries/{glossaryId}"]) == {"get", "put", "delete"}
    assert set(paths["/glossaries/do-not-translate"]) == {"get", "put"}
    created = paths["/glossaries"]["post"]
    assert set(created["responses"]) == {"201", "400", "401", "403", "413", "415", "422"}
    for path, method, model in [
        ("/glossaries", "post", "GlossaryRequest"),
        ("/glossaries/{glossaryId}", "put", "GlossaryRequest"),
        ("/glossaries/do-not-translate", "put", "DoNotTranslateRequest"),
    ]:
        request = paths[path][method]["requestBody"]
        assert request["required"] is True
        assert request["content"]["application/json"]["schema"] == {
            "$ref": f"#/components/schemas/{model}"
        }
    schema = document["components"]["schemas"]["GlossaryRequest"]
    assert set(schema["required"]) == {
        "organizationId",
        "name",
        "sourceLanguage",
        "targetLanguage",
        "entries",
    }
    for method in ("get", "put", "delete"):
        responses = paths["/glossaries/{glossaryId}"][method]["responses"]
        assert responses["404"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorEnvelope"
        }
        assert "NOT_FOUND" in responses["404"]["description"]
    assert "204" in paths["/glossaries/{glossaryId}"]["delete"]["responses"]


def test_the_example_bodies_are_valid(http: TestClient) -> None:
    """examples/glossary-create.json (the request example /docs shows) is accepted, and
    examples/translate-glossary-request.json names the setting the translate body reads."""
    root = Path(__file__).parents[3] / "examples"
    example = json.loads((root / "glossary-create.json").read_text())
    example["organizationId"] = "org-1"
    created = http.post("/glossaries", json=example)
    assert created.status_code == 201, created.text
    schema = http.get("/openapi.json").json()["components"]["schemas"]["GlossaryRequest"]
    assert schema["examples"][0]["entries"] == example["entries"]
    translate = json.loads((root / "translate-glossary-request.json").read_text())
    assert "glossaryId" in translate["request"]["settings"]
