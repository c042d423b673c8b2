"""A small interpreter for authenticated-frame traces (docs/spec/frames.md, "Traces").

Setup: ``{"profile"?: .., "authenticators": {name: {"role", "session_id", "key" (hex),
"next_outgoing"?, "next_incoming"?}}}``. Steps: ``seal {by, message}`` returns the frame
text, ``open {by, frame}`` returns the re-encoded message, ``counters {by}`` returns both
counters. Texts may use the ``{prefix, repeat, count, suffix}`` form. Every rejected step
must leave every counter unchanged; the interpreter asserts it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters.worker_trace import TraceError, text_of
from rescind.reference.errors import RescindError
from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.numbers import NumberMode
from rescind.reference.wirejson import read_document
from rescind.reference.worker_message import message_from_node, message_json

Json = dict[str, Any]
FRAME_CALLS = ("seal", "open", "counters")


def _authenticator(spec: Mapping[str, Any]) -> SessionAuthenticator:
    return SessionAuthenticator(
        spec["session_id"],
        bytes.fromhex(spec["key"]),
        SessionRole(spec["role"]),
        next_outgoing=int(spec.get("next_outgoing", 1)),
        next_incoming=int(spec.get("next_incoming", 1)),
    )


def _counters(authenticator: SessionAuthenticator) -> Json:
    return {
        "next_outgoing": authenticator.next_outgoing,
        "next_incoming": authenticator.next_incoming,
    }


def run_frame_trace(trace: Mapping[str, Any]) -> Json:
    setup = trace.get("setup", {})
    mode = NumberMode(setup.get("profile", NumberMode.AP.profile))
    parties = {name: _authenticator(spec) for name, spec in setup["authenticators"].items()}

    def snapshot() -> Json:
        return {name: _counters(party) for name, party in parties.items()}

    def party(args: Mapping[str, Any]) -> SessionAuthenticator:
        if args.get("by") not in parties:
            raise TraceError(f"no authenticator named {args.get('by')!r}")
        return parties[args["by"]]

    outcomes: list[Json] = []
    checkpoints: Json = {}
    for position, step in enumerate(trace["steps"]):
        call, args = step.get("call"), step.get("args", {})
        if call not in FRAME_CALLS:
            raise TraceError(f"step {position}: unknown call {call!r}")
        before = snapshot()
        try:
            if call == "seal":
                node = read_document(text_of(args["message"]), mode)
                frame = party(args).seal(message_from_node(node, mode))
                outcomes.append({"result": {"frame": frame.to_json()}})
            elif call == "open":
                message = party(args).open_line(text_of(args["frame"]), mode)
                outcomes.append({"result": {"message": message_json(message)}})
            else:
                outcomes.append({"result": _counters(party(args))})
        except RescindError as error:
            details = {k: v for k, v in error.details.items() if k != "offset"}
            outcomes.append({"error": error.code, "details": details})
            assert snapshot() == before, (
                f"step {position} ({call}) was rejected yet moved a counter"
            )
        if "checkpoint" in step:
            checkpoints[step["checkpoint"]] = snapshot()
    checkpoints["final"] = snapshot()
    return {"steps": outcomes, "checkpoints": checkpoints}
