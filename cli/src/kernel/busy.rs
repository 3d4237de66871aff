//! What the kernel answers while the crate's load or a cell holds the
//! engine, and after a load that failed: no check, no completions and no
//! documentation, at once, rather than hold up the shell channel (the forked
//! `core.rs` calls these from its `puzzlebook:` hooks).

use serde_json::Value;

use super::locks::try_lock;
use super::Engine;

/// `cargo check`'s problems with `code`, or none while the engine is busy.
pub fn check(engine: &Engine, code: &str) -> Vec<evcxr::CompilationError> {
    match try_lock(engine) {
        Some(mut engine) => engine.check(code).unwrap_or_default(),
        None => Vec::new(),
    }
}

/// The engine for a completion or hover: none while the load or a cell
/// holds it, nor before the crate has loaded ([`super::loading::loaded`]),
/// since rust-analyzer may have no crate yet.
pub fn idle_engine(engine: &Engine) -> Option<std::sync::MutexGuard<'_, evcxr::CommandContext>> {
    if !super::loading::loaded() {
        return None;
    }
    try_lock(engine)
}

/// A `complete_reply` with no matches at `cursor`.
pub fn no_completions(cursor: usize) -> Value {
    object! {
        "status" => "ok",
        "matches" => array![],
        "cursor_start" => cursor,
        "cursor_end" => cursor,
        "metadata" => object!{},
    }
}

/// An `inspect_reply` that found nothing.
pub fn no_hover() -> Value {
    object! {
        "status"   => "ok",
        "found"    => false,
        "data"     => object!{},
        "metadata" => object!{},
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_replies_are_valid_and_empty() {
        let c = no_completions(7);
        assert_eq!(c["status"], "ok");
        assert_eq!(c["matches"], serde_json::json!([]));
        assert_eq!(
            (c["cursor_start"].as_u64(), c["cursor_end"].as_u64()),
            (Some(7), Some(7))
        );
        let h = no_hover();
        assert_eq!(
            (h["status"].as_str(), h["found"].as_bool()),
            (Some("ok"), Some(false))
        );
    }
}
