"""Language models on a model server: any OpenAI-compatible chat completions API.

``engine`` is the ``ChatEngine``; ``servers`` what each kind of server understands beyond the
OpenAI API; ``prefill`` an answer begun by the caller where the server cannot continue one;
``stream`` reading the streamed answer; ``breaker`` failing fast while the server is down.
"""

from threadwise.engines.remote.engine import RemoteChatEngine

__all__ = ["RemoteChatEngine"]
