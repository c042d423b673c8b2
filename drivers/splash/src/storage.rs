//! Capability `storage`: record tags, envelope opening, CAS and fencing traces, through
//! `splash_storage::AuthenticatedStore`. Backends: upstream's `VolatileMemoryStore` for tags
//! and traces; for `storage.open`, `Fixture`, a backend that only hands the vector's snapshot
//! to `AuthenticatedStore::load` (the opening is upstream's).

use std::collections::BTreeMap;
use std::fmt::Debug;

use serde_json::{json, Map, Value};
use splash_storage::{
    AuthenticatedRecord, AuthenticatedStore, AuthenticatedStoreError, CompareAndSwapOutcome,
    FencedRollbackProtectedStore, RollbackProtectedStore, StorageKey, StorageKeyId,
    StorageKeyring, StorageKeyringError, StorageRecordKey, StorageRecordKeyError,
    StorageSnapshot, StoredRecord, VolatileMemoryStore, STORAGE_KEY_BYTES,
};

use crate::codes::variant_code;
use crate::sha256::hex_digest;
use crate::text::{bad, expansion_count, hex, str_arg, to_hex, unsupported};
use crate::{Answer, BadRequest, OpResult};

const SHORT_PAYLOAD: usize = 1024;
const SHORT_RECORD: usize = 4096;
/// The most `replace` calls made to seal a tag at a revision above 1.
const MAX_REVISION_WALK: u64 = 10_000;

/// Why a step or case has no upstream form.
const KEY_LENGTH: &str = "key-length-unrepresentable: StorageKey::from_bytes takes exactly 32 bytes";
const OUT_OF_RANGE: &str = "u64-arguments: upstream takes a u64 revision or fencing token";
/// VolatileMemoryStore's maps are private; upstream has no public way to write a raw record,
/// floor or fence.
const INJECTION: &str = "no-backend-state-injection: VolatileMemoryStore state is private";
/// A keyring step's result: the public `active_key_id`; `key_ids` (the private `keys` map's
/// ids) as `{"unsupported": why}`.
fn keyring_result(ring: &StorageKeyring) -> Value {
    json!({
        "active_key_id": ring.active_key_id().as_str(),
        "key_ids": unsupported("private: StorageKeyring::keys (only active_key_id is public)"),
    })
}

/// A failure of a storage step: a code, or a step upstream cannot express.
enum Failure {
    /// The code and the typed fields of upstream's variant (`details`).
    Code(String, Map<String, Value>),
    Unsupported(&'static str),
}

/// A failure with upstream's code and the typed fields of its variant.
fn failed(code: String, error: &impl Debug) -> Failure {
    let details = crate::codes::details(error, &code);
    Failure::Code(code, details)
}

fn store_code<E: Debug>(error: &AuthenticatedStoreError<E>) -> String {
    match error {
        AuthenticatedStoreError::Backend(inner) => backend_code(&variant_code(inner)),
        AuthenticatedStoreError::InvalidAuthenticationTag => "storage_invalid_authentication_tag".into(),
        AuthenticatedStoreError::RevisionExhausted => "storage_revision_exhausted".into(),
        other => variant_code(other),
    }
}

fn backend_code(code: &str) -> String {
    match code {
        "revision_exhausted" => "storage_revision_exhausted".into(),
        other => other.into(),
    }
}

fn record_key(namespace: &str, name: &str) -> Result<StorageRecordKey, Failure> {
    StorageRecordKey::new(namespace, name).map_err(|error| {
        Failure::Code(match error {
            StorageRecordKeyError::InvalidNamespace => "invalid_record_namespace".into(),
            StorageRecordKeyError::InvalidName => "invalid_record_name".into(),
        }, Map::new())
    })
}

fn key_id(text: &str) -> Result<StorageKeyId, Failure> {
    StorageKeyId::new(text).map_err(|_| Failure::Code("invalid_key_id".into(), Map::new()))
}

fn storage_key(key_hex: &str) -> Result<Result<StorageKey, Failure>, BadRequest> {
    let bytes = hex(key_hex)?;
    Ok(<[u8; STORAGE_KEY_BYTES]>::try_from(bytes.as_slice())
        .map(StorageKey::from_bytes)
        .map_err(|_| Failure::Unsupported(KEY_LENGTH)))
}

fn keyring_code(error: &StorageKeyringError) -> String {
    variant_code(error)
}

fn keyring(spec: &Map<String, Value>) -> Result<Result<StorageKeyring, Failure>, BadRequest> {
    let active = str_arg(spec, "active_key_id")?;
    let entries = spec.get("keyring").and_then(Value::as_array).ok_or_else(|| bad("keyring is not a list"))?;
    let mut parsed = Vec::new();
    for entry in entries {
        let entry = entry.as_object().ok_or_else(|| bad("a keyring entry is an object"))?;
        let id = str_arg(entry, "key_id")?.to_owned();
        let key = storage_key(str_arg(entry, "key_hex")?)?;
        parsed.push((id, key));
    }
    Ok((|| {
        let mut ring: Option<StorageKeyring> = None;
        let active_key = parsed.iter().find(|(id, _)| id == active);
        let Some((_, active_key)) = active_key else {
            return Err(Failure::Code("unknown_key_id".into(), Map::new()));
        };
        let active_key = match active_key {
            Ok(key) => key.clone(),
            Err(_) => return Err(Failure::Unsupported(KEY_LENGTH)),
        };
        let ring_ref = ring.get_or_insert(StorageKeyring::new(key_id(active)?, active_key));
        for (id, key) in &parsed {
            if id == active {
                continue;
            }
            let key = match key {
                Ok(key) => key.clone(),
                Err(_) => return Err(Failure::Unsupported(KEY_LENGTH)),
            };
            ring_ref.add_read_key(key_id(id)?, key).map_err(|e| failed(keyring_code(&e), &e))?;
        }
        Ok(ring.expect("inserted above"))
    })())
}

fn payload_of(spec: &Map<String, Value>) -> Result<Vec<u8>, BadRequest> {
    if let Some(fill) = spec.get("payload_fill").and_then(Value::as_object) {
        let byte = hex(str_arg(fill, "byte_hex")?)?;
        let count = fill.get("count").and_then(Value::as_u64).ok_or_else(|| bad("count"))?;
        return Ok(byte.repeat(expansion_count(byte.len(), count)?));
    }
    hex(str_arg(spec, "payload_hex")?)
}

fn record_of(segments: &Value) -> Result<Option<Vec<u8>>, BadRequest> {
    let Some(segments) = segments.as_array() else {
        return if segments.is_null() { Ok(None) } else { Err(bad("record is a list or null")) };
    };
    let mut data = Vec::new();
    for segment in segments {
        match segment {
            Value::String(text) => data.extend_from_slice(text.as_bytes()),
            Value::Object(spec) if spec.contains_key("hex") => data.extend(hex(str_arg(spec, "hex")?)?),
            Value::Object(spec) => {
                let count = spec.get("count").and_then(Value::as_u64).ok_or_else(|| bad("count"))?;
                let unit = str_arg(spec, "repeat")?.as_bytes();
                data.extend(unit.repeat(expansion_count(unit.len(), count)?));
            }
            _ => return Err(bad("a record segment is a string or an object")),
        }
    }
    Ok(Some(data))
}

fn record_result(record: Option<&AuthenticatedRecord>) -> Value {
    let Some(record) = record else {
        return json!({"record": null});
    };
    let payload = record.payload();
    let mut body = json!({
        "revision": record.revision(),
        "key_id": record.key_id().as_str(),
        "payload_length": payload.len(),
        "payload_sha256": hex_digest(payload),
    });
    if payload.len() <= SHORT_PAYLOAD {
        body["payload_hex"] = json!(to_hex(payload));
    }
    json!({"record": body})
}

fn answer(result: Result<Value, Failure>) -> Answer {
    match result {
        Ok(value) => Answer::Ok(value),
        Err(Failure::Code(code, _)) => Answer::error(code),
        Err(Failure::Unsupported(reason)) => Answer::unsupported(reason),
    }
}

fn u64_of(value: Option<&Value>) -> Result<Result<u64, Failure>, BadRequest> {
    match value {
        Some(value) if value.is_number() => {
            Ok(value.as_u64().ok_or(Failure::Unsupported(OUT_OF_RANGE)))
        }
        _ => Err(bad("expected a number")),
    }
}

// --- storage.tag -------------------------------------------------------------------------

pub fn tag(args: &Map<String, Value>) -> OpResult {
    let payload = payload_of(args)?;
    let key = storage_key(str_arg(args, "key_hex")?)?;
    let namespace = str_arg(args, "namespace")?;
    let name = str_arg(args, "name")?;
    let id = str_arg(args, "key_id")?;
    let revision = u64_of(args.get("revision"))?;
    Ok(answer((|| {
        let record = record_key(namespace, name)?;
        let id = key_id(id)?;
        let key = key?;
        let revision = revision?;
        if revision == 0 || revision > MAX_REVISION_WALK {
            // Upstream seals only in create (revision 1) and in replace of an authentic record
            // (one more); the driver walks at most MAX_REVISION_WALK replaces.
            return Err(Failure::Unsupported("revision-unreachable: sealed only by create/replace"));
        }
        // Seal through upstream's own store: create at 1, then replace up to `revision`.
        let mut store = AuthenticatedStore::new(VolatileMemoryStore::default(), StorageKeyring::new(id, key));
        let code = |e: AuthenticatedStoreError<_>| failed(store_code(&e), &e);
        store.create(&record, &payload).map_err(code)?;
        for current in 1..revision {
            store.replace(&record, current, &payload).map_err(code)?;
        }
        let snapshot = store.backend().load(&record).map_err(|e| failed(variant_code(&e), &e))?;
        let stored = snapshot.record().ok_or(Failure::Code("store_corrupt".into(), Map::new()))?;
        let envelope: Value = serde_json::from_slice(stored.bytes()).map_err(|_| Failure::Code("invalid_envelope".into(), Map::new()))?;
        let mut result = json!({"auth_tag": envelope["auth_tag"]});
        if payload.len() <= SHORT_PAYLOAD {
            result["payload_field"] = envelope["payload"].clone();
            result["envelope"] = json!(String::from_utf8_lossy(stored.bytes()));
        }
        Ok(result)
    })()))
}

// --- storage.open ------------------------------------------------------------------------

/// A backend holding one fixed snapshot: `load` returns it, writes are refused.
struct Fixture(StorageSnapshot);

#[derive(Debug)]
struct ReadOnly;

impl RollbackProtectedStore for Fixture {
    type Error = ReadOnly;

    fn load(&self, _key: &StorageRecordKey) -> Result<StorageSnapshot, ReadOnly> {
        Ok(self.0.clone())
    }

    fn compare_and_swap(
        &mut self,
        _key: &StorageRecordKey,
        _expected_revision: Option<u64>,
        _replacement: StoredRecord,
    ) -> Result<CompareAndSwapOutcome, ReadOnly> {
        Err(ReadOnly)
    }
}

pub fn open(args: &Map<String, Value>) -> OpResult {
    let ring = keyring(args)?;
    let data = record_of(args.get("record").unwrap_or(&Value::Null))?;
    let backend_revision = match data {
        Some(_) => Some(u64_of(args.get("backend_revision"))?),
        None => None,
    };
    let floor = u64_of(args.get("floor"))?;
    let namespace = str_arg(args, "namespace")?;
    let name = str_arg(args, "name")?;
    Ok(answer((|| {
        let record_key = record_key(namespace, name)?;
        let record = match (data, backend_revision) {
            (Some(data), Some(revision)) => Some(StoredRecord::new(revision?, data)),
            _ => None,
        };
        let snapshot = StorageSnapshot::new(record, floor?);
        let store = AuthenticatedStore::new(Fixture(snapshot), ring?);
        let opened = store.load(&record_key).map_err(|e| failed(store_code(&e), &e))?;
        Ok(record_result(opened.as_ref()))
    })()))
}

// --- storage.trace -----------------------------------------------------------------------

struct Trace {
    store: AuthenticatedStore<VolatileMemoryStore>,
    namespace: String,
    name: String,
    saved: BTreeMap<String, Option<StoredRecord>>,
}

impl Trace {
    fn step(&mut self, step: &Map<String, Value>) -> Result<Result<Value, Failure>, BadRequest> {
        let op = str_arg(step, "op")?;
        let namespace = step.get("namespace").and_then(Value::as_str).unwrap_or(&self.namespace).to_owned();
        let name = step.get("name").and_then(Value::as_str).unwrap_or(&self.name).to_owned();
        let expected = match step.get("expected") {
            None | Some(Value::Null) => Ok(None),
            Some(value) => u64_of(Some(value))?.map(Some),
        };
        let payload = if step.contains_key("payload_hex") || step.contains_key("payload_fill") {
            Some(payload_of(step)?)
        } else {
            None
        };
        let fence = match step.get("fence") {
            None => None,
            Some(value) => Some(u64_of(Some(value))?),
        };
        let token = match step.get("token") {
            None => None,
            Some(value) => Some(u64_of(Some(value))?),
        };
        let new_key = match step.get("key_hex").and_then(Value::as_str) {
            Some(key_hex) => Some(storage_key(key_hex)?),
            None => None,
        };
        let label = step.get("label").and_then(Value::as_str).map(str::to_owned);
        let new_key_id = step.get("key_id").and_then(Value::as_str).map(str::to_owned);
        let store = &mut self.store;
        let saved = &mut self.saved;
        Ok((|| {
            let key = record_key(&namespace, &name)?;
            let code = |e: AuthenticatedStoreError<_>| failed(store_code(&e), &e);
            let written = |record: AuthenticatedRecord| {
                json!({"revision": record.revision(), "key_id": record.key_id().as_str()})
            };
            let payload = || payload.clone().ok_or_else(|| Failure::Code("bad_request".into(), Map::new()));
            Ok(match op {
                "create" => written(store.create(&key, &payload()?).map_err(code)?),
                "replace" => {
                    let expected = expected?.ok_or_else(|| Failure::Code("bad_request".into(), Map::new()))?;
                    written(store.replace(&key, expected, &payload()?).map_err(code)?)
                }
                "cas" => {
                    let expected = expected?;
                    match fence {
                        Some(fence) => written(
                            store.compare_and_swap_fenced(&key, expected, &payload()?, fence?).map_err(code)?,
                        ),
                        None => written(store.compare_and_swap(&key, expected, &payload()?).map_err(code)?),
                    }
                }
                "load" => record_result(store.load(&key).map_err(code)?.as_ref()),
                "reserve_fence" => json!({"token": store.reserve_fence(&key).map_err(code)?}),
                "current_fence" => json!({"token": store.current_fence(&key).map_err(code)?}),
                "establish_fence" => {
                    let token = token.ok_or_else(|| Failure::Code("bad_request".into(), Map::new()))??;
                    store
                        .backend_mut()
                        .establish_fence(&key, token)
                        .map_err(|e| failed(backend_code(&variant_code(&e)), &e))?;
                    json!({})
                }
                "inspect" => {
                    let backend = store.backend();
                    let snapshot = backend.load(&key).map_err(|e| failed(variant_code(&e), &e))?;
                    let fence = backend.current_fence(&key).map_err(|e| failed(variant_code(&e), &e))?;
                    let mut body = json!({
                        "record_revision": snapshot.record().map(StoredRecord::revision),
                        "floor": snapshot.revision_floor(),
                        "fence": fence,
                    });
                    if let Some(record) = snapshot.record() {
                        let data = record.bytes();
                        if data.len() <= SHORT_RECORD && data.is_ascii() {
                            body["record_text"] = json!(String::from_utf8_lossy(data));
                        } else {
                            body["record_length"] = json!(data.len());
                            body["record_sha256"] = json!(hex_digest(data));
                        }
                    }
                    body
                }
                "save" => {
                    let snapshot = store.backend().load(&key).map_err(|e| failed(variant_code(&e), &e))?;
                    let label = label.ok_or_else(|| Failure::Code("bad_request".into(), Map::new()))?;
                    saved.insert(label, snapshot.record().cloned());
                    json!({})
                }
                "rotate_to" | "add_read_key" => {
                    let id = key_id(&new_key_id.ok_or_else(|| Failure::Code("bad_request".into(), Map::new()))?)?;
                    let new_key = new_key.ok_or_else(|| Failure::Code("bad_request".into(), Map::new()))??;
                    let ring = store.keyring_mut();
                    let done = if op == "rotate_to" { ring.rotate_to(id, new_key) } else { ring.add_read_key(id, new_key) };
                    done.map_err(|e| failed(keyring_code(&e), &e))?;
                    keyring_result(store.keyring())
                }
                "retire" => {
                    let id = key_id(&new_key_id.ok_or_else(|| Failure::Code("bad_request".into(), Map::new()))?)?;
                    store.keyring_mut().retire(&id).map_err(|e| failed(keyring_code(&e), &e))?;
                    keyring_result(store.keyring())
                }
                "restore" | "copy_record" | "delete_record" | "set_record" | "set_floor"
                | "set_fence" | "edit_field" | "plant" => return Err(Failure::Unsupported(INJECTION)),
                _ => return Err(Failure::Code("bad_request".into(), Map::new())),
            })
        })())
    }
}

pub fn trace(args: &Map<String, Value>) -> OpResult {
    let ring = match keyring(args)? {
        Ok(ring) => ring,
        Err(failure) => return Ok(answer(Err(failure))),
    };
    let mut trace = Trace {
        store: AuthenticatedStore::new(VolatileMemoryStore::default(), ring),
        namespace: str_arg(args, "namespace")?.to_owned(),
        name: str_arg(args, "name")?.to_owned(),
        saved: BTreeMap::new(),
    };
    let steps = args.get("steps").and_then(Value::as_array).ok_or_else(|| bad("steps is not a list"))?;
    let mut outcomes = Vec::new();
    for step in steps {
        let step = step.as_object().ok_or_else(|| bad("a step is an object"))?;
        match trace.step(step)? {
            Ok(result) => outcomes.push(json!({"ok": result})),
            Err(Failure::Code(code, _)) if code == "bad_request" => return Err(bad("a step lacks an argument")),
            Err(Failure::Code(code, details)) => {
                outcomes.push(json!({"error": code, "details": details, "definite": true}))
            }
            Err(Failure::Unsupported(reason)) => {
                outcomes.push(json!({"unsupported": reason}));
                break;
            }
        }
    }
    Ok(Answer::Ok(json!({"steps": outcomes})))
}
