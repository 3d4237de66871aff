//! puzzlebook's additions to evcxr (PUZZLEBOOK.md): how a context starts.

/// Set (to anything) in the environment of a process whose evcxr contexts
/// start without evcxr's own first cell (`42`) and with `?` allowed in the
/// first cell. Every engine puzzlebook starts sets it (its runner's, its
/// kernel's and the kernel's install build); the kernel answers no
/// completion before its crate has loaded, which is what upstream's `42` is
/// there for.
pub const QUICK_START_VAR: &str = "PUZZLEBOOK_EVCXR_QUICK_START";

/// Whether a context starting now skips its first cell; if so, it allows
/// `?` (`allow_question_mark`) from the start.
pub(crate) fn quick_start(allow_question_mark: &mut bool) -> bool {
    let quick = std::env::var_os(QUICK_START_VAR).is_some();
    *allow_question_mark |= quick;
    quick
}

/// Upstream tries `lld`, when it is on the path, with its `42`, and falls
/// back to the system linker if that fails. A context that skipped the `42`
/// has not tried it, so it uses the system linker (rustc's own choice)
/// rather than fail every cell on a machine with a broken `lld`.
pub(crate) fn untried_lld(state: &mut crate::eval_context::ContextState) {
    if state.linker() == "lld" {
        state.set_linker("system".to_owned());
    }
}
