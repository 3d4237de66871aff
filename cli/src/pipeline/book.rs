//! The book: the notebooks as chapters in order, and the files each chapter
//! renders to in the reports folder (org report, HTML page, figures), plus the
//! table of contents.

use std::collections::BTreeMap;
use std::path::Path;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::html;
use super::notebook::{CellKind, Notebook, Output};
use super::report;
use puzzlebook::figure::SVG_MIME;

/// The table of contents' file name in the reports folder.
pub const INDEX: &str = "index.html";

/// One chapter: a notebook as the book lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chapter {
    /// The notebook's file stem, which names its report, page and figure folder.
    pub stem: String,
    /// The notebook's path as shown in reports (relative to the checkout).
    pub source: String,
    /// The first Markdown cell's `# ` heading, else the source.
    pub title: String,
    /// The first sentence of the narrative after the title.
    pub summary: String,
}

impl Chapter {
    /// The chapter of `nb`, whose path is shown as `source`.
    pub fn of(nb: &Notebook, source: &str) -> Chapter {
        let first = nb.cells.iter().find(|c| c.kind == CellKind::Markdown);
        let (title, rest) = first
            .and_then(|c| report::split_title(&c.source))
            .unwrap_or_else(|| (source.to_string(), String::new()));
        let narrative = std::iter::once(rest)
            .chain(
                nb.cells
                    .iter()
                    .filter(|c| c.kind == CellKind::Markdown)
                    .skip(1)
                    .map(|c| c.source.clone()),
            )
            .collect::<Vec<_>>()
            .join("\n\n");
        Chapter {
            stem: stem(source),
            source: source.to_string(),
            title,
            summary: first_sentence(&narrative),
        }
    }

    /// The HTML page's file name.
    pub fn page(&self) -> String {
        format!("{}.html", self.stem)
    }

    /// The org report's file name.
    pub fn org(&self) -> String {
        format!("{}.org", self.stem)
    }
}

/// The chapters in order, and how the reports folder reaches the notebooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Book {
    /// The chapters, in file-name order.
    pub chapters: Vec<Chapter>,
    /// The checkout as a relative URL from the reports folder (`../`), for
    /// links to the notebooks.
    pub root_from_reports: String,
}

/// A chapter's neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nav<'a> {
    /// The chapter before, if any.
    pub prev: Option<&'a Chapter>,
    /// The chapter after, if any.
    pub next: Option<&'a Chapter>,
}

impl Book {
    /// The neighbours of the chapter `stem` (none when it is not in the book).
    pub fn nav(&self, stem: &str) -> Nav<'_> {
        match self.chapters.iter().position(|c| c.stem == stem) {
            Some(i) => Nav {
                prev: i.checked_sub(1).map(|j| &self.chapters[j]),
                next: self.chapters.get(i + 1),
            },
            None => Nav {
                prev: None,
                next: None,
            },
        }
    }

    /// The table of contents page.
    pub fn index(&self) -> String {
        html::index(self)
    }
}

/// The file stem of a notebook path as shown (`notebooks/04-x.ipynb` → `04-x`).
pub fn stem(source: &str) -> String {
    Path::new(source)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| source.to_string())
}

/// Where the figure of chapter `stem`'s cell `name` goes, relative to the
/// reports folder.
pub fn figure_path(stem: &str, name: &str) -> String {
    format!("figures/{stem}/{name}.svg")
}

/// The folder of chapter `stem`'s figures, relative to the reports folder.
pub fn figure_dir(stem: &str) -> String {
    format!("figures/{stem}")
}

/// Every file chapter `nb` renders to, relative to the reports folder, sorted:
/// the org report, the HTML page, and one SVG per figure.
pub fn files(nb: &Notebook, source: &str, book: &Book) -> BTreeMap<String, String> {
    let chapter = Chapter::of(nb, source);
    let mut out = BTreeMap::new();
    out.insert(chapter.org(), report::render(nb, source));
    out.insert(chapter.page(), html::page(nb, &chapter, book));
    for (name, svg) in figures(nb) {
        out.insert(figure_path(&chapter.stem, &name), svg);
    }
    out
}

/// The figures of a notebook: `(cell name, SVG)` for each code cell whose value
/// is an SVG image.
pub fn figures(nb: &Notebook) -> Vec<(String, String)> {
    nb.code_cells()
        .enumerate()
        .flat_map(|(i, (_, c))| {
            let name = report::cell_name(c.name.as_deref(), i + 1);
            c.outputs.iter().filter_map(move |o| match o {
                Output::ExecuteResult { data } => {
                    data.get(SVG_MIME).map(|svg| (name.clone(), svg.clone()))
                }
                Output::Stream { .. } => None,
            })
        })
        .collect()
}

/// The first sentence of Markdown text's first paragraph, as plain text.
fn first_sentence(md: &str) -> String {
    let mut text = String::new();
    let mut in_paragraph = false;
    for ev in Parser::new(md) {
        match ev {
            Event::Start(Tag::Paragraph) => in_paragraph = true,
            Event::End(TagEnd::Paragraph) if in_paragraph => break,
            Event::Text(t) | Event::Code(t) if in_paragraph => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak if in_paragraph => text.push(' '),
            _ => {}
        }
    }
    let end = [". ", "! ", "? "]
        .iter()
        .filter_map(|p| text.find(p).map(|i| i + 1))
        .min()
        .unwrap_or(text.len());
    text[..end].trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::notebook::NotebookCell;

    fn nb(cells: &[(CellKind, &str)]) -> Notebook {
        let mut nb = Notebook::parse(r#"{"nbformat": 4, "cells": []}"#).unwrap();
        nb.cells = cells
            .iter()
            .map(|(k, s)| NotebookCell::new(*k, s))
            .collect();
        nb
    }

    #[test]
    fn a_chapter_is_titled_and_summarised_from_its_narrative() {
        let n = nb(&[
            (
                CellKind::Markdown,
                "# The *Puzzle*\n\nPick `two` numbers. Then talk.\n",
            ),
            (CellKind::Code, "1"),
        ]);
        let c = Chapter::of(&n, "notebooks/04-x.ipynb");
        assert_eq!(c.stem, "04-x");
        assert_eq!(c.title, "The *Puzzle*");
        assert_eq!(c.summary, "Pick two numbers.");
        assert_eq!(c.page(), "04-x.html");
    }

    #[test]
    fn chapters_know_their_neighbours() {
        let ch = |s: &str| Chapter {
            stem: s.into(),
            source: format!("notebooks/{s}.ipynb"),
            title: s.into(),
            summary: String::new(),
        };
        let book = Book {
            chapters: vec![ch("a"), ch("b"), ch("c")],
            root_from_reports: "../".into(),
        };
        let nav = book.nav("a");
        assert_eq!(
            (nav.prev, nav.next.map(|c| c.stem.as_str())),
            (None, Some("b"))
        );
        let nav = book.nav("c");
        assert_eq!(nav.prev.map(|c| c.stem.as_str()), Some("b"));
        assert_eq!(nav.next, None);
        assert_eq!(
            book.nav("z"),
            Nav {
                prev: None,
                next: None
            }
        );
    }

    #[test]
    fn figures_are_named_by_their_cells() {
        let mut n = nb(&[(CellKind::Code, "grid()"), (CellKind::Code, "1")]);
        n.cells[0].name = Some("grid".into());
        n.cells[0].outputs = vec![Output::ExecuteResult {
            data: [(SVG_MIME.to_string(), "<svg/>".to_string())].into(),
        }];
        assert_eq!(figures(&n), [("grid".to_string(), "<svg/>".to_string())]);
        let book = Book {
            chapters: vec![],
            root_from_reports: "../".into(),
        };
        let f = files(&n, "notebooks/n.ipynb", &book);
        let names: Vec<&str> = f.keys().map(String::as_str).collect();
        assert_eq!(names, ["figures/n/grid.svg", "n.html", "n.org"]);
    }
}
