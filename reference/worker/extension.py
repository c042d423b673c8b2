"""Which protocol extensions a worker session runs: none unless the caller opts in.

Rescind's extensions are not upstream Splash v5 (docs/spec/compensation-reconcile.md). A
session opened without ``WorkerExtensions`` behaves exactly like upstream: every extension
entry point refuses with ``extension_not_enabled`` before it reads, authorizes or writes
anything, and its authenticator decodes no extension message kind (``WireProfile``).
"""

from __future__ import annotations

import attrs

from rescind.reference.worker.session_errors import WorkerSessionFailure
from rescind.reference.worker_message import WireProfile

UPSTREAM_PROFILE = WireProfile.UPSTREAM.value
COMPENSATION_RECONCILE_PROFILE = WireProfile.COMPENSATION_RECONCILE.value


@attrs.frozen
class WorkerExtensions:
    compensation_reconcile: bool = False

    @classmethod
    def for_profile(cls, profile: str) -> WorkerExtensions:
        if profile == UPSTREAM_PROFILE:
            return cls()
        if profile == COMPENSATION_RECONCILE_PROFILE:
            return cls(compensation_reconcile=True)
        raise UnknownWorkerProfile(profile=profile)

    @property
    def profile(self) -> str:
        return COMPENSATION_RECONCILE_PROFILE if self.compensation_reconcile else UPSTREAM_PROFILE

    @property
    def wire_profile(self) -> WireProfile:
        """The message kinds a session of this profile's authenticator must decode."""
        return WireProfile(self.profile)

    def require_compensation_reconcile(self) -> None:
        if not self.compensation_reconcile:
            raise ExtensionNotEnabled(extension=COMPENSATION_RECONCILE_PROFILE)


class ExtensionNotEnabled(WorkerSessionFailure):
    """CR-2: the session was opened for a profile without this extension."""

    code = "extension_not_enabled"


class UnknownWorkerProfile(WorkerSessionFailure):
    code = "unknown_worker_profile"


class CompensationReconciliationNotDeclared(WorkerSessionFailure):
    """CR-6: the tool's adapter cannot look up an inverse effect's status."""

    code = "compensation_reconciliation_not_declared"


class WireProfileMismatch(WorkerSessionFailure):
    """The session's authenticator decodes other message kinds than the session runs: a
    session has one profile, on the wire and in its checks alike."""

    code = "wire_profile_mismatch"
