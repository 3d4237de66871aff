//! puzzlebook's additions to evcxr (PUZZLEBOOK.md): how a context starts.

/// Set (to anything) in the environment of a process whose evcxr contexts
/// start without evcxr's own first cell (`42`) and with `?` allowed in the
/// first cell. puzzlebook's runner sets it; its kernel, which asks for
/// completions, does not.
pub const QUICK_START_VAR: &str = "PUZZLEBOOK_EVCXR_QUICK_START";

/// Whether a context starting now skips its first cell; if so, it allows
/// `?` (`allow_question_mark`) from the start.
pub(crate) fn quick_start(allow_question_mark: &mut bool) -> bool {
    let quick = std::env::var_os(QUICK_START_VAR).is_some();
    *allow_question_mark |= quick;
    quick
}
