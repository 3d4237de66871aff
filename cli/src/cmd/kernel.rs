//! `puzzlebook kernel install|uninstall`: the Jupyter kernelspec.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use puzzlebook_cli::kernel::serve;
use puzzlebook_cli::kernel::spec::{self, KernelSpec, Location};

use super::Exit;

/// The kernel subcommands.
#[derive(Debug, Subcommand)]
pub enum KernelCommand {
    /// Write the kernelspec: this binary as an evcxr kernel with the crate
    /// loaded and its prelude imported.
    Install {
        #[command(flatten)]
        location: LocationArgs,
        /// The puzzlebook checkout the kernel loads.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Do not build the kernel's first build folder now; its first start
        /// in Jupyter then builds z3, polars and puzzlebook (minutes, once).
        #[arg(long)]
        no_build: bool,
        /// The memory the kernel's cells may hold, such as 4G, or off; a cell
        /// that allocates past it is stopped with a message naming the limit.
        /// Default: half of the machine's memory, as for `run`.
        #[arg(long, value_name = "SIZE", value_parser = check_memory)]
        cell_memory: Option<String>,
    },
    /// Remove the kernelspec `install` wrote.
    Uninstall {
        #[command(flatten)]
        location: LocationArgs,
    },
}

/// A `--cell-memory` size, checked and kept as written for kernel.json.
fn check_memory(text: &str) -> Result<String, String> {
    puzzlebook_cli::limits::parse_memory(text).map(|_| text.trim().to_string())
}

/// Where the kernelspec goes.
#[derive(Debug, Args)]
pub struct LocationArgs {
    /// In your Jupyter data folder (the default).
    #[arg(long, conflicts_with = "prefix")]
    user: bool,
    /// In DIR/share/jupyter/kernels, e.g. a virtual environment's folder.
    #[arg(long, value_name = "DIR")]
    prefix: Option<PathBuf>,
}

impl LocationArgs {
    fn kernels_dir(&self) -> anyhow::Result<PathBuf> {
        let location = match &self.prefix {
            Some(p) => Location::Prefix(p.clone()),
            None => Location::User,
        };
        Ok(location.kernels_dir(|k| std::env::var(k).ok())?)
    }
}

/// Installs or removes the kernelspec.
pub fn execute(k: KernelCommand) -> anyhow::Result<Exit> {
    match k {
        KernelCommand::Install {
            location,
            root,
            no_build,
            cell_memory,
        } => {
            let exe = std::env::current_exe().context("finding this binary's path")?;
            let spec = KernelSpec {
                cell_memory,
                ..KernelSpec::new(exe, &root)?
            };
            let kernels = location.kernels_dir()?;
            let dir = spec
                .install(&kernels)
                .with_context(|| format!("installing the kernel into {}", kernels.display()))?;
            puzzlebook_cli::outln!(
                "Installed the Jupyter kernel {:?} in {}\n\
                 It runs {} and loads the crate at {}.\n\
                 Open the notebooks with `jupyter notebook notebooks/` (or `jupyter lab`); they name this kernel, so Jupyter starts it.",
                spec::DISPLAY_NAME,
                dir.display(),
                spec.exe.display(),
                spec.crate_dir.display(),
            );
            if no_build {
                puzzlebook_cli::outln!(
                    "Not built (--no-build): the kernel's first start builds z3, polars and \
                     puzzlebook while Jupyter waits for its first cell (minutes, once)."
                );
            } else {
                // Before the spinner's thread: this sets environment variables.
                let prepared =
                    serve::Prepared::new(&dir.join(spec::CONFIG_FOLDER), &spec.crate_dir).context(
                        "preparing the kernel's first build folder (skip it with --no-build)",
                    )?;
                let spinner = indicatif::ProgressBar::with_draw_target(
                    None,
                    indicatif::ProgressDrawTarget::stderr(),
                );
                spinner.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                        .expect("a valid template"),
                );
                spinner.enable_steady_tick(std::time::Duration::from_millis(200));
                spinner.set_message(
                    "building z3, polars and puzzlebook for the kernel (once; about 80 s on two \
                     cores when nothing is built yet)",
                );
                let slot = prepared.build().context(
                    "building the kernel's first build folder (skip it with --no-build)",
                )?;
                spinner.finish_and_clear();
                puzzlebook_cli::outln!(
                    "Built the kernel's first build folder {} in {:.0} s: its first start is warm.",
                    slot.display(),
                    spinner.elapsed().as_secs_f64()
                );
            }
        }
        KernelCommand::Uninstall { location } => {
            let dir = spec::uninstall(&location.kernels_dir()?)?;
            puzzlebook_cli::outln!("Removed the Jupyter kernel at {}", dir.display());
        }
    }
    Ok(Exit::Ok)
}
