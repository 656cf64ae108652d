"""Language models on a model server: any OpenAI-compatible chat completions API.

``engine`` is the ``ChatEngine``, running its requests on an event loop of its own (``loop``);
``exchange`` one request and its answer; ``servers`` what each kind of server understands
beyond the OpenAI API; ``prefill`` an answer begun by the caller where the server cannot
continue one; ``stream`` reading the streamed answer; ``breaker`` and ``health`` failing fast
while the server is down.
"""

from threadwise.engines.remote.engine import RemoteChatEngine

__all__ = ["RemoteChatEngine"]
