"""Translate: every message into each target language, Markdown and protected text kept.

``superpower`` is the operation as transports call it; ``job`` validates a request;
``pipeline`` identifies languages and routes each group of messages once, to a backend
(``backends``: a machine translator or the language model) chosen from the measured table
(``routing``); ``segments`` checks each message's Markdown; ``terms`` keeps a glossary's
terms; ``registers`` keeps a formality; ``llm`` and ``prompts`` are the model's translator.
"""

from threadwise.superpowers.translate.job import TranslationJob
from threadwise.superpowers.translate.pipeline import Translator
from threadwise.superpowers.translate.segments import STOOD_IN, UNCHANGED, Translated
from threadwise.superpowers.translate.superpower import QueuedTranslator, TranslateSuperpower

__all__ = [
    "STOOD_IN",
    "UNCHANGED",
    "QueuedTranslator",
    "TranslateSuperpower",
    "Translated",
    "TranslationJob",
    "Translator",
]
