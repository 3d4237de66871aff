//! `puzzlebook bench`: measure the solvers and the runner side by side.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use puzzlebook_cli::bench::{self, Group};

use super::Exit;

/// Arguments of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Groups to run (default: all).
    #[arg(long = "only", value_enum)]
    only: Vec<Group>,
    /// Runs per case for the small cases.
    #[arg(long, default_value_t = 10)]
    repeat: usize,
    /// Take every N-th of the 1820 multisets in the 24 group (1: all).
    #[arg(long, default_value_t = 1)]
    stride: usize,
    /// Submissions in the grade group's class.
    #[arg(long, default_value_t = 30)]
    class: usize,
    /// The puzzlebook checkout, for the report group.
    #[arg(long, default_value = ".")]
    root: PathBuf,
}

/// Runs the groups and prints the Markdown table.
pub fn execute(a: BenchArgs) -> anyhow::Result<Exit> {
    let groups = Group::ALL
        .into_iter()
        .filter(|g| a.only.is_empty() || a.only.contains(g))
        .collect();
    let options = bench::Options {
        groups,
        repeat: a.repeat,
        stride: a.stride,
        class: a.class.max(1),
        binary: std::env::current_exe().context("finding this binary's path")?,
        root: a.root,
    };
    let rows = bench::run(&options, |g| eprintln!("bench: {g:?}…"))?;
    let build = if cfg!(debug_assertions) {
        "the dev profile (the library and rust-analyzer's core at opt-level 3, other dependencies at 1)"
    } else {
        "an optimised profile without debug assertions"
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    puzzlebook_cli::outln!("Built with {build}; {cores} cores.\n");
    puzzlebook_cli::out!("{}", bench::table(&rows).to_markdown());
    Ok(Exit::Ok)
}
