"""The error codes of the contract, each with its HTTP status and whether to retry."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    INVALID_JSON = "INVALID_JSON"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    REQUIRED_FIELDS_MISSING = "REQUIRED_FIELDS_MISSING"
    PAYLOAD_SCHEMA_MISMATCH = "PAYLOAD_SCHEMA_MISMATCH"
    MISSING_TARGET_LANGUAGE = "MISSING_TARGET_LANGUAGE"
    UNSUPPORTED_LANGUAGE = "UNSUPPORTED_LANGUAGE"
    UNKNOWN_ACTION = "UNKNOWN_ACTION"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    MISSING_TOKEN = "MISSING_TOKEN"
    INVALID_TOKEN = "INVALID_TOKEN"
    TOKEN_EXPIRED = "TOKEN_EXPIRED"
    FORBIDDEN_ORGANIZATION = "FORBIDDEN_ORGANIZATION"
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    RATE_LIMITED = "RATE_LIMITED"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    OVERLOADED = "OVERLOADED"
    REQUEST_TIMEOUT = "REQUEST_TIMEOUT"
    REQUEST_CANCELLED = "REQUEST_CANCELLED"
    PROCESSING_FAILED = "PROCESSING_FAILED"

    @property
    def http_status(self) -> int:
        return _HTTP_STATUS[self]

    @property
    def retryable(self) -> bool:
        return self in _RETRYABLE


_HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.INVALID_JSON: 400,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: 415,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.REQUIRED_FIELDS_MISSING: 422,
    ErrorCode.PAYLOAD_SCHEMA_MISMATCH: 422,
    ErrorCode.MISSING_TARGET_LANGUAGE: 422,
    ErrorCode.UNSUPPORTED_LANGUAGE: 422,
    ErrorCode.UNKNOWN_ACTION: 404,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.MISSING_TOKEN: 401,
    ErrorCode.INVALID_TOKEN: 401,
    ErrorCode.TOKEN_EXPIRED: 401,
    ErrorCode.FORBIDDEN_ORGANIZATION: 403,
    ErrorCode.IDEMPOTENCY_KEY_REUSED: 422,
    ErrorCode.RATE_LIMITED: 429,
    # Not retryable: the organization's monthly characters are used up until the month ends.
    ErrorCode.QUOTA_EXCEEDED: 429,
    ErrorCode.OVERLOADED: 503,
    ErrorCode.REQUEST_TIMEOUT: 504,
    # Only ever a WebSocket frame; 499 is what proxies log for a client that gave up.
    ErrorCode.REQUEST_CANCELLED: 499,
    ErrorCode.PROCESSING_FAILED: 500,
}

_RETRYABLE = frozenset(
    {
        ErrorCode.RATE_LIMITED,
        ErrorCode.OVERLOADED,
        ErrorCode.REQUEST_TIMEOUT,
        ErrorCode.PROCESSING_FAILED,
        ErrorCode.TOKEN_EXPIRED,
    }
)
