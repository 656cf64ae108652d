"""The words of a summary clause and of the messages, as the attribution check compares them:
content words stemmed ("sent" and "sends" are "send"), IDs and numbers weighted most."""

from __future__ import annotations

import re

# Words that say little about who said what.
_STOPWORDS_WORDS = """
    a an the and or but so if then than that this these those to of in on at by for with
    from about as into over after before while when where which who whom whose what why how
    is are was were be been being am do does did done have has had having will would shall
    should can could may might must not no yes also just only very too more most much many
    some any all each every other another both either neither such own same there here it its
    he she they them their his her him we us our you your i me my mine yours theirs itself
    himself herself themselves one ones up down out off again further once now today
    ask say tell talk speak mention want need like think know let make go come see look
    feel try seem help thing things way lot bit well really something anything nothing
    someone anyone everyone because though although however since until
    """
STOPWORDS = frozenset(_STOPWORDS_WORDS.split())


TOKEN = re.compile(r"[$€£#]?[\w][\w'.-]*\w|[\w]")


def content_words(text: str) -> list[str]:
    stems = []
    for token in TOKEN.findall(text):
        word = token.lower().removesuffix("'s")
        if word in STOPWORDS or (len(word) < 3 and not any(c.isdigit() for c in word)):
            continue
        stems.append(stem(word))
    return stems


_IRREGULAR_FORMS = """
    sent:send gave:give given:give told:tell said:say paid:pay bought:buy made:make took:take
    taken:take got:get gotten:get found:find brought:bring left:leave came:come went:go
    gone:go met:meet kept:keep lost:lose spent:spend held:hold wrote:write written:write
    chose:choose chosen:choose knew:know known:know thought:think felt:feel ran:run saw:see
    seen:see heard:hear understood:understand forgot:forget forgotten:forget began:begin
    begun:begin broke:break broken:break did:do done:do had:have has:have sold:sell
    lent:lend built:build caught:catch taught:teach won:win became:become bought:buy
    drove:drive driven:drive ate:eat eaten:eat gave:give shown:show flew:fly flown:fly
    """
IRREGULAR = dict(pair.split(":", 1) for pair in _IRREGULAR_FORMS.split())


def stem(word: str) -> str:
    if any(c.isdigit() for c in word):
        return re.sub(r"[^\w]", "", word)
    if word in IRREGULAR:
        return IRREGULAR[word]
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)] + keep
            # "running", "stopped": one of the doubled consonants goes too.
            if suffix in ("ing", "ed") and stem[-1] == stem[-2] and stem[-1] not in "aeioulsfz":
                stem = stem[:-1]
            return stem
    return word


def weight(stem: str) -> float:
    """IDs and numbers say most about who said what."""
    return 2.0 if any(c.isdigit() for c in stem) else 1.0


# Words too common to say who did anything, for ``_verbs``.
_FUNCTION_WORDS_LIST = """
    a an the and or but so if then than that this these those to of in on at by for with from
    about as into is are was were be been being am do does did have has had will would
    shall should can could may might must not no yes it its he she they them their his her
    him we us our you your i me my"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_LIST.split())


def verbs(text: str) -> list[str]:
    """Every word of ``text`` but function words, stemmed: what someone does."""
    return [stem(w) for w in re.findall(r"[a-z]+", text.lower()) if w not in FUNCTION_WORDS]
