//! Reading the shapes of arguments: texts, byte strings, hex.

use serde_json::{Map, Value};

use crate::BadRequest;

pub fn bad(what: impl Into<String>) -> BadRequest {
    BadRequest(what.into())
}

/// The most one compact `repeat`/`count` expansion may produce, in bytes: twice the 1 MiB
/// frame cap (docs/bounds.md). Checked before anything is allocated.
pub const MAX_EXPANSION_BYTES: u64 = 2 * 1_048_576;

/// `count` repetitions of a unit of `unit_bytes` bytes, if they stay within the bound.
pub fn expansion_count(unit_bytes: usize, count: u64) -> Result<usize, BadRequest> {
    let unit = u64::try_from(unit_bytes.max(1)).unwrap_or(u64::MAX);
    if count.saturating_mul(unit) > MAX_EXPANSION_BYTES {
        return Err(bad("count passes the expansion bound"));
    }
    usize::try_from(count).map_err(|_| bad("count too large"))
}

pub fn str_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, BadRequest> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("argument {key} is missing or not a string")))
}

pub fn u64_arg(args: &Map<String, Value>, key: &str) -> Result<u64, BadRequest> {
    args.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| bad(format!("argument {key} is missing or not a u64")))
}

/// A text: the string itself, or `{"prefix", "repeat", "count", "suffix"}`.
pub fn text_of(value: &Value) -> Result<String, BadRequest> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Object(spec) => {
            let part = |key: &str| spec.get(key).and_then(Value::as_str).unwrap_or("");
            let count = match spec.get("count") {
                None => 0,
                Some(count) => count.as_u64().ok_or_else(|| bad("count is not a u64"))?,
            };
            let count = expansion_count(part("repeat").len(), count)?;
            let mut text = String::from(part("prefix"));
            text.push_str(&part("repeat").repeat(count));
            text.push_str(part("suffix"));
            Ok(text)
        }
        _ => Err(bad("a text is a string or a prefix/repeat/count/suffix object")),
    }
}

pub fn text_arg(args: &Map<String, Value>, key: &str) -> Result<String, BadRequest> {
    text_of(args.get(key).ok_or_else(|| bad(format!("argument {key} is missing")))?)
}

pub fn hex(text: &str) -> Result<Vec<u8>, BadRequest> {
    if text.len() % 2 != 0 {
        return Err(bad("odd hex length"));
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|_| bad("bad hex digit")))
        .collect()
}

pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)] as char);
        out.push(DIGITS[usize::from(byte & 15)] as char);
    }
    out
}

/// A member upstream's public API cannot answer: `{"unsupported": reason}` in its place.
pub fn unsupported(reason: impl Into<String>) -> Value {
    Value::Object(Map::from_iter([("unsupported".to_owned(), Value::String(reason.into()))]))
}
