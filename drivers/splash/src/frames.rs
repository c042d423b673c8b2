//! Capability `frames`: message lines, frame tags, seal/open traces, the pipe bootstrap.

use std::io::Cursor;

use serde_json::{json, Map, Value};
use splash_protocol::{PrivatePipeWorkerBootstrap, SessionKey, WorkerMessage};

use crate::codes;
use crate::text::{bad, hex, str_arg, text_arg};
use crate::{Answer, OpResult};

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

pub fn tag(_args: &Map<String, Value>) -> OpResult {
    Ok(Answer::unsupported(
        "auth_payload and a tag at a chosen sequence are private upstream \
         (splash-protocol AuthenticationPayload, authentication_tag)",
    ))
}

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
            Ok(match PrivatePipeWorkerBootstrap::read_from(&mut reader) {
                Ok(bootstrap) => Answer::unsupported(format!(
                    "decoded session {} but the key of a PrivatePipeWorkerBootstrap has no \
                     public accessor (splash-protocol PrivatePipeWorkerBootstrap::key)",
                    bootstrap.session_id()
                )),
                Err(error) => codes::bootstrap(&error),
            })
        }
        other => Err(bad(format!("unknown bootstrap operation {other}"))),
    }
}

pub fn trace(_args: &Map<String, Value>) -> OpResult {
    Ok(Answer::unsupported("frame traces are not implemented yet"))
}
