from __future__ import annotations

from threadwise.auth.credentials import (
    SecretHasher,
    client_reference,
    is_client_id,
    new_client_id,
    new_client_secret,
)


def test_ids_and_secrets_are_fresh_and_recognizable() -> None:
    ids = {new_client_id() for _ in range(50)}
    secrets = {new_client_secret() for _ in range(50)}
    assert len(ids) == len(secrets) == 50
    assert all(is_client_id(client_id) for client_id in ids)
    assert not any(is_client_id(secret) for secret in secrets)
    assert all(secret.startswith("tws_") and len(secret) >= 40 for secret in secrets)


def test_hash_and_verify() -> None:
    hasher = SecretHasher(time_cost=1, memory_kib=1024)
    secret = new_client_secret()
    stored = hasher.hash(secret)
    assert secret not in stored
    assert stored.startswith("$argon2id$")
    assert hasher.verify(stored, secret)
    assert not hasher.verify(stored, secret + "x")
    assert not hasher.verify(stored, "")
    assert not hasher.verify(None, secret)  # unknown client: checked against a decoy
    assert not hasher.verify("not a hash", secret)


def test_a_stronger_hasher_asks_for_a_rehash() -> None:
    weak = SecretHasher(time_cost=1, memory_kib=1024).hash("tws_x")
    strong = SecretHasher(time_cost=2, memory_kib=2048)
    assert strong.verify(weak, "tws_x")
    assert strong.needs_rehash(weak)
    assert not strong.needs_rehash(strong.hash("tws_x"))


def test_client_references_are_short_and_stable() -> None:
    client_id = new_client_id()
    reference = client_reference(client_id)
    assert reference == client_reference(client_id)
    assert reference != client_reference(new_client_id())
    assert client_id[4:12] not in reference and len(reference) == len("client#") + 12
    assert client_reference("\ud800 not UTF-8").startswith("client#")
