//! Capability `canonical`: `canonical.input`.
//!
//! Upstream's public path: serde_json parses the payload text into a `Value` (number mode
//! per build), `ToolPayload::validate_for` checks envelope, depth and size and returns the
//! size, and `canonical_operation_input_bytes` gives the canonical input bytes (`canonicalJson`
//! is their JSON component, after the 4-byte format tag and the 8-byte length).
//! `workerInputFingerprint` is what `WorkerOperationJournal::admit` records for a dispatch
//! request carrying the payload, read back through the public
//! `WorkerOperationRecord::input_fingerprint`. `hostInputFingerprint` is what splash-workflow's
//! `WorkflowOperationLedger::record` stores for the canonical bytes (host.rs); the f64 build
//! answers it `{"unsupported": reason}`. A payload upstream rejects is answered with upstream's
//! error.

use serde_json::{json, Map, Value};
use splash_protocol::{
    canonical_operation_input_bytes, CapabilityGrant, CapabilityManifest, EnvelopeFormat,
    OperationDispatchRequest, ProtocolError, SessionAuthorizer, ToolPayload, WorkerOperationJournal,
};

use crate::codes;
use crate::text::{bad, hex, str_arg, to_hex, unsupported};
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
    let mut result = json!({
        "canonicalInputHex": to_hex(&canonical),
        "size": size,
        "workerInputFingerprint": worker_input_fingerprint(payload, format, size),
        "hostInputFingerprint": host_input_fingerprint(&canonical),
    });
    if format == EnvelopeFormat::Json {
        result["canonicalJson"] = match json_component(&canonical) {
            Some(text) => json!(text),
            None => unsupported("canonical input bytes without a UTF-8 JSON component"),
        };
    }
    Ok(Answer::Ok(result))
}

/// splash-workflow's host input fingerprint (see host.rs). The f64 build does not link
/// splash-workflow: upstream's splash-schema turns arbitrary_precision on for the whole build,
/// so upstream has no f64 host side at all.
#[cfg(feature = "host")]
fn host_input_fingerprint(canonical: &[u8]) -> Value {
    match crate::host::input_fingerprint(canonical) {
        Ok(fingerprint) => json!(fingerprint),
        Err(why) => unsupported(why),
    }
}

#[cfg(not(feature = "host"))]
fn host_input_fingerprint(_: &[u8]) -> Value {
    unsupported(
        "host-side-needs-arbitrary-precision: splash-workflow builds only with serde_json's \
         arbitrary_precision (splash-schema enables it for every crate of the build)",
    )
}

/// The JSON component of canonical input bytes: `json`, its length as a big-endian u64, the
/// bytes (the layout `canonical_operation_input_bytes` writes).
fn json_component(canonical: &[u8]) -> Option<&str> {
    let rest = canonical.strip_prefix(b"json")?;
    let (length, body) = rest.split_at_checked(8)?;
    let length = u64::from_be_bytes(length.try_into().ok()?);
    (length == body.len() as u64).then_some(())?;
    std::str::from_utf8(body).ok()
}

/// The input fingerprint upstream's worker journal records for a dispatch request carrying
/// `payload`: a fresh `SessionAuthorizer` over a manifest with one grant for the payload's
/// format (its `max_input_bytes` the largest a grant holds) authorizes the request, a fresh
/// `WorkerOperationJournal` admits it, and the record's public `input_fingerprint()` is read.
fn worker_input_fingerprint(payload: ToolPayload, format: EnvelopeFormat, size: usize) -> Value {
    const TOOL: &str = "rescind.canonical";
    const KEY: &str = "rescind-canonical-input";
    let Ok(maximum) = u32::try_from(size) else {
        return unsupported("a payload above u32::MAX bytes fits no grant (max_input_bytes is a u32)");
    };
    let grant = CapabilityGrant {
        tool: TOOL.to_owned(),
        format,
        max_calls: 1,
        max_input_bytes: maximum.max(1),
        max_output_bytes: 1,
        max_compensations: 0,
        resources: Default::default(),
    };
    let recorded = (|| -> Result<Option<String>, ProtocolError> {
        let mut authorizer = SessionAuthorizer::new(CapabilityManifest::new("rescind", vec![grant])?)?;
        let request = OperationDispatchRequest::new("rescind", "rescind-request", TOOL, KEY, payload)?;
        let authorized = authorizer.authorize_operation(request)?;
        let mut journal = WorkerOperationJournal::new("rescind")?;
        journal.admit(&authorized)?;
        Ok(journal.operation(KEY).map(|record| record.input_fingerprint().to_owned()))
    })();
    match recorded {
        Ok(Some(fingerprint)) => json!(fingerprint),
        Ok(None) => unsupported("the journal kept no record of the admitted request"),
        Err(error) => unsupported(format!(
            "a dispatch request carrying this payload is refused ({})",
            codes::variant_code(&error)
        )),
    }
}
