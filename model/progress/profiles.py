"""The progress profiles ``rescind prove`` checks, by name: upstream first, then extensions."""

from __future__ import annotations

from rescind.model.progress.extension import COMPENSATION_RECONCILE
from rescind.model.progress.fair_system import UPSTREAM, ProgressProfile

PROFILES: dict[str, ProgressProfile] = {
    profile.name: profile for profile in (UPSTREAM, COMPENSATION_RECONCILE)
}
