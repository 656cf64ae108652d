"""``threadwise glossaries`` and ``threadwise dnt``: an organization's glossaries and
do-not-translate terms, from CSV or TSV files; ``--json`` prints what the REST API answers."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from threadwise.cli.arguments import Commands, organization_and_tenant
from threadwise.cli.output import print_json, print_table, progress
from threadwise.cli.stores import glossary_store
from threadwise.config import Settings
from threadwise.organizations.glossary_views import (
    do_not_translate_terms,
    glossary_detail,
    glossary_list,
)
from threadwise.text.terms import Glossary, Term


def add_commands(commands: Commands) -> None:
    glossaries = commands.add_parser(
        "glossaries", help="an organization's glossaries: terms' translations for a language pair"
    )
    glossary_commands = glossaries.add_subparsers(dest="glossaries_command", required=True)

    create = glossary_commands.add_parser("create", help="create a glossary from a CSV or TSV file")
    organization_and_tenant(create)
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
    create.add_argument("--json", action="store_true", help="print what POST /glossaries answers")
    create.set_defaults(run=_create)

    listing = glossary_commands.add_parser("list", help="an organization's glossaries")
    organization_and_tenant(listing)
    listing.add_argument("--json", action="store_true", help="print what GET /glossaries answers")
    listing.set_defaults(run=_list)

    show = glossary_commands.add_parser("show", help="a glossary and its entries")
    organization_and_tenant(show)
    show.add_argument("glossary_id", metavar="ID")
    show.add_argument(
        "--json", action="store_true", help="print what GET /glossaries/{glossaryId} answers"
    )
    show.set_defaults(run=_show)

    remove = glossary_commands.add_parser("delete", help="delete a glossary")
    organization_and_tenant(remove)
    remove.add_argument("glossary_id", metavar="ID")
    remove.set_defaults(run=_delete)

    dnt = commands.add_parser("dnt", help="an organization's do-not-translate terms")
    dnt_commands = dnt.add_subparsers(dest="dnt_command", required=True)

    set_terms = dnt_commands.add_parser("set", help="replace the organization's terms")
    organization_and_tenant(set_terms)
    set_terms.add_argument(
        "--terms",
        required=True,
        metavar="FILE",
        help="'term[,case_sensitive]' lines, comma- or tab-separated; an empty file removes "
        "them all; '-' reads standard input",
    )
    set_terms.set_defaults(run=_dnt_set)

    listing = dnt_commands.add_parser("list", help="the organization's terms")
    organization_and_tenant(listing)
    listing.add_argument(
        "--json", action="store_true", help="print what GET /glossaries/do-not-translate answers"
    )
    listing.set_defaults(run=_dnt_list)


def _create(args: argparse.Namespace, settings: Settings) -> int:
    try:
        rows = _read_rows(args.entries, "source,target[,case_sensitive]", 2)
        entries = [Term(row[0], row[1], _case_sensitive(row, 2)) for row in rows]
        with glossary_store(settings) as store:
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
        progress(str(exc))
        return 2
    _print_glossary(glossary, args.json)
    return 0


def _list(args: argparse.Namespace, settings: Settings) -> int:
    with glossary_store(settings) as store:
        try:
            found = store.list(args.tenant, args.organization)
        except ValueError as exc:
            progress(str(exc))
            return 2
    if args.json:
        print_json(glossary_list(found))
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
    print_table(rows)
    return 0


def _show(args: argparse.Namespace, settings: Settings) -> int:
    with glossary_store(settings) as store:
        try:
            glossary = store.get(args.tenant, args.organization, args.glossary_id)
        except ValueError as exc:
            progress(str(exc))
            return 2
    _print_glossary(glossary, args.json)
    return 0


def _delete(args: argparse.Namespace, settings: Settings) -> int:
    with glossary_store(settings) as store:
        try:
            store.delete(args.tenant, args.organization, args.glossary_id)
        except ValueError as exc:
            progress(str(exc))
            return 2
    print(f"deleted glossary {args.glossary_id} of organization {args.organization.strip()}")
    return 0


def _dnt_set(args: argparse.Namespace, settings: Settings) -> int:
    try:
        rows = _read_rows(args.terms, "term[,case_sensitive]", 1)
        terms = [Term(row[0], row[0], _case_sensitive(row, 1)) for row in rows]
        with glossary_store(settings) as store:
            store.set_do_not_translate(args.tenant, args.organization, terms)
    except ValueError as exc:
        progress(str(exc))
        return 2
    print(
        f"organization {args.organization.strip()} has {len(terms)} do-not-translate "
        f"term{'' if len(terms) == 1 else 's'}"
    )
    return 0


def _dnt_list(args: argparse.Namespace, settings: Settings) -> int:
    with glossary_store(settings) as store:
        try:
            terms = store.do_not_translate(args.tenant, args.organization)
        except ValueError as exc:
            progress(str(exc))
            return 2
    if args.json:
        print_json(do_not_translate_terms(terms))
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
        print_json(glossary_detail(glossary))
        return
    default = " (the default)" if glossary.default else ""
    print(
        f"glossary {glossary.glossary_id} of organization {glossary.organization}: "
        f"{glossary.name}, {glossary.source_language} → {glossary.target_language}{default}"
    )
    rows = [["SOURCE", "TARGET", "CASE"]]
    for entry in glossary.entries:
        rows.append([entry.source, entry.target, "exact" if entry.case_sensitive else "any"])
    print_table(rows)
