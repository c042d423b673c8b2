//! Capabilities `journal` and `authorizer`: `journal.load`, `journal.trace`,
//! `authorizer.trace`.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use splash_protocol::{
    AuthorizedOperationCompensation, AuthorizedOperationInvocation,
    AuthorizedOperationReconciliation, CapabilityGrant, CapabilityManifest,
    OperationCompensationRequest, OperationCompensationResult, OperationDispatchRequest,
    OperationReconcileRequest, OperationReconcileResult, OperationStatus, ProtocolError,
    SessionAuthorizer, WorkerCompensationAdmission, WorkerOperationAdmission,
    WorkerOperationJournal, WorkerOperationState,
};

use crate::codes;
use crate::text::{bad, str_arg, text_arg, text_of, u64_arg, unsupported};
use crate::{Answer, BadRequest, OpResult};

/// Restrictions this driver declares in hello (see README.md, "Restrictions").
/// Every name is in Rescind's catalogue (conformance/harness/restrictions.py), which states
/// the exact shapes each one excuses; the reasons below start with these names.
pub const RESTRICTIONS: &[&str] = &[
    "authorized-by-authorizer",
    "result-check-needs-issuing-authorizer",
    "authorizer-counters-private",
    "authenticator-counters-private",
    "authentication-payload-private",
    "sequence-start-unreachable",
    "tag-needs-sealable-frame",
    "revision-unreachable",
    "key-length-unrepresentable",
    "u64-arguments",
    "no-backend-state-injection",
    "keyring-keys-private",
];

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

/// The members of an authorizer's counters that upstream keeps private: SessionAuthorizer's
/// compensation_identities, seen_request_ids and completed_request_ids have no accessor
/// (only calls_for and compensations_for are public).
const PRIVATE_COUNTERS: [(&str, &str); 3] = [
    ("compensation_identities", "private: SessionAuthorizer::compensation_identities"),
    ("request_ids", "private: SessionAuthorizer::seen_request_ids"),
    ("completed_results", "private: SessionAuthorizer::completed_request_ids"),
];

/// An authorizer's counters: `calls` and `compensations` per tool of its manifest through
/// the public `calls_for` / `compensations_for` (a tool appears once it has spent one, as
/// upstream's maps only get an entry then), the private members as `{"unsupported": why}`.
fn counters(authorizer: &SessionAuthorizer) -> Value {
    let tools: std::collections::BTreeSet<&str> =
        authorizer.manifest().grants.iter().map(|grant| grant.tool.as_str()).collect();
    let spent = |count: &dyn Fn(&str) -> u32| -> Map<String, Value> {
        tools
            .iter()
            .map(|tool| (*tool, count(tool)))
            .filter(|(_, n)| *n > 0)
            .map(|(tool, n)| (tool.to_owned(), json!(n)))
            .collect()
    };
    let mut body = Map::new();
    body.insert("calls".to_owned(), Value::Object(spent(&|tool| authorizer.calls_for(tool))));
    body.insert(
        "compensations".to_owned(),
        Value::Object(spent(&|tool| authorizer.compensations_for(tool))),
    );
    for (member, why) in PRIVATE_COUNTERS {
        body.insert(member.to_owned(), unsupported(why));
    }
    Value::Object(body)
}

/// Why a raw request + grant pair that the authorizer refuses cannot be expressed.
/// Upstream builds Authorized* values only through SessionAuthorizer::authorize_*; the driver
/// asks a throwaway authorizer over a manifest of just that grant, which refused the pair.
const NEEDS_AUTHORIZER: &str = "authorized-by-authorizer: SessionAuthorizer refuses this request/grant pair";

/// Why a result check on a raw request + grant pair cannot be expressed.
/// SessionAuthorizer::validate_*_result accepts only an authorized value issued by that same
/// authorizer (ensure_local_authorization), so a raw request + grant pair has no upstream form.
const NEEDS_SAME_AUTHORIZER: &str =
    "result-check-needs-issuing-authorizer: validate_*_result needs a handle from this authorizer";

#[derive(Clone)]
enum Handle {
    Dispatch(AuthorizedOperationInvocation),
    Compensation(AuthorizedOperationCompensation),
    Reconciliation(AuthorizedOperationReconciliation),
}

/// One step's outcome: a result, a typed error, or a step upstream cannot express.
enum Step {
    Result(Value),
    /// The code and the typed fields of upstream's variant (`details`).
    Error(String, Map<String, Value>),
    Unsupported(String),
}

impl From<ProtocolError> for Step {
    fn from(error: ProtocolError) -> Self {
        let code = codes::variant_code(&error);
        let details = codes::details(&error, &code);
        Step::Error(code, details)
    }
}

type StepResult = Result<Step, BadRequest>;

macro_rules! attempt {
    ($e:expr) => {
        match $e {
            Ok(value) => value,
            Err(error) => return Ok(Step::from(error)),
        }
    };
}

macro_rules! decode_or_step {
    ($ty:ty, $text:expr) => {
        match serde_json::from_str::<$ty>($text) {
            Ok(value) => value,
            Err(_) => return Ok(Step::Error("serialization".to_owned(), Map::new())),
        }
    };
}

fn serialize(value: &impl serde_json_ser::Ser) -> String {
    value.ser()
}

/// serde_json's text of one of upstream's serializable types (no serde trait is named).
mod serde_json_ser {
    pub trait Ser {
        fn ser(&self) -> String;
    }
    macro_rules! ser {
        ($($ty:ty),*) => {$(
            impl Ser for $ty {
                fn ser(&self) -> String {
                    serde_json::to_string(self).unwrap_or_default()
                }
            }
        )*};
    }
    use splash_protocol::{CapabilityGrant, WorkerOperationJournal, WorkerOperationRecord, WorkerOperationState};
    ser!(CapabilityGrant, WorkerOperationJournal, WorkerOperationRecord, WorkerOperationState);
}

struct Run<'a> {
    grants: BTreeMap<String, CapabilityGrant>,
    requests: &'a Map<String, Value>,
    authorizers: Vec<(String, SessionAuthorizer)>,
    handles: BTreeMap<String, Handle>,
    journal: Option<WorkerOperationJournal>,
}

fn state(state: &WorkerOperationState) -> Step {
    Step::Result(json!({"state": serialize(state)}))
}

fn admission(existing: Option<&WorkerOperationState>) -> Step {
    match existing {
        None => Step::Result(json!({"admission": "dispatch"})),
        Some(state) => Step::Result(json!({"admission": "existing", "state": serialize(state)})),
    }
}

impl<'a> Run<'a> {
    fn request_text(&self, args: &Map<String, Value>) -> Result<String, BadRequest> {
        let name = str_arg(args, "request")?;
        let text = self.requests.get(name).ok_or_else(|| bad(format!("no request {name}")))?;
        text_of(text)
    }

    fn grant(&self, args: &Map<String, Value>) -> Result<CapabilityGrant, BadRequest> {
        let name = str_arg(args, "grant")?;
        self.grants.get(name).cloned().ok_or_else(|| bad(format!("no grant {name}")))
    }

    fn authorizer(&mut self, args: &Map<String, Value>) -> Result<&mut SessionAuthorizer, BadRequest> {
        let index = match args.get("authorizer").and_then(Value::as_str) {
            Some(name) => self.authorizers.iter().position(|(n, _)| n == name),
            None => (!self.authorizers.is_empty()).then_some(0),
        };
        let index = index.ok_or_else(|| bad("no such authorizer"))?;
        Ok(&mut self.authorizers[index].1)
    }

    fn journal(&mut self) -> Result<&mut WorkerOperationJournal, BadRequest> {
        self.journal.as_mut().ok_or_else(|| bad("the trace has no journal yet"))
    }

    fn handle(&self, args: &Map<String, Value>) -> Result<Handle, BadRequest> {
        let name = str_arg(args, "authorized")?;
        self.handles.get(name).cloned().ok_or_else(|| bad(format!("no authorized handle {name}")))
    }

    /// The authorized dispatch of a step: its handle, or for a raw request + grant pair the
    /// object a throwaway authorizer over a manifest of just that grant issues for it.
    fn dispatch(&self, args: &Map<String, Value>) -> Result<Result<AuthorizedOperationInvocation, Step>, BadRequest> {
        if args.contains_key("authorized") {
            return match self.handle(args)? {
                Handle::Dispatch(handle) => Ok(Ok(handle)),
                _ => Err(bad("handle is not an authorized dispatch")),
            };
        }
        let text = self.request_text(args)?;
        let grant = self.grant(args)?;
        let request = match serde_json::from_str::<OperationDispatchRequest>(&text) {
            Ok(request) => request,
            Err(_) => return Ok(Err(Step::Error("serialization".to_owned(), Map::new()))),
        };
        Ok(throwaway(&request.session_id.clone(), grant)
            .and_then(|mut authorizer| authorizer.authorize_operation(request).ok())
            .ok_or_else(|| Step::Unsupported(NEEDS_AUTHORIZER.to_owned())))
    }

    fn compensation(&self, args: &Map<String, Value>) -> Result<Result<AuthorizedOperationCompensation, Step>, BadRequest> {
        if args.contains_key("authorized") {
            return match self.handle(args)? {
                Handle::Compensation(handle) => Ok(Ok(handle)),
                _ => Err(bad("handle is not an authorized compensation")),
            };
        }
        let text = self.request_text(args)?;
        let grant = self.grant(args)?;
        let request = match serde_json::from_str::<OperationCompensationRequest>(&text) {
            Ok(request) => request,
            Err(_) => return Ok(Err(Step::Error("serialization".to_owned(), Map::new()))),
        };
        Ok(throwaway(&request.session_id.clone(), grant)
            .and_then(|mut authorizer| authorizer.authorize_compensation(request).ok())
            .ok_or_else(|| Step::Unsupported(NEEDS_AUTHORIZER.to_owned())))
    }

    fn reconciliation(&self, args: &Map<String, Value>) -> Result<Result<AuthorizedOperationReconciliation, Step>, BadRequest> {
        if args.contains_key("authorized") {
            return match self.handle(args)? {
                Handle::Reconciliation(handle) => Ok(Ok(handle)),
                _ => Err(bad("handle is not an authorized reconciliation")),
            };
        }
        let text = self.request_text(args)?;
        let grant = self.grant(args)?;
        let request = match serde_json::from_str::<OperationReconcileRequest>(&text) {
            Ok(request) => request,
            Err(_) => return Ok(Err(Step::Error("serialization".to_owned(), Map::new()))),
        };
        Ok(throwaway(&request.session_id.clone(), grant)
            .and_then(|mut authorizer| authorizer.authorize_reconciliation(request).ok())
            .ok_or_else(|| Step::Unsupported(NEEDS_AUTHORIZER.to_owned())))
    }

    fn status(args: &Map<String, Value>) -> Result<Result<OperationStatus, Step>, BadRequest> {
        let text = text_arg(args, "status")?;
        Ok(serde_json::from_str::<OperationStatus>(&text).map_err(|_| Step::Error("serialization".to_owned(), Map::new())))
    }

    fn keep(&mut self, args: &Map<String, Value>, handle: Handle, grant: &CapabilityGrant) -> Step {
        if let Some(name) = args.get("as").and_then(Value::as_str) {
            self.handles.insert(name.to_owned(), handle);
        }
        Step::Result(json!({"grant": serialize(grant)}))
    }

    fn step(&mut self, call: &str, args: &Map<String, Value>) -> StepResult {
        macro_rules! or_step {
            ($e:expr) => {
                match $e? {
                    Ok(value) => value,
                    Err(step) => return Ok(step),
                }
            };
        }
        Ok(match call {
            "new" => {
                let scope = str_arg(args, "scope")?;
                let journal = attempt!(WorkerOperationJournal::new(scope));
                let encoded = attempt!(journal.to_json());
                self.journal = Some(journal);
                Step::Result(json!({"journal": encoded}))
            }
            "load" => {
                let journal = attempt!(or_step!(load_spec(args)));
                let encoded = attempt!(journal.to_json());
                self.journal = Some(journal);
                Step::Result(json!({"journal": encoded}))
            }
            "to_json" => Step::Result(json!({"journal": attempt!(self.journal()?.to_json())})),
            "record" => {
                let key = str_arg(args, "operation_key")?;
                let record = self.journal()?.operation(key).map(serialize);
                Step::Result(json!({"record": record}))
            }
            "admit" => {
                self.journal()?;
                let authorized = or_step!(self.dispatch(args));
                match attempt!(self.journal()?.admit(&authorized)) {
                    WorkerOperationAdmission::Dispatch => admission(None),
                    WorkerOperationAdmission::Existing { state } => admission(Some(&state)),
                }
            }
            "admit_many" => {
                self.journal()?;
                let template = decode_or_step!(OperationDispatchRequest, &self.request_text(args)?);
                let grant = self.grant(args)?;
                let start = args.get("start").and_then(Value::as_u64).unwrap_or(0);
                let count = u64_arg(args, "count")?;
                for index in start..start + count {
                    let mut request = template.clone();
                    request.operation_key = format!("{}-{index}", template.operation_key);
                    request.request_id = format!("{}-{index}", template.request_id);
                    let authorized = throwaway(&request.session_id.clone(), grant.clone())
                        .and_then(|mut authorizer| authorizer.authorize_operation(request).ok());
                    let Some(authorized) = authorized else {
                        return Ok(Step::Unsupported(NEEDS_AUTHORIZER.to_owned()));
                    };
                    if self.journal()?.admit(&authorized).is_err() {
                        return Err(bad(format!("admit_many must not fail (index {index})")));
                    }
                }
                Step::Result(json!({"admitted": count}))
            }
            "observe" => {
                self.journal()?;
                let authorized = or_step!(self.dispatch(args));
                let status = or_step!(Self::status(args));
                state(&attempt!(self.journal()?.observe(&authorized, status)))
            }
            "validate_reconciliation" => {
                self.journal()?;
                let authorized = or_step!(self.reconciliation(args));
                attempt!(self.journal()?.validate_reconciliation(&authorized));
                Step::Result(json!({}))
            }
            "observe_reconciliation" => {
                self.journal()?;
                let authorized = or_step!(self.reconciliation(args));
                let status = or_step!(Self::status(args));
                state(&attempt!(self.journal()?.observe_reconciliation(&authorized, status)))
            }
            "admit_compensation" => {
                self.journal()?;
                let authorized = or_step!(self.compensation(args));
                match attempt!(self.journal()?.admit_compensation(&authorized)) {
                    WorkerCompensationAdmission::Dispatch => admission(None),
                    WorkerCompensationAdmission::Existing { state } => admission(Some(&state)),
                }
            }
            "observe_compensation" => {
                self.journal()?;
                let authorized = or_step!(self.compensation(args));
                let status = or_step!(Self::status(args));
                state(&attempt!(self.journal()?.observe_compensation(&authorized, status)))
            }
            "authorize_operation" => {
                let request = decode_or_step!(OperationDispatchRequest, &self.request_text(args)?);
                let authorized = attempt!(self.authorizer(args)?.authorize_operation(request));
                let grant = authorized.grant().clone();
                self.keep(args, Handle::Dispatch(authorized), &grant)
            }
            "authorize_reconciliation" => {
                let request = decode_or_step!(OperationReconcileRequest, &self.request_text(args)?);
                let authorized = attempt!(self.authorizer(args)?.authorize_reconciliation(request));
                let grant = authorized.grant().clone();
                self.keep(args, Handle::Reconciliation(authorized), &grant)
            }
            "authorize_compensation" => {
                let request = decode_or_step!(OperationCompensationRequest, &self.request_text(args)?);
                let authorized = attempt!(self.authorizer(args)?.authorize_compensation(request));
                let grant = authorized.grant().clone();
                self.keep(args, Handle::Compensation(authorized), &grant)
            }
            "authorize_reconciliation_many" => {
                let template = decode_or_step!(OperationReconcileRequest, &self.request_text(args)?);
                let count = u64_arg(args, "count")?;
                let authorizer = self.authorizer(args)?;
                for index in 0..count {
                    let mut request = template.clone();
                    request.request_id = format!("{}-{index}", template.request_id);
                    if authorizer.authorize_reconciliation(request).is_err() {
                        return Err(bad(format!("a *_many call must not fail (index {index})")));
                    }
                }
                Step::Result(json!({"authorized": count}))
            }
            "validate_operation_result" | "validate_reconciliation_result" | "validate_compensation_result" => {
                let text = text_arg(args, "result")?;
                if !args.contains_key("authorized") {
                    return Ok(Step::Unsupported(NEEDS_SAME_AUTHORIZER.to_owned()));
                }
                let handle = self.handle(args)?;
                let authorizer = self.authorizer(args)?;
                match (call, handle) {
                    ("validate_operation_result", Handle::Dispatch(authorized)) => {
                        let result = decode_or_step!(OperationReconcileResult, &text);
                        attempt!(authorizer.validate_operation_result(&authorized, &result));
                    }
                    ("validate_reconciliation_result", Handle::Reconciliation(authorized)) => {
                        let result = decode_or_step!(OperationReconcileResult, &text);
                        attempt!(authorizer.validate_reconciliation_result(&authorized, &result));
                    }
                    ("validate_compensation_result", Handle::Compensation(authorized)) => {
                        let result = decode_or_step!(OperationCompensationResult, &text);
                        attempt!(authorizer.validate_compensation_result(&authorized, &result));
                    }
                    _ => return Err(bad("the handle is of another kind")),
                }
                Step::Result(json!({}))
            }
            "counters" => Step::Result(counters(self.authorizer(args)?)),
            other => return Err(bad(format!("unknown call {other}"))),
        })
    }

    fn snapshot(&self) -> Value {
        let mut snapshot = json!({"journal": self.journal.as_ref().map(serialize)});
        if !self.authorizers.is_empty() {
            let all = self.authorizers.iter().map(|(name, authorizer)| (name.clone(), counters(authorizer)));
            snapshot["authorizers"] = Value::Object(all.collect());
        }
        snapshot
    }
}

/// A SessionAuthorizer over a manifest holding just `grant`, in `session_id`.
fn throwaway(session_id: &str, grant: CapabilityGrant) -> Option<SessionAuthorizer> {
    let manifest = CapabilityManifest::new(session_id, vec![grant]).ok()?;
    SessionAuthorizer::new(manifest).ok()
}

fn load_spec(spec: &Map<String, Value>) -> Result<Result<Result<WorkerOperationJournal, ProtocolError>, Step>, BadRequest> {
    let scope = spec.get("scope").and_then(Value::as_str);
    Ok(Ok(match (spec.get("journal"), scope) {
        (None, Some(scope)) => WorkerOperationJournal::new(scope),
        (Some(text), Some(scope)) => WorkerOperationJournal::from_json_for_scope(&text_of(text)?, scope),
        (Some(text), None) => WorkerOperationJournal::from_json(&text_of(text)?),
        (None, None) => return Err(bad("a journal spec needs scope or journal")),
    }))
}

/// Names of `object`'s members in the order the request line wrote them (serde_json's map
/// is sorted; the first authorizer is the default one).
fn written_order(object: &Map<String, Value>, line: &str, after: &str) -> Vec<String> {
    let start = line.find(after).unwrap_or(0);
    let mut names: Vec<(usize, String)> = object
        .keys()
        .map(|name| {
            let quoted = Value::String(name.clone()).to_string();
            let at = line[start..].find(&format!("{quoted}:")).map_or(usize::MAX, |i| i + start);
            (at, name.clone())
        })
        .collect();
    names.sort();
    names.into_iter().map(|(_, name)| name).collect()
}

pub fn trace(args: &Map<String, Value>) -> OpResult {
    let empty = Map::new();
    let setup = args.get("setup").and_then(Value::as_object).unwrap_or(&empty);
    let mut grants = BTreeMap::new();
    if let Some(specs) = setup.get("grants").and_then(Value::as_object) {
        for (name, text) in specs {
            match serde_json::from_str::<CapabilityGrant>(&text_of(text)?) {
                Ok(grant) => grants.insert(name.clone(), grant),
                Err(_) => return Ok(Answer::error("serialization")),
            };
        }
    }
    let mut authorizers = Vec::new();
    if let Some(specs) = setup.get("authorizers").and_then(Value::as_object) {
        let line = crate::current_line();
        for name in written_order(specs, &line, "\"authorizers\"") {
            let manifest = match serde_json::from_str::<CapabilityManifest>(&text_of(&specs[&name])?) {
                Ok(manifest) => manifest,
                Err(_) => return Ok(Answer::error("serialization")),
            };
            match SessionAuthorizer::new(manifest) {
                Ok(authorizer) => authorizers.push((name, authorizer)),
                Err(error) => return Ok(codes::protocol(&error)),
            }
        }
    }
    let requests = setup.get("requests").and_then(Value::as_object).unwrap_or(&empty);
    let mut run = Run { grants, requests, authorizers, handles: BTreeMap::new(), journal: None };
    if let Some(spec) = setup.get("journal").and_then(Value::as_object) {
        match load_spec(spec)? {
            Ok(Ok(journal)) => run.journal = Some(journal),
            Ok(Err(error)) => return Ok(codes::protocol(&error)),
            Err(_) => return Ok(Answer::error("serialization")),
        }
    }
    let steps = args.get("steps").and_then(Value::as_array).ok_or_else(|| bad("steps is not a list"))?;
    let mut outcomes = Vec::new();
    let mut checkpoints = Map::new();
    for step in steps {
        let call = step.get("call").and_then(Value::as_str).unwrap_or("");
        let step_args = step.get("args").and_then(Value::as_object).unwrap_or(&empty);
        let (outcome, stop) = match run.step(call, step_args)? {
            Step::Result(result) => (json!({"result": result}), false),
            Step::Error(code, details) => {
                (json!({"error": code, "details": details, "definite": true}), false)
            }
            Step::Unsupported(reason) => (json!({"unsupported": reason}), true),
        };
        outcomes.push(outcome);
        if stop {
            break;
        }
        if let Some(name) = step.get("checkpoint").and_then(Value::as_str) {
            checkpoints.insert(name.to_owned(), run.snapshot());
        }
    }
    checkpoints.insert("final".to_owned(), run.snapshot());
    Ok(Answer::Ok(json!({"steps": outcomes, "checkpoints": checkpoints})))
}
