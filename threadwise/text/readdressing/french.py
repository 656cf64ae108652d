"""French: "vous" and a verb in the second person plural for the formal register, "tu" and the
singular for the informal one."""

from __future__ import annotations

from threadwise.text.readdressing.units import VOWEL, Form, Plan, Unit, Word, clauses, verb_form

_SUBJECT_PRONOUNS_FR = frozenset({"je", "j'", "il", "elle", "on", "nous", "ils", "elles"})
_FRENCH_CLITICS = frozenset({"ne", "n'", "me", "m'", "te", "t'", "nous", "vous", "le", "la", "l'"})
_FRENCH_CLITICS |= {"les", "lui", "leur", "y", "en", "se", "s'"}


def plan_french(units: list[Unit], informal: bool) -> Plan:
    """French: vous (and a verb in the second person plural) for the formal register, tu
    (and the singular) for the informal one; "vous" becomes tu, te or toi by its place."""
    plan: Plan = {}
    starts = clauses(units)
    with_subject: set[int] = set()  # verbs whose subject is the reader's pronoun
    reader, person = ("vous", "<p2><pl>") if informal else ("tu", "<p2><sg>")

    def verb_after(index: int) -> int | None:
        """The verb a pronoun at ``index`` goes with: the next unit past clitics ("ne")."""
        for later in range(index + 1, min(index + 4, len(units))):
            if units[later].is_verb and units[later].key not in _FRENCH_CLITICS:
                return later
            if units[later].key not in _FRENCH_CLITICS:
                return None
        return None

    for index, unit in enumerate(units):
        before = units[index - 1] if index > 0 else None
        following = units[index + 1] if index + 1 < len(units) else None
        if unit.key == reader and unit.hyphened:
            # "Avez-vous": settled once the verb is (an unknown one keeps it as it is).
            if before is not None and before.is_verb:
                with_subject.add(index - 1)
            elif before is not None and informal and _unknown_request(units, index - 1, starts):
                plan[index - 1] = Word(before.surface[:-2] + "e")
                plan[index] = Word("toi")
            continue
        if informal and _unknown_request(units, index, starts) and index + 1 not in plan:
            if following is None or not (following.hyphened and following.key == reader):
                plan[index] = Word(unit.surface[:-2] + "e")  # "téléchargez" → "télécharge"
            continue
        if not informal and unit.key in ("te", "t'", "toi") and unit.has("<prn>"):
            if not unit.hyphened:  # "-toi" is settled with its verb
                plan[index] = Word("vous " if unit.key == "t'" else "vous")
        elif unit.key == reader and (informal or unit.has("<prn>")):
            # vous → tu (subject), te (object) or toi (after a preposition); tu → vous.
            verb = verb_after(index)
            object_place = before is not None and (
                before.key in _FRENCH_CLITICS or before.key in _SUBJECT_PRONOUNS_FR
            )
            if before is not None and before.has("<pr>"):
                word = "toi" if informal else "vous"
            elif verb is not None and units[verb].has(person) and not object_place:
                word = "tu" if informal else "vous"
                with_subject.add(verb)
            elif verb is not None or (following is not None and following.key in _FRENCH_CLITICS):
                word = "te" if informal else "vous"
            else:
                word = "toi" if informal else "vous"
            plan[index] = Word(word)
        elif informal and unit.key == "à vous":
            plan[index] = Word("à toi")
        elif informal and unit.key == "votre":
            feminine = following is not None and following.has("<f>") and not following.has("<m>")
            vowel = following is not None and bool(VOWEL.match(following.surface[:1]))
            plan[index] = Word("ta" if feminine and not vowel else "ton")
        elif informal and unit.key == "vos":
            plan[index] = Word("tes")
        elif not informal and unit.key in ("ton", "ta") and unit.has("<det>"):
            plan[index] = Word("votre")
        elif not informal and unit.key == "tes" and unit.has("<det>"):
            plan[index] = Word("vos")
    old, new = person, ("<p2><sg>" if informal else "<p2><pl>")
    questions = _questions(units)
    for index, unit in enumerate(units):
        following = units[index + 1] if index + 1 < len(units) else None
        if not unit.is_verb or not unit.has(old) or index in plan:
            continue
        attached = _attached_reader(unit, informal)
        if attached is not None:  # "Pouvez-vous", "Connecte-toi": one word here
            question = questions[index]
            head = attached.split("+")[0].replace("<imp>", "<pri>" if question else "<imp>")
            lemma = head[: head.index("<")]
            suffix = ("-tu" if question else "-toi") if informal else "-vous"
            written = lemma[:1].lower() + lemma[1:] + head[len(lemma) :].replace(old, new, 1)
            plan[index] = Form(written, suffix)
            continue
        if informal and unit.key.startswith("veuill") and following is not None:
            # "Veuillez patienter": "Patiente" (a verb the dictionary knows, or one in "-er"),
            # else "Merci de patienter".
            request: Form | Word | None = verb_form(following, "<inf>", "<imp><p2><sg>", None)
            unknown = all("<" not in r for r in following.readings)
            if request is None and unknown and following.key.endswith("er"):
                request = Word(following.surface[:-2] + "e")
            elided = VOWEL.match(following.surface[:1])
            plan[index] = Word("") if request else Word("Merci d'" if elided else "Merci de")
            if request is not None:
                plan[index + 1] = request
            continue
        clause = units[starts[index] : index]
        if index in with_subject:
            form = verb_form(unit, old, new, imperative=False)
        elif all(u.key in _FRENCH_CLITICS for u in clause):  # a request: "Ne vous inquiétez"
            form = verb_form(unit, old, new, imperative=True)
        else:
            continue
        if form is not None:
            plan[index] = form
            after = index + 1
            if after < len(units) and units[after].hyphened and units[after].key == reader:
                imperative = "<imp>" in form.form
                plan[after] = Word(("toi" if imperative else "tu") if informal else "vous")
    return plan


def _unknown_request(units: list[Unit], index: int, starts: list[int]) -> bool:
    """A word the French dictionary does not know, in "-ez", opening its clause: a request
    with a verb in "-er" ("Connectez", "téléchargez"), the most common kind of new verb."""
    unit = units[index]
    unknown = all("<" not in r for r in unit.readings)
    return unknown and unit.key.endswith("ez") and len(unit.key) > 4 and starts[index] == index


def _attached_reader(unit: Unit, informal: bool) -> str | None:
    """The reading of a French verb with the reader's pronoun attached, in the register
    being replaced ("Pouvez-vous" → ``pouvoir<vbmod><imp><p2><pl>+vous<prn><enc>…``)."""
    pronouns = ("+vous<prn><enc>",) if informal else ("+tu<prn><enc>", "+toi<prn><enc>")
    return next((r for r in unit.readings if any(p in r for p in pronouns)), None)


def _questions(units: list[Unit]) -> list[bool]:
    """Whether the sentence of each unit ends with a question mark: for all of them in one
    pass from the end (looked for from each unit, a long text was quadratic)."""
    questions = [False] * len(units)
    question = False  # the sentence that ends after the unit being looked at
    for index in range(len(units) - 1, -1, -1):
        questions[index] = question
        if any("<sent>" in r for r in units[index].readings):
            question = "?" in units[index].surface
    return questions
