"""The two payload formats of worker protocol v5 (``ToolPayload`` and grant ``format``)."""

from __future__ import annotations

import enum


class PayloadFormat(enum.Enum):
    TEXT = "text"
    JSON = "json"
