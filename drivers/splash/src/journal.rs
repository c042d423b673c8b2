//! Capabilities `journal` and `authorizer`: `journal.load`, `journal.trace`,
//! `authorizer.trace`.

use serde_json::{json, Map, Value};
use splash_protocol::WorkerOperationJournal;

use crate::codes;
use crate::text::text_arg;
use crate::{Answer, OpResult};

/// Restrictions this driver declares in hello (see README.md, "Restrictions").
pub const RESTRICTIONS: &[&str] = &["authorized-by-authorizer"];

pub fn load(args: &Map<String, Value>) -> OpResult {
    let text = text_arg(args, "text")?;
    let loaded = match args.get("expected_scope").and_then(Value::as_str) {
        Some(scope) => WorkerOperationJournal::from_json_for_scope(&text, scope),
        None => WorkerOperationJournal::from_json(&text),
    };
    let journal = match loaded {
        Ok(journal) => journal,
        Err(error) => return Ok(codes::protocol(&error)),
    };
    Ok(match journal.to_json() {
        Ok(encoded) => Answer::Ok(json!({"journal": encoded, "records": journal.records().len()})),
        Err(error) => codes::protocol(&error),
    })
}

pub fn trace(_args: &Map<String, Value>) -> OpResult {
    Ok(Answer::unsupported("journal and authorizer traces are not implemented yet"))
}
