//! Reports open cleanly in Emacs org-mode: Emacs finds every source block, its
//! results and the hash we wrote, every table and every heading.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::expected_cells;
use puzzlebook_cli::notebook::chapter::Chapter;
use puzzlebook_cli::notebook::io;
use puzzlebook_cli::notebook::ipynb::Notebook;
use puzzlebook_cli::render::org as report;

fn crate_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// What Emacs sees in an org file, one finding per line (see inspect-report.el).
fn emacs_sees(org: &Path) -> Vec<String> {
    let out = Command::new("emacs")
        .args(["--batch", "-Q", "-l"])
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/emacs/inspect-report.el"))
        .arg(org)
        .output()
        .expect("emacs runs (apt-get install emacs-nox)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
#[ignore = "slow: Emacs (apt-get install emacs-nox)"]
fn every_committed_report_opens_cleanly_in_org_mode() {
    let notebooks = io::notebooks_in(&crate_dir().join("notebooks")).unwrap();
    assert_eq!(notebooks.len(), 4);
    for path in notebooks {
        let nb = io::load_notebook(&path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let org = crate_dir().join("reports").join(format!("{stem}.org"));
        let seen = emacs_sees(&org);
        // Code blocks in the narrative are unnamed source blocks without results.
        let srcs: Vec<&String> = seen
            .iter()
            .filter(|l| l.starts_with("src ") && !l.starts_with("src nil no -"))
            .collect();
        let cells = expected_cells(&path);
        let expected: Vec<String> = cells
            .iter()
            .map(|c| {
                let hash = c.hash.as_deref().expect("executed notebooks carry hashes");
                format!("src {} yes {hash}", c.name)
            })
            .collect();
        assert_eq!(srcs, expected.iter().collect::<Vec<_>>(), "{stem}");
        let title = nb.cells[0]
            .source
            .lines()
            .next()
            .unwrap()
            .trim_start_matches("# ");
        assert_eq!(seen[0], format!("title {title}"), "{stem}");
        let org_results = cells.iter().filter(|c| c.org_table).count();
        let tables = seen.iter().filter(|l| l.starts_with("table ")).count();
        assert!(
            tables >= org_results,
            "{stem}: {tables} tables for {org_results} table results"
        );
        assert!(seen.iter().any(|l| l.starts_with("headline 1 ")), "{stem}");
        // Each figure is a file link, as org-babel writes file results, to a
        // file that exists.
        let links: Vec<&String> = seen
            .iter()
            .filter(|l| l.starts_with("file-link "))
            .collect();
        let figures: Vec<String> = cells
            .iter()
            .filter(|c| c.figure)
            .map(|c| format!("file-link figures/{stem}/{}.svg exists", c.name))
            .collect();
        assert_eq!(links, figures.iter().collect::<Vec<_>>(), "{stem}");
        assert!(!figures.is_empty(), "{stem} draws a figure");
    }
}

#[test]
#[ignore = "slow: Emacs (apt-get install emacs-nox)"]
fn the_narrative_converts_to_org_that_emacs_reads() {
    let nb = Notebook::parse(
        &serde_json::json!({
            "nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [
                {"cell_type": "markdown", "metadata": {}, "source":
                    "# The title\n\n## A section\n\nSome *emphasis*, **strong**, `code` and a [link](https://example.org).\n\n- one\n- two\n  - nested\n\n1. first\n2. second\n\n| a | b |\n|---|---|\n| 1 | x |\n\n```rust\nlet x = 1;\n```\n\n### A subsection\n"},
                {"cell_type": "code", "metadata": {"name": "start"}, "outputs": [], "source": "*x = 1;\n#+not a keyword"},
            ]
        })
        .to_string(),
    )
    .unwrap();
    let org = report::render(&nb, &Chapter::of(&nb, "notebooks/t.ipynb"));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.org");
    std::fs::write(&p, &org).unwrap();
    let seen = emacs_sees(&p);
    assert_eq!(
        seen,
        [
            "title The title",
            "src nil no -",
            "src start no -",
            "table 2 2",
            "headline 1 A section",
            "headline 2 A subsection",
        ],
        "{org}"
    );
    assert!(org.contains("[[https://example.org][link]]"), "{org}");
    assert!(org.contains("- two\n  - nested\n"), "{org}");
    assert!(
        org.contains("#+BEGIN_SRC rust\nlet x = 1;\n#+END_SRC"),
        "{org}"
    );
    assert!(
        org.contains("#+BEGIN_SRC rust\n,*x = 1;\n,#+not a keyword\n#+END_SRC"),
        "{org}"
    );
}
