//! `puzzlebook kernel install|uninstall`: the Jupyter kernelspec.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, Subcommand};
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
    },
    /// Remove the kernelspec `install` wrote.
    Uninstall {
        #[command(flatten)]
        location: LocationArgs,
    },
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
        KernelCommand::Install { location, root } => {
            let exe = std::env::current_exe().context("finding this binary's path")?;
            let spec = KernelSpec::new(exe, &root)?;
            let kernels = location.kernels_dir()?;
            let dir = spec
                .install(&kernels)
                .with_context(|| format!("installing the kernel into {}", kernels.display()))?;
            println!(
                "Installed the Jupyter kernel {:?} in {}\n\
                 It runs {} and loads the crate at {}.\n\
                 Open the notebooks with `jupyter notebook notebooks/` (or `jupyter lab`) and pick that kernel.\n\
                 Its first start on a machine compiles z3 and polars, a few minutes; later starts reuse that build.",
                spec::DISPLAY_NAME,
                dir.display(),
                spec.exe.display(),
                spec.crate_dir.display(),
            );
        }
        KernelCommand::Uninstall { location } => {
            let dir = spec::uninstall(&location.kernels_dir()?)?;
            println!("Removed the Jupyter kernel at {}", dir.display());
        }
    }
    Ok(Exit::Ok)
}
