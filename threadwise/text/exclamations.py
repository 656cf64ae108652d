"""Words and idioms people exclaim: neither a name nor an act.

"Oh, my God!" names no one, and "Get out of here!" said to news is disbelief, not a request
to leave. Both lists are small and explicit: an idiom counts only as a whole sentence, so
"Get out of here before I call the police" stays a command.
"""

from __future__ import annotations

import re

# Capitalised words that are called out, not called: "Oh, God!", "My Lord", "Geez, Tom".
_INTERJECTION_WORDS = """
    God Gods Lord Jesus Christ Heaven Heavens Goodness Gosh Golly Gee Geez Jeez Jeepers Boy
    Man Dear Hell Heck Wow Whoa Damn Dammit Darn Blimey Crikey Yikes Oops Ugh Phew Hooray Yay
    Alas Mercy Omg Holy Crap Shoot Shucks Bingo Bravo Cheers Ah Aha Oh Hmm
    """
INTERJECTIONS = frozenset(_INTERJECTION_WORDS.split())

# Said in surprise or disbelief, these read as orders or accusations word for word.
_IDIOMS = (
    r"get out of (?:here|town)|get outta here|shut up|shut the front door|no way|"
    r"(?:you(?:'re| are)|you must be|you've got to be|you have to be|are you) "
    r"(?:kidding|joking)(?: me)?|"
    r"give me a break|come off it|come on|get real|go figure|you don't say|say what|"
    r"for crying out loud|(?:oh )?my (?:god|goodness|gosh|lord)|"
    r"holy (?:cow|moly|smokes)|good (?:grief|heavens|lord|god)|no kidding|"
    r"(?:what|how) on earth|i don't believe (?:it|this)|unbelievable"
)
_LEADS = r"(?:(?:oh|ah|wow|what|whoa|man|really|come on|seriously)\W+)*"
_TAILS = r"(?:\W+(?:man|dude|mate|buddy|then|already|now|really|seriously|(?-i:[A-Z][a-z]+)))*"
_EXCLAMATION = re.compile(rf"\W*{_LEADS}(?:{_IDIOMS}){_TAILS}\W*", re.IGNORECASE)


def is_exclamation(sentence: str) -> bool:
    """Is ``sentence``, a sentence of a message, a whole idiom of surprise or disbelief
    ("Get out of here!", "You're kidding me", "Oh, shut up!")?"""
    return _EXCLAMATION.fullmatch(sentence.strip()) is not None


def is_interjection(word: str) -> bool:
    """Is ``word`` one that is exclaimed rather than a name ("God", "Lord", "Gosh")?"""
    return word.strip().capitalize() in INTERJECTIONS
