//! `exercises release --kit`: a folder a student uses alone, with the
//! released notebooks under `notebooks/` and the crate they load beside
//! them, and nothing of the teacher's; no line of a solution or a hidden
//! test may be in it, which is checked before anything is written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::release::{self, Prepared, ReleaseError, Written};
use crate::course::release::release as release_notebook;
use crate::notebook::io::{self, IoError};
use crate::notebook::nbgrader;
use crate::runner::hash::{library_files, LIBRARY_PACKAGES};

/// The kit's README starts with this line, which marks a folder as a kit
/// that a later release may write over.
pub const KIT_MARK: &str =
    "<!-- puzzlebook student kit: `puzzlebook exercises release --kit` writes this folder -->";

/// A line of a solution or a hidden test this long or longer (trimmed) must
/// not be in the kit, unless the released notebooks show it anyway; a
/// shorter one (`let mut out = Vec::new();`, `}`) says nothing of an answer.
pub const MIN_SECRET_LINE: usize = 30;

/// Why no kit was written.
#[derive(Debug, Error)]
pub enum KitError {
    /// The notebooks cannot be released.
    #[error(transparent)]
    Release(#[from] ReleaseError),
    /// A file problem.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The crate's files cannot be read.
    #[error("cannot read the crate in {root}: {source}; pass --root with the puzzlebook checkout")]
    Crate {
        /// The checkout.
        root: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// One of the crate's files cannot be read as text.
    #[error("cannot read {path} for the kit: {source}; the kit copies every file under the crate's src/ folders as text, so move that file out of them")]
    CrateFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The checkout's manifest is not what the kit can rewrite.
    #[error("{path}: {why}")]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The folder holds another project, which the kit would overwrite.
    #[error("--out {out} holds a Cargo.toml and is not a student kit (its README.md has no kit mark); the kit would overwrite that project; choose another folder")]
    NotAKit {
        /// The folder.
        out: PathBuf,
    },
    /// A kit file holds a line of a solution or a hidden test.
    #[error("{file}, line {line}, is a line of the {what} of exercise cell {cell} in {notebook}: `{text}`; the kit would give it away to students. Rewrite the exercise, or that file, so that they differ")]
    Leak {
        /// The kit's file, relative to the kit.
        file: String,
        /// Its line, counted from 1.
        line: usize,
        /// "solution" or "hidden tests".
        what: &'static str,
        /// The exercise cell's `grade_id`.
        cell: String,
        /// The teacher's notebook.
        notebook: PathBuf,
        /// The line.
        text: String,
    },
}

/// Where a secret line comes from.
#[derive(Debug, Clone)]
struct Secret {
    what: &'static str,
    cell: String,
    notebook: PathBuf,
}

/// Writes the kit of `notebooks` (teacher notebooks) into `out`, with the
/// crate of the checkout `root`; with `pages`, the student edition of the
/// book beside the notebooks. `written` hears of each file as it is written.
pub fn kit(
    root: &Path,
    notebooks: &[PathBuf],
    out: &Path,
    pages: bool,
    mut written: impl FnMut(&Written),
) -> Result<(), KitError> {
    let is_kit = std::fs::read_to_string(out.join("README.md"))
        .is_ok_and(|t| t.lines().next() == Some(KIT_MARK));
    if out.join("Cargo.toml").exists() && !is_kit {
        return Err(KitError::NotAKit {
            out: out.to_path_buf(),
        });
    }
    let notebooks_dir = out.join("notebooks");
    let prepared = release::prepare(notebooks, &notebooks_dir, pages)?;
    let files = crate_files(root)?;
    // Every chapter's secrets, not only the released ones': the crate
    // serves them all.
    let mut teacher = notebooks.to_vec();
    let chapters = root.join("notebooks");
    if chapters.is_dir() {
        teacher.extend(io::notebooks_in(&chapters)?);
    }
    let secrets = secret_lines(&teacher)?;
    check(&prepared, &files, &secrets)?;
    for (rel, text) in &files {
        let path = io::inside(out, rel)?;
        io::write_atomic(&path, text)?;
        written(&Written {
            path,
            exercises: None,
        });
    }
    release::write(&prepared, &notebooks_dir, written)?;
    Ok(())
}

/// The kit's files but the notebooks, relative to the kit: the library's
/// files ([`library_files`]) with the workspace narrowed to them, its
/// Cargo.lock, and the README.
fn crate_files(root: &Path) -> Result<Vec<(String, String)>, KitError> {
    let crate_err = |source| KitError::Crate {
        root: root.to_path_buf(),
        source,
    };
    let mut out = Vec::new();
    for rel in library_files(root).map_err(crate_err)? {
        let text = std::fs::read_to_string(root.join(&rel)).map_err(|e| KitError::CrateFile {
            path: root.join(&rel),
            source: e,
        })?;
        let name = rel.to_string_lossy().into_owned();
        let text = match name.as_str() {
            "Cargo.toml" => narrowed(&text).map_err(|why| KitError::Manifest {
                path: root.join("Cargo.toml"),
                why,
            })?,
            _ => text,
        };
        out.push((name, text));
    }
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).map_err(crate_err)?;
    out.push(("Cargo.lock".into(), lock));
    out.push(("README.md".into(), readme()));
    Ok(out)
}

/// The manifest with its workspace's members narrowed to the library's
/// packages, the only ones in the kit.
fn narrowed(manifest: &str) -> Result<String, String> {
    let packages: Vec<&str> = LIBRARY_PACKAGES
        .iter()
        .map(|p| if p.is_empty() { "." } else { p })
        .collect();
    let list = |names: &[&str]| {
        let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
        format!("[{}]", quoted.join(", "))
    };
    let mut seen = BTreeMap::new();
    let lines: Vec<String> = manifest
        .lines()
        .map(|line| {
            for (key, names) in [("members", &packages[..]), ("default-members", &["."][..])] {
                if line.starts_with(&format!("{key} = ")) {
                    *seen.entry(key).or_insert(0) += 1;
                    return format!("{key} = {}", list(names));
                }
            }
            line.to_string()
        })
        .collect();
    if seen.get("members") != Some(&1) || seen.get("default-members") != Some(&1) {
        return Err("the kit narrows the workspace to the library by rewriting one `members = […]` and one `default-members = […]` line of [workspace], and did not find them so".into());
    }
    let text = lines.join("\n") + "\n";
    let parsed: toml::Table =
        toml::from_str(&text).map_err(|e| format!("the narrowed manifest is not TOML: {e}"))?;
    let members = parsed
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .map(|m| m.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>());
    if members.as_deref() != Some(&packages[..]) {
        return Err(format!(
            "the narrowed manifest's workspace members are {members:?}, not {packages:?}"
        ));
    }
    Ok(text)
}

fn readme() -> String {
    format!(
        "{KIT_MARK}
# Exercises

This folder is what you need to do the exercises:

- `notebooks/`, the notebooks, each with its exercises left for you;
- the puzzlebook crate they load (`Cargo.toml`, `src/`, `z3-dylib/`, `polars-dylib/`).

It holds none of your teacher's notebooks: no line of a solution or of a hidden test.

## Open the notebooks in Jupyter

With the `puzzlebook` command (from your teacher), install its kernel with this folder's crate, then start JupyterLab:

    puzzlebook kernel install --root .
    jupyter lab notebooks/

The first start builds the crate, which takes a few minutes.

## Run a notebook from the command line

    puzzlebook run --root . notebooks/<notebook>.ipynb

It runs the cells in order, and stops at the first exercise you have not solved yet, naming it.

## Hand in

Write your answer where `puzzlebook::unsolved!()` stands, in each exercise's cell.
The test cell below it hands your answer in, and shows what it can before you do.
Hand in the notebook itself, as your teacher asks.
"
    )
}

/// Every line of a solution or a hidden test of `notebooks`: the lines of
/// each exercise cell that its release does not have, but for those that
/// one of their releases shows anyway (chapter 03 shows the line of its
/// `permutation` that 03-1's solution repeats, and the crate has it too).
fn secret_lines(notebooks: &[PathBuf]) -> Result<BTreeMap<String, Secret>, KitError> {
    let mut out = BTreeMap::new();
    let mut shown = std::collections::BTreeSet::new();
    for path in notebooks {
        let teacher = io::load_notebook(path)?;
        let exercises = |source| ReleaseError::Exercises {
            path: path.clone(),
            source,
        };
        let student = release_notebook(&teacher).map_err(exercises)?;
        shown.extend(
            student
                .cells
                .iter()
                .flat_map(|c| c.source.lines().map(|l| l.trim().to_string())),
        );
        // Positions count from 1.
        for (position, meta) in nbgrader::exercise_cells(&teacher).map_err(exercises)? {
            let i = position - 1;
            let kept: Vec<&str> = student
                .cells
                .get(i)
                .map(|c| c.source.lines().map(str::trim).collect())
                .unwrap_or_default();
            for line in teacher.cells[i].source.lines().map(str::trim) {
                if line.len() >= MIN_SECRET_LINE && !kept.contains(&line) {
                    out.entry(line.to_string()).or_insert_with(|| Secret {
                        what: if meta.solution {
                            "solution"
                        } else {
                            "hidden tests"
                        },
                        cell: meta.grade_id.clone(),
                        notebook: path.clone(),
                    });
                }
            }
        }
    }
    out.retain(|line, _| !shown.contains(line));
    Ok(out)
}

/// Refuses a kit one of whose files holds a secret line that the released
/// notebooks do not show.
fn check(
    prepared: &Prepared,
    files: &[(String, String)],
    secrets: &BTreeMap<String, Secret>,
) -> Result<(), KitError> {
    let shown: std::collections::BTreeSet<&str> = prepared
        .notebooks
        .iter()
        .flat_map(|(_, nb, _)| nb.cells.iter())
        .flat_map(|c| c.source.lines().map(str::trim))
        .collect();
    let hidden: Vec<(&String, &Secret, String)> = secrets
        .iter()
        .filter(|(secret, _)| !shown.contains(secret.as_str()))
        .map(|(secret, from)| {
            // As a notebook's JSON spells it, for the outputs and metadata.
            let json = serde_json::to_string(secret).unwrap_or_default();
            (secret, from, json.trim_matches('"').to_string())
        })
        .collect();
    let notebooks = prepared
        .notebooks
        .iter()
        .map(|(name, nb, _)| (format!("notebooks/{name}"), nb.to_json()));
    let pages = prepared
        .pages
        .iter()
        .map(|(rel, text)| (format!("notebooks/{rel}"), unescaped(text)));
    let all = files.iter().cloned().chain(notebooks).chain(pages);
    for (file, text) in all {
        for (n, line) in text.lines().enumerate() {
            let found = hidden.iter().find(|(secret, _, json)| {
                line.contains(secret.as_str()) || line.contains(json.as_str())
            });
            if let Some((secret, from, _)) = found {
                return Err(KitError::Leak {
                    file,
                    line: n + 1,
                    what: from.what,
                    cell: from.cell.clone(),
                    notebook: from.notebook.clone(),
                    text: (*secret).clone(),
                });
            }
        }
    }
    Ok(())
}

/// HTML text with the escapes the pages use undone, so a line of code on a
/// page reads as in the notebook.
fn unescaped(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::ipynb::Notebook;

    const MANIFEST: &str = "[workspace]\n# The members.\nmembers = [\".\", \"cli\", \"polars-dylib\", \"z3-dylib\"]\ndefault-members = [\".\", \"cli\"]\nresolver = \"2\"\n\n[package]\nname = \"puzzlebook\"\n";

    #[test]
    fn the_workspace_is_narrowed_to_the_library_and_the_rest_kept() {
        let text = narrowed(MANIFEST).unwrap();
        assert!(
            text.contains("members = [\".\", \"polars-dylib\", \"z3-dylib\"]\n"),
            "{text}"
        );
        assert!(text.contains("default-members = [\".\"]\n"), "{text}");
        assert!(!text.contains("cli"), "{text}");
        assert!(text.contains("# The members.\n") && text.contains("resolver = \"2\""));
        let without = MANIFEST.replace("default-members", "# default-members");
        assert!(narrowed(&without).unwrap_err().contains("default-members"));
    }

    fn secret(line: &str) -> BTreeMap<String, Secret> {
        BTreeMap::from([(
            line.to_string(),
            Secret {
                what: "solution",
                cell: "03-1".into(),
                notebook: PathBuf::from("notebooks/03.ipynb"),
            },
        )])
    }

    fn shown(source: &str, output: &str) -> Prepared {
        let json = serde_json::json!({
            "cells": [{"cell_type": "code", "metadata": {}, "execution_count": 1, "source": source,
                       "outputs": [{"output_type": "stream", "name": "stdout", "text": output}]}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5
        });
        Prepared {
            notebooks: vec![(
                "03.ipynb".into(),
                Notebook::parse(&json.to_string()).unwrap(),
                1,
            )],
            pages: Vec::new(),
        }
    }

    #[test]
    fn a_secret_line_in_a_crate_file_or_an_output_is_refused_unless_a_notebook_shows_it() {
        let line = "let wanted = values.iter().filter(|w| *w == v).count();";
        let files = vec![(
            "src/a.rs".to_string(),
            format!("fn f() {{\n    {line}\n}}\n"),
        )];
        let err = check(&shown("1 + 1", ""), &files, &secret(line)).unwrap_err();
        let said = err.to_string();
        assert!(
            matches!(&err, KitError::Leak { file, line: 2, .. } if file == "src/a.rs"),
            "{said}"
        );
        assert!(said.contains("solution of exercise cell 03-1"), "{said}");
        // Shown by a released notebook: public, so not a leak.
        assert!(check(&shown(line, ""), &files, &secret(line)).is_ok());
        // Printed by a kept cell's output, where JSON escapes its quotes.
        let quoted = "println!(\"{} orderings\", exercise_03_3(&[2, 2, 3]));";
        let err = check(&shown("1 + 1", quoted), &[], &secret(quoted)).unwrap_err();
        assert!(
            matches!(&err, KitError::Leak { file, .. } if file == "notebooks/03.ipynb"),
            "{err}"
        );
    }
}
