//! Capability `grants`: decoding, validation, encoding, fingerprints and attenuation of
//! grants and manifests, all through `splash_protocol`'s public types and their serde forms.

use serde_json::{json, Map, Value};
use splash_protocol::{
    CapabilityGrant, CapabilityManifest, GrantAttenuation, ManifestAttenuation,
    OperationCompensationBinding, ResourceKind, ResourceSelector,
};

use crate::codes;
use crate::text::{bad, str_arg, text_arg};
use crate::{Answer, OpResult};

/// A valid 64-hex grant fingerprint and compensation key used as the fixed other fields of
/// an `OperationCompensationBinding` when only one of its fields is under test.
const SOME_FINGERPRINT: &str = "0000000000000000000000000000000000000000000000000000000000000000";
const SOME_COMPENSATION_KEY: &str = "cmp-x";

/// serde_json's decoding of one of upstream's public types (the driver names no serde
/// trait itself, so these are macros).
macro_rules! decode {
    ($ty:ty, $text:expr) => {
        serde_json::from_str::<$ty>($text).map_err(|_| Answer::error("serialization"))
    };
}
macro_rules! encode {
    ($value:expr) => {
        serde_json::to_string($value).map_err(|_| Answer::error("serialization"))
    };
}

fn grant_result(grant: &CapabilityGrant) -> Result<Value, Answer> {
    let fingerprint = grant.compensation_fingerprint().map_err(|e| codes::protocol(&e))?;
    Ok(json!({"encoded": encode!(grant)?, "fingerprint": fingerprint}))
}

fn kind_of(name: &str) -> Option<ResourceKind> {
    serde_json::from_value(Value::String(name.to_owned())).ok()
}

pub fn run(operation: &str, args: &Map<String, Value>) -> OpResult {
    let answer = match operation {
        "grant" => {
            let text = text_arg(args, "grant")?;
            (|| grant_result(&decode!(CapabilityGrant, &text)?))()
        }
        "grant_attenuate" => {
            let text = text_arg(args, "grant")?;
            let steps = args
                .get("attenuations")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("attenuations is not a list"))?;
            let steps: Vec<String> = steps.iter().map(crate::text::text_of).collect::<Result<_, _>>()?;
            (|| {
                let mut grant = decode!(CapabilityGrant, &text)?;
                for step in &steps {
                    let attenuation = decode!(GrantAttenuation, step)?;
                    grant = grant.attenuate(&attenuation).map_err(|e| codes::protocol(&e))?;
                }
                grant_result(&grant)
            })()
        }
        "grant_attenuation_json" => {
            let text = text_arg(args, "attenuation")?;
            (|| Ok(json!({"normalized": encode!(&decode!(GrantAttenuation, &text)?)?})))()
        }
        "manifest_attenuation_json" => {
            let text = text_arg(args, "attenuation")?;
            (|| Ok(json!({"normalized": encode!(&decode!(ManifestAttenuation, &text)?)?})))()
        }
        "manifest" => {
            let text = text_arg(args, "manifest")?;
            (|| {
                let manifest = decode!(CapabilityManifest, &text)?;
                manifest.validate().map_err(|e| codes::protocol(&e))?;
                Ok(json!({"manifest": encode!(&manifest)?}))
            })()
        }
        "manifest_attenuate" => {
            let parent = text_arg(args, "manifest")?;
            let attenuation = text_arg(args, "attenuation")?;
            (|| {
                let parent = decode!(CapabilityManifest, &parent)?;
                let attenuation = decode!(ManifestAttenuation, &attenuation)?;
                let child = parent.attenuate(&attenuation).map_err(|e| codes::protocol(&e))?;
                let tools: Vec<&str> = child.grants.iter().map(|g| g.tool.as_str()).collect();
                Ok(json!({"manifest": encode!(&child)?, "tools": tools}))
            })()
        }
        "resource_selector" => {
            let kind = str_arg(args, "kind")?;
            let id = str_arg(args, "id")?;
            let kind = kind_of(kind).ok_or_else(|| bad("unknown resource kind"))?;
            (|| {
                let selector = ResourceSelector::new(kind, id).map_err(|e| codes::protocol(&e))?;
                Ok(json!({"resource": encode!(&selector)?}))
            })()
        }
        // Upstream's checks of a compensation key and of a grant fingerprint string are
        // private functions; their public path is `OperationCompensationBinding::new`, which
        // checks tool, operation key, compensation key, tenant scope and grant fingerprint in
        // that order. With every other field valid, only the field under test can fail.
        "compensation_key" => {
            let value = str_arg(args, "value")?;
            (|| {
                OperationCompensationBinding::new("t", "k", value, "s", SOME_FINGERPRINT)
                    .map_err(|e| codes::protocol(&e))?;
                Ok(json!({"value": value}))
            })()
        }
        "grant_fingerprint_string" => {
            let value = str_arg(args, "value")?;
            (|| {
                OperationCompensationBinding::new("t", "k", SOME_COMPENSATION_KEY, "s", value)
                    .map_err(|e| codes::protocol(&e))?;
                Ok(json!({"value": value}))
            })()
        }
        _ => return Ok(Answer::unsupported(format!("grants.{operation} is not a grants operation"))),
    };
    Ok(answer.map_or_else(|failure| failure, Answer::Ok))
}
