//! Capability `canonical`: `canonical.input`.
//!
//! Upstream's public path: serde_json parses the payload text into a `Value` (number mode
//! per build), `ToolPayload::validate_for` checks envelope, depth and size and returns the
//! size, and `canonical_operation_input_bytes` gives the canonical input bytes. The result
//! also needs `hostInputFingerprint`, which only `splash-workflow` computes (not buildable
//! from the vendored sources), so an accepted payload is answered `unsupported`; a payload
//! that upstream rejects is answered with upstream's error.

use serde_json::{Map, Value};
use splash_protocol::{canonical_operation_input_bytes, EnvelopeFormat, ToolPayload};

use crate::codes;
use crate::text::{bad, hex, str_arg, to_hex};
use crate::{Answer, OpResult};

pub fn input(args: &Map<String, Value>) -> OpResult {
    let format = match str_arg(args, "format")? {
        "json" => EnvelopeFormat::Json,
        "text" => EnvelopeFormat::Text,
        _ => return Err(bad("format must be json or text")),
    };
    let bytes = match args.get("hex") {
        Some(Value::String(digits)) => hex(digits)?,
        Some(_) => return Err(bad("hex is not a string")),
        None => str_arg(args, "text")?.as_bytes().to_vec(),
    };
    let maximum = match args.get("maxInputBytes") {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_u64().ok_or_else(|| bad("maxInputBytes is not a u64"))?),
    };
    let payload = match format {
        EnvelopeFormat::Json => match serde_json::from_slice::<Value>(&bytes) {
            Ok(value) => ToolPayload::Json(value),
            Err(_) => return Ok(Answer::error("serialization")),
        },
        EnvelopeFormat::Text => match String::from_utf8(bytes) {
            Ok(text) => ToolPayload::Text(text),
            Err(_) => return Ok(Answer::error("serialization")),
        },
    };
    let size = match payload.validate_for(format) {
        Ok(size) => size,
        Err(error) => return Ok(codes::protocol(&error)),
    };
    // maxInputBytes is Rescind's inclusive bound (CJ-24), the role a grant's
    // max_input_bytes plays upstream.
    if maximum.is_some_and(|maximum| size as u64 > maximum) {
        return Ok(Answer::error("input_too_large"));
    }
    let canonical = match canonical_operation_input_bytes(&payload) {
        Ok(bytes) => bytes,
        Err(error) => return Ok(codes::protocol(&error)),
    };
    eprintln!(
        "rescind-splash-driver: canonical.input accepted, size {size}, canonical input {}",
        if canonical.len() <= 256 { to_hex(&canonical) } else { format!("{} bytes", canonical.len()) }
    );
    // hostInputFingerprint: splash-workflow's workflow_operation_input_fingerprint (the
    // crate cannot be built from the vendored sources: makepad, getrandom absent);
    // workerInputFingerprint: splash-protocol's private worker_operation_input_fingerprint.
    Ok(Answer::unsupported("private: input fingerprints (hostInputFingerprint is splash-workflow's)"))
}
