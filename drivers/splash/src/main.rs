//! A rescind-driver/1 driver (docs/driver-protocol.md) over upstream Splash's public crates.
//!
//! Every answer comes from a public item of `splash-protocol`, `splash-storage` or (feature
//! `host`, the default) `splash-workflow` at the commit named in Cargo.toml. Where upstream has no public way to compute one member of a
//! result, that member is `{"unsupported": reason}`; where it cannot perform an operation (or,
//! inside a trace, a step) at all, the operation (the step) is answered `unsupported`.
//!
//! Number mode: built with feature `ap` (the default) serde_json keeps number text
//! (profile `splash-v5`); built without it, numbers are u64/i64/f64 (`splash-v5-f64`).
//! The `ap` build forwards requests of profile `splash-v5-f64` to the f64 build, run as a
//! child process (see `forward.rs`).

mod canonical;
mod codes;
mod forward;
mod frames;
mod grants;
#[cfg(feature = "host")]
mod host;
#[cfg(feature = "host")]
mod ledger;
mod journal;
mod sha256;
mod storage;
mod text;

use std::io::{self, BufRead, Write};

use serde_json::{json, Map, Value};

pub const PROTOCOL: &str = "rescind-driver/1";
pub const UPSTREAM_REPOSITORY: &str = "ymote/Splash";
pub const UPSTREAM_COMMIT: &str = "623d57c5c524f062ed5ddf8995cbed5b7b98e380";

#[cfg(feature = "ap")]
pub const OWN_PROFILE: &str = "splash-v5";
#[cfg(not(feature = "ap"))]
pub const OWN_PROFILE: &str = "splash-v5-f64";

pub const F64_PROFILE: &str = "splash-v5-f64";

/// What one operation answers.
pub enum Answer {
    Ok(Value),
    /// A typed failure: the snake_case code and whether the effect certainly did not happen.
    Error(String, bool),
    Unsupported(String),
}

impl Answer {
    pub fn error(code: impl Into<String>) -> Self {
        Answer::Error(code.into(), true)
    }

    pub fn unsupported(reason: impl Into<String>) -> Self {
        Answer::Unsupported(reason.into())
    }
}

/// A request the driver cannot read (a missing or mistyped argument).
pub struct BadRequest(pub String);

pub type OpResult = Result<Answer, BadRequest>;

const CAPABILITIES: [&str; 5] = ["canonical", "grants", "journal", "authorizer", "frames"];

fn capabilities() -> Vec<&'static str> {
    let mut all = CAPABILITIES.to_vec();
    all.push("storage");
    if cfg!(feature = "host") {
        all.extend(["host-keys", "ledger"]);
    }
    all.sort_unstable();
    all
}

/// Shapes the driver declares it cannot express (conformance/harness/restrictions.py).
fn restrictions() -> Vec<&'static str> {
    let mut all = journal::RESTRICTIONS.to_vec();
    if cfg!(feature = "host") {
        all.extend([
            "host-input-above-ledger-bound",
            "host-side-needs-arbitrary-precision",
            "raw-compensation-policy",
            "operation-input-check-private",
            "approval-consumed-on-use",
        ]);
    }
    all
}

fn hello(forwarder: &mut forward::Forwarder) -> Value {
    let mut profiles = vec![OWN_PROFILE];
    if forwarder.available() {
        profiles.push(F64_PROFILE);
    }
    json!({
        "protocol": PROTOCOL,
        "implementation": {
            "name": "splash-upstream",
            "version": UPSTREAM_COMMIT,
            "upstream": {"repository": UPSTREAM_REPOSITORY, "commit": UPSTREAM_COMMIT},
            "numberMode": if cfg!(feature = "ap") { "arbitrary_precision" } else { "f64" },
            "driver": concat!("rescind-splash-driver ", env!("CARGO_PKG_VERSION")),
            "f64Driver": forwarder.describe(),
        },
        "capabilities": capabilities(),
        "profiles": profiles,
        "restrictions": restrictions(),
    })
}

fn dispatch(op: &str, args: &Map<String, Value>) -> OpResult {
    match op {
        "canonical.input" => canonical::input(args),
        _ if op.starts_with("grants.") => grants::run(&op["grants.".len()..], args),
        "journal.load" => journal::load(args),
        "journal.trace" | "authorizer.trace" => journal::trace(args),
        "frames.message" => frames::message(args),
        "frames.tag" => frames::tag(args),
        "frames.trace" => frames::trace(args),
        "frames.bootstrap" => frames::bootstrap(args),
        "storage.tag" => storage::tag(args),
        "storage.open" => storage::open(args),
        "storage.trace" => storage::trace(args),
        #[cfg(feature = "host")]
        _ if op.starts_with("host-keys.") => host::keys(&op["host-keys.".len()..], args),
        #[cfg(feature = "host")]
        "ledger.load" => host::load(args),
        #[cfg(feature = "host")]
        "ledger.trace" => ledger::trace(args),
        _ => Ok(Answer::unsupported(format!("{op} is not an operation of this driver"))),
    }
}

/// The profile a request names (`args.profile` or `args.setup.profile`), if any.
fn requested_profile(args: &Map<String, Value>) -> Option<&str> {
    if let Some(Value::String(profile)) = args.get("profile") {
        return Some(profile);
    }
    match args.get("setup") {
        Some(Value::Object(setup)) => setup.get("profile").and_then(Value::as_str),
        _ => None,
    }
}

fn reply(id: &Value, answer: Answer) -> Value {
    match answer {
        Answer::Ok(result) => json!({"id": id, "ok": result}),
        Answer::Error(code, definite) => {
            json!({"id": id, "error": {"code": code, "definite": definite}})
        }
        Answer::Unsupported(reason) => json!({"id": id, "unsupported": reason}),
    }
}

thread_local! {
    static LINE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The request line being answered (for the written order of object members).
pub fn current_line() -> String {
    LINE.with(|line| line.borrow().clone())
}

fn handle(line: &str, forwarder: &mut forward::Forwarder) -> (String, bool) {
    LINE.with(|current| *current.borrow_mut() = line.to_owned());
    let request: Value = match serde_json::from_str(line) {
        Ok(Value::Object(request)) => Value::Object(request),
        _ => {
            let bad = json!({"id": null, "error": {"code": "bad_request", "definite": true}});
            return (bad.to_string(), false);
        }
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let op = request.get("op").and_then(Value::as_str).unwrap_or("");
    let empty = Map::new();
    let args = match request.get("args") {
        Some(Value::Object(args)) => args,
        None => &empty,
        Some(_) => return (reply(&id, Answer::error("bad_request")).to_string(), false),
    };
    match op {
        "hello" => return (reply(&id, Answer::Ok(hello(forwarder))).to_string(), false),
        "bye" => {
            forwarder.close();
            return (reply(&id, Answer::Ok(json!({}))).to_string(), true);
        }
        _ => {}
    }
    let profile = requested_profile(args);
    if profile == Some(F64_PROFILE) && OWN_PROFILE != F64_PROFILE {
        return match forwarder.forward(line) {
            Some(answer) => (answer, false),
            None => {
                let why = Answer::unsupported("profile splash-v5-f64 needs the f64 driver binary");
                (reply(&id, why).to_string(), false)
            }
        };
    }
    if let Some(profile) = profile {
        if profile != OWN_PROFILE {
            let why = Answer::unsupported(format!("profile {profile} is not implemented"));
            return (reply(&id, why).to_string(), false);
        }
    }
    let answer = match dispatch(op, args) {
        Ok(answer) => answer,
        Err(BadRequest(why)) => {
            eprintln!("rescind-splash-driver: bad request to {op}: {why}");
            Answer::error("bad_request")
        }
    };
    (reply(&id, answer).to_string(), false)
}

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut forwarder = forward::Forwarder::new();
    let mut out = stdout.lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let (answer, last) = handle(&line, &mut forwarder);
        if writeln!(out, "{answer}").and_then(|()| out.flush()).is_err() {
            break;
        }
        if last {
            break;
        }
    }
    forwarder.close();
}
