//! Capability `storage`: record tags, envelope opening, CAS and fencing traces.

use serde_json::{Map, Value};

use crate::{Answer, OpResult};

pub fn tag(_args: &Map<String, Value>) -> OpResult {
    Ok(Answer::unsupported("not implemented yet"))
}

pub fn open(_args: &Map<String, Value>) -> OpResult {
    Ok(Answer::unsupported("not implemented yet"))
}

pub fn trace(_args: &Map<String, Value>) -> OpResult {
    Ok(Answer::unsupported("not implemented yet"))
}
