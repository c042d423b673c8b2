//! `ledger.trace`: the host engine's call sequences (docs/spec/ledger.md, "Ledger traces"),
//! each call one public item of `splash-workflow`'s `WorkflowEngine` / `WorkflowOperationLedger`,
//! the worker side of a trace `splash-protocol`'s `SessionAuthenticator`.
//!
//! What upstream's public API cannot express is answered `{"unsupported": reason}` (the step,
//! and the trace stops) or as an unanswered member, each reason starting with its name (a
//! restriction of conformance/harness/restrictions.py, except `external-operation-needs-runtime`,
//! which stays unanswered: it is the only way to HL-26):
//! (`Approval` has no accessor: what a compensation approval binds is read from its derived
//! `Debug` form, its one public view; a member that form does not show would be unanswered.)
//! - `approval-consumed-on-use`: `prepare_authenticated_operation_compensation` takes the
//!   `Approval` by value, so a step presenting an approval a previous step used is inexpressible;
//! - `raw-compensation-policy`: `WorkflowCompensationPolicy` is built only by `new` from a grant;
//! - `external-operation-needs-runtime`: upstream prepares an external operation only for a
//!   suspended script (`prepare_next_external_operation`);
//! - `operation-input-check-private`: upstream's checking `verify_input` is private (only
//!   `matches_input` is public);
//! Rescind's compensation-reconcile extension (a session of another wire profile, a
//! `reconciled_compensation` reply) is not upstream: answered unsupported.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use serde_json::{json, Map, Value};
use splash_protocol::{
    AuthenticatedWorkerMessage, CapabilityGrant, OperationCompensationRequest,
    OperationCompensationResult, OperationDispatchRequest, OperationReconcileRequest,
    OperationReconcileResult, OperationStatus, SessionAuthenticator, SessionKey, SessionRole,
    ToolPayload, WorkerMessage,
};
use splash_workflow::{
    Approval, CompensationActionVerifier, CompensationGrantVerifier, WorkflowCompensationAction,
    WorkflowCompensationDispatch, WorkflowCompensationPolicy, WorkflowCompensationTarget,
    WorkflowEngine, WorkflowError, WorkflowOperationLedger, WorkflowOperationLedgerError,
    WorkflowPlan, WorkflowStep,
};

use crate::host::{bytes_of, engine, input_of, ledger_code, payload_of, workflow_code};
use crate::text::{bad, hex, to_hex};
use crate::{Answer, BadRequest, OpResult};

/// A host verifier that allows or denies and remembers every call (both hooks).
struct Verifier {
    allow: Cell<bool>,
    grant_calls: Cell<u64>,
    actions: RefCell<Vec<Value>>,
}

impl CompensationGrantVerifier for Verifier {
    fn verify_compensation_grant(
        &self,
        tenant_scope: &str,
        grant: &CapabilityGrant,
    ) -> Result<(), WorkflowOperationLedgerError> {
        self.grant_calls.set(self.grant_calls.get() + 1);
        if self.allow.get() {
            return Ok(());
        }
        Err(WorkflowOperationLedgerError::CompensationGrantDenied {
            tool: grant.tool.clone(),
            tenant_scope: tenant_scope.to_owned(),
        })
    }
}

impl CompensationActionVerifier for Verifier {
    fn verify_compensation_action(
        &self,
        action: &WorkflowCompensationAction<'_>,
    ) -> Result<(), WorkflowOperationLedgerError> {
        self.actions.borrow_mut().push(json!({
            "plan_fingerprint": action.plan_fingerprint(),
            "operation_key": action.operation_key(),
            "step_id": action.step_id(),
            "tool": action.tool(),
            "operation_input_fingerprint": action.original_input_fingerprint(),
            "tenant_scope": action.tenant_scope(),
            "grant_tool": action.grant().tool,
            "compensation_input_hex": to_hex(action.compensation_input()),
        }));
        if self.allow.get() {
            return Ok(());
        }
        Err(WorkflowOperationLedgerError::CompensationActionDenied {
            operation_key: action.operation_key().to_owned(),
            tool: action.tool().to_owned(),
            tenant_scope: action.tenant_scope().to_owned(),
        })
    }
}

struct TargetSpec {
    operation_key: String,
    policy: String,
    grant: String,
    grant_verifier: String,
    action_verifier: String,
}

#[derive(Clone)]
enum Request {
    Dispatch(OperationDispatchRequest),
    Reconcile(OperationReconcileRequest),
    Compensate(OperationCompensationRequest),
}

struct Prepared {
    request: Request,
    frame: AuthenticatedWorkerMessage,
}

/// Why a step ends: an upstream error (a step result), an inexpressible step, a bad trace.
enum Stop {
    /// Upstream's code and the typed fields of its variant (`details`).
    Code(String, Map<String, Value>),
    Unsupported(String),
    Bad(BadRequest),
}

impl From<BadRequest> for Stop {
    fn from(error: BadRequest) -> Self {
        Stop::Bad(error)
    }
}

fn typed(code: String, error: &impl std::fmt::Debug) -> Stop {
    let details = crate::codes::details(error, &code);
    Stop::Code(code, details)
}

impl From<WorkflowError> for Stop {
    fn from(error: WorkflowError) -> Self {
        typed(workflow_code(&error), &error)
    }
}

impl From<WorkflowOperationLedgerError> for Stop {
    fn from(error: WorkflowOperationLedgerError) -> Self {
        typed(ledger_code(&error), &error)
    }
}

impl From<splash_protocol::ProtocolError> for Stop {
    fn from(error: splash_protocol::ProtocolError) -> Self {
        typed(crate::codes::variant_code(&error), &error)
    }
}

type Step = Result<Value, Stop>;

fn unsupported(reason: &str) -> Stop {
    Stop::Unsupported(reason.to_owned())
}

fn missing(name: &str) -> Stop {
    Stop::Bad(bad(format!("unknown name {name}")))
}

fn arg<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a Value, Stop> {
    args.get(key).ok_or_else(|| Stop::Bad(bad(format!("argument {key} is missing"))))
}

fn name<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, Stop> {
    arg(args, key)?.as_str().ok_or_else(|| Stop::Bad(bad(format!("argument {key} is not a name"))))
}

fn input(args: &Map<String, Value>, key: &str) -> Result<Vec<u8>, Stop> {
    input_of(arg(args, key)?)?.map_err(|code| Stop::Code(code, Map::new()))
}

fn payload(value: &Value) -> Result<ToolPayload, Stop> {
    payload_of(value)?.map_err(|code| Stop::Code(code, Map::new()))
}

/// A dispatch request's payload, handed to upstream unchecked when it is JSON: upstream's
/// `OperationDispatchRequest::validate` checks it itself, after the request's header, so
/// checking it here first would show the driver's order instead of upstream's (EP-52).
fn request_payload(value: &Value) -> Result<ToolPayload, Stop> {
    match value.get("format").and_then(Value::as_str) {
        Some("json") => {
            let inner = value.get("value").ok_or_else(|| Stop::Bad(bad("a payload has a value")))?;
            Ok(ToolPayload::Json(inner.clone()))
        }
        _ => payload(value),
    }
}

fn status(spec: &Value) -> Result<OperationStatus, Stop> {
    let state = spec.get("state").and_then(Value::as_str);
    Ok(match state {
        Some("succeeded") => OperationStatus::Succeeded {
            payload: payload(spec.get("payload").ok_or_else(|| Stop::Bad(bad("no payload")))?)?,
        },
        Some("failed") => OperationStatus::Failed {
            message: spec.get("message").and_then(Value::as_str).unwrap_or("").to_owned(),
        },
        Some("running") => OperationStatus::Running,
        Some("cancelled") => OperationStatus::Cancelled,
        _ => return Err(Stop::Bad(bad("unknown status state"))),
    })
}

fn event_json(event: &splash_workflow::WorkflowEvent) -> Value {
    serde_json::to_value(event).unwrap_or(Value::Null)
}

fn state_json(state: splash_workflow::WorkflowOperationState) -> Value {
    serde_json::to_value(state).unwrap_or(Value::Null)
}

fn frame_text(frame: &AuthenticatedWorkerMessage) -> Value {
    match frame.to_json_line() {
        Ok(text) => json!(text),
        Err(_) => json!(serde_json::to_string(frame).unwrap_or_default()),
    }
}

#[derive(Default)]
struct Trace {
    engines: HashMap<String, WorkflowEngine>,
    plans: HashMap<String, WorkflowPlan>,
    plan_engine: HashMap<String, String>,
    ledgers: HashMap<String, WorkflowOperationLedger>,
    ledger_order: Vec<String>,
    sessions: HashMap<String, SessionAuthenticator>,
    grants: HashMap<String, CapabilityGrant>,
    verifiers: HashMap<String, Verifier>,
    policies: HashMap<String, WorkflowCompensationPolicy>,
    targets: HashMap<String, TargetSpec>,
    approvals: HashMap<String, Option<Approval>>,
    prepared: HashMap<String, Prepared>,
    frames: HashMap<String, AuthenticatedWorkerMessage>,
    strings: HashMap<String, String>,
    checkpoints: Map<String, Value>,
}

impl Trace {
    fn text(&self, value: &Value) -> Result<String, Stop> {
        let text = value.as_str().ok_or_else(|| Stop::Bad(bad("expected a string")))?;
        match text.strip_prefix('$') {
            Some(bound) => self.strings.get(bound).cloned().ok_or_else(|| missing(text)),
            None => Ok(text.to_owned()),
        }
    }

    fn text_arg(&self, args: &Map<String, Value>, key: &str) -> Result<String, Stop> {
        self.text(arg(args, key)?)
    }

    fn bind(&mut self, args: &Map<String, Value>, value: &str) {
        if let Some(Value::String(name)) = args.get("as") {
            self.strings.insert(name.clone(), value.to_owned());
        }
    }

    fn name_ledger(&mut self, args: &Map<String, Value>, ledger: WorkflowOperationLedger) -> Result<(), Stop> {
        let as_name = name(args, "as")?.to_owned();
        if !self.ledger_order.contains(&as_name) {
            self.ledger_order.push(as_name.clone());
        }
        self.ledgers.insert(as_name, ledger);
        Ok(())
    }

    fn steps(value: &Value) -> Result<Vec<WorkflowStep>, Stop> {
        let steps = value.as_array().ok_or_else(|| Stop::Bad(bad("plan steps")))?;
        let mut made = Vec::new();
        for step in steps {
            let id = step.get(0).and_then(Value::as_str).ok_or_else(|| Stop::Bad(bad("step id")))?;
            let source = bytes_of(step.get(1).ok_or_else(|| Stop::Bad(bad("step source")))?)?;
            let source = String::from_utf8(source).map_err(|_| Stop::Bad(bad("source not UTF-8")))?;
            made.push(WorkflowStep::new(id, source));
        }
        Ok(made)
    }

    fn setup(&mut self, setup: &Map<String, Value>) -> Result<(), Stop> {
        let engines: Vec<String> = match setup.get("engines") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => vec!["engine".to_owned()],
        };
        for name in engines {
            self.engines.insert(name, engine());
        }
        if let Some(Value::Object(plans)) = setup.get("plans") {
            for (name, spec) in plans {
                let owner = spec.get("engine").and_then(Value::as_str).ok_or_else(|| missing("engine"))?;
                let made = Self::steps(spec.get("steps").ok_or_else(|| Stop::Bad(bad("plan steps")))?)?;
                let engine = self.engines.get_mut(owner).ok_or_else(|| missing(owner))?;
                let plan = engine.plan(made)?;
                self.plans.insert(name.clone(), plan);
                self.plan_engine.insert(name.clone(), owner.to_owned());
            }
        }
        if let Some(Value::Object(sessions)) = setup.get("sessions") {
            for (name, spec) in sessions {
                if spec.get("wire").and_then(Value::as_str).is_some_and(|wire| wire != "upstream") {
                    return Err(unsupported("a session of another wire profile (Rescind's compensation-reconcile extension) is not upstream's"));
                }
                let session_id = spec.get("session_id").and_then(Value::as_str).ok_or_else(|| Stop::Bad(bad("session_id")))?;
                let key = hex(spec.get("key").and_then(Value::as_str).ok_or_else(|| Stop::Bad(bad("key")))?)?;
                let role = match spec.get("role").and_then(Value::as_str) {
                    Some("host") => SessionRole::Host,
                    Some("worker") => SessionRole::Worker,
                    _ => return Err(Stop::Bad(bad("role"))),
                };
                let session = SessionAuthenticator::new(session_id, SessionKey::from_slice(&key)?, role)?;
                self.sessions.insert(name.clone(), session);
            }
        }
        if let Some(Value::Object(grants)) = setup.get("grants") {
            for (name, spec) in grants {
                let grant: CapabilityGrant = serde_json::from_value(spec.clone()).map_err(|_| Stop::Code("serialization".into(), Map::new()))?;
                self.grants.insert(name.clone(), grant);
            }
        }
        if let Some(Value::Object(verifiers)) = setup.get("verifiers") {
            for (name, allow) in verifiers {
                self.verifiers.insert(name.clone(), Verifier {
                    allow: Cell::new(allow.as_bool().unwrap_or(false)),
                    grant_calls: Cell::new(0),
                    actions: RefCell::new(Vec::new()),
                });
            }
        }
        if let Some(Value::Object(ledgers)) = setup.get("ledgers") {
            for (name, spec) in ledgers {
                let owner = spec.get("engine").and_then(Value::as_str).ok_or_else(|| missing("engine"))?;
                let plan = spec.get("plan").and_then(Value::as_str).ok_or_else(|| missing("plan"))?;
                let plan = self.plans.get(plan).ok_or_else(|| missing(plan))?;
                let ledger = self.engines.get_mut(owner).ok_or_else(|| missing(owner))?.operation_ledger(plan)?;
                self.ledgers.insert(name.clone(), ledger);
                self.ledger_order.push(name.clone());
            }
        }
        Ok(())
    }

    fn finish(&mut self) {
        for name in &self.ledger_order {
            let Some(ledger) = self.ledgers.get(name) else { continue };
            let value = match ledger.to_json() {
                Ok(text) => json!(text),
                Err(error) => json!({"error": ledger_code(&error)}),
            };
            self.checkpoints.insert(format!("final.{name}"), value);
        }
    }

    fn frame(&self, value: &Value) -> Result<AuthenticatedWorkerMessage, Stop> {
        let name = value.as_str().ok_or_else(|| Stop::Bad(bad("a frame name")))?;
        if let Some(prepared) = self.prepared.get(name) {
            return Ok(prepared.frame.clone());
        }
        self.frames.get(name).cloned().ok_or_else(|| missing(name))
    }

    fn edited(&self, request: &Request, spec: &Map<String, Value>) -> Result<Request, Stop> {
        let mut request = request.clone();
        let Some(Value::Object(changes)) = spec.get("change") else {
            return Ok(request);
        };
        for (field, value) in changes {
            match (&mut request, field.as_str()) {
                (_, "protocol_version") => {
                    let version = value.as_u64().and_then(|v| u16::try_from(v).ok()).ok_or_else(|| Stop::Bad(bad("protocol_version")))?;
                    match &mut request {
                        Request::Dispatch(r) => r.protocol_version = version,
                        Request::Reconcile(r) => r.protocol_version = version,
                        Request::Compensate(r) => r.protocol_version = version,
                    }
                }
                (Request::Dispatch(r), "payload") => r.payload = payload(value)?,
                (Request::Compensate(r), "payload") => r.payload = payload(value)?,
                (request, field) => {
                    let text = self.text(value)?;
                    let slot = match (request, field) {
                        (Request::Dispatch(r), "session_id") => &mut r.session_id,
                        (Request::Dispatch(r), "request_id") => &mut r.request_id,
                        (Request::Dispatch(r), "tool") => &mut r.tool,
                        (Request::Dispatch(r), "operation_key") => &mut r.operation_key,
                        (Request::Reconcile(r), "session_id") => &mut r.session_id,
                        (Request::Reconcile(r), "request_id") => &mut r.request_id,
                        (Request::Reconcile(r), "tool") => &mut r.tool,
                        (Request::Reconcile(r), "operation_key") => &mut r.operation_key,
                        (Request::Compensate(r), "session_id") => &mut r.session_id,
                        (Request::Compensate(r), "request_id") => &mut r.request_id,
                        (Request::Compensate(r), "tool") => &mut r.tool,
                        (Request::Compensate(r), "operation_key") => &mut r.operation_key,
                        (Request::Compensate(r), "compensation_key") => &mut r.compensation_key,
                        (Request::Compensate(r), "tenant_scope") => &mut r.tenant_scope,
                        (Request::Compensate(r), "grant_fingerprint") => &mut r.grant_fingerprint,
                        _ => return Err(Stop::Bad(bad(format!("no request field {field}")))),
                    };
                    *slot = text;
                }
            }
        }
        Ok(request)
    }

    /// The result matching a request (status given), with `change` applied.
    fn reply(&self, request: &Request, kind: &str, spec: &Map<String, Value>) -> Result<WorkerMessage, Stop> {
        let status = status(arg(spec, "status")?)?;
        let changes = match spec.get("change") {
            Some(Value::Object(changes)) => changes.clone(),
            _ => Map::new(),
        };
        match kind {
            "compensation_result" => {
                let Request::Compensate(r) = request else {
                    return Err(Stop::Bad(bad("a compensation result needs a compensation request")));
                };
                let mut result = OperationCompensationResult {
                    protocol_version: r.protocol_version,
                    session_id: r.session_id.clone(),
                    request_id: r.request_id.clone(),
                    tool: r.tool.clone(),
                    operation_key: r.operation_key.clone(),
                    compensation_key: r.compensation_key.clone(),
                    tenant_scope: r.tenant_scope.clone(),
                    grant_fingerprint: r.grant_fingerprint.clone(),
                    status,
                };
                for (field, value) in &changes {
                    if field == "protocol_version" {
                        result.protocol_version = value.as_u64().and_then(|v| u16::try_from(v).ok()).ok_or_else(|| Stop::Bad(bad("protocol_version")))?;
                        continue;
                    }
                    let text = self.text(value)?;
                    match field.as_str() {
                        "session_id" => result.session_id = text,
                        "request_id" => result.request_id = text,
                        "tool" => result.tool = text,
                        "operation_key" => result.operation_key = text,
                        "compensation_key" => result.compensation_key = text,
                        "tenant_scope" => result.tenant_scope = text,
                        "grant_fingerprint" => result.grant_fingerprint = text,
                        _ => return Err(Stop::Bad(bad(format!("no result field {field}")))),
                    }
                }
                Ok(WorkerMessage::CompensationResult { result })
            }
            "operation_result" | "reconciled_operation" => {
                let (version, session_id, request_id, tool, operation_key) = match request {
                    Request::Dispatch(r) => (r.protocol_version, &r.session_id, &r.request_id, &r.tool, &r.operation_key),
                    Request::Reconcile(r) => (r.protocol_version, &r.session_id, &r.request_id, &r.tool, &r.operation_key),
                    Request::Compensate(r) => (r.protocol_version, &r.session_id, &r.request_id, &r.tool, &r.operation_key),
                };
                let mut result = OperationReconcileResult {
                    protocol_version: version,
                    session_id: session_id.clone(),
                    request_id: request_id.clone(),
                    tool: tool.clone(),
                    operation_key: operation_key.clone(),
                    status,
                };
                for (field, value) in &changes {
                    if field == "protocol_version" {
                        result.protocol_version = value.as_u64().and_then(|v| u16::try_from(v).ok()).ok_or_else(|| Stop::Bad(bad("protocol_version")))?;
                        continue;
                    }
                    let text = self.text(value)?;
                    match field.as_str() {
                        "session_id" => result.session_id = text,
                        "request_id" => result.request_id = text,
                        "tool" => result.tool = text,
                        "operation_key" => result.operation_key = text,
                        _ => return Err(Stop::Bad(bad(format!("no result field {field}")))),
                    }
                }
                Ok(if kind == "operation_result" {
                    WorkerMessage::OperationResult { result }
                } else {
                    WorkerMessage::ReconciledOperation { result }
                })
            }
            _ => Err(Stop::Bad(bad(format!("unknown reply kind {kind}")))),
        }
    }

    fn step(&mut self, call: &str, args: &Map<String, Value>) -> Step {
        macro_rules! get {
            ($map:ident, $key:expr) => {{
                let key = name(args, $key)?;
                self.$map.get(key).ok_or_else(|| missing(key))?
            }};
        }
        macro_rules! context {
            () => {{
                let engine_name = name(args, "engine")?;
                let plan_name = name(args, "plan")?;
                let ledger_name = name(args, "ledger")?;
                let engine = self.engines.get_mut(engine_name).ok_or_else(|| missing(engine_name))?;
                let plan = self.plans.get(plan_name).ok_or_else(|| missing(plan_name))?;
                let ledger = self.ledgers.get_mut(ledger_name).ok_or_else(|| missing(ledger_name))?;
                (engine, plan, ledger)
            }};
        }
        macro_rules! target {
            ($key:expr) => {{
                let target_name = name(args, $key)?;
                let spec = self.targets.get(target_name).ok_or_else(|| missing(target_name))?;
                WorkflowCompensationTarget::new(
                    &spec.operation_key,
                    self.policies.get(&spec.policy).ok_or_else(|| missing(&spec.policy))?,
                    self.grants.get(&spec.grant).ok_or_else(|| missing(&spec.grant))?,
                    self.verifiers.get(&spec.grant_verifier).ok_or_else(|| missing(&spec.grant_verifier))?,
                    self.verifiers.get(&spec.action_verifier).ok_or_else(|| missing(&spec.action_verifier))?,
                )
            }};
        }
        match call {
            // -- plans
            "plan" => {
                let made = Self::steps(arg(args, "steps")?)?;
                let engine_name = name(args, "engine")?;
                let plan = self.engines.get_mut(engine_name).ok_or_else(|| missing(engine_name))?.plan(made)?;
                let fingerprint = json!(plan.fingerprint());
                if let Some(Value::String(as_name)) = args.get("as") {
                    self.plans.insert(as_name.clone(), plan);
                    self.plan_engine.insert(as_name.clone(), engine_name.to_owned());
                }
                Ok(fingerprint)
            }
            // -- ledgers
            "operation_ledger" => {
                let engine_name = name(args, "engine")?;
                let plan_name = name(args, "plan")?;
                let plan = self.plans.get(plan_name).ok_or_else(|| missing(plan_name))?;
                let ledger = self.engines.get_mut(engine_name).ok_or_else(|| missing(engine_name))?.operation_ledger(plan)?;
                self.name_ledger(args, ledger)?;
                Ok(Value::Null)
            }
            "load_ledger" => {
                let text = if let Some(text) = args.get("text") {
                    text.as_str().ok_or_else(|| Stop::Bad(bad("text")))?.to_owned()
                } else {
                    let text = get!(ledgers, "from").to_json()?;
                    match args.get("edits") {
                        Some(Value::Array(edits)) if !edits.is_empty() => {
                            let mut document: Value = serde_json::from_str(&text).map_err(|_| Stop::Bad(bad("ledger text")))?;
                            for edit in edits {
                                set_path(&mut document, edit.get("path"), edit.get("value"))?;
                            }
                            serde_json::to_string(&document).map_err(|_| Stop::Bad(bad("edited ledger")))?
                        }
                        _ => text,
                    }
                };
                let ledger = WorkflowOperationLedger::from_json(&text)?;
                self.name_ledger(args, ledger)?;
                Ok(Value::Null)
            }
            "to_json" => Ok(json!(get!(ledgers, "ledger").to_json()?)),
            "checkpoint" => {
                let text = get!(ledgers, "ledger").to_json()?;
                let checkpoint = name(args, "name")?.to_owned();
                self.checkpoints.insert(checkpoint, json!(text));
                Ok(Value::Null)
            }
            "revision" => Ok(json!(get!(ledgers, "ledger").revision())),
            "validate" => {
                let engine = get!(engines, "engine");
                let plan = get!(plans, "plan");
                let ledger = get!(ledgers, "ledger");
                match args.get("minimum_revision") {
                    Some(minimum) => {
                        let minimum = minimum.as_u64().ok_or_else(|| Stop::Bad(bad("minimum_revision")))?;
                        engine.validate_operation_ledger_at_or_after(plan, ledger, minimum)?
                    }
                    None => engine.validate_operation_ledger(plan, ledger)?,
                }
                Ok(Value::Null)
            }
            "matches_input" => {
                let key = self.text_arg(args, "operation_key")?;
                let bytes = input(args, "input")?;
                let ledger = get!(ledgers, "ledger");
                let operation = ledger.operation(&key).ok_or_else(|| Stop::Code("unknown_operation".into(), Map::new()))?;
                Ok(json!(operation.matches_input(&bytes)))
            }
            "verify_input" => Err(unsupported(
                "operation-input-check-private: upstream's checking verify_input is private; only \
                 WorkflowOperation::matches_input is public",
            )),
            "events" => {
                let engine = self.engines.get_mut(name(args, "engine")?).ok_or_else(|| missing("engine"))?;
                let events: Vec<Value> = engine.events().iter().map(event_json).collect();
                engine.clear_events();
                Ok(Value::Array(events))
            }
            // -- operations
            "record_operation" => {
                let step_id = self.text_arg(args, "step_id")?;
                let tool = self.text_arg(args, "tool")?;
                let key = self.text_arg(args, "operation_key")?;
                let bytes = input(args, "input")?;
                let (engine, plan, ledger) = context!();
                engine.record_operation(plan, ledger, step_id, tool, key, &bytes)?;
                Ok(Value::Null)
            }
            "derive_operation_key" => {
                let step_id = self.text_arg(args, "step_id")?;
                let tool = self.text_arg(args, "tool")?;
                let bytes = input(args, "input")?;
                let nonce = bytes_of(arg(args, "nonce")?)?;
                let key = get!(engines, "engine").derive_operation_key(get!(plans, "plan"), &step_id, &tool, &bytes, &nonce)?;
                self.bind(args, &key);
                Ok(json!(key))
            }
            "record_derived_operation" => {
                let step_id = self.text_arg(args, "step_id")?;
                let tool = self.text_arg(args, "tool")?;
                let bytes = input(args, "input")?;
                let nonce = bytes_of(arg(args, "nonce")?)?;
                let (engine, plan, ledger) = context!();
                let key = engine.record_derived_operation(plan, ledger, step_id, tool, &bytes, &nonce)?;
                self.bind(args, &key);
                Ok(json!(key))
            }
            "prepare_external_operation" => Err(unsupported(
                "external-operation-needs-runtime: upstream prepares an external operation only for \
                 a suspended script invocation (WorkflowEngine::prepare_next_external_operation)",
            )),
            // -- policies, targets, verifiers
            "policy" => {
                let tenant = self.text_arg(args, "tenant_scope")?;
                let policy = WorkflowCompensationPolicy::new(tenant, get!(grants, "grant"))?;
                let out = json!({
                    "tool": policy.tool(),
                    "tenant_scope": policy.tenant_scope(),
                    "grant_fingerprint": policy.grant_fingerprint(),
                });
                if let Some(Value::String(as_name)) = args.get("as") {
                    self.policies.insert(as_name.clone(), policy);
                }
                Ok(out)
            }
            "raw_policy" => Err(unsupported(
                "raw-compensation-policy: upstream builds a WorkflowCompensationPolicy only from a \
                 grant (WorkflowCompensationPolicy::new); its fields are private",
            )),
            "grant" => {
                let grant: CapabilityGrant = serde_json::from_value(arg(args, "grant")?.clone())
                    .map_err(|_| Stop::Code("serialization".into(), Map::new()))?;
                if let Some(Value::String(as_name)) = args.get("as") {
                    self.grants.insert(as_name.clone(), grant);
                }
                Ok(Value::Null)
            }
            "target" => {
                let spec = TargetSpec {
                    operation_key: self.text_arg(args, "operation_key")?,
                    policy: name(args, "policy")?.to_owned(),
                    grant: name(args, "grant")?.to_owned(),
                    grant_verifier: name(args, "grant_verifier")?.to_owned(),
                    action_verifier: name(args, "action_verifier")?.to_owned(),
                };
                for (map_name, known) in [
                    (&spec.policy, self.policies.contains_key(&spec.policy)),
                    (&spec.grant, self.grants.contains_key(&spec.grant)),
                    (&spec.grant_verifier, self.verifiers.contains_key(&spec.grant_verifier)),
                    (&spec.action_verifier, self.verifiers.contains_key(&spec.action_verifier)),
                ] {
                    if !known {
                        return Err(missing(map_name));
                    }
                }
                self.targets.insert(name(args, "as")?.to_owned(), spec);
                Ok(Value::Null)
            }
            "set_verifier" => {
                let allow = arg(args, "allow")?.as_bool().unwrap_or(false);
                get!(verifiers, "verifier").allow.set(allow);
                Ok(Value::Null)
            }
            "verifier_calls" => {
                let verifier = get!(verifiers, "verifier");
                let actions = verifier.actions.borrow().clone();
                Ok(json!({
                    "grant_calls": verifier.grant_calls.get(),
                    "action_calls": actions.len(),
                    "actions": actions,
                }))
            }
            // -- compensation intents
            "record_compensation" => {
                let key = self.text_arg(args, "operation_key")?;
                let compensation_key = self.text_arg(args, "compensation_key")?;
                let bytes = input(args, "input")?;
                let policy = get!(policies, "policy");
                let (engine, plan, ledger) = context!();
                engine.record_compensation(plan, ledger, &key, policy, compensation_key, &bytes)?;
                Ok(Value::Null)
            }
            "derive_compensation_key" => {
                let key = self.text_arg(args, "operation_key")?;
                let bytes = input(args, "input")?;
                let nonce = bytes_of(arg(args, "nonce")?)?;
                let derived = get!(engines, "engine").derive_compensation_key(
                    get!(plans, "plan"),
                    get!(ledgers, "ledger"),
                    &key,
                    get!(policies, "policy"),
                    &bytes,
                    &nonce,
                )?;
                self.bind(args, &derived);
                Ok(json!(derived))
            }
            "record_derived_compensation" => {
                let key = self.text_arg(args, "operation_key")?;
                let bytes = input(args, "input")?;
                let nonce = bytes_of(arg(args, "nonce")?)?;
                let policy = get!(policies, "policy");
                let (engine, plan, ledger) = context!();
                let derived = engine.record_derived_compensation(plan, ledger, &key, policy, &bytes, &nonce)?;
                self.bind(args, &derived);
                Ok(json!(derived))
            }
            "record_compensation_with_action_verifier" => {
                let compensation_key = self.text_arg(args, "compensation_key")?;
                let bytes = input(args, "input")?;
                let target = target!("target");
                let (engine, plan, ledger) = context!();
                engine.record_compensation_with_action_verifier(plan, ledger, target, compensation_key, &bytes)?;
                Ok(Value::Null)
            }
            "record_derived_compensation_with_action_verifier" => {
                let bytes = input(args, "input")?;
                let nonce = bytes_of(arg(args, "nonce")?)?;
                let target = target!("target");
                let (engine, plan, ledger) = context!();
                let derived = engine.record_derived_compensation_with_action_verifier(plan, ledger, target, &bytes, &nonce)?;
                self.bind(args, &derived);
                Ok(json!(derived))
            }
            // -- approvals
            "approve_plan" => {
                let plan = get!(plans, "plan");
                let engine = self.engines.get_mut(name(args, "engine")?).ok_or_else(|| missing("engine"))?;
                let approval = engine.approve(plan)?;
                if let Some(Value::String(as_name)) = args.get("as") {
                    self.approvals.insert(as_name.clone(), Some(approval));
                }
                Ok(json!({"kind": "plan"}))
            }
            "approve_compensation" => {
                let bytes = input(args, "input")?;
                let target = target!("target");
                let session = get!(sessions, "session");
                let engine_name = name(args, "engine")?;
                let engine = self.engines.get_mut(engine_name).ok_or_else(|| missing(engine_name))?;
                let approval = engine.approve_compensation(get!(plans, "plan"), get!(ledgers, "ledger"), target, &bytes, session)?;
                if let Some(Value::String(as_name)) = args.get("as") {
                    self.approvals.insert(as_name.clone(), Some(approval));
                }
                Ok(approval_binding(args, &self.approvals))
            }
            // -- frames
            "prepare_dispatch" => {
                let key = self.text_arg(args, "operation_key")?;
                let payload = request_payload(arg(args, "payload")?)?;
                let request_id = self.text_arg(args, "request_id")?;
                let session_name = name(args, "session")?;
                let session = self.sessions.get_mut(session_name).ok_or_else(|| missing(session_name))?;
                let engine = self.engines.get(name(args, "engine")?).ok_or_else(|| missing("engine"))?;
                let plan = self.plans.get(name(args, "plan")?).ok_or_else(|| missing("plan"))?;
                let ledger = self.ledgers.get(name(args, "ledger")?).ok_or_else(|| missing("ledger"))?;
                let prepared = engine.prepare_authenticated_operation_dispatch(plan, ledger, &key, payload, request_id, session)?;
                let out = frame_text(&prepared.frame);
                self.keep(args, Prepared { request: Request::Dispatch(prepared.request), frame: prepared.frame });
                Ok(out)
            }
            "prepare_reconciliation" => {
                let key = self.text_arg(args, "operation_key")?;
                let bytes = input(args, "input")?;
                let request_id = self.text_arg(args, "request_id")?;
                let session_name = name(args, "session")?;
                let session = self.sessions.get_mut(session_name).ok_or_else(|| missing(session_name))?;
                let engine = self.engines.get(name(args, "engine")?).ok_or_else(|| missing("engine"))?;
                let plan = self.plans.get(name(args, "plan")?).ok_or_else(|| missing("plan"))?;
                let ledger = self.ledgers.get(name(args, "ledger")?).ok_or_else(|| missing("ledger"))?;
                let prepared = engine.prepare_authenticated_operation_reconciliation(plan, ledger, &key, &bytes, request_id, session)?;
                let out = frame_text(&prepared.frame);
                self.keep(args, Prepared { request: Request::Reconcile(prepared.request), frame: prepared.frame });
                Ok(out)
            }
            "prepare_compensation" => {
                let approval_name = name(args, "approval")?;
                let approval = match self.approvals.get_mut(approval_name) {
                    None => return Err(missing(approval_name)),
                    Some(slot) => slot.take().ok_or_else(|| unsupported(
                        "approval-consumed-on-use: upstream's prepare_authenticated_operation_compensation \
                         takes the Approval by value, so an approval a previous step used cannot be presented again",
                    ))?,
                };
                let request_id = self.text_arg(args, "request_id")?;
                let payload = payload(arg(args, "payload")?)?;
                let target = target!("target");
                let session_name = name(args, "session")?;
                let session = self.sessions.get_mut(session_name).ok_or_else(|| missing(session_name))?;
                let engine = self.engines.get(name(args, "engine")?).ok_or_else(|| missing("engine"))?;
                let plan = self.plans.get(name(args, "plan")?).ok_or_else(|| missing("plan"))?;
                let ledger = self.ledgers.get(name(args, "ledger")?).ok_or_else(|| missing("ledger"))?;
                let dispatch = WorkflowCompensationDispatch::new(request_id, payload);
                let prepared = engine.prepare_authenticated_operation_compensation(plan, ledger, target, dispatch, approval, session)?;
                let out = frame_text(&prepared.frame);
                self.keep(args, Prepared { request: Request::Compensate(prepared.request), frame: prepared.frame });
                Ok(out)
            }
            "operation_dispatch_request" => {
                let key = self.text_arg(args, "operation_key")?;
                let payload = request_payload(arg(args, "payload")?)?;
                let session_id = self.text_arg(args, "session_id")?;
                let request_id = self.text_arg(args, "request_id")?;
                let request = get!(engines, "engine").operation_dispatch_request(get!(plans, "plan"), get!(ledgers, "ledger"), &key, payload, session_id, request_id)?;
                Ok(json!(serde_json::to_string(&request).unwrap_or_default()))
            }
            "operation_reconcile_request" => {
                let key = self.text_arg(args, "operation_key")?;
                let bytes = input(args, "input")?;
                let session_id = self.text_arg(args, "session_id")?;
                let request_id = self.text_arg(args, "request_id")?;
                let request = get!(engines, "engine").operation_reconcile_request(get!(plans, "plan"), get!(ledgers, "ledger"), &key, &bytes, session_id, request_id)?;
                Ok(json!(serde_json::to_string(&request).unwrap_or_default()))
            }
            "worker_open" => {
                let frame = self.frame(arg(args, "frame")?)?;
                let session_name = name(args, "session")?;
                let session = self.sessions.get_mut(session_name).ok_or_else(|| missing(session_name))?;
                let message = session.open(frame)?;
                let line = message.to_json_line()?;
                Ok(serde_json::from_str(&line).unwrap_or(Value::Null))
            }
            "worker_reply" => {
                let to = name(args, "to")?;
                let request = self.prepared.get(to).ok_or_else(|| missing(to))?.request.clone();
                let default = match request {
                    Request::Dispatch(_) => "operation_result",
                    Request::Reconcile(_) => "reconciled_operation",
                    Request::Compensate(_) => "compensation_result",
                };
                let kind = args.get("kind").and_then(Value::as_str).unwrap_or(default);
                let message = match kind {
                    "close_session" => {
                        let session_id = match &request {
                            Request::Dispatch(r) => r.session_id.clone(),
                            Request::Reconcile(r) => r.session_id.clone(),
                            Request::Compensate(r) => r.session_id.clone(),
                        };
                        WorkerMessage::CloseSession { protocol_version: splash_protocol::PROTOCOL_VERSION, session_id }
                    }
                    "reconciled_compensation" => {
                        return Err(unsupported("reconciled_compensation is Rescind's compensation-reconcile extension, not upstream"))
                    }
                    kind => self.reply(&request, kind, args)?,
                };
                let session_name = name(args, "session")?;
                let session = self.sessions.get_mut(session_name).ok_or_else(|| missing(session_name))?;
                let frame = session.seal(message)?;
                let out = frame_text(&frame);
                if let Some(Value::String(as_name)) = args.get("as") {
                    self.frames.insert(as_name.clone(), frame);
                }
                Ok(out)
            }
            "tamper" => {
                let mut frame = self.frame(arg(args, "frame")?)?;
                match args.get("how").and_then(Value::as_str) {
                    Some("flip_tag") => {
                        let first = if frame.auth_tag.starts_with('0') { "1" } else { "0" };
                        frame.auth_tag = format!("{first}{}", &frame.auth_tag[1..]);
                    }
                    Some("status") => {
                        let replaced = status(arg(args, "status")?)?;
                        match &mut frame.message {
                            WorkerMessage::OperationResult { result } | WorkerMessage::ReconciledOperation { result } => result.status = replaced,
                            WorkerMessage::CompensationResult { result } => result.status = replaced,
                            _ => return Err(Stop::Bad(bad("only a result frame has a status"))),
                        }
                    }
                    _ => return Err(Stop::Bad(bad("unknown tampering"))),
                }
                let out = frame_text(&frame);
                if let Some(Value::String(as_name)) = args.get("as") {
                    self.frames.insert(as_name.clone(), frame);
                }
                Ok(out)
            }
            "apply_dispatch_result" | "apply_reconciliation" | "apply_compensation" => {
                let request_name = name(args, "request")?;
                let request = self.prepared.get(request_name).ok_or_else(|| missing(request_name))?.request.clone();
                let frame = self.frame(arg(args, "frame")?)?;
                let session_name = name(args, "session")?;
                let session = self.sessions.get_mut(session_name).ok_or_else(|| missing(session_name))?;
                let (engine, plan, ledger) = context!();
                let outcome = match (call, &request) {
                    ("apply_dispatch_result", Request::Dispatch(r)) => engine.apply_authenticated_operation_dispatch_result(plan, ledger, r, session, frame)?.0,
                    ("apply_reconciliation", Request::Reconcile(r)) => engine.apply_authenticated_operation_reconciliation(plan, ledger, r, session, frame)?,
                    ("apply_compensation", Request::Compensate(r)) => engine.apply_authenticated_operation_compensation(plan, ledger, r, session, frame)?,
                    _ => return Err(Stop::Bad(bad("the request does not fit the apply call"))),
                };
                Ok(state_json(outcome))
            }
            "apply_verified_dispatch_result" | "apply_verified_reconciliation" | "apply_verified_compensation" => {
                let request_spec = arg(args, "request")?.as_object().ok_or_else(|| Stop::Bad(bad("request spec")))?;
                let of = request_spec.get("of").and_then(Value::as_str).ok_or_else(|| missing("of"))?;
                let base = self.prepared.get(of).ok_or_else(|| missing(of))?.request.clone();
                let request = self.edited(&base, request_spec)?;
                let result_spec = arg(args, "result")?.as_object().ok_or_else(|| Stop::Bad(bad("result spec")))?;
                let reply_to = result_spec.get("reply_to").and_then(Value::as_str).ok_or_else(|| missing("reply_to"))?;
                let answered = self.prepared.get(reply_to).ok_or_else(|| missing(reply_to))?.request.clone();
                let kind = match answered {
                    Request::Dispatch(_) => "operation_result",
                    Request::Reconcile(_) => "reconciled_operation",
                    Request::Compensate(_) => "compensation_result",
                };
                let result = self.reply(&answered, kind, result_spec)?;
                let (engine, plan, ledger) = context!();
                let outcome = match (call, &request, result) {
                    ("apply_verified_dispatch_result", Request::Dispatch(r), WorkerMessage::OperationResult { result }) => engine.apply_verified_operation_dispatch_result(plan, ledger, r, &result)?,
                    ("apply_verified_reconciliation", Request::Reconcile(r), WorkerMessage::ReconciledOperation { result }) => engine.apply_verified_operation_reconciliation(plan, ledger, r, &result)?,
                    ("apply_verified_compensation", Request::Compensate(r), WorkerMessage::CompensationResult { result }) => engine.apply_verified_operation_compensation(plan, ledger, r, &result)?,
                    _ => return Err(unsupported("apply-verified-mixed-kinds: upstream's apply_verified_* take a request and a result of one kind")),
                };
                Ok(state_json(outcome))
            }
            other => Err(Stop::Bad(bad(format!("unknown call {other}")))),
        }
    }

    fn keep(&mut self, args: &Map<String, Value>, prepared: Prepared) {
        if let Some(Value::String(as_name)) = args.get("as") {
            self.prepared.insert(as_name.clone(), prepared);
        }
    }
}

/// What a compensation approval binds, read from `Approval`'s derived `Debug` form (its one
/// public view: the type has no accessor), the way codes.rs reads error variant names. A
/// member the form does not show is answered unsupported.
fn approval_binding(args: &Map<String, Value>, approvals: &HashMap<String, Option<Approval>>) -> Value {
    let shown = args
        .get("as")
        .and_then(Value::as_str)
        .and_then(|name| approvals.get(name))
        .and_then(Option::as_ref)
        .map(|approval| format!("{approval:?}"))
        .unwrap_or_default();
    let body = shown.split_once("CompensationApproval {").map(|(_, rest)| rest).unwrap_or("");
    let mut out = json!({"kind": "compensation"});
    for member in [
        "ledger_revision",
        "operation_key",
        "compensation_key",
        "input_fingerprint",
        "tenant_scope",
        "grant_fingerprint",
        "session_id",
    ] {
        out[member] = debug_member(body, member).unwrap_or_else(|| {
            crate::text::unsupported(
                "upstream's Approval has no accessor for what it binds, and its Debug form does not show this member",
            )
        });
    }
    out
}

/// `name: "text"` (a Debug string without escapes) or `name: 123` from a Debug struct body.
fn debug_member(body: &str, name: &str) -> Option<Value> {
    let start = body.find(&format!("{name}: "))? + name.len() + 2;
    let rest = &body[start..];
    if let Some(text) = rest.strip_prefix('"') {
        let end = text.find('"')?;
        let value = &text[..end];
        return (!value.contains('\\')).then(|| json!(value));
    }
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<u64>().ok().map(|number| json!(number))
}

fn set_path(document: &mut Value, path: Option<&Value>, value: Option<&Value>) -> Result<(), Stop> {
    let path = path.and_then(Value::as_array).ok_or_else(|| Stop::Bad(bad("edit path")))?;
    let value = value.ok_or_else(|| Stop::Bad(bad("edit value")))?;
    let mut target = document;
    for part in path {
        target = match part {
            Value::String(key) => target.get_mut(key.as_str()),
            Value::Number(index) => index.as_u64().and_then(|i| target.get_mut(i as usize)),
            _ => None,
        }
        .ok_or_else(|| Stop::Bad(bad("edit path not found")))?;
    }
    *target = value.clone();
    Ok(())
}

pub fn trace(args: &Map<String, Value>) -> OpResult {
    let setup = match args.get("setup") {
        Some(Value::Object(setup)) => setup.clone(),
        None => Map::new(),
        _ => return Err(bad("setup is not an object")),
    };
    let steps = args.get("steps").and_then(Value::as_array).ok_or_else(|| bad("steps is not a list"))?;
    let mut trace = Trace::default();
    match trace.setup(&setup) {
        Ok(()) => {}
        Err(Stop::Bad(error)) => return Err(error),
        Err(Stop::Unsupported(why)) => return Ok(Answer::unsupported(why)),
        Err(Stop::Code(code, _)) => return Ok(Answer::unsupported(format!("the trace set-up is refused upstream ({code})"))),
    }
    let mut outcomes = Vec::new();
    for step in steps {
        let call = step.get("call").and_then(Value::as_str).unwrap_or("");
        let empty = Map::new();
        let step_args = step.get("args").and_then(Value::as_object).unwrap_or(&empty);
        match trace.step(call, step_args) {
            Ok(result) => outcomes.push(json!({"result": result})),
            Err(Stop::Code(code, details)) => outcomes.push(json!({"error": code, "details": details})),
            Err(Stop::Unsupported(why)) => {
                outcomes.push(json!({"unsupported": why}));
                return Ok(Answer::Ok(json!({"steps": outcomes, "checkpoints": {}})));
            }
            Err(Stop::Bad(error)) => return Err(error),
        }
    }
    trace.finish();
    Ok(Answer::Ok(json!({"steps": outcomes, "checkpoints": trace.checkpoints})))
}
