"""The ``threadwise`` command."""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import logging.config
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from threadwise import INTERFACE_VERSION, __version__
from threadwise.auth.clients import (
    ClientRecord,
    ClientRegistry,
    ClientSecret,
    UnknownClientError,
)
from threadwise.auth.first_run import ensure_first_run_client
from threadwise.auth.keys import KEY_FILE_NAME, LocalKeyFile
from threadwise.auth.tenancy import DEFAULT_TENANT, tenant_name
from threadwise.config import ConfigurationError, Settings, load_settings
from threadwise.db.database import Database
from threadwise.engines.model_files import DEFAULT_MODEL, ModelFileError, prepare_model
from threadwise.errors import ServiceError
from threadwise.logs import log_config
from threadwise.payload import decode_json, parse_message_body
from threadwise.serving.glossaries import GlossaryStore, UnknownGlossaryError
from threadwise.serving.policies import OrganizationPolicies, OrganizationPolicy
from threadwise.serving.usage import Counts, UsageStore, report_days, utc_day
from threadwise.superpowers.summarize.requested_aspects import CustomAspect
from threadwise.text.terms import Glossary, Term

EXAMPLE_REQUEST = Path("examples") / "summarize-request.json"


def _progress(message: str) -> None:
    print(f"threadwise: {message}", file=sys.stderr, flush=True)


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from threadwise.api.app import create_app
    from threadwise.api.server import build_server
    from threadwise.services import build_services

    services = build_services(settings, _progress)
    host = args.host or settings.host
    port = args.port or settings.port
    first_client = ensure_first_run_client(services.auth.clients, settings)
    if first_client is not None:
        print(first_run_instructions(first_client, host, port, settings.base_domain), flush=True)
    _progress(f"serving on http://{host}:{port} (model loads in the background; see /readyz)")
    app = create_app(services.serving_context(), start=services.start, close=services.close)
    build_server(app, settings, host, port).run()
    return 0


def first_run_instructions(
    credentials: ClientSecret, host: str, port: int, base_domain: str | None
) -> str:
    """What to tell a new user: the development client, and a curl that uses it."""
    client = credentials.client
    local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    base = f"http://{local}:{port}"
    host_header = f" -H 'Host: {client.tenant}.{base_domain}'" if base_domain else ""
    basic = shlex.quote(f"{client.client_id}:{credentials.client_secret}")
    extract = "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"access_token\"])'"
    return "\n".join(
        [
            "",
            "threadwise: no client was registered, so this one was created for local use.",
            "Its secret is shown only now; `threadwise clients rotate "
            f"{client.client_id}` makes a new one.",
            f"  client_id      {client.client_id}",
            f"  client_secret  {credentials.client_secret}",
            f"  organizations  {', '.join(client.organizations)} (tenant {client.tenant})",
            "Fetch a token and summarize the README's example:",
            "",
            f"TOKEN=$(curl -s -u {basic} -d grant_type=client_credentials{host_header} "
            f"{base}/auth/oauth2/token | {extract})",
            f'curl -s {base}/message/summarize{host_header} -H "Authorization: Bearer $TOKEN" '
            f"-H 'Content-Type: application/json' -d @{shlex.quote(str(_example_request()))}",
            "",
        ]
    )


def _example_request() -> Path:
    """The README's example request: here, or in the source tree threadwise runs from."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[1]):
        if (root / EXAMPLE_REQUEST).is_file():
            return (root / EXAMPLE_REQUEST).resolve()
    return EXAMPLE_REQUEST


def _read_body(file: str, request_settings: dict[str, Any]) -> Any:
    """The request body in ``file`` ('-': standard input), with ``request_settings`` set;
    None (after saying why) if it is not JSON."""
    raw: str | bytes = sys.stdin.read() if file == "-" else Path(file).read_bytes()
    try:
        data = decode_json(raw, file, "Give a request body as the API takes it.")
    except ServiceError as exc:
        _progress(exc.message)
        return None
    if isinstance(data, dict) and isinstance(data.get("request"), dict):
        current = data["request"].setdefault("settings", {})
        if isinstance(current, dict):
            current.update({k: v for k, v in request_settings.items() if v})
    return data


def _summarize(args: argparse.Namespace, settings: Settings) -> int:
    from threadwise.services import build_services

    data = _read_body(
        args.file, {"overrideOutputLanguage": args.language, "summaryFormat": args.format}
    )
    if data is None:
        return 2
    services = build_services(settings, _progress)
    try:
        body = parse_message_body(data, services.limits)
        job = services.summarizer.plan(body)
        deadline = services.summarize.deadlines.start(len(job.transcript.text))
        summary = services.summarizer.run(job, deadline)
    except ServiceError as exc:
        _progress(f"{exc.code.value}: {exc.message}")
        return 2 if exc.code.http_status < 500 else 1
    finally:
        services.close()
    print(summary.text)
    return 0


def _translate(args: argparse.Namespace, settings: Settings) -> int:
    from threadwise.protocol import results_envelope
    from threadwise.services import build_services

    data = _read_body(args.file, {"targetLanguages": args.to, "translationMode": args.mode})
    if data is None:
        return 2
    services = build_services(settings, _progress)
    try:
        body = parse_message_body(data, services.limits)
        results = asyncio.run(services.translate(body))
    except ServiceError as exc:
        _progress(f"{exc.code.value}: {exc.message}")
        return 2 if exc.code.http_status < 500 else 1
    finally:
        services.close()
    envelope = results_envelope("translate", results, body.request)
    print(json.dumps(envelope.to_wire(), ensure_ascii=False, indent=2))
    return 0


def _prepare_model(_: argparse.Namespace, settings: Settings) -> int:
    if settings.llm_model_path is not None:
        _progress(f"using THREADWISE_LLM_MODEL_PATH={settings.llm_model_path}")
        return 0 if settings.llm_model_path.is_file() else 1
    path = prepare_model(DEFAULT_MODEL, settings.model_dir, _progress)
    _progress(f"model ready and verified: {path}")
    return 0


def _doctor(_: argparse.Namespace, settings: Settings) -> int:
    from threadwise.doctor import report, run_checks

    # The findings are the report; the engines' start-up lines would only interleave with it.
    logging.getLogger("threadwise").setLevel(logging.WARNING)
    return report(run_checks(settings), sys.stdout)


def _migrate(_: argparse.Namespace, settings: Settings) -> int:
    from threadwise.services import open_database

    open_database(settings).close()
    _progress("database schema is up to date")
    return 0


# --- clients and keys ----------------------------------------------------------------------


@contextmanager
def _client_registry(settings: Settings) -> Iterator[ClientRegistry]:
    from threadwise.services import build_client_registry

    registry = build_client_registry(settings)
    try:
        yield registry
    finally:
        registry.database.close()


def _clients_create(args: argparse.Namespace, settings: Settings) -> int:
    with _client_registry(settings) as registry:
        try:
            created = registry.create(
                args.tenant,
                args.org,
                args.name or "",
                requests_per_minute=args.requests_per_minute,
                characters_per_minute=args.characters_per_minute,
            )
        except ValueError as exc:  # the tenant, an organization or a limit
            _progress(str(exc))
            return 2
    _print_secret(created, args.json, "created")
    return 0


def _clients_list(args: argparse.Namespace, settings: Settings) -> int:
    with _client_registry(settings) as registry:
        clients = registry.list(args.tenant)
    if args.json:
        print(json.dumps([_client_json(client) for client in clients], indent=2))
        return 0
    if not clients:
        print("no clients; `threadwise clients create --org ORG` creates one")
        return 0
    rows = [["CLIENT ID", "TENANT", "STATE", "CREATED", "LAST TOKEN", "ORGANIZATIONS", "NAME"]]
    for client in clients:
        rows.append(
            [
                client.client_id,
                client.tenant,
                "enabled" if client.enabled else "revoked",
                f"{client.created_at:%Y-%m-%d %H:%M}",
                f"{client.last_used_at:%Y-%m-%d %H:%M}" if client.last_used_at else "never",
                ",".join(client.organizations),
                client.name,
            ]
        )
    _print_table(rows)
    return 0


def _print_table(rows: list[list[str]]) -> None:
    """``rows`` (the first: the headings) in aligned columns."""
    widths = [max(len(cell) for cell in column) for column in zip(*rows, strict=True)]
    for row in rows:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        print(line.rstrip())


def _clients_revoke(args: argparse.Namespace, settings: Settings) -> int:
    with _client_registry(settings) as registry:
        client = registry.revoke(args.client_id)
    print(
        f"revoked {client.client_id}: it gets no new tokens, and the ones it has are refused "
        f"(by every replica within {settings.client_cache_seconds:g} s)"
    )
    return 0


def _clients_rotate(args: argparse.Namespace, settings: Settings) -> int:
    with _client_registry(settings) as registry:
        rotated = registry.rotate(args.client_id)
    _print_secret(rotated, args.json, "new secret for")
    return 0


def _print_secret(credentials: ClientSecret, as_json: bool, what: str) -> None:
    client = credentials.client
    if as_json:
        print(json.dumps({**_client_json(client), "client_secret": credentials.client_secret}))
        return
    print(f"{what} client {client.client_id} (tenant {client.tenant})")
    print(f"  client_id      {client.client_id}")
    print(f"  client_secret  {credentials.client_secret}")
    print(f"  organizations  {', '.join(client.organizations)}")
    print("The secret is shown only now and stored only as a hash: keep it somewhere safe.")


def _client_json(client: ClientRecord) -> dict[str, Any]:
    return {
        "client_id": client.client_id,
        "tenant": client.tenant,
        "name": client.name,
        "organizations": list(client.organizations),
        "enabled": client.enabled,
        "created_at": client.created_at.isoformat(),
        "last_used_at": client.last_used_at.isoformat() if client.last_used_at else None,
        "revoked_at": client.revoked_at.isoformat() if client.revoked_at else None,
        "requests_per_minute": client.requests_per_minute,
        "characters_per_minute": client.characters_per_minute,
    }


# --- organizations' policies ----------------------------------------------------------------


@contextmanager
def _database(settings: Settings) -> Iterator[Database]:
    from threadwise.services import open_database

    database = open_database(settings)
    try:
        yield database
    finally:
        database.close()


@contextmanager
def _organization_policies(settings: Settings) -> Iterator[OrganizationPolicies]:
    with _database(settings) as database:
        yield OrganizationPolicies(database)


def _organizations_show(args: argparse.Namespace, settings: Settings) -> int:
    with _organization_policies(settings) as policies:
        try:
            policy = policies.policy(args.tenant, args.organization)
        except ValueError as exc:  # the tenant or the organization id
            _progress(str(exc))
            return 2
    _print_policy(args.tenant, args.organization, policy, args.json)
    return 0


def _organizations_list(args: argparse.Namespace, settings: Settings) -> int:
    with _organization_policies(settings) as policies:
        try:
            found = [
                (tenant, organization, policies.policy(tenant, organization))
                for tenant, organization in policies.organizations(args.tenant)
            ]
        except ValueError as exc:  # the tenant
            _progress(str(exc))
            return 2
    if args.json:
        print(json.dumps([_policy_json(*each) for each in found], indent=2))
        return 0
    if not found:
        print("no organization has policies; `threadwise organizations set ORG` sets its defaults")
        return 0
    rows = [
        ["TENANT", "ORGANIZATION", "SUMMARY ASPECTS", "REDACT", "MONTHLY CHARS", "CUSTOM ASPECTS"]
    ]
    for tenant, organization, policy in found:
        rows.append(
            [
                tenant,
                organization,
                ",".join(policy.summary_aspects) or "-",
                policy.redact_personal_data or "-",
                str(policy.monthly_characters or "-"),
                ",".join(aspect.name for aspect in policy.custom_aspects) or "-",
            ]
        )
    _print_table(rows)
    return 0


def _organizations_set(args: argparse.Namespace, settings: Settings) -> int:
    changes: dict[str, Any] = {}
    if args.aspects is not None:
        changes["summary_aspects"] = [name for name in args.aspects.split(",") if name.strip()]
    if args.redact is not None:
        changes["redact_personal_data"] = args.redact
    if args.monthly_characters is not None:
        changes["monthly_characters"] = args.monthly_characters
    if not changes:
        _progress("nothing to set: give --aspects, --redact, --monthly-characters or several")
        return 2
    with _organization_policies(settings) as policies:
        try:
            policy = policies.set_defaults(args.tenant, args.organization, **changes)
        except ValueError as exc:
            _progress(str(exc))
            return 2
    _print_policy(args.tenant, args.organization, policy, args.json)
    return 0


def _aspects_put(args: argparse.Namespace, settings: Settings) -> int:
    aspect = CustomAspect(
        args.name, args.instruction, _text_or_file(args.example_conversation), args.example_answer
    )
    with _organization_policies(settings) as policies:
        try:
            policies.put_aspect(args.tenant, args.organization, aspect)
        except ValueError as exc:
            _progress(str(exc))
            return 2
    print(f"saved aspect {aspect.name.strip()} of organization {args.organization}")
    return 0


def _aspects_remove(args: argparse.Namespace, settings: Settings) -> int:
    with _organization_policies(settings) as policies:
        try:
            removed = policies.remove_aspect(args.tenant, args.organization, args.name)
        except ValueError as exc:
            _progress(str(exc))
            return 2
    if not removed:
        _progress(
            f"organization {args.organization} has no aspect {args.name!r}; "
            f"`threadwise aspects list {args.organization}` shows its aspects"
        )
        return 1
    print(f"removed aspect {args.name} of organization {args.organization}")
    return 0


def _aspects_list(args: argparse.Namespace, settings: Settings) -> int:
    with _organization_policies(settings) as policies:
        try:
            policy = policies.policy(args.tenant, args.organization)
        except ValueError as exc:
            _progress(str(exc))
            return 2
    if args.json:
        print(json.dumps([_aspect_json(aspect) for aspect in policy.custom_aspects], indent=2))
        return 0
    if not policy.custom_aspects:
        print(
            f"organization {args.organization} has no custom aspects; "
            "`threadwise aspects put ORG NAME` adds one"
        )
        return 0
    _print_aspects(policy.custom_aspects)
    return 0


def _text_or_file(value: str) -> str:
    """``value``, or the contents of the file it names ('-': standard input)."""
    if value == "-":
        return sys.stdin.read()
    try:
        is_file = Path(value).is_file()
    except (OSError, ValueError):  # a text too long, or with a NUL, to be a file name
        is_file = False
    return Path(value).read_text(encoding="utf-8") if is_file else value


def _print_policy(
    tenant: str, organization: str, policy: OrganizationPolicy, as_json: bool
) -> None:
    if as_json:
        print(json.dumps(_policy_json(tenant, organization, policy), indent=2))
        return
    print(f"organization {organization.strip()} (tenant {tenant_name(tenant)})")
    print(f"  summary aspects       {', '.join(policy.summary_aspects) or 'no default'}")
    print(f"  redact personal data  {policy.redact_personal_data or 'no default'}")
    quota = policy.monthly_characters
    print(f"  monthly characters    {f'{quota} (UTC month)' if quota else 'no quota'}")
    if policy.custom_aspects:
        print("custom aspects:")
        _print_aspects(policy.custom_aspects)


def _print_aspects(aspects: tuple[CustomAspect, ...]) -> None:
    for aspect in aspects:
        print(f"  {aspect.name}")
        print(f"    instruction  {aspect.instruction}")
        print("    example conversation")
        for line in aspect.example_conversation.splitlines():
            print(f"      {line}")
        print(f"    example answer  {aspect.example_answer}")


def _policy_json(tenant: str, organization: str, policy: OrganizationPolicy) -> dict[str, Any]:
    return {
        "tenant": tenant_name(tenant),
        "organization_id": organization.strip(),
        "summary_aspects": list(policy.summary_aspects),
        "redact_personal_data": policy.redact_personal_data,
        "monthly_characters": policy.monthly_characters,
        "custom_aspects": [_aspect_json(aspect) for aspect in policy.custom_aspects],
    }


def _aspect_json(aspect: CustomAspect) -> dict[str, str]:
    return {
        "name": aspect.name,
        "instruction": aspect.instruction,
        "example_conversation": aspect.example_conversation,
        "example_answer": aspect.example_answer,
    }


# --- organizations' usage ----------------------------------------------------------------------


def _usage(args: argparse.Namespace, settings: Settings) -> int:
    from threadwise.api.routes.usage import usage_document, usage_quota

    with _database(settings) as database:
        store = UsageStore(database)
        try:
            tenant, organization = tenant_name(args.tenant), args.organization.strip()
            policy = OrganizationPolicies(database).policy(tenant, organization)
            first, last = report_days(args.first, args.last, utc_day(store.now()))
            report = store.read(tenant, organization, first, last)
            quota = usage_quota(store, tenant, organization, policy)
        except ValueError as exc:  # the tenant, the organization id or the days
            _progress(str(exc))
            return 2
    usage = usage_document(organization, report, quota)
    if args.json:
        print(json.dumps(usage.model_dump(mode="json", by_alias=True), indent=2))
        return 0
    print(f"usage of organization {organization} (tenant {tenant}), {first} to {last} (UTC days)")
    heading = ["REQUESTS", "CHARACTERS", "PROMPT TOKENS", "COMPLETION TOKENS"]
    rows = [["DATE", "OPERATION", *heading]]
    for day in report.days:
        rows.append([str(day.day), day.operation, *_counts(day.counts)])
    for operation in ("summarize", "translate"):
        rows.append(["total", operation, *_counts(report.of(operation))])
    rows.append(["total", "all", *_counts(report.total)])
    _print_table(rows)
    if quota is None:
        print(
            "no monthly quota; `threadwise organizations set ORG --monthly-characters N` sets one"
        )
    else:
        print(
            f"monthly quota: {quota.usedThisMonth} of {quota.monthlyCharacters} characters used "
            f"this month; it starts again on {quota.resetsOn}"
        )
    return 0


def _counts(counts: Counts) -> list[str]:
    return [
        str(value)
        for value in (
            counts.requests,
            counts.characters,
            counts.prompt_tokens,
            counts.completion_tokens,
        )
    ]


# --- organizations' glossaries and do-not-translate terms ------------------------------------


@contextmanager
def _glossary_store(settings: Settings) -> Iterator[GlossaryStore]:
    with _database(settings) as database:
        yield GlossaryStore(database)


def _glossaries_create(args: argparse.Namespace, settings: Settings) -> int:
    try:
        rows = _read_rows(args.entries, "source,target[,case_sensitive]", 2)
        entries = [Term(row[0], row[1], _case_sensitive(row, 2)) for row in rows]
        with _glossary_store(settings) as store:
            glossary = store.create(
                args.tenant,
                args.organization,
                args.name,
                args.source,
                args.target,
                entries,
                default=args.default,
            )
    except ValueError as exc:  # the file, the tenant, or what the store refuses
        _progress(str(exc))
        return 2
    _print_glossary(glossary, args.json)
    return 0


def _glossaries_list(args: argparse.Namespace, settings: Settings) -> int:
    with _glossary_store(settings) as store:
        try:
            found = store.list(args.tenant, args.organization)
        except ValueError as exc:
            _progress(str(exc))
            return 2
    if args.json:
        print(json.dumps([_glossary_json(glossary, entries=False) for glossary in found], indent=2))
        return 0
    if not found:
        print(
            f"organization {args.organization.strip()} has no glossaries; "
            "`threadwise glossaries create ORG` creates one"
        )
        return 0
    rows = [["GLOSSARY ID", "FROM", "TO", "DEFAULT", "ENTRIES", "NAME"]]
    for glossary in found:
        rows.append(
            [
                glossary.glossary_id,
                glossary.source_language,
                glossary.target_language,
                "yes" if glossary.default else "-",
                str(len(glossary.entries)),
                glossary.name,
            ]
        )
    _print_table(rows)
    return 0


def _glossaries_show(args: argparse.Namespace, settings: Settings) -> int:
    with _glossary_store(settings) as store:
        try:
            glossary = store.get(args.tenant, args.organization, args.glossary_id)
        except ValueError as exc:
            _progress(str(exc))
            return 2
    _print_glossary(glossary, args.json)
    return 0


def _glossaries_delete(args: argparse.Namespace, settings: Settings) -> int:
    with _glossary_store(settings) as store:
        try:
            store.delete(args.tenant, args.organization, args.glossary_id)
        except ValueError as exc:
            _progress(str(exc))
            return 2
    print(f"deleted glossary {args.glossary_id} of organization {args.organization.strip()}")
    return 0


def _dnt_set(args: argparse.Namespace, settings: Settings) -> int:
    try:
        rows = _read_rows(args.terms, "term[,case_sensitive]", 1)
        terms = [Term(row[0], row[0], _case_sensitive(row, 1)) for row in rows]
        with _glossary_store(settings) as store:
            store.set_do_not_translate(args.tenant, args.organization, terms)
    except ValueError as exc:
        _progress(str(exc))
        return 2
    print(
        f"organization {args.organization.strip()} has {len(terms)} do-not-translate "
        f"term{'' if len(terms) == 1 else 's'}"
    )
    return 0


def _dnt_list(args: argparse.Namespace, settings: Settings) -> int:
    with _glossary_store(settings) as store:
        try:
            terms = store.do_not_translate(args.tenant, args.organization)
        except ValueError as exc:
            _progress(str(exc))
            return 2
    if args.json:
        shown = [{"term": term.source, "case_sensitive": term.case_sensitive} for term in terms]
        print(json.dumps(shown, ensure_ascii=False, indent=2))
        return 0
    if not terms:
        print(
            f"organization {args.organization.strip()} has no do-not-translate terms; "
            "`threadwise dnt set ORG --terms FILE` sets them"
        )
        return 0
    for term in terms:
        print(f"{term.source}{'  (case-sensitive)' if term.case_sensitive else ''}")
    return 0


def _read_rows(file: str, columns: str, required: int) -> list[list[str]]:
    """The rows of a CSV or TSV file ('-': standard input) of ``columns``, the first
    ``required`` of them given; blank lines left out. ``ValueError`` naming the line."""
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"Cannot read {file}: {exc}. Give a UTF-8 file of {columns} lines."
        ) from None
    tabs = "\t" in text
    reader = csv.reader(text.splitlines(), delimiter="\t" if tabs else ",")
    rows: list[list[str]] = []
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        if not required <= len(row) <= required + 1:
            raise ValueError(
                f"Line {reader.line_num} of {file} has {len(row)} "
                f"{'tab' if tabs else 'comma'}-separated fields; give {columns} lines."
            )
        rows.append(row)
    return rows


def _case_sensitive(row: list[str], column: int) -> bool:
    value = row[column].strip().lower() if len(row) > column else ""
    if value in ("", "false", "no", "0"):
        return False
    if value in ("true", "yes", "1"):
        return True
    raise ValueError(
        f"case_sensitive is true or false (or empty: false), got {row[column]!r} in the "
        f"line {','.join(row)!r}."
    )


def _print_glossary(glossary: Glossary, as_json: bool) -> None:
    if as_json:
        print(json.dumps(_glossary_json(glossary), ensure_ascii=False, indent=2))
        return
    default = " (the default)" if glossary.default else ""
    print(
        f"glossary {glossary.glossary_id} of organization {glossary.organization}: "
        f"{glossary.name}, {glossary.source_language} → {glossary.target_language}{default}"
    )
    rows = [["SOURCE", "TARGET", "CASE"]]
    for entry in glossary.entries:
        rows.append([entry.source, entry.target, "exact" if entry.case_sensitive else "any"])
    _print_table(rows)


def _glossary_json(glossary: Glossary, *, entries: bool = True) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "glossary_id": glossary.glossary_id,
        "organization_id": glossary.organization,
        "name": glossary.name,
        "source_language": glossary.source_language,
        "target_language": glossary.target_language,
        "default": glossary.default,
        "entry_count": len(glossary.entries),
    }
    if entries:
        shown["entries"] = [
            {"source": e.source, "target": e.target, "case_sensitive": e.case_sensitive}
            for e in glossary.entries
        ]
    return shown


def _keys_rotate(_: argparse.Namespace, settings: Settings) -> int:
    if settings.jwt_secret is not None or settings.jwt_algorithm != "HS256" or settings.production:
        _progress(
            "the signing key comes from the settings: rotate it there (put the new secret in "
            "THREADWISE_JWT_SECRET and the old one, with its kid and retired_at, in "
            "THREADWISE_JWT_RETIRED_KEYS until its tokens have expired)"
        )
        return 2
    key_file = LocalKeyFile(settings.data_dir / KEY_FILE_NAME, settings.access_token_seconds)
    kid = key_file.rotate()
    print(
        f"signing with new key {kid}; tokens of the old key work until they expire "
        f"(at most {settings.access_token_seconds} s). Restart the service to use it."
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="threadwise", description="Summarize and translate conversation histories."
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"threadwise {__version__} (interface {INTERFACE_VERSION})",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8000)")
    serve.set_defaults(run=_serve)

    summarize = commands.add_parser(
        "summarize", help="summarize a request-body JSON file locally and print the summary"
    )
    summarize.add_argument("file", help="a request body as JSON; '-' reads standard input")
    summarize.add_argument("--language", help="output language tag, e.g. es-ES")
    summarize.add_argument("--format", choices=["paragraph", "bullets", "structured"])
    summarize.set_defaults(run=_summarize)

    translate = commands.add_parser(
        "translate",
        help="translate the messages of a request-body JSON file locally; prints the envelope",
    )
    translate.add_argument("file", help="a request body as JSON; '-' reads standard input")
    translate.add_argument(
        "--to",
        action="append",
        metavar="LANGUAGE",
        help="target language tag, e.g. es or pt-BR; repeat for several",
    )
    translate.add_argument("--mode", choices=["quality", "fast"], help="engine tier")
    translate.set_defaults(run=_translate)

    model = commands.add_parser("prepare-model", help="join and verify the default model")
    model.set_defaults(run=_prepare_model)

    doctor = commands.add_parser(
        "doctor", help="check every part the service needs; says what to do about each failure"
    )
    doctor.set_defaults(run=_doctor)

    migrate = commands.add_parser(
        "migrate", help="bring the database's schema up to date (`serve` also does at start-up)"
    )
    migrate.set_defaults(run=_migrate)

    _add_client_commands(commands)
    _add_organization_commands(commands)
    _add_glossary_commands(commands)

    usage = commands.add_parser(
        "usage", help="an organization's requests, characters and model tokens per UTC day"
    )
    _organization_and_tenant(usage)
    usage.add_argument(
        "--from", dest="first", metavar="YYYY-MM-DD", help="default: the first of this month"
    )
    usage.add_argument("--to", dest="last", metavar="YYYY-MM-DD", help="default: today")
    usage.add_argument("--json", action="store_true", help="print what GET /usage answers")
    usage.set_defaults(run=_usage)
    keys = commands.add_parser("keys", help="the locally generated token-signing key")
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    rotate_key = key_commands.add_parser("rotate", help="sign new tokens with a new key")
    rotate_key.set_defaults(run=_keys_rotate)
    return parser


def _add_client_commands(commands: Any) -> None:
    clients = commands.add_parser("clients", help="manage the clients that may fetch tokens")
    client_commands = clients.add_subparsers(dest="clients_command", required=True)

    create = client_commands.add_parser("create", help="register a client; prints its secret once")
    create.add_argument(
        "--org",
        action="append",
        required=True,
        metavar="ORG",
        help="an organization id the client may act for (repeat for several)",
    )
    create.add_argument("--tenant", default=DEFAULT_TENANT, help="default: %(default)s")
    create.add_argument("--name", help="a note saying whose client this is")
    create.add_argument("--requests-per-minute", type=int, metavar="N")
    create.add_argument("--characters-per-minute", type=int, metavar="N")
    create.add_argument("--json", action="store_true", help="print a JSON object")
    create.set_defaults(run=_clients_create)

    listing = client_commands.add_parser("list", help="show the clients (never their secrets)")
    listing.add_argument("--tenant", help="only this tenant's clients")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_clients_list)

    revoke = client_commands.add_parser("revoke", help="disable a client and its tokens")
    revoke.add_argument("client_id")
    revoke.set_defaults(run=_clients_revoke)

    rotate = client_commands.add_parser("rotate", help="give a client a new secret")
    rotate.add_argument("client_id")
    rotate.add_argument("--json", action="store_true", help="print a JSON object")
    rotate.set_defaults(run=_clients_rotate)


def _add_organization_commands(commands: Any) -> None:
    organizations = commands.add_parser(
        "organizations", help="an organization's defaults for requests that set none"
    )
    organization_commands = organizations.add_subparsers(
        dest="organizations_command", required=True
    )

    show = organization_commands.add_parser(
        "show", help="an organization's defaults and custom aspects"
    )
    _organization_and_tenant(show)
    show.add_argument("--json", action="store_true", help="print a JSON object")
    show.set_defaults(run=_organizations_show)

    listing = organization_commands.add_parser(
        "list", help="the organizations with defaults or custom aspects"
    )
    listing.add_argument("--tenant", help="only this tenant's organizations")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_organizations_list)

    set_defaults = organization_commands.add_parser(
        "set", help="set the defaults given; those not given stay as they are"
    )
    _organization_and_tenant(set_defaults)
    set_defaults.add_argument(
        "--aspects",
        metavar="NAME,NAME",
        help="default summaryAspects: built-in or the organization's custom aspects, "
        "comma-separated; '' clears them",
    )
    set_defaults.add_argument(
        "--redact",
        choices=["restore", "mask", "off"],
        help="default redactPersonalData; 'off' clears it",
    )
    set_defaults.add_argument(
        "--monthly-characters",
        type=_quota,
        metavar="N",
        help="the message characters its requests may use per UTC month (a translation's "
        "once per target language); beyond it they are refused with 429 QUOTA_EXCEEDED. "
        "0 or 'none' clears it",
    )
    set_defaults.add_argument("--json", action="store_true", help="print a JSON object")
    set_defaults.set_defaults(run=_organizations_set)

    aspects = commands.add_parser("aspects", help="an organization's custom summary aspects")
    aspect_commands = aspects.add_subparsers(dest="aspects_command", required=True)

    put = aspect_commands.add_parser(
        "put", help="add a custom aspect, or replace the one of that name"
    )
    _organization_and_tenant(put)
    put.add_argument("name", metavar="NAME", help="a letter, then letters, digits, '_' or '-'")
    put.add_argument("--instruction", required=True, help="what to write, in a sentence or two")
    put.add_argument(
        "--example-conversation",
        required=True,
        metavar="FILE_OR_TEXT",
        help="a short transcript ('Name: text' lines): a file, the text itself, or '-' "
        "for standard input",
    )
    put.add_argument("--example-answer", required=True, help="what the aspect says for the example")
    put.set_defaults(run=_aspects_put)

    remove = aspect_commands.add_parser("remove", help="remove a custom aspect")
    _organization_and_tenant(remove)
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(run=_aspects_remove)

    listing = aspect_commands.add_parser("list", help="an organization's custom aspects")
    _organization_and_tenant(listing)
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_aspects_list)


def _quota(value: str) -> int:
    if value.strip().lower() == "none":
        return 0
    try:
        quota = int(value)
    except ValueError:
        quota = -1
    if quota < 0:
        raise argparse.ArgumentTypeError(
            f"a number of characters (0 or 'none': no quota), got {value!r}"
        )
    return quota


def _organization_and_tenant(command: argparse.ArgumentParser) -> None:
    command.add_argument("organization", metavar="ORG", help="the organizationId")
    command.add_argument("--tenant", default=DEFAULT_TENANT, help="default: %(default)s")


def _add_glossary_commands(commands: Any) -> None:
    glossaries = commands.add_parser(
        "glossaries", help="an organization's glossaries: terms' translations for a language pair"
    )
    glossary_commands = glossaries.add_subparsers(dest="glossaries_command", required=True)

    create = glossary_commands.add_parser("create", help="create a glossary from a CSV or TSV file")
    _organization_and_tenant(create)
    create.add_argument("--name", required=True, help="1 to 200 characters")
    create.add_argument(
        "--from", dest="source", required=True, metavar="LANGUAGE", help="source language: en"
    )
    create.add_argument(
        "--to", dest="target", required=True, metavar="LANGUAGE", help="target language: es"
    )
    create.add_argument(
        "--entries",
        required=True,
        metavar="FILE",
        help="'source,target[,case_sensitive]' lines, comma- or tab-separated (CSV quoting "
        "for a comma in a term); '-' reads standard input",
    )
    create.add_argument(
        "--default",
        action="store_true",
        help="the organization's default for this pair (another default stops being one)",
    )
    create.add_argument("--json", action="store_true", help="print a JSON object")
    create.set_defaults(run=_glossaries_create)

    listing = glossary_commands.add_parser("list", help="an organization's glossaries")
    _organization_and_tenant(listing)
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_glossaries_list)

    show = glossary_commands.add_parser("show", help="a glossary and its entries")
    _organization_and_tenant(show)
    show.add_argument("glossary_id", metavar="ID")
    show.add_argument("--json", action="store_true", help="print a JSON object")
    show.set_defaults(run=_glossaries_show)

    remove = glossary_commands.add_parser("delete", help="delete a glossary")
    _organization_and_tenant(remove)
    remove.add_argument("glossary_id", metavar="ID")
    remove.set_defaults(run=_glossaries_delete)

    dnt = commands.add_parser("dnt", help="an organization's do-not-translate terms")
    dnt_commands = dnt.add_subparsers(dest="dnt_command", required=True)

    set_terms = dnt_commands.add_parser("set", help="replace the organization's terms")
    _organization_and_tenant(set_terms)
    set_terms.add_argument(
        "--terms",
        required=True,
        metavar="FILE",
        help="'term[,case_sensitive]' lines, comma- or tab-separated; an empty file removes "
        "them all; '-' reads standard input",
    )
    set_terms.set_defaults(run=_dnt_set)

    listing = dnt_commands.add_parser("list", help="the organization's terms")
    _organization_and_tenant(listing)
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(run=_dnt_list)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.config.dictConfig(log_config())
    try:
        code: int = args.run(args, load_settings())
    except ModelFileError as exc:
        _progress(f"model unavailable: {exc}")
        return 1
    except ConfigurationError as exc:
        _progress(f"configuration: {exc}")
        return 2
    except UnknownClientError as exc:
        _progress(str(exc))
        return 1
    except UnknownGlossaryError as exc:
        _progress(f"{exc} `threadwise glossaries list ORG` lists an organization's glossaries.")
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
