//! The Jupyter protocol server: a fork of evcxr_jupyter 0.22.0's (`core`,
//! `connection`, `control_file`, `jupyter_message`; Apache-2.0 or MIT, see
//! `LICENSE`), changed where puzzlebook's kernel needs hooks it does not offer.
//!
//! puzzlebook's additions live in modules of our own beside this folder,
//! [`super::extension`], [`super::loading`] and [`super::output_ends`]; the upstream files call them from one-line hooks marked
//! `puzzlebook:`, so that moving to a newer evcxr_jupyter is a rebase. They:
//! - load the crate (`:load_config`, which builds z3, polars and puzzlebook
//!   in a cold slot) while the kernel already answers `kernel_info_request`,
//!   so Jupyter's 60-second start-up timeout holds (a cold build folder is
//!   first given a warm one's build, on that thread);
//! - make a cell that arrives before the load is done wait with progress as
//!   stream output, and let an interrupt stop the wait;
//! - answer completion and inspection empty while the load holds the engine;
//! - name a variable that holds a Z3 value when the set of such variables
//!   changes, and repeat it on a later cell's SIGSEGV, as the runner does
//!   ([`crate::engine::hints`]);
//! - number cells from 1 (evcxr_jupyter's first result said 2);
//! - check a message's signature before anything in it is parsed, so that no
//!   bytes on a socket can panic the kernel ([`crate::kernel::wire`]);
//! - keep the engine's lock through a panic in a request that held it, and
//!   fail that cell alone ([`crate::kernel::locks`]);
//! - give a cell whose `?` returned an error an error reply, so nbconvert
//!   stops there ([`crate::engine::cell_process`] marks it);
//! - send a cell's result and reply only after everything it printed on
//!   both streams ([`super::output_ends`]): evcxr_jupyter let a line come after
//!   the reply, which Jupyter drops;
//! - after a cell ends the process that runs cells (a crash, an abort, the
//!   memory limit), run the session's earlier cells again in the new one,
//!   their output muted, and say so in the cell ([`crate::kernel::replay`]).
//! - answer `is_complete_request`, `history_request`, `comm_info_request`
//!   and any request it does not serve, where upstream said nothing
//!   ([`crate::kernel::requests`]), and give an error reply the `ename`,
//!   `evalue` and `traceback` the spec requires ([`crate::kernel::outgoing`]);
//! - stop a cell stuck in Z3 through Z3's own Ctrl-C handling, keeping the process
//!   and the session's variables, and end the process only for a cell stuck
//!   elsewhere.

// Kept in upstream's formatting, so that each hook stays one line and a diff
// against evcxr_jupyter shows only the hooks; the crate root re-exports
// these modules, so their `crate::connection` paths are upstream's too.
#[rustfmt::skip]
pub(crate) mod connection;
#[rustfmt::skip]
pub(crate) mod control_file;
#[rustfmt::skip]
mod core;
#[rustfmt::skip]
pub(crate) mod jupyter_message;

/// Serves the kernel on the connection file `control_file` until Jupyter
/// shuts it down; `before_load` runs on the loading thread, while the kernel
/// already answers, before the crate is loaded; `before_dep` runs before each
/// cell that has a `:dep` command.
pub fn run(
    control_file: &std::path::Path,
    before_load: impl FnOnce() + Send + 'static,
    before_dep: impl Fn() + Send + Sync + 'static,
) -> anyhow::Result<()> {
    let config = control_file::Control::parse_file(&control_file.to_string_lossy())?;
    let hooks = super::extension::Hooks {
        before_load: Box::new(before_load),
        before_dep: std::sync::Arc::new(before_dep),
    };
    core::Server::run(&config, hooks)
}

/// The fork stays upstream plus one-line hooks: each forked file against
/// evcxr_jupyter 0.22.0's own (`upstream/`), line by line, whitespace aside.
#[cfg(test)]
mod fork {
    use similar::{ChangeTag, DiffOp, TextDiff};

    /// The lines of `ours` that differ from `base`: (removed, added).
    fn changes(base: &str, ours: &str) -> (Vec<String>, Vec<String>) {
        let norm = |s: &str| {
            s.lines()
                .map(|l| l.trim().to_string() + "\n")
                .collect::<String>()
        };
        let (base, ours) = (norm(base), norm(ours));
        let diff = TextDiff::from_lines(&base, &ours);
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        for change in diff.iter_all_changes() {
            let line = change.value().trim_end().to_string();
            match change.tag() {
                ChangeTag::Delete => removed.push(line),
                ChangeTag::Insert => added.push(line),
                ChangeTag::Equal => {}
            }
        }
        (removed, added)
    }

    /// The changed regions of `ours` against `base` (whitespace aside) with
    /// no `puzzlebook` mark on or within three lines of them in `ours` (a
    /// removal has no line of its own to carry one); a region that only
    /// removes `use` lines (an import the change made unused) needs none.
    fn unmarked_regions(base: &str, ours: &str) -> Vec<String> {
        let norm = |s: &str| s.lines().map(|l| l.trim().to_string()).collect::<Vec<_>>();
        let (base, ours) = (norm(base), norm(ours));
        let diff = similar::capture_diff_slices(similar::Algorithm::Patience, &base, &ours);
        let mut out = Vec::new();
        for op in diff {
            let (old, new) = match op {
                DiffOp::Equal { .. } => continue,
                DiffOp::Delete {
                    old_index,
                    old_len,
                    new_index,
                } => (old_index..old_index + old_len, new_index..new_index),
                DiffOp::Insert {
                    old_index,
                    new_index,
                    new_len,
                } => (old_index..old_index, new_index..new_index + new_len),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => (
                    old_index..old_index + old_len,
                    new_index..new_index + new_len,
                ),
            };
            let near = new.start.saturating_sub(3)..(new.end + 3).min(ours.len());
            let marked = ours[near].iter().any(|l| l.contains("puzzlebook"));
            let unused_import =
                new.is_empty() && base[old.clone()].iter().all(|l| l.starts_with("use "));
            if !marked && !unused_import {
                out.push(format!("- {:?}\n+ {:?}", &base[old], &ours[new]));
            }
        }
        out
    }

    #[test]
    fn jupyter_message_changes_only_where_marked() {
        let base = include_str!("upstream/jupyter_message.rs.orig");
        let ours = include_str!("jupyter_message.rs");
        assert_eq!(unmarked_regions(base, ours), Vec::<String>::new());
        // Its two rewritten functions are the whole of the change.
        let (removed, added) = changes(base, ours);
        assert!(removed.len() + added.len() <= 70, "{removed:#?} {added:#?}");
    }

    #[test]
    fn core_is_upstream_plus_marked_one_line_hooks() {
        let (removed, added) = changes(
            include_str!("upstream/core.rs.orig"),
            include_str!("core.rs"),
        );
        let unmarked: Vec<_> = added.iter().filter(|l| !l.contains("puzzlebook")).collect();
        assert!(
            unmarked.is_empty(),
            "lines added to core.rs without a `puzzlebook:` mark: {unmarked:#?}"
        );
        assert_eq!(
            unmarked_regions(
                include_str!("upstream/core.rs.orig"),
                include_str!("core.rs")
            ),
            Vec::<String>::new()
        );
        let total = removed.len() + added.len();
        assert!(total <= 50, "core.rs differs from upstream by {total} lines (at most 50): removed {removed:#?}, added {added:#?}");
    }

    #[test]
    fn control_file_is_upstream_s_and_connection_has_three_marked_hooks() {
        let (base, ours) = (
            include_str!("upstream/control_file.rs.orig"),
            include_str!("control_file.rs"),
        );
        assert_eq!(changes(base, ours), (vec![], vec![]), "control_file.rs");
        // `send` drops a reply for a client that has gone, and `recv`
        // receives past one, each poll in place ([`crate::kernel::gone_clients`],
        // [`crate::kernel::recv_in_place`]): one line each, and the select's.
        let (base, ours) = (
            include_str!("upstream/connection.rs.orig"),
            include_str!("connection.rs"),
        );
        assert_eq!(unmarked_regions(base, ours), Vec::<String>::new());
        let (removed, added) = changes(base, ours);
        assert_eq!(
            (removed.len(), added.len()),
            (3, 3),
            "{removed:#?} {added:#?}"
        );
    }

    #[test]
    fn the_diff_sees_a_change() {
        let (removed, added) = changes("a\n  b\nc\n", "a\nb\nx // puzzlebook\nc\n");
        assert_eq!(
            (removed, added),
            (vec![], vec!["x // puzzlebook".to_string()])
        );
        assert!(unmarked_regions("a\nb\nc\n", "a\nx // puzzlebook\ny\nc\n").is_empty());
        assert_eq!(unmarked_regions("use a;\nb\n", "b\n"), Vec::<String>::new());
        let far = "1\n2\n3\n4\n5\n6\n7\n8\n";
        assert_eq!(unmarked_regions(far, &far.replace('7', "x")).len(), 1);
        assert_eq!(unmarked_regions(far, &far.replace("7\n", "")).len(), 1);
        assert!(
            unmarked_regions(far, &far.replace('5', "5 // puzzlebook").replace('7', "x"))
                .is_empty()
        );
    }
}
