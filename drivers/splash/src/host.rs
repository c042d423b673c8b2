//! Capabilities `host-keys` and `ledger` (`ledger.load`; `ledger.trace` is in `ledger.rs`),
//! and the host input fingerprint of `canonical.input`: every answer from `splash-workflow`'s
//! public API (`WorkflowEngine`, `WorkflowPlan`, `WorkflowOperationLedger`).
//!
//! Upstream computes the host input fingerprint only inside `WorkflowOperationLedger::record`
//! (private `workflow_operation_input_fingerprint`): the driver records the bytes in a fresh
//! ledger of a one-step plan and reads `WorkflowOperation::input_fingerprint` back. `record`
//! refuses inputs above `MAX_WORKFLOW_OPERATION_INPUT_BYTES`, so a larger input has no
//! upstream fingerprint: that member (operation) is answered unsupported, restriction
//! `host-input-above-ledger-bound`.

use serde_json::{json, Map, Value};
use splash_capabilities::CapabilityRuntime;
use splash_protocol::ToolPayload;
use splash_workflow::{
    WorkflowEngine, WorkflowError, WorkflowOperationLedger, WorkflowOperationLedgerError,
    WorkflowPlan, WorkflowStep, MAX_WORKFLOW_OPERATION_INPUT_BYTES,
};

use crate::codes;
use crate::text::{bad, hex, str_arg};
use crate::{Answer, BadRequest, OpResult};

/// Restriction: a host input above upstream's ledger input bound has no upstream fingerprint.
pub const INPUT_ABOVE_BOUND: &str = "host-input-above-ledger-bound";

pub fn engine() -> WorkflowEngine {
    WorkflowEngine::new(CapabilityRuntime::default())
}

/// The code of a ledger error: the snake_case variant name, with the names the ledger
/// spec gives the codec and size errors (docs/spec/ledger.md, docs/spec/host-keys.md).
pub fn ledger_code(error: &WorkflowOperationLedgerError) -> String {
    use WorkflowOperationLedgerError as E;
    match error {
        E::TooLarge => "ledger_too_large".into(),
        E::Encoding => "ledger_encoding".into(),
        E::InvalidEncoding => "ledger_invalid_encoding".into(),
        E::UnsupportedVersion(_) => "ledger_unsupported_version".into(),
        E::RevisionExhausted => "ledger_revision_exhausted".into(),
        E::InputTooLarge { .. } => "host_input_too_large".into(),
        E::Protocol(inner) => codes::variant_code(inner),
        other => codes::variant_code(other),
    }
}

/// The code of an engine error: plan shape errors are `invalid_plan` (HK-3), a ledger error
/// its own code, a protocol error its variant.
pub fn workflow_code(error: &WorkflowError) -> String {
    match error {
        WorkflowError::EmptyPlan
        | WorkflowError::TooManySteps { .. }
        | WorkflowError::PlanSourceTooLarge { .. }
        | WorkflowError::DuplicateStepId(_) => "invalid_plan".into(),
        WorkflowError::OperationLedger(inner) => ledger_code(inner),
        other => codes::variant_code(other),
    }
}

/// A byte string: a JSON string (its UTF-8), `{"hex"}` or `{"repeat", "count"}`.
pub fn bytes_of(value: &Value) -> Result<Vec<u8>, BadRequest> {
    match value {
        Value::String(text) => Ok(text.as_bytes().to_vec()),
        Value::Object(spec) => {
            if let Some(digits) = spec.get("hex") {
                return hex(digits.as_str().ok_or_else(|| bad("hex is not a string"))?);
            }
            let text = spec.get("repeat").and_then(Value::as_str);
            let count = spec.get("count").and_then(Value::as_u64);
            match (text, count) {
                (Some(text), Some(count)) => {
                    let count = usize::try_from(count).map_err(|_| bad("count too large"))?;
                    if text.len().saturating_mul(count) > 64 * 1024 * 1024 {
                        return Err(bad("a repeated byte string above 64 MiB"));
                    }
                    Ok(text.repeat(count).into_bytes())
                }
                _ => Err(bad("a byte string is a string, {hex} or {repeat, count}")),
            }
        }
        _ => Err(bad("a byte string is a string, {hex} or {repeat, count}")),
    }
}

/// A tool payload in wire form: `{"format": "json", "value": v}` or `{"format": "text",
/// "value": string or byte string}`.
pub fn payload_of(value: &Value) -> Result<Result<ToolPayload, String>, BadRequest> {
    let Value::Object(spec) = value else {
        return Err(bad("a payload is an object"));
    };
    let inner = spec.get("value").ok_or_else(|| bad("a payload has a value"))?;
    match spec.get("format").and_then(Value::as_str) {
        Some("json") => {
            // Upstream's own envelope checks (depth, size) decide whether it is a payload.
            let payload = ToolPayload::Json(inner.clone());
            Ok(match payload.validate_for(splash_protocol::EnvelopeFormat::Json) {
                Ok(_) => Ok(payload),
                Err(error) => Err(codes::variant_code(&error)),
            })
        }
        Some("text") => {
            let text = match inner {
                Value::String(text) => text.clone(),
                other => String::from_utf8(bytes_of(other)?).map_err(|_| bad("text not UTF-8"))?,
            };
            Ok(Ok(ToolPayload::Text(text)))
        }
        _ => Err(bad("a payload format is json or text")),
    }
}

/// Canonical input bytes: of a payload spec (upstream's `canonical_operation_input_bytes`),
/// or a byte string taken as they are.
pub fn input_of(value: &Value) -> Result<Result<Vec<u8>, String>, BadRequest> {
    if matches!(value, Value::Object(spec) if spec.contains_key("format")) {
        return Ok(match payload_of(value)? {
            Ok(payload) => splash_protocol::canonical_operation_input_bytes(&payload)
                .map_err(|error| codes::variant_code(&error)),
            Err(code) => Err(code),
        });
    }
    Ok(Ok(bytes_of(value)?))
}

fn steps_of(value: Option<&Value>) -> Result<Vec<WorkflowStep>, BadRequest> {
    let Some(Value::Array(steps)) = value else {
        return Err(bad("steps is an array"));
    };
    steps
        .iter()
        .map(|step| match step {
            Value::Array(pair) if pair.len() == 2 => {
                let id = pair[0].as_str().ok_or_else(|| bad("a step id is a string"))?;
                let source =
                    String::from_utf8(bytes_of(&pair[1])?).map_err(|_| bad("source not UTF-8"))?;
                Ok(WorkflowStep::new(id, source))
            }
            _ => Err(bad("a step is [id, source]")),
        })
        .collect()
}

/// Upstream's host input fingerprint of canonical input bytes, or why it has none.
pub fn input_fingerprint(canonical: &[u8]) -> Result<String, String> {
    if canonical.len() > MAX_WORKFLOW_OPERATION_INPUT_BYTES {
        return Err(format!(
            "{INPUT_ABOVE_BOUND}: WorkflowOperationLedger::record, the only public path to \
             upstream's host input fingerprint, refuses inputs above {MAX_WORKFLOW_OPERATION_INPUT_BYTES} bytes"
        ));
    }
    let mut engine = engine();
    let plan = engine
        .plan(vec![WorkflowStep::new("rescind", "")])
        .map_err(|error| format!("a one-step plan is refused ({})", workflow_code(&error)))?;
    let mut ledger = engine
        .operation_ledger(&plan)
        .map_err(|error| format!("no ledger ({})", workflow_code(&error)))?;
    const KEY: &str = "op-rescind-input";
    ledger
        .record("rescind", "rescind.input", KEY, canonical)
        .map_err(|error| format!("the ledger refuses the input ({})", ledger_code(&error)))?;
    ledger
        .operation(KEY)
        .map(|operation| operation.input_fingerprint().to_owned())
        .ok_or_else(|| "the ledger kept no operation".to_owned())
}

fn plan_of(engine: &mut WorkflowEngine, args: &Map<String, Value>) -> Result<Result<WorkflowPlan, Answer>, BadRequest> {
    let steps = steps_of(args.get("steps"))?;
    Ok(engine.plan(steps).map_err(|error| Answer::error(workflow_code(&error))))
}

/// `host-keys.<operation>`.
pub fn keys(operation: &str, args: &Map<String, Value>) -> OpResult {
    let input = || args.get("input").ok_or_else(|| bad("argument input is missing"));
    match operation {
        "plan_fingerprint" => {
            let mut engine = engine();
            Ok(match plan_of(&mut engine, args)? {
                Ok(plan) => Answer::Ok(json!({"fingerprint": plan.fingerprint()})),
                Err(answer) => answer,
            })
        }
        "canonical_input" => Ok(match payload_of(input()?)? {
            Ok(payload) => match splash_protocol::canonical_operation_input_bytes(&payload) {
                Ok(bytes) => Answer::Ok(json!({"canonical_input_hex": crate::text::to_hex(&bytes)})),
                Err(error) => codes::protocol(&error),
            },
            Err(code) => Answer::error(code),
        }),
        "host_input_fingerprint" => Ok(match input_of(input()?)? {
            Ok(bytes) => match input_fingerprint(&bytes) {
                Ok(fingerprint) => Answer::Ok(json!({"fingerprint": fingerprint})),
                Err(why) => Answer::unsupported(why),
            },
            Err(code) => Answer::error(code),
        }),
        "operation_key" => {
            let mut engine = engine();
            let plan = match plan_of(&mut engine, args)? {
                Ok(plan) => plan,
                Err(answer) => return Ok(answer),
            };
            let bytes = match input_of(input()?)? {
                Ok(bytes) => bytes,
                Err(code) => return Ok(Answer::error(code)),
            };
            let nonce = bytes_of(args.get("nonce").ok_or_else(|| bad("argument nonce is missing"))?)?;
            let step_id = str_arg(args, "step_id")?;
            let tool = str_arg(args, "tool")?;
            Ok(match engine.derive_operation_key(&plan, step_id, tool, &bytes, &nonce) {
                Ok(key) => Answer::Ok(json!({"key": key})),
                Err(error) => Answer::error(workflow_code(&error)),
            })
        }
        // The cmp- recipe binds a plan fingerprint and a grant fingerprint given as text;
        // upstream derives it only from a plan it made (WorkflowEngine::derive_compensation_key)
        // and a policy built from a grant (WorkflowCompensationPolicy::new), so arbitrary
        // fingerprints cannot be supplied.
        "compensation_key" => Ok(Answer::unsupported(
            "compensation-key-from-fingerprints: upstream derives a cmp- key only from a plan it \
             made and a policy built from a grant (WorkflowEngine::derive_compensation_key), not \
             from a given plan fingerprint and grant fingerprint",
        )),
        _ => Ok(Answer::unsupported(format!("host-keys.{operation} is not an operation of this driver"))),
    }
}

/// `ledger.load`: `WorkflowOperationLedger::from_json`, `revision`, `operations`, `to_json`.
pub fn load(args: &Map<String, Value>) -> OpResult {
    let text = str_arg(args, "text")?;
    let spaces = match args.get("trailing_spaces") {
        None => 0,
        Some(value) => value.as_u64().ok_or_else(|| bad("trailing_spaces is not a u64"))?,
    };
    let spaces = usize::try_from(spaces).ok().filter(|n| *n <= 1 << 20).ok_or_else(|| bad("too many trailing spaces"))?;
    let mut source = String::with_capacity(text.len() + spaces);
    source.push_str(text);
    source.extend(std::iter::repeat(' ').take(spaces));
    let ledger = match WorkflowOperationLedger::from_json(&source) {
        Ok(ledger) => ledger,
        Err(error) => return Ok(Answer::error(ledger_code(&error))),
    };
    let mut out = json!({"revision": ledger.revision(), "operations": ledger.operations().len()});
    match ledger.to_json() {
        Ok(encoded) if encoded == text => out["encoded_is_input"] = json!(true),
        Ok(encoded) => out["encoded"] = json!(encoded),
        Err(error) => out["encode_error"] = json!(ledger_code(&error)),
    }
    Ok(Answer::Ok(out))
}
