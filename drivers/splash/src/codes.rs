//! Error codes: the snake_case of upstream's error variant name (docs/driver-protocol.md).

use std::fmt::Debug;

use splash_protocol::{PrivatePipeWorkerBootstrapError, ProtocolError};

use crate::Answer;

/// `InvalidToken { .. }` -> `invalid_token`: the variant name read from the derived Debug
/// form of a public error enum, then written in snake_case.
pub fn variant_code(error: &impl Debug) -> String {
    let debug = format!("{error:?}");
    let name: String = debug
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if name == "Serialization" {
        // serde_json's own message, for the log only (the reply carries the code).
        eprintln!("rescind-splash-driver: {debug}");
    }
    snake(&name)
}

pub fn snake(name: &str) -> String {
    let mut code = String::with_capacity(name.len() + 4);
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 {
                code.push('_');
            }
            code.push(c.to_ascii_lowercase());
        } else {
            code.push(c);
        }
    }
    code
}

pub fn protocol(error: &ProtocolError) -> Answer {
    Answer::error(variant_code(error))
}

/// The bootstrap reader's errors, named as docs/spec/frames.md names them (FR-14).
pub fn bootstrap(error: &PrivatePipeWorkerBootstrapError) -> Answer {
    match error {
        PrivatePipeWorkerBootstrapError::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            Answer::error("bootstrap_truncated")
        }
        PrivatePipeWorkerBootstrapError::Io(_) => Answer::error("io"),
        PrivatePipeWorkerBootstrapError::InvalidMagic => Answer::error("invalid_bootstrap_magic"),
        PrivatePipeWorkerBootstrapError::UnsupportedVersion(_) => {
            Answer::error("unsupported_bootstrap_version")
        }
        PrivatePipeWorkerBootstrapError::InvalidSessionIdLength { .. } => {
            Answer::error("invalid_session_id_length")
        }
        PrivatePipeWorkerBootstrapError::InvalidSessionIdEncoding => {
            Answer::error("invalid_session_id_encoding")
        }
        PrivatePipeWorkerBootstrapError::Protocol(inner) => protocol(inner),
    }
}
