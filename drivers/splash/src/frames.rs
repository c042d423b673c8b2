//! Capability `frames`: message lines, frame tags, seal/open traces, the pipe bootstrap.

use std::collections::BTreeMap;
use std::io::Cursor;

use serde_json::{json, Map, Value};
use splash_protocol::{
    AuthenticatedWorkerMessage, PrivatePipeWorkerBootstrap, SessionAuthenticator, SessionKey,
    SessionRole, WorkerMessage, PROTOCOL_VERSION, SESSION_KEY_BYTES,
};

use crate::codes;
use crate::text::{bad, hex, str_arg, text_arg, unsupported};
use crate::{Answer, BadRequest, OpResult};

pub fn message(args: &Map<String, Value>) -> OpResult {
    let line = text_arg(args, "line")?;
    let decoded = match WorkerMessage::from_json_line(&line) {
        Ok(message) => message,
        Err(error) => return Ok(codes::protocol(&error)),
    };
    Ok(match decoded.to_json_line() {
        Ok(encoded) => Answer::Ok(json!({"encoded": encoded})),
        Err(error) => codes::protocol(&error),
    })
}

/// `frames.tag`: the tag is the `auth_tag` of the frame upstream seals for `message` at
/// `sequence` with the sender's role (a fresh `SessionAuthenticator`, brought to that sequence
/// by sealing `sequence - 1` frames first). `auth_payload` (upstream's private
/// `AuthenticationPayload`, serialized inside the private `authentication_tag`) is answered
/// `{"unsupported": why}`.
pub fn tag(args: &Map<String, Value>) -> OpResult {
    let key = hex(str_arg(args, "key")?)?;
    let role = role(str_arg(args, "sender")?).ok_or_else(|| bad("sender is host or worker"))?;
    let session_id = str_arg(args, "session_id")?;
    let sequence = args.get("sequence").and_then(Value::as_u64).ok_or_else(|| bad("sequence is not a u64"))?;
    let text = text_arg(args, "message")?;
    let key = match SessionKey::from_slice(&key) {
        Ok(key) => key,
        Err(error) => return Ok(codes::protocol(&error)),
    };
    let mut sealer = match SessionAuthenticator::new(session_id, key, role) {
        Ok(sealer) => sealer,
        Err(error) => return Ok(codes::protocol(&error)),
    };
    let Ok(message) = serde_json::from_str::<WorkerMessage>(&text) else {
        return Ok(Answer::error("serialization"));
    };
    if sequence == 0 || sequence > MAX_ADVANCE {
        return Ok(Answer::unsupported(format!(
            "sequence-start-unreachable: a tag is sealed only at the sealer's next sequence; \
             the driver reaches 1..={MAX_ADVANCE}"
        )));
    }
    for _ in 1..sequence {
        if let Err(error) = sealer.seal(close_session(session_id)) {
            return Ok(codes::protocol(&error));
        }
    }
    // seal checks the frame's line too (to_json_line), so a sealed frame is a sendable one.
    let tag = match sealer.seal(message) {
        Ok(frame) => frame.auth_tag,
        // The tag exists only inside a frame upstream seals; a refused seal (invalid message,
        // other session, frame too large) leaves no upstream tag to show.
        Err(error) => {
            return Ok(Answer::unsupported(format!(
                "private: frame authentication tag (upstream refuses to seal this frame: {})",
                codes::variant_code(&error)
            )))
        }
    };
    Ok(Answer::Ok(json!({"tag": tag, "auth_payload": unsupported(AUTH_PAYLOAD)})))
}

/// Why `auth_payload` is not answered.
const AUTH_PAYLOAD: &str = "private: AuthenticationPayload (serialized only inside authentication_tag)";

pub fn bootstrap(args: &Map<String, Value>) -> OpResult {
    match str_arg(args, "operation")? {
        "encode" => {
            let session_id = str_arg(args, "session_id")?;
            let key = hex(str_arg(args, "key")?)?;
            let key = match SessionKey::from_slice(&key) {
                Ok(key) => key,
                Err(error) => return Ok(codes::protocol(&error)),
            };
            let bootstrap = match PrivatePipeWorkerBootstrap::new(session_id, key) {
                Ok(bootstrap) => bootstrap,
                Err(error) => return Ok(codes::protocol(&error)),
            };
            let mut bytes = Vec::new();
            Ok(match bootstrap.write_to(&mut bytes) {
                Ok(()) => Answer::Ok(json!({"bytes": crate::text::to_hex(&bytes)})),
                Err(error) => codes::bootstrap(&error),
            })
        }
        "decode" => {
            let bytes = hex(str_arg(args, "bytes")?)?;
            let mut reader = Cursor::new(bytes);
            let bootstrap = match PrivatePipeWorkerBootstrap::read_from(&mut reader) {
                Ok(bootstrap) => bootstrap,
                Err(error) => return Ok(codes::bootstrap(&error)),
            };
            // The session id has a public accessor; the key has none, but the public
            // `write_to` writes the bootstrap back with the key as its last 32 bytes.
            let rest = &reader.get_ref()[reader.position() as usize..];
            let mut written = Vec::new();
            let key = match bootstrap.write_to(&mut written) {
                Ok(()) if written.len() >= SESSION_KEY_BYTES => {
                    json!(crate::text::to_hex(&written[written.len() - SESSION_KEY_BYTES..]))
                }
                _ => unsupported("private: PrivatePipeWorkerBootstrap key (write_to failed)"),
            };
            Ok(Answer::Ok(json!({
                "session_id": bootstrap.session_id(),
                "key": key,
                "rest": crate::text::to_hex(rest),
            })))
        }
        other => Err(bad(format!("unknown bootstrap operation {other}"))),
    }
}

/// The counters of a `SessionAuthenticator`, both private (`next_outgoing_sequence`,
/// `next_incoming_sequence` have no accessor): each member is `{"unsupported": why}`.
fn counters() -> Value {
    json!({
        "next_outgoing": unsupported("private: SessionAuthenticator::next_outgoing_sequence"),
        "next_incoming": unsupported("private: SessionAuthenticator::next_incoming_sequence"),
    })
}

fn checkpoint(parties: &BTreeMap<String, SessionAuthenticator>) -> Value {
    Value::Object(parties.keys().map(|name| (name.clone(), counters())).collect())
}

/// The most frames the driver seals or opens to bring a fresh authenticator to a starting
/// sequence given in the setup (upstream has no public way to start elsewhere than 1).
const MAX_ADVANCE: u64 = 100_000;

fn role(name: &str) -> Option<SessionRole> {
    match name {
        "host" => Some(SessionRole::Host),
        "worker" => Some(SessionRole::Worker),
        _ => None,
    }
}

fn peer(role: SessionRole) -> SessionRole {
    match role {
        SessionRole::Host => SessionRole::Worker,
        SessionRole::Worker => SessionRole::Host,
    }
}

fn close_session(session_id: &str) -> WorkerMessage {
    WorkerMessage::CloseSession { protocol_version: PROTOCOL_VERSION, session_id: session_id.to_owned() }
}

/// A fresh authenticator, moved to the setup's starting sequences by sealing (outgoing) and
/// by opening frames sealed by a peer with the same key (incoming). `Err(Answer)` when the
/// setup is refused by upstream or cannot be reached this way.
fn authenticator(spec: &Map<String, Value>) -> Result<Result<SessionAuthenticator, Answer>, BadRequest> {
    let session_id = str_arg(spec, "session_id")?;
    let key = hex(str_arg(spec, "key")?)?;
    let role = role(str_arg(spec, "role")?).ok_or_else(|| bad("role is host or worker"))?;
    let start = |key: &str| match spec.get(key) {
        None => Ok(1),
        Some(value) => value.as_u64().ok_or_else(|| bad(format!("{key} is not a u64"))),
    };
    let (outgoing, incoming) = (start("next_outgoing")?, start("next_incoming")?);
    Ok((|| {
        if outgoing == 0 || incoming == 0 || outgoing > MAX_ADVANCE || incoming > MAX_ADVANCE {
            return Err(Answer::unsupported(format!(
                "sequence-start-unreachable: a starting sequence outside 1..={MAX_ADVANCE} \
                 (SessionAuthenticator::new starts at 1)"
            )));
        }
        let make = |role| {
            let key = SessionKey::from_slice(&key).map_err(|e| codes::protocol(&e))?;
            SessionAuthenticator::new(session_id, key, role).map_err(|e| codes::protocol(&e))
        };
        let mut party = make(role)?;
        for _ in 1..outgoing {
            party.seal(close_session(session_id)).map_err(|e| codes::protocol(&e))?;
        }
        if incoming > 1 {
            let mut sender = make(peer(role))?;
            for _ in 1..incoming {
                let frame = sender.seal(close_session(session_id)).map_err(|e| codes::protocol(&e))?;
                party.open(frame).map_err(|e| codes::protocol(&e))?;
            }
        }
        Ok(party)
    })())
}

pub fn trace(args: &Map<String, Value>) -> OpResult {
    let setup = match args.get("setup") {
        Some(Value::Object(setup)) => setup,
        _ => return Err(bad("setup is not an object")),
    };
    let specs = match setup.get("authenticators") {
        Some(Value::Object(specs)) => specs,
        _ => return Err(bad("setup.authenticators is not an object")),
    };
    let mut parties: BTreeMap<String, SessionAuthenticator> = BTreeMap::new();
    for (name, spec) in specs {
        let spec = spec.as_object().ok_or_else(|| bad("an authenticator is an object"))?;
        match authenticator(spec)? {
            Ok(party) => {
                parties.insert(name.clone(), party);
            }
            Err(answer) => return Ok(answer),
        }
    }
    let steps = args.get("steps").and_then(Value::as_array).ok_or_else(|| bad("steps is not a list"))?;
    let mut outcomes = Vec::new();
    let mut checkpoints = Map::new();
    for step in steps {
        let call = step.get("call").and_then(Value::as_str).unwrap_or("");
        let empty = Map::new();
        let step_args = step.get("args").and_then(Value::as_object).unwrap_or(&empty);
        let by = str_arg(step_args, "by")?;
        let party = parties.get_mut(by).ok_or_else(|| bad(format!("no authenticator {by}")))?;
        let outcome = match call {
            "seal" => {
                let text = text_arg(step_args, "message")?;
                match serde_json::from_str::<WorkerMessage>(&text) {
                    Err(_) => step_error("serialization"),
                    Ok(message) => match party.seal(message).and_then(|frame| frame.to_json_line()) {
                        Ok(frame) => json!({"result": {"frame": frame}}),
                        Err(error) => typed_step_error(&error),
                    },
                }
            }
            "open" => {
                let text = text_arg(step_args, "frame")?;
                let opened = AuthenticatedWorkerMessage::from_json_line(&text)
                    .and_then(|frame| party.open(frame))
                    .and_then(|message| message.to_json_line());
                match opened {
                    Ok(message) => json!({"result": {"message": message}}),
                    Err(error) => typed_step_error(&error),
                }
            }
            "counters" => json!({"result": counters()}),
            other => return Err(bad(format!("unknown frame call {other}"))),
        };
        outcomes.push(outcome);
        if let Some(name) = step.get("checkpoint").and_then(Value::as_str) {
            checkpoints.insert(name.to_owned(), checkpoint(&parties));
        }
    }
    checkpoints.insert("final".to_owned(), checkpoint(&parties));
    Ok(Answer::Ok(json!({"steps": outcomes, "checkpoints": checkpoints})))
}

pub fn step_error(code: &str) -> Value {
    json!({"error": code, "details": {}, "definite": true})
}

/// A step refused by upstream: its code and the typed fields of the variant (`details`).
fn typed_step_error(error: &splash_protocol::ProtocolError) -> Value {
    let code = codes::variant_code(error);
    let details = codes::details(error, &code);
    json!({"error": code, "details": details, "definite": true})
}
