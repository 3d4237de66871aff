//! The book's model, below both renderers: a notebook as a chapter (its title,
//! narrative and named code cells), the chapters in order, and the names of
//! the files they render to.

use std::borrow::Cow;
use std::path::Path;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::notebook::ipynb::{CellKind, CodeCell, Notebook};

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

/// A notebook's cells as a chapter shows them, in order.
#[derive(Debug, Clone)]
pub enum Part<'a> {
    /// Markdown narrative; the cell that holds the title has its `# ` line taken off.
    Narrative(Cow<'a, str>),
    /// A code cell, with its name.
    Code(CodeCell<'a>),
}

/// What a chapter shows of its notebook.
#[derive(Debug, Clone)]
pub struct Body<'a> {
    /// The `# ` heading the title came from, when there is one.
    pub heading: Option<String>,
    /// The narrative and the code cells, in order.
    pub parts: Vec<Part<'a>>,
}

impl Body<'_> {
    /// The narrative's Markdown, one cell after another.
    fn narrative(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Narrative(md) => Some(md.as_ref()),
                Part::Code(_) => None,
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// The chapter body of `nb`: the title is the first Markdown cell's leading
/// `# ` line, when it has one (the one place the title is found).
pub fn body(nb: &Notebook) -> Body<'_> {
    let first_markdown = nb.cells.iter().position(|c| c.kind == CellKind::Markdown);
    let mut heading = None;
    let mut parts = Vec::new();
    let mut code = nb.code_cells();
    for (i, cell) in nb.cells.iter().enumerate() {
        match cell.kind {
            CellKind::Markdown => match split_title(&cell.source) {
                Some((title, rest)) if Some(i) == first_markdown => {
                    heading = Some(title);
                    parts.push(Part::Narrative(Cow::Owned(rest)));
                }
                _ => parts.push(Part::Narrative(Cow::Borrowed(&cell.source))),
            },
            CellKind::Code => parts.extend(code.next().map(Part::Code)),
            CellKind::Raw => {}
        }
    }
    Body { heading, parts }
}

impl Chapter {
    /// The chapter of `nb`, whose path is shown as `source`.
    pub fn of(nb: &Notebook, source: &str) -> Chapter {
        let body = body(nb);
        Chapter {
            stem: stem(source),
            source: source.to_string(),
            summary: first_sentence(&body.narrative()),
            title: body.heading.unwrap_or_else(|| source.to_string()),
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

    /// Where the figure of this chapter's cell `name` goes, relative to the
    /// reports folder.
    pub fn figure(&self, name: &str) -> String {
        figure_path(&self.stem, name)
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
    /// Whose book it is.
    pub edition: Edition,
}

/// Whose book: the teacher's, from `report`, or the students', from
/// `exercises release --pages`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Edition {
    /// Every chapter with its org report; exercises with their solutions
    /// and hidden tests, folded.
    #[default]
    Teacher,
    /// The released notebooks: no org reports, exercises as the student
    /// sees them in Jupyter (a stub to replace, the tests students may see).
    Student,
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
    format!("{}/{name}.svg", figure_dir(stem))
}

/// The folder of chapter `stem`'s figures, relative to the reports folder.
pub fn figure_dir(stem: &str) -> String {
    format!("figures/{stem}")
}

/// Splits a leading `# Title` line off a Markdown cell.
fn split_title(md: &str) -> Option<(String, String)> {
    let trimmed = md.trim_start();
    let first = trimmed.lines().next()?;
    let title = first.strip_prefix("# ")?.trim().to_string();
    let rest = trimmed[first.len()..].to_string();
    Some((title, rest))
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

    fn nb(cells: &[(CellKind, &str)]) -> Notebook {
        Notebook::of_cells(cells)
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
        assert_eq!(c.org(), "04-x.org");
        assert_eq!(c.figure("grid"), "figures/04-x/grid.svg");
    }

    #[test]
    fn only_the_first_markdown_cell_can_hold_the_title() {
        let n = nb(&[
            (CellKind::Markdown, "Intro first."),
            (CellKind::Markdown, "# Not a title\n\nText."),
        ]);
        let c = Chapter::of(&n, "notebooks/n.ipynb");
        assert_eq!(c.title, "notebooks/n.ipynb");
        assert_eq!(c.summary, "Intro first.");
        let b = body(&n);
        assert_eq!(b.heading, None);
        assert!(matches!(&b.parts[1], Part::Narrative(md) if md.starts_with("# Not a title")));
    }

    #[test]
    fn the_body_takes_the_title_off_and_names_the_code_cells() {
        let mut n = nb(&[
            (CellKind::Markdown, "# T\n\nText."),
            (CellKind::Code, "1"),
            (CellKind::Raw, "raw"),
            (CellKind::Code, "2"),
        ]);
        n.cells[3].name = Some("two".into());
        let b = body(&n);
        assert_eq!(b.heading.as_deref(), Some("T"));
        let shown: Vec<String> = b
            .parts
            .iter()
            .map(|p| match p {
                Part::Narrative(md) => format!("md {}", md.trim()),
                Part::Code(c) => format!("code {} at {} is {}", c.number, c.position, c.name),
            })
            .collect();
        assert_eq!(
            shown,
            ["md Text.", "code 1 at 2 is cell-1", "code 2 at 4 is two"]
        );
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
            edition: Default::default(),
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
}
