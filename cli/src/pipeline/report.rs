//! Rendering a notebook and its outputs as an org-mode report in the literate
//! style: narrative, `#+BEGIN_SRC rust` blocks and `#+RESULTS[<sha1>]: name`.

use super::book;
use super::markdown::markdown_to_org_shifted;
use super::notebook::{CellKind, Notebook, Output};
use puzzlebook::figure::SVG_MIME;
use puzzlebook::rich::ORG_MIME;

/// The name of code cell `index` (1-based among code cells): its metadata name,
/// or `cell-N`.
pub fn cell_name(name: Option<&str>, index: usize) -> String {
    name.map(str::to_string)
        .unwrap_or_else(|| format!("cell-{index}"))
}

/// Escapes source lines that org would read as structure inside a block
/// (`*` at the start, `#+`), with a leading comma as org does.
fn org_escape(src: &str) -> String {
    src.lines()
        .map(|l| {
            let t = l.trim_start();
            if l.starts_with('*')
                || t.starts_with("#+")
                || l.starts_with(",*")
                || t.starts_with(",#+")
            {
                format!(",{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Plain text as org-babel writes it: each line behind `: ` (`:` alone when empty).
fn colon_lines(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                ":".to_string()
            } else {
                format!(": {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The results block body for a cell's outputs: printed text as `: ` lines,
/// then the value as an org table (from the org MIME type), a link to its
/// figure file (`figure`, relative to the report, for an SVG value) or `: `
/// lines. Standard error is not part of a report.
pub fn results_body(outputs: &[Output], figure: &str) -> String {
    let mut parts = Vec::new();
    for o in outputs {
        match o {
            Output::Stream { name, text } if name == "stdout" => {
                parts.push(colon_lines(text.trim_end_matches('\n')))
            }
            Output::Stream { .. } => {}
            Output::ExecuteResult { data } => {
                if data.contains_key(SVG_MIME) {
                    parts.push(format!("[[file:{figure}]]"));
                } else if let Some(org) = data.get(ORG_MIME) {
                    parts.push(org.trim_end_matches('\n').to_string());
                } else if let Some(plain) = data.get("text/plain") {
                    parts.push(colon_lines(plain.trim_end_matches('\n')));
                }
            }
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join("\n")
}

/// Splits a leading `# Title` line off a Markdown cell.
pub(crate) fn split_title(md: &str) -> Option<(String, String)> {
    let trimmed = md.trim_start();
    let first = trimmed.lines().next()?;
    let title = first.strip_prefix("# ")?.trim().to_string();
    let rest = trimmed[first.len()..].to_string();
    Some((title, rest))
}

/// Renders the report for `nb`, whose file is `source` (a relative path shown in
/// the header). The title is the first Markdown cell's `# ` heading, else `source`.
///
/// Code cells are written with the hash stored with their outputs; a cell that
/// was never executed has no hash and is written without a results line.
pub fn render(nb: &Notebook, source: &str) -> String {
    let stem = book::stem(source);
    let mut title = None;
    let mut blocks: Vec<String> = Vec::new();
    let mut code_index = 0;
    for cell in &nb.cells {
        match cell.kind {
            CellKind::Markdown => {
                let mut md = cell.source.clone();
                if title.is_none() {
                    if let Some((t, rest)) = split_title(&md) {
                        title = Some(t);
                        md = rest;
                    }
                }
                let shift = usize::from(title.is_some());
                let org = markdown_to_org_shifted(&md, shift);
                if !org.is_empty() {
                    blocks.push(org.trim_end().to_string());
                }
            }
            CellKind::Code => {
                code_index += 1;
                let name = cell_name(cell.name.as_deref(), code_index);
                let src = org_escape(cell.source.trim_end());
                blocks.push(format!(
                    "#+NAME: {name}\n#+BEGIN_SRC rust\n{src}\n#+END_SRC"
                ));
                if let Some(hash) = &cell.hash {
                    let body = results_body(&cell.outputs, &book::figure_path(&stem, &name));
                    if body.is_empty() {
                        blocks.push(format!("#+RESULTS[{hash}]: {name}"));
                    } else {
                        blocks.push(format!("#+RESULTS[{hash}]: {name}\n{body}"));
                    }
                }
            }
            CellKind::Raw => {}
        }
    }
    let title = title.unwrap_or_else(|| source.to_string());
    let mut out = format!(
        "#+TITLE: {title}\n# Generated by `puzzlebook report` from {source}; edit the notebook, not this file.\n"
    );
    for b in blocks {
        out.push('\n');
        out.push_str(&b);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn plain_results_are_colon_lines() {
        let o = vec![Output::Stream {
            name: "stdout".into(),
            text: "Q 1: D\n\nQ 2: A\n".into(),
        }];
        assert_eq!(results_body(&o, "f.svg"), ": Q 1: D\n:\n: Q 2: A");
    }

    #[test]
    fn org_mime_wins_over_plain() {
        let mut data = BTreeMap::new();
        data.insert("text/plain".to_string(), "+---+".to_string());
        data.insert(ORG_MIME.to_string(), "| a |\n|---|\n| 1 |\n".to_string());
        assert_eq!(
            results_body(&[Output::ExecuteResult { data }], "f.svg"),
            "| a |\n|---|\n| 1 |"
        );
    }

    #[test]
    fn a_figure_is_a_file_link_as_org_babel_writes_it() {
        let mut data = BTreeMap::new();
        data.insert("text/plain".to_string(), "[figure: g]".to_string());
        data.insert(SVG_MIME.to_string(), "<svg/>".to_string());
        assert_eq!(
            results_body(&[Output::ExecuteResult { data }], "figures/nb/grid.svg"),
            "[[file:figures/nb/grid.svg]]"
        );
    }

    #[test]
    fn block_lines_org_would_misread_are_escaped() {
        assert_eq!(org_escape("*x\n#+y\nz"), ",*x\n,#+y\nz");
    }
}
