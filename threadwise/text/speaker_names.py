"""What a conversation says its speakers are called, and whether a display name is a name.

Two-party chats often name their speakers only in what they say: "Hi, Sam." names the
other speaker, "My name is Maria" the one speaking. Only patterns that are rarely anything
else count, and a name both speakers are called, or a word the conversation also writes in
lower case ("Well, ..."), is not taken: a wrong name would give actions to the wrong person.
"""

from __future__ import annotations

import re
from collections import Counter

from threadwise.text.exclamations import INTERJECTIONS
from threadwise.text.transcript import Said, Speaker

_NAME = (
    r"((?:(?:Mr|Mrs|Ms|Miss|Dr|Prof|Professor)\.?\s+)?"
    r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?(?:\s+[A-Z][a-z]+)?)"
)
_GREETING = (
    r"(?i:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening|night)|morning|thanks|"
    r"thank\s+you|sorry|excuse\s+me|bye|goodbye|welcome|congratulations|oh|well|yes|no|"
    r"ok|okay|nice\s+to\s+meet\s+you)"
)
# "Hi, Sam." / "Thank you, Dr. Li!" / "... ! Oh, Amy, let's" at the start of a sentence.
_GREETED = re.compile(rf"(?:^|[.!?]\s+)\s*{_GREETING}[\s,!]+{_NAME}\s*[,.!]")
# "Kate, can we change the channel?": a name first, then something said to that person.
_CALLED = re.compile(rf"^\s*{_NAME}\s*,(?=.*(?:\byou|\byour|\blet's|\bwe\b|\?))")
# "... good luck, Maria." / "I like your humor, Mark.": a name set off by a comma, then a stop.
_ADDRESSED = re.compile(rf",\s*{_NAME}\s*(?:[.!?](?:\s|$)|$)")
# "Oh, my God!" / "My Lord." / "Oh, Heavens!": a word exclaimed, not someone called.
_EXCLAIMED = re.compile(
    r"\b(?i:my|dear|good)\s+([A-Z][a-z]+)\s*[!.,?]|\b(?i:oh|o)[\s,]+([A-Z][a-z]+)\s*!"
)
# "My name is Maria." / "This is Tom speaking." / "I'm Ana from support."
_INTRODUCED = re.compile(
    rf"(?:\b[Mm]y name is|\b[Tt]his is|\bI'm|\bI am)\s+{_NAME}"
    rf"(?=\s+(?:speaking|from|here)\b|\s*[.,!]|$)"
)

# Capitalised words that open or close a sentence without being anyone's name.
_NOT_NAMES_WORDS = """
    I Yes No Oh Well Sure Okay OK Ok Hi Hello Hey Thanks Thank Sorry Excuse Please Dear Bye
    Goodbye Good Great Really Wow Mom Dad Mum Mommy Daddy Sir Madam Honey Darling Boss Doctor
    Teacher Waiter Officer Everyone Everybody Guys Friend Buddy Man Right Fine What Why How
    Look Listen Yeah Ah Um Uh Er Mmm Hmm Congratulations Cheers Morning Evening Afternoon Night
    Welcome Nice Not Then So And But Of Course Let Me You It That This There Here We They He
    She Just Maybe Perhaps Alright All Exactly True Absolutely Certainly Definitely Indeed
    Anyway Anything Nothing Someone Mister Miss Moreover Nope Pardon Besides However Actually
    Honestly Frankly See Seriously Yup Yep Nah Gosh Jeez Damn Still Also Finally First Second
    Third Now Next Otherwise Unfortunately Fortunately Luckily Personally Basically Obviously
    Clearly Sadly Incidentally Meanwhile Therefore Thus Hence Again Instead Later Today
    Tomorrow Yesterday Usually Generally Sometimes Oops Hurry Wait Come Go Stop Sit Hold
    Remember Believe Trust Boy Girl Kid Kids Son Daughter Brother Sister Grandma Grandpa Uncle
    Aunt Ladies Gentlemen Folks Team People Class Children Speaking Correct Regardless Agent
    Customer Support Manager Sales Service Team Baby Sweetie Love Dude Bro Mate Pal Done
    Perfect Excellent Awesome Cool Understood Noted Agreed Deal Got Gotcha Sounds Lovely
    Wonderful Brilliant Super Hmm Ahh Aha Alas Please Honestly Sorry Apologies Unfortunately
    """
_NOT_NAMES = frozenset(_NOT_NAMES_WORDS.split()) | INTERJECTIONS


def names_in_conversation(messages: tuple[Said, ...]) -> dict[Speaker, str]:
    """The names a two-party conversation calls its speakers by, where it is unambiguous."""
    speakers = list(dict.fromkeys(m.speaker for m in messages))
    if len(speakers) != 2:
        return {}
    text = "\n".join(m.text for m in messages)
    lower = set(re.findall(r"\b[a-z][a-z'-]*\b", text))
    # A word exclaimed ("Oh, my Word!") is a name only where someone introduces themselves
    # or is greeted by it: "Oh, Amy!" alone could be either.
    exclaimed = {m.group(1) or m.group(2) for m in _EXCLAIMED.finditer(text)}
    greeted: set[str] = set()
    # Votes: an introduction counts twice; a bare "Word, ..." opening a message only half,
    # as it is as often an interjection ("Done, your refund ...") as a name.
    votes: dict[Speaker, Counter[str]] = {s: Counter() for s in speakers}
    for message in messages:
        other = speakers[1 - speakers.index(message.speaker)]
        for match in _GREETED.finditer(message.text):
            votes[other][match.group(1)] += 2
            if not re.match(r"\W*(?i:oh|well|yes|no)\b", match.group(0)):
                greeted.add(match.group(1))
        called = _CALLED.search(message.text)
        if called:
            votes[other][called.group(1)] += 1
        for match in _ADDRESSED.finditer(message.text):
            votes[other][match.group(1)] += 2
        for match in _INTRODUCED.finditer(message.text):
            votes[message.speaker][match.group(1)] += 4
            greeted.add(match.group(1))
    found: dict[Speaker, str] = {}
    for speaker, counted in votes.items():
        other = speakers[1 - speakers.index(speaker)]
        candidates = [
            name
            for name, count in counted.most_common()
            if count >= 2
            and _is_name(name, lower)
            and name not in votes[other]
            and (name not in exclaimed or name in greeted)
        ]
        if candidates:
            found[speaker] = candidates[0]
    if len(set(found.values())) < len(found):
        return {}
    return found


def _is_name(candidate: str, lower_words: set[str]) -> bool:
    words = [w for w in candidate.replace("-", " ").split() if w.rstrip(".") not in _TITLES]
    return bool(words) and all(w not in _NOT_NAMES and w.lower() not in lower_words for w in words)


_TITLES = frozenset(["Mr", "Mrs", "Ms", "Miss", "Dr", "Prof", "Professor"])

# Display names that say nothing about who someone is: "#Person1#", "Customer 2", "Agent",
# "User", "p-7f3a", "A". Speakers called like that are told apart by other names in prompts.
_GENERIC = re.compile(
    r"^(?:#?\s*person\s*\d*\s*#?|(?:the\s+)?(?:customer|agent|user|client|operator|bot|"
    r"assistant|speaker|participant|caller|visitor|guest|support|rep|representative|"
    r"member|staff|advisor|adviser|end\s*user|human|system|unknown|anonymous)"
    r"(?:\s*[#-]?\s*\d+)?|[a-z]|.*\d.*|(?-i:[a-z][\w.]*[_-][\w.-]*))$",
    re.IGNORECASE,
)


def is_generic_name(name: str) -> bool:
    """Does ``name`` fail to tell who someone is (a role, a label, an ID)?"""
    return _GENERIC.match(name.strip()) is not None
