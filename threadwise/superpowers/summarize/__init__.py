"""Summarize: condense one or more conversations into one faithful summary.

``superpower`` is the operation as transports call it; ``pipeline`` writes a summary with the
model; ``cast`` names the speakers in the prompt; ``checks`` and ``attribution`` check each
sentence without the model; ``memory`` lets a growing thread be summarized from where it was.
"""

from threadwise.superpowers.summarize.job import SummaryJob, SummaryOptions
from threadwise.superpowers.summarize.pipeline import Summarizer
from threadwise.superpowers.summarize.superpower import QueuedSummarizer, SummarizeSuperpower

__all__ = [
    "QueuedSummarizer",
    "SummarizeSuperpower",
    "Summarizer",
    "SummaryJob",
    "SummaryOptions",
]
