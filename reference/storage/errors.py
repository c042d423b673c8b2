"""Error classes of the durable storage layer (upstream ``splash-storage``).

Codes are the upstream variant names in snake_case. Two upstream storage variants share their
name with a variant of another upstream error enum (``ProtocolError::InvalidAuthenticationTag``
and the ledger's ``RevisionExhausted``); those two carry a ``storage_`` prefix so that a code
always says which layer refused (see docs/spec/storage.md, ST-30).

Definiteness: every storage refusal is decided before anything is written, so it is definite,
with two exceptions that are their own classes: a backend that reports a stored write with the
wrong floor (the write happened, the result is untrustworthy), and a SQLite failure during
COMMIT (the write may or may not be durable).
"""

from __future__ import annotations

from rescind.reference.errors import RescindError


class StorageError(RescindError):
    """Any failure reported by the storage layer (keyring, envelope, wrapper or backend)."""


# --- identifiers and keys -------------------------------------------------------------------


class InvalidRecordNamespace(StorageError):
    code = "invalid_record_namespace"
    upstream = "InvalidNamespace"


class InvalidRecordName(StorageError):
    code = "invalid_record_name"
    upstream = "InvalidName"


class InvalidKeyId(StorageError):
    code = "invalid_key_id"
    upstream = "InvalidKeyId"


class UnknownKeyId(StorageError):
    code = "unknown_key_id"
    upstream = "UnknownKeyId"


class DuplicateKeyId(StorageError):
    code = "duplicate_key_id"
    upstream = "DuplicateKeyId"


class ActiveKeyCannotBeRetired(StorageError):
    code = "active_key_cannot_be_retired"
    upstream = "ActiveKeyCannotBeRetired"


class InvalidStorageKeyLength(StorageError):
    """Upstream types the key as ``[u8; 32]``, so a wrong length cannot occur there."""

    code = "invalid_storage_key_length"


# --- sizes, envelope and authentication ------------------------------------------------------


class PayloadTooLarge(StorageError):
    code = "payload_too_large"
    upstream = "PayloadTooLarge"


class RecordTooLarge(StorageError):
    code = "record_too_large"
    upstream = "RecordTooLarge"


class InvalidEnvelope(StorageError):
    code = "invalid_envelope"
    upstream = "InvalidEnvelope"


class UnsupportedFormat(StorageError):
    code = "unsupported_format"
    upstream = "UnsupportedFormat"


class InvalidRevision(StorageError):
    code = "invalid_revision"
    upstream = "InvalidRevision"


class RevisionMismatch(StorageError):
    code = "revision_mismatch"
    upstream = "RevisionMismatch"


class StorageInvalidAuthenticationTag(StorageError):
    code = "storage_invalid_authentication_tag"
    upstream = "InvalidAuthenticationTag"


# --- revisions, floors and conflicts ---------------------------------------------------------


class RollbackDetected(StorageError):
    code = "rollback_detected"
    upstream = "RollbackDetected"


class RevisionFloorMismatch(StorageError):
    code = "revision_floor_mismatch"
    upstream = "RevisionFloorMismatch"


class StoredFloorMismatch(RevisionFloorMismatch):
    """The backend said it stored the record but reported another floor.

    Same code as its parent (same upstream variant), but indefinite: the backend claims the
    write happened, so the caller cannot assume the old state is still in place. It sets no
    ``code`` of its own, so the registry keeps one class per code.
    """

    definite = False


class StorageRevisionExhausted(StorageError):
    code = "storage_revision_exhausted"
    upstream = "RevisionExhausted"


class WriteConflict(StorageError):
    code = "write_conflict"
    upstream = "WriteConflict"


# --- backend (upstream wraps these as ``Backend(..)``) ----------------------------------------


class BackendError(StorageError):
    """A refusal or failure raised by the backend itself rather than by the wrapper."""


class InvalidFencingToken(BackendError):
    code = "invalid_fencing_token"
    upstream = "InvalidFencingToken"


class FencingTokenRejected(BackendError):
    code = "fencing_token_rejected"
    upstream = "FencingTokenRejected"


class FencingRequired(BackendError):
    code = "fencing_required"
    upstream = "FencingRequired"


class FencingTokenExhausted(BackendError):
    code = "fencing_token_exhausted"
    upstream = "FencingTokenExhausted"


class InvalidReplacementRevision(BackendError):
    code = "invalid_replacement_revision"
    upstream = "InvalidReplacementRevision"


class StoreUnavailable(BackendError):
    """The backend failed before anything could have been written (rolled back)."""

    code = "store_unavailable"


class StoreOutcomeUnknown(BackendError):
    """The backend failed while committing: the write may or may not be durable."""

    code = "store_outcome_unknown"
    definite = False


class StoreCorrupt(BackendError):
    """The backend's own bookkeeping (not an envelope) holds values outside its schema."""

    code = "store_corrupt"
