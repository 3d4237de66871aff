//! The notebooks in JupyterLab, in a real browser, as a student runs them.
//! JupyterLab (pinned, cli/tests/kernel/lab-requirements.txt) serves the
//! checkout's `notebooks/`, with the puzzlebook kernel installed; Debian's
//! Chromium, driven by playwright-core from the npm registry (pinned,
//! cli/tests/jupyterlab/), opens each chapter, clears the outputs and runs
//! all cells from the menus. Each chapter must open on the puzzlebook kernel
//! without JupyterLab asking which kernel, every code cell must have run,
//! none may show an error, each cell's outputs must be the committed ones
//! (as under nbconvert, jupyter_kernel.rs), each result that is a table must
//! show as an HTML table and each figure as SVG, and Tab after
//! `puzzlebook::tw` in a new cell must offer `twenty_four`. Nothing may be
//! written into the checkout.
//! Screenshots go to the target folder, not into git.

use crate::common::{
    as_from_a_shell, cli_dir, coalesce_streams, expected_cells, install_kernel, joined, ok,
    outputs_text, read_json, root_dir, without_loading_notes, KERNEL,
};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The folder of a helper's environment, made once by its setup script
/// (`setup-venv lab`, `setup-node`), which prints it.
fn set_up(script: &Path, args: &[&str]) -> PathBuf {
    let o = Command::new(script)
        .args(args)
        .output()
        .expect("the setup script runs");
    PathBuf::from(ok(o, &script.display().to_string()).trim())
}

/// Every file in `dir` (not below it) and its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let bytes = if e.path().is_file() {
                std::fs::read(e.path()).unwrap()
            } else {
                b"(a folder)".to_vec()
            };
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

/// The last `n` lines of the file at `path`, or what kept it from being read.
fn tail(path: &Path, n: usize) -> String {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(n)..].join("\n")
        }
        Err(e) => format!("({} could not be read: {e})", path.display()),
    }
}

/// A JupyterLab server, stopped (and its kernels with it) when dropped.
struct Lab {
    child: Child,
}

impl Drop for Lab {
    fn drop(&mut self) {
        // SIGTERM: JupyterLab shuts its kernels down and exits.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// JupyterLab's settings for the test, as a user would set them: no
/// autosave (the test must write nothing into the checkout), every cell
/// kept in the page (no windowing), and no news fetched from the internet.
const SETTINGS: &[(&str, &str)] = &[
    (
        "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings",
        "{\"autosave\": false}",
    ),
    (
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings",
        "{\"windowingMode\": \"none\"}",
    ),
    (
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings",
        "{\"fetchNews\": \"false\", \"checkForUpdates\": false}",
    ),
];

#[test]
#[ignore = "slow: JupyterLab from PyPI in Chromium, driven by Node.js, the four chapters, about 5 minutes"]
fn every_chapter_runs_all_cells_in_jupyterlab_in_chromium() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    // run_all.mjs launches Debian's Chromium by its path.
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "this test drives /usr/bin/chromium: apt-get install chromium fonts-dejavu-core"
    );
    let lab_python = set_up(&cli_dir().join("tests/kernel/setup-venv"), &["lab"]);
    let node_dir = set_up(&cli_dir().join("tests/jupyterlab/setup-node"), &[]);
    let world = tempfile::tempdir().unwrap();
    let prefix = world.path().join("prefix");
    install_kernel(&prefix);
    let settings = world.path().join("settings");
    for (path, body) in SETTINGS {
        let file = settings.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, body).unwrap();
    }
    let notebooks = root_dir().join("notebooks");
    let before = files(&notebooks);

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let token = "puzzlebook-test";
    let log = world.path().join("lab.log");
    let mut c = Command::new(lab_python.parent().unwrap().join("jupyter"));
    as_from_a_shell(&mut c);
    c.args([
        "lab",
        "--no-browser",
        "--allow-root",
        // The driver reads each cell's outputs from the notebook's model
        // (`window.jupyterapp`): the page draws an error as standard error.
        "--LabApp.expose_app_in_browser=True",
        "--ServerApp.ip=127.0.0.1",
    ])
    .arg(format!("--ServerApp.port={port}"))
    .arg("--ServerApp.port_retries=0")
    .arg(format!("--IdentityProvider.token={token}"))
    .arg(format!("--ServerApp.root_dir={}", notebooks.display()))
    // Checkpoints, which Jupyter keeps beside a notebook, go to the world.
    .arg(format!(
        "--FileCheckpoints.checkpoint_dir={}",
        world.path().join("checkpoints").display()
    ))
    .current_dir(&notebooks)
    .env("JUPYTER_PATH", prefix.join("share/jupyter"))
    .env("JUPYTER_CONFIG_DIR", world.path().join("config"))
    .env("JUPYTER_DATA_DIR", world.path().join("data"))
    .env("JUPYTER_RUNTIME_DIR", world.path().join("runtime"))
    .env("JUPYTERLAB_SETTINGS_DIR", &settings)
    .env("JUPYTERLAB_WORKSPACES_DIR", world.path().join("workspaces"))
    .env_remove("CI")
    .stdin(Stdio::null())
    .stdout(Stdio::from(std::fs::File::create(&log).unwrap()))
    .stderr(Stdio::from(
        std::fs::File::create(world.path().join("lab.err")).unwrap(),
    ));
    let lab = Lab {
        child: c.spawn().expect("jupyter lab starts"),
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "JupyterLab did not listen on {port} within 120 s: {}",
            std::fs::read_to_string(world.path().join("lab.err")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(250));
    }

    let names: Vec<String> = before
        .keys()
        .filter(|n| n.ends_with(".ipynb"))
        .cloned()
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("jupyterlab");
    std::fs::create_dir_all(&shots).unwrap();
    let out = world.path().join("seen.json");
    let mut run = Command::new("node");
    as_from_a_shell(&mut run);
    let o = run
        .arg(cli_dir().join("tests/jupyterlab/run_all.mjs"))
        .arg(&node_dir)
        .arg(format!("http://127.0.0.1:{port}"))
        .arg(token)
        .arg(&shots)
        .arg(&out)
        .args(&names)
        .output()
        .expect("node runs");
    drop(lab);
    assert!(
        o.status.success(),
        "cli/tests/jupyterlab/run_all.mjs (playwright-core, Chromium) failed ({}):\n{}\nthe end of JupyterLab's log:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr),
        tail(&world.path().join("lab.err"), 80)
    );
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();

    let mut problems = Vec::new();
    let mut tables = 0;
    for name in &names {
        let nb = &seen["notebooks"][name];
        let expected = expected_cells(&notebooks.join(name));
        let cells = nb["cells"].as_array().cloned().unwrap_or_default();
        if nb["kernel"].as_str().map(str::trim) != Some("Rust (puzzlebook)") {
            problems.push(format!("{name}: ran on {}", nb["kernel"]));
        }
        // The chapters name the puzzlebook kernel, so JupyterLab starts it
        // without asking once `kernel install` has run.
        if nb["asked"] != false {
            problems.push(format!("{name}: JupyterLab asked which kernel"));
        }
        if nb["cleared"] != true || nb["done"] != true {
            problems.push(format!(
                "{name}: cleared {}, done {}; the kernel as the page saw it {}, as the server saw it {}",
                nb["cleared"], nb["done"], nb["status"], nb["server"]
            ));
            // What the kernel's threads were doing when the wait ended.
            let process = &nb["process"];
            if !process["cpu"].is_null() {
                eprintln!(
                    "{name}: the kernel's process when Run All had not finished:\n{}\n{}",
                    process["cpu"],
                    process["stacks"].as_str().unwrap_or("")
                );
            } else if !process.is_null() {
                eprintln!("{name}: the kernel's process: {process}");
            }
        }
        // What the driver saw go wrong, such as a model it could not read.
        for p in nb["problems"].as_array().into_iter().flatten() {
            problems.push(format!("{name}: {p}"));
        }
        if cells.len() != expected.len() {
            problems.push(format!(
                "{name}: {} code cells shown, {} in the file",
                cells.len(),
                expected.len()
            ));
            continue;
        }
        for (i, (cell, want)) in cells.iter().zip(&expected).enumerate() {
            let at = format!("{name} [{}] ({})", i + 1, want.name);
            // Run All from a fresh kernel numbers the cells 1, 2, …
            if cell["prompt"] != format!("[{}]:", i + 1) || cell["count"] != i + 1 {
                problems.push(format!(
                    "{at}: prompt {}, execution count {}, printed {:?}",
                    cell["prompt"],
                    cell["count"],
                    cell["printed"].as_str().unwrap_or("")
                ));
            }
            if cell["errors"].as_array().is_none_or(|e| !e.is_empty()) {
                problems.push(format!("{at}: shows an error: {}", cell["errors"]));
            }
            if want.html_table && cell["tables"].as_u64().unwrap_or(0) == 0 {
                problems.push(format!("{at}: its table is no HTML table"));
            }
            if want.figure && cell["svgs"].as_u64().unwrap_or(0) == 0 {
                problems.push(format!("{at}: its figure is no SVG"));
            }
        }
        // What the cells show is what the runner committed, after the same
        // two rules as under nbconvert (jupyter_kernel.rs): streams joined,
        // and the kernel's notes while the crate loads left out.
        let committed = read_json(&notebooks.join(name));
        let code = committed["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["cell_type"] == "code");
        let shown = serde_json::json!({
            "cells": code.zip(&cells).map(|(c, seen)| serde_json::json!({
                "cell_type": "code",
                "id": c["id"],
                "execution_count": seen["count"],
                "outputs": seen["outputs"],
            })).collect::<Vec<_>>()
        });
        if cells.iter().all(|c| c["outputs"].is_array()) {
            let want = outputs_text(&committed);
            let got = outputs_text(&without_loading_notes(&coalesce_streams(&shown)));
            if want != got {
                let diff = similar::TextDiff::from_lines(&want, &got)
                    .unified_diff()
                    .context_radius(4)
                    .header("committed", "in JupyterLab")
                    .to_string();
                problems.push(format!("{name}: the outputs differ:\n{diff}"));
            }
        } else {
            problems.push(format!(
                "{name}: JupyterLab's model gave no outputs to compare"
            ));
        }
        // Rich output as JupyterLab keeps it: every result reads as text,
        // and a table is an HTML table.
        for o in cells
            .iter()
            .flat_map(|c| c["outputs"].as_array().into_iter().flatten())
            .filter(|o| o["output_type"] == "execute_result")
        {
            let plain = &o["data"]["text/plain"];
            if plain.is_null() || joined(plain).is_empty() {
                problems.push(format!("{name}: a result without plain text: {o}"));
            }
            if o["data"].get("text/html").is_some() {
                let html = joined(&o["data"]["text/html"]);
                if html.starts_with("<table>") {
                    tables += 1;
                } else {
                    problems.push(format!("{name}: an HTML result that is no table: {html}"));
                }
            }
        }
        eprintln!(
            "JupyterLab: {name}: kernel connected {:.1} s and Run All clicked {:.1} s after opening, \
             first result {:.1} s after opening, Run All took {:.1} s, screenshot {}",
            nb["ready_seconds"].as_f64().unwrap_or(f64::NAN),
            nb["open_seconds"].as_f64().unwrap_or(0.0),
            nb["first_result_seconds"].as_f64().unwrap_or(f64::NAN),
            nb["seconds"].as_f64().unwrap_or(0.0),
            nb["screenshot"].as_str().unwrap_or("")
        );
    }
    // The chapters show their tables as tables (the committed outputs could
    // have lost them all, and would still agree with the page).
    if tables < 4 {
        problems.push(format!("only {tables} HTML tables in the four chapters"));
    }
    // Completion in the editor: Tab after `puzzlebook::tw` offers the
    // chapter's module, and taking it completes the path.
    let completion = &seen["completion"];
    if completion["text"].as_str() != Some("puzzlebook::twenty_four::") {
        problems.push(format!(
            "Tab after `puzzlebook::tw`, then Enter, did not give `puzzlebook::twenty_four::`: {completion}"
        ));
    }
    // The server's log holds each kernel's standard error: what a kernel
    // that never answered was doing is there, and nowhere else.
    assert!(
        problems.is_empty(),
        "{problems:#?}\nthe end of JupyterLab's log:\n{}",
        tail(&world.path().join("lab.err"), 80)
    );
    assert!(
        files(&notebooks) == before,
        "JupyterLab wrote into the checkout's notebooks/"
    );
}
