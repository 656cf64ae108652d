"""Personal data in message text: where it is, and typed placeholders that stand for it.

Every detector reads the text's normal form (``spans.NormalizedText``: NFKC, so full-width
digits and letters are ASCII; no zero-width characters; every dash a hyphen), and each find
is mapped back to the characters of the text it came from, invisible ones included.

Structured values are found by rules that check them, not by their shape alone: e-mail
addresses, also spelled out ("john dot smith at gmail dot com", "ana [at] example [dot] com",
"arroba … punto"); phone numbers (Google's libphonenumber: numbers valid in one of
``REGIONS``, or in international form); payment card numbers (13-19 digits passing Luhn's
check); IBANs (ISO 13616: the country's length and the mod-97 check); national ID numbers
with their check digits (US SSN, Spain's DNI and NIE, France's NIR, Brazil's CPF) or their
issuer's format (UK National Insurance numbers; any prefix after the number's name); street
addresses by the way they are written (``street_addresses``). People's names need
dictionaries: ``person_names``. Where two finds overlap, the kind earlier in ``KINDS`` keeps
the text (an IBAN's digits are not also a phone number; a French NIR, whose mod-97 key
is the stricter check, is not a card number that happens to pass Luhn's).

``Placeholders`` replaces finds with ``[KIND_N]`` (the same value, the same placeholder, in
every message of a request) and puts the values back in a text that kept the placeholders.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence

import phonenumbers
from stdnum import iban, luhn
from stdnum.br import cpf
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.us import ssn

from threadwise.text.found import Found
from threadwise.text.spans import DisjointSpans, NormalizedText
from threadwise.text.street_addresses import find_addresses

__all__ = ["KINDS", "Found", "Placeholders", "find"]

KINDS = ("EMAIL", "IBAN", "NATIONAL_ID", "CARD", "ADDRESS", "PHONE", "PERSON")
# Where a number without a country code is read as a phone number: the languages'
# countries the service translates between, and the largest English-speaking ones.
REGIONS = ("US", "GB", "ES", "MX", "FR", "DE", "PT", "BR", "IT", "CA", "AU", "IN")
_VERSION = re.compile(r"\d+\.\d+")
# Phone numbers however grouped: in international form (the country code says how to read
# it), every digit on its own ("6 5 0 5 5 5 1 2 3 4", at least nine: a code sent by text
# message has six or eight), or an area code before a slash ("0171 / 234 56 78").
_LOOSELY_GROUPED = re.compile(r"\+|\d(?: \d){8,}$|\(?0\d{2,5}\)? ?/")
PLACEHOLDER = re.compile(r"\[([A-Z_]+)_(\d+)\]")

# Domains may be internationalized (bücher.de, correo.españa.es): their labels are words.
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@(?:[\w-]+\.)+[^\W\d_]{2,}(?![\w-])")


def _spelled(words: str) -> str:
    """``words`` standing for "@" or ".": in brackets ("[at]", "(punkt)") or between spaces."""
    return rf"(?:\s{{0,2}}[\[(<{{]\s?(?:{words})\s?[\])>}}]\s{{0,2}}|\s{{1,2}}(?:{words})\s{{1,2}})"


_SPELLED_AT = _spelled("at|arroba|arobase")
_SPELLED_DOT = _spelled("dot|punto|point|punkt|ponto")
_SPELLED_PART = r"[\w+-]{1,64}"
# An address spelled out. The top-level domain is one of the common ones or a country's: a
# name before it is not one ("email me at john dot smith at gmail dot com" is no address at
# "me"). Every repetition is bounded, so that each start costs the same on any text.
_SPELLED_EMAIL = re.compile(
    rf"(?i)(?<![\w.+'\u2019-]){_SPELLED_PART}(?:(?:\.|{_SPELLED_DOT}){_SPELLED_PART}){{0,3}}"
    rf"(?P<at>{_SPELLED_AT})(?:[\w-]{{1,63}}(?:\.|{_SPELLED_DOT})){{1,4}}"
    r"(?:com|org|net|edu|gov|info|biz|io|[a-z]{2})(?![\w-])"
)
_BARE_AT = re.compile(r"\s+\w+\s+")
_PLAIN_DOMAIN = re.compile(r"[\w.-]+")
# Runs of digit groups joined by a space, a dash, a dot or a slash: card numbers are found
# inside them.
_DIGIT_GROUPS = re.compile(r"(?<![\w-])\d+(?:(?: ?[-./] ?| )\d+)*(?![\w])")
_DIGITS = re.compile(r"\d+")
_MOST_CARD_DIGITS = 19
_CARD_DIGITS = range(13, _MOST_CARD_DIGITS + 1)
_IBAN_START = re.compile(r"(?<![\w])[A-Za-z]{2}\d{2}[ .]?$")
_IBAN_START_LENGTH = 5  # two letters, two digits and a space
_IBAN = re.compile(r"(?<![\w])[A-Za-z]{2}\d{2}(?:[ .-]?[A-Za-z0-9]){10,30}(?![\w])")
_SEPARATORS = re.compile(r"[\s./-]")


def find(
    text: str, regions: Sequence[str] = REGIONS, check: Callable[[], object] = lambda: None
) -> list[Found]:
    """The personal data in ``text``, in order, none overlapping. ``check`` is called between
    one kind and the next (and between regions' phone numbers, which take longest): it
    raises to stop the work."""
    normal = NormalizedText(text)
    finds: list[Found] = []
    for detector in (_emails, _ibans, _national_ids, _cards, find_addresses):
        check()
        finds += detector(normal.text)
    finds += _phones(normal.text, regions, check)
    rank = {kind: n for n, kind in enumerate(KINDS)}
    spans = DisjointSpans()
    ranked = sorted(finds, key=lambda f: (rank[f.kind], f.start))
    kept = sorted((f for f in ranked if spans.take(f.start, f.end)), key=lambda f: f.start)
    return [normal.in_original(found) for found in kept]


def _emails(text: str) -> Iterator[Found]:
    for match in _EMAIL.finditer(text):
        yield Found("EMAIL", match.start(), match.end(), match.group())
    for match in _SPELLED_EMAIL.finditer(text):
        domain = text[match.end("at") : match.end()]
        if _BARE_AT.fullmatch(match.group("at")) and _PLAIN_DOMAIN.fullmatch(domain):
            continue  # "available at amazon.com": a bare "at" needs a dot spelled out too
        yield Found("EMAIL", match.start(), match.end(), match.group())


def _ibans(text: str) -> Iterator[Found]:
    """Candidates shortened from the right (a word after the number is not part of it)
    until one passes the check."""
    for match in _IBAN.finditer(text):
        candidate = match.group()
        while len(_SEPARATORS.sub("", candidate)) >= 15:
            # ISO 13616's check alone, not the country's own check digits as well: a value
            # that passes it is an account number to hide, whatever its bank would say.
            if iban.is_valid(candidate, check_country=False):
                start = match.start()
                yield Found("IBAN", start, start + len(candidate), candidate)
                break
            candidate = re.sub(r"[ .-]?[A-Za-z0-9]$", "", candidate)


def _cards(text: str) -> Iterator[Found]:
    """In each run of digit groups, the longest stretches of whole groups with 13-19
    digits that pass Luhn's check."""
    for run in _DIGIT_GROUPS.finditer(text):
        # Only the few characters before the run can start an IBAN.
        if _IBAN_START.search(text, max(0, run.start() - _IBAN_START_LENGTH), run.start()):
            continue  # the rest of an IBAN (one that failed its check is no card either)
        groups = [m.span() for m in _DIGITS.finditer(text, run.start(), run.end())]
        taken = -1
        for first, (start, _) in enumerate(groups):
            if start <= taken:
                continue
            # A stretch spans at most as many groups as a card has digits: looking further
            # (every pair of a long run's groups) made long runs cubic.
            number = ""
            ends: list[tuple[int, int]] = []  # the digits up to each group, and its end
            for group_start, group_end in groups[first : first + _MOST_CARD_DIGITS]:
                if len(number) + group_end - group_start > _MOST_CARD_DIGITS:
                    break
                number += text[group_start:group_end]
                ends.append((len(number), group_end))
            for length, end in reversed(ends):
                if length in _CARD_DIGITS and luhn.is_valid(number[:length]):
                    yield Found("CARD", start, end, text[start:end])
                    taken = end
                    break


_IDS: tuple[tuple[re.Pattern[str], Callable[[str], bool]], ...] = (
    (re.compile(r"(?<![\w-])\d{3}[-. ]\d{2}[-. ]\d{4}(?![\w-])"), ssn.is_valid),
    (
        # Nine bare digits only a few words after the name of the number.
        re.compile(r"(?i:\b(?:ssn|social security)\b[^\d\n]{0,40}?)(?<!\d)(\d{9})(?!\d)"),
        ssn.is_valid,
    ),
    (re.compile(r"(?<![\w-])\d{8}[- ]?[A-Za-z](?![\w])"), dni.is_valid),
    (re.compile(r"(?<![\w-])[XYZxyz][- ]?\d{7}[- ]?[A-Za-z](?![\w])"), nie.is_valid),
    (re.compile(r"(?<![\w.-])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\w-])"), cpf.is_valid),
    (
        re.compile(
            r"(?i:\bcpf\b[^\d\n]{0,40}?)(?<!\d)(\d{3}[ .]?\d{3}[ .]?\d{3}[ .-]?\d{2})(?!\d)"
        ),
        cpf.is_valid,
    ),
    (
        re.compile(
            r"(?<![\w])[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3}(?: ?\d{2})?(?![\w])"
        ),
        nir.is_valid,
    ),
    # UK National Insurance: two letters (not D, F, I, Q, U, V; not O second; not BG, GB,
    # KN, NK, NT, TN, ZZ), six digits, A-D. It has no check digit.
    (
        re.compile(
            r"(?<![\w])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
            r"[ -]?\d{2}[ -]?\d{2}[ -]?\d{2}[ -]?[A-D](?![\w])"
        ),
        lambda value: True,
    ),
    # A few words after the number's name, any two letters in either case: the format's own
    # sample, QQ 12 34 56 C, is given as one's number too.
    (
        re.compile(
            r"\b(?:nino|ni|national insurance)\b[^\d\n]{0,30}?(?<![\w])"
            r"([a-z]{2}[ -]?\d{2}[ -]?\d{2}[ -]?\d{2}[ -]?[a-d])(?![\w])",
            re.IGNORECASE,
        ),
        lambda value: True,
    ),
)


def _national_ids(text: str) -> Iterator[Found]:
    for pattern, valid in _IDS:
        for match in pattern.finditer(text):
            group = 1 if pattern.groups else 0
            value = match.group(group)
            # The checks take a number's own separators only (no spaces in an SSN, say).
            if valid(_SEPARATORS.sub("", value)):
                yield Found("NATIONAL_ID", match.start(group), match.end(group), value)


def _phones(text: str, regions: Sequence[str], check: Callable[[], object]) -> Iterator[Found]:
    """Valid numbers grouped as the region groups them, or in a way only a phone number is
    written (``_LOOSELY_GROUPED``): an order number that happens to be valid somewhere is
    seldom grouped like a phone number."""
    seen: set[tuple[int, int]] = set()
    for region in regions:
        check()
        for match in phonenumbers.PhoneNumberMatcher(
            text, region, leniency=phonenumbers.Leniency.VALID
        ):
            numbers = [(match.start, match.raw_string)]
            if not _LOOSELY_GROUPED.match(match.raw_string):
                # What the strict grouping finds in it (it may split it in two).
                strict = phonenumbers.PhoneNumberMatcher(
                    match.raw_string, region, leniency=phonenumbers.Leniency.STRICT_GROUPING
                )
                numbers = [(match.start + inner.start, inner.raw_string) for inner in strict]
            for start, raw in numbers:
                if _VERSION.fullmatch(raw):
                    continue  # 22631.3007: a build or a decimal number
                if (start, start + len(raw)) not in seen:
                    seen.add((start, start + len(raw)))
                    yield Found("PHONE", start, start + len(raw), raw)


class Placeholders:
    """One request's placeholders: ``[EMAIL_1]``, ``[PHONE_2]``…, the same for the same value
    in every text masked with it."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}  # placeholder → value
        self._by_value: dict[tuple[str, str], str] = {}
        self._counts: Counter[str] = Counter()

    def mask(self, text: str, finds: Iterable[Found]) -> str:
        """``text`` with each find replaced by its placeholder."""
        parts: list[str] = []
        position = 0
        for found in sorted(finds, key=lambda f: f.start):
            parts.append(text[position : found.start])
            parts.append(self._placeholder(found))
            position = found.end
        parts.append(text[position:])
        return "".join(parts)

    def _placeholder(self, found: Found) -> str:
        key = (found.kind, _normalized(found))
        if key not in self._by_value:
            self._counts[found.kind] += 1
            placeholder = f"[{found.kind}_{self._counts[found.kind]}]"
            self._by_value[key] = placeholder
            self.values[placeholder] = found.value
        return self._by_value[key]

    def restore(self, text: str) -> str:
        """``text`` with the placeholders of this request replaced by their values (others
        are left as they are)."""
        return PLACEHOLDER.sub(lambda m: self.values.get(m.group(), m.group()), text)


def _normalized(found: Found) -> str:
    """The same value written another way (separators, case, full-width) is the same value."""
    value = NormalizedText(found.value).text
    if found.kind == "EMAIL":
        return value.casefold()
    return re.sub(r"[\s./()-]", "", value).upper()
