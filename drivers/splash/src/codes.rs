//! Error codes: the snake_case of upstream's error variant name (docs/driver-protocol.md).

use std::fmt::Debug;

use splash_protocol::{PrivatePipeWorkerBootstrapError, ProtocolError};

use crate::Answer;

/// `InvalidToken { .. }` -> `invalid_token`: the variant name read from the derived Debug
/// form of a public error enum, then written in snake_case.
pub fn variant_code(error: &impl Debug) -> String {
    let debug = format!("{error:?}");
    let name: String = debug
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if name == "Serialization" {
        // serde_json's own message, for the log only (the reply carries the code).
        eprintln!("rescind-splash-driver: {debug}");
    }
    snake(&name)
}

pub fn snake(name: &str) -> String {
    let mut code = String::with_capacity(name.len() + 4);
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 {
                code.push('_');
            }
            code.push(c.to_ascii_lowercase());
        } else {
            code.push(c);
        }
    }
    code
}

pub fn protocol(error: &ProtocolError) -> Answer {
    Answer::error(variant_code(error))
}

/// The bootstrap reader's errors, named as docs/spec/frames.md names them (FR-14).
pub fn bootstrap(error: &PrivatePipeWorkerBootstrapError) -> Answer {
    match error {
        PrivatePipeWorkerBootstrapError::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            Answer::error("bootstrap_truncated")
        }
        PrivatePipeWorkerBootstrapError::Io(_) => Answer::error("io"),
        PrivatePipeWorkerBootstrapError::InvalidMagic => Answer::error("invalid_bootstrap_magic"),
        PrivatePipeWorkerBootstrapError::UnsupportedVersion(_) => {
            Answer::error("unsupported_bootstrap_version")
        }
        PrivatePipeWorkerBootstrapError::InvalidSessionIdLength { .. } => {
            Answer::error("invalid_session_id_length")
        }
        PrivatePipeWorkerBootstrapError::InvalidSessionIdEncoding => {
            Answer::error("invalid_session_id_encoding")
        }
        PrivatePipeWorkerBootstrapError::Protocol(inner) => protocol(inner),
    }
}

/// Tuple variants (one value) and the name Rescind's error catalogue gives that value
/// (conformance/schemas/error-details.json, members whose upstream field is `0`).
const TUPLE_MEMBERS: &[(&str, &str)] = &[
    ("admission_failed", "cause"),
    ("compensation_already_recorded", "operation_key"),
    ("compensation_identity_mismatch", "operation_key"),
    ("compensation_input_fingerprint_mismatch", "compensation_key"),
    ("compensation_not_granted", "tool"),
    ("compensation_policy_mismatch", "operation_key"),
    ("compensation_tool_mismatch", "operation_key"),
    ("duplicate_request", "request_id"),
    ("duplicate_result", "request_id"),
    ("durable_operation_contract_not_declared", "tool"),
    ("invocation_safety_not_declared", "tool"),
    ("journal_persistence_failed", "cause"),
    ("missing_adapter", "tool"),
    ("operation_identity_mismatch", "operation_key"),
    ("pending_compensation", "operation_key"),
    ("pending_operation", "operation_key"),
    ("reconciliation_mismatch", "operation_key"),
    ("unexpected_message", "kind"),
    ("unknown_compensation", "operation_key"),
    ("unknown_operation", "operation_key"),
    ("unknown_session", "session_id"),
    ("unknown_tool", "tool"),
    ("unsupported_format", "actual"),
];

/// The typed fields of an upstream error, read from its derived `Debug` form (the innermost
/// variant of a wrapping chain such as `OperationLedger(UnknownOperation("k"))`): a struct
/// variant's named fields (strings, integers, `None`/`Some(n)`, unit enum values in
/// snake_case), or a tuple variant's one value under the member name `code` has in Rescind's
/// error catalogue. Fields of other shapes are left out.
pub fn details(error: &impl Debug, code: &str) -> serde_json::Map<String, serde_json::Value> {
    let text = format!("{error:?}");
    let mut rest = text.as_str();
    let mut out = serde_json::Map::new();
    loop {
        let name_len = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').count();
        let after = &rest[name_len..];
        if let Some(inner) = after.strip_prefix('(') {
            if inner.starts_with(|c: char| c.is_ascii_uppercase()) && !inner.starts_with("Some(") {
                rest = inner;
                continue;
            }
            if let Some((value, _)) = debug_value(inner) {
                if let Some((_, member)) = TUPLE_MEMBERS.iter().find(|(c, _)| *c == code) {
                    out.insert((*member).to_owned(), value);
                }
            }
            return out;
        }
        if let Some(mut body) = after.strip_prefix(" { ") {
            loop {
                let field_len = body.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').count();
                let field = &body[..field_len];
                let Some(value_text) = body[field_len..].strip_prefix(": ") else { return out };
                let Some((value, used)) = debug_value(value_text) else { return out };
                out.insert(field.to_owned(), value);
                body = &value_text[used..];
                match body.strip_prefix(", ") {
                    Some(next) => body = next,
                    None => return out,
                }
            }
        }
        return out;
    }
}

/// One Debug value at the start of `text` and the bytes it used: `"..."` (escapes read back),
/// an integer, `None`, `Some(integer)`, or a unit enum value (snake_case).
fn debug_value(text: &str) -> Option<(serde_json::Value, usize)> {
    if text.starts_with('"') {
        let mut end = 1;
        let bytes = text.as_bytes();
        while end < bytes.len() {
            match bytes[end] {
                b'\\' => end += 2,
                b'"' => break,
                _ => end += 1,
            }
        }
        let literal = text.get(..=end)?;
        let value: String = serde_json::from_str(literal).ok()?;
        return Some((serde_json::Value::String(value), end + 1));
    }
    if let Some(inner) = text.strip_prefix("Some(") {
        let (value, used) = debug_value(inner)?;
        return inner[used..].starts_with(')').then_some((value, used + 6));
    }
    if text.starts_with("None") {
        return Some((serde_json::Value::Null, 4));
    }
    let digits = text.chars().take_while(|c| c.is_ascii_digit() || *c == '-').count();
    if digits > 0 {
        let number = &text[..digits];
        if let Ok(n) = number.parse::<i64>() {
            return Some((serde_json::json!(n), digits));
        }
        return number.parse::<u64>().ok().map(|n| (serde_json::json!(n), digits));
    }
    let name = text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').count();
    let rest = &text[name..];
    if name > 0 && text.starts_with(|c: char| c.is_ascii_uppercase())
        && (rest.is_empty() || rest.starts_with(',') || rest.starts_with(' ') || rest.starts_with(')') || rest.starts_with('}'))
    {
        return Some((serde_json::Value::String(snake(&text[..name])), name));
    }
    None
}
