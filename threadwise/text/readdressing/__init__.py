"""Readdressing: a translation rewritten from one register into the other, word by word.

The model is told which register to write in (``text.formality``), and mostly does; a line
it wrote in the other register even when asked twice is rewritten here. The language's
morphological analyzer reads each word; rules pick the words that address the reader:
pronouns and possessives ("vous", "votre"; "su"; "sua", "lhe"), and verbs whose subject is
the reader (a second person; in Spanish and Portuguese, where the formal register speaks in
the third person, one with no subject of its own before it in its clause, or a request);
the language's generator writes each in the other register ("Envoyez" → "Envoie", "Pode" →
"Podes"). Every other word stays as the model wrote it. German has no dictionary here:
its formal "Sie" becomes "du" by the words' shapes (``german_informal``); the other way, its
lines are left to the model.
"""

from threadwise.text.readdressing.german import german_informal
from threadwise.text.readdressing.readdresser import Analyze, Generate, Readdresser

__all__ = ["Analyze", "Generate", "Readdresser", "german_informal"]
