"""Spanish and Portuguese: the formal register speaks to the reader in the third person
("usted", "você", "o senhor"), the informal one in the second ("tú", "tu")."""

from __future__ import annotations

from threadwise.text.readdressing.units import Form, Plan, Unit, Word, clauses, verb_form

_POSSESSIVES = {
    "es": (
        {
            "su": "tu",
            "sus": "tus",
            "suyo": "tuyo",
            "suya": "tuya",
            "suyos": "tuyos",
            "suyas": "tuyas",
        }
    ),
    "pt": ({"seu": "teu", "sua": "tua", "seus": "teus", "suas": "tuas"}),
}
_CLITIC = {"es": ("le", "te"), "pt": ("lhe", "te")}  # formal, informal


def plan_iberian(units: list[Unit], language: str, brazilian: bool, informal: bool) -> Plan:
    """Spanish and Portuguese: the formal register speaks to the reader in the third person
    (usted; o senhor, or no pronoun), the informal one in the second (tú; tu; in Brazil the
    informal você also takes the third person, so only pronouns change there)."""
    plan: Plan = {}
    starts = clauses(units)
    possessives = _POSSESSIVES[language]
    if not informal:
        possessives = {v: k for k, v in possessives.items()}
    if language == "es":  # vosotros (Apertium's "you"): one reader, in either register
        singular = possessives if informal else _POSSESSIVES["es"]
        possessives = possessives | {
            plural: singular[one] if informal else one
            for plural, one in (
                ("vuestro", "su"),
                ("vuestra", "su"),
                ("vuestros", "sus"),
                ("vuestras", "sus"),
            )
        }
    formal_clitic, informal_clitic = _CLITIC[language]
    old_clitic, new_clitic = (
        (formal_clitic, informal_clitic) if informal else (informal_clitic, formal_clitic)
    )
    old_tags, new_tags = (
        ("<p3><mf><sg>", "<p2><mf><sg>") if informal else ("<p2><mf><sg>", "<p3><mf><sg>")
    )
    addressed: set[int] = set()
    for index, unit in enumerate(units):
        before = units[index - 1] if index > 0 else None
        following = units[index + 1] if index + 1 < len(units) else None
        words = unit.key.split()
        if any(w in possessives for w in words) and (unit.has("<pos>")):
            plan[index] = Word(
                " ".join(possessives.get(w.casefold(), w) for w in unit.surface.split())
            )
        elif (unit.key == old_clitic or unit.key == "os") and unit.has("<prn><pro>"):
            plan[index] = Word(new_clitic)
        elif unit.key in ("vosotros", "vosotras") and language == "es":
            plan[index] = Word("tú" if informal else "usted")
            addressed.add(index + 1)
        elif (informal and unit.key in ("usted", "você")) or (
            informal
            and unit.key in ("senhor", "senhora")
            and before is not None
            and before.key in ("o", "a")
        ):
            if unit.key in ("senhor", "senhora"):
                plan[index - 1] = Word("")
            after_preposition = before is not None and before.has("<pr>")
            pronoun = (
                "você"
                if brazilian
                else ("ti" if after_preposition else ("tú" if language == "es" else "tu"))
            )
            if (
                language == "pt"
                and not brazilian
                and not after_preposition
                and following is not None
                and following.is_verb
            ):
                pronoun = ""  # "O senhor pode" → "Podes": the verb says who
            plan[index] = Word(pronoun)
            addressed.add(index + 1)
        elif not informal and unit.key in ("tú", "tu", "ti", "contigo") and unit.has("<prn>"):
            if language == "es":
                plan[index] = Word("con usted" if unit.key == "contigo" else "usted")
            elif brazilian:
                plan[index] = Word("com o senhor" if unit.key == "contigo" else "o senhor")
            else:
                replaced = {"contigo": "consigo", "ti": "si"}.get(unit.key, "")
                plan[index] = Word(replaced)
            addressed.add(index + 1)
        elif brazilian:
            continue
        elif unit.only_verb and not (before is not None and before.has("<det>")):
            form = _iberian_verb(units, index, starts[index], informal, index in addressed)
            enclitic = f"+{old_clitic}<prn><enc>"
            if form is None and unit.has(enclitic):
                # "telefonar-lhe": only the pronoun attached to it changes.
                reading = next(r for r in unit.readings if enclitic in r)
                form = Form(reading[:1].lower() + reading[1:])
            if form is not None:
                changed = form.form.replace(
                    f"+{old_clitic}<prn><enc>{old_tags}", f"+{new_clitic}<prn><enc>{new_tags}"
                )
                plan[index] = Form(changed)
    return plan


def _iberian_verb(
    units: list[Unit], index: int, start: int, informal: bool, addressed: bool
) -> Form | None:
    """The verb at ``index`` in the other register, if the reader is its subject: in the
    second person, or (to informal) in the third with no subject before it in its clause
    or right after the reader's pronoun; at its clause's start, a request."""
    unit = units[index]
    # A request opens a sentence or a clause after a comma or "and"; after "que" or "se" a
    # verb in the subjunctive looks like one ("que tenha": that you have).
    subordinate = index > 0 and any(
        tag in r for r in units[index - 1].readings for tag in ("<cnjsub>", "<rel>", "<cnjadv>")
    )
    first = start == index and not subordinate
    if unit.has("<p2><pl>"):  # vosotros: "Revisad", "podéis"
        return verb_form(unit, "<p2><pl>", "<p2><sg>" if informal else "<p3><sg>", None)
    if not informal:
        if first and unit.has("<imp><p2><sg>"):
            return verb_form(unit, "<imp><p2><sg>", "<imp><p3><sg>", None)
        return verb_form(unit, "<p2><sg>", "<p3><sg>", imperative=False)
    if not (addressed or not any(u.could_be_subject for u in units[start:index])):
        return None
    if unit.has("<inf>"):
        return None  # "Pode verificar": an infinitive, not a personal one ("verificares")
    # A request ("Revise", "Verifique") has no present indicative; "Pode" (he can) has one.
    if first and unit.has("<imp><p3><sg>") and not unit.has("<pri>"):
        return verb_form(unit, "<imp><p3><sg>", "<imp><p2><sg>", None)
    return verb_form(unit, "<p3><sg>", "<p2><sg>", imperative=False)
