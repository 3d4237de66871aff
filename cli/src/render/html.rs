//! Rendering a chapter as a self-contained HTML page (inline CSS, inline SVG
//! figures, no scripts, nothing fetched), and the book's table of contents.

use std::fmt::Write as _;
use std::sync::OnceLock;

use pulldown_cmark::{html::push_html, Options, Parser};

use crate::notebook::chapter::{self, Book, Chapter, Edition, Part, INDEX};
use crate::notebook::ipynb::{Notebook, Output};
use crate::notebook::nbgrader::{self, Nbgrader};
use crate::render::highlight;
use puzzlebook::figure::SVG_MIME;
use puzzlebook::table::html_escape;

/// How the student edition's pages and index begin their line under the
/// title; `exercises release --pages` writes only over an index that says it.
pub const STUDENT_EDITION: &str = "The student edition";

/// The page style: a readable column, code and results set apart.
const STYLE: &str = r#"
:root { color-scheme: light; }
body { margin: 0; background: #fdfdfb; color: #1d1d1b;
  font: 17px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
main, header, nav.book { max-width: 52rem; margin: 0 auto; padding: 0 1.25rem; }
header h1 { font-size: 2rem; line-height: 1.2; margin: 1.5rem 0 0.25rem; }
p.sources { color: #5b5b57; font-size: 0.9rem; margin-top: 0; }
nav.book { display: flex; gap: 1rem; justify-content: space-between; flex-wrap: wrap;
  padding-top: 0.75rem; padding-bottom: 0.75rem; font-size: 0.95rem; }
nav.book a { text-decoration: none; }
a { color: #0b5cad; }
h2 { margin-top: 2.2rem; border-bottom: 1px solid #e3e3dd; padding-bottom: 0.2rem; }
code { font: 0.88em/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { overflow-x: auto; padding: 0.7rem 0.9rem; border-radius: 6px; }
pre.code { background: #f4f6f8; border: 1px solid #dde3e8; margin-bottom: 0.3rem; }
pre.output { background: #fff; border: 1px dashed #cfd3c7; margin: 0.3rem 0; }
pre.said { white-space: pre-wrap; overflow-wrap: anywhere; }
section.cell { margin: 1.2rem 0 1.6rem; }
p.result-name { margin: 0.2rem 0; font-size: 0.8rem; color: #6b6b66; }
p.result-name .hash { font-family: ui-monospace, monospace; }
div.table { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.4rem 0; font-size: 0.92rem;
  font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d6d6cf; padding: 0.2rem 0.6rem; }
th { background: #efefe9; }
figure.figure { margin: 0.6rem 0; }
figure.figure svg { max-width: 100%; height: auto; border: 1px solid #e3e3dd; }
figure.figure figcaption { font-size: 0.85rem; color: #5b5b57; }
ol.toc li { margin: 0.9rem 0; }
ol.toc .summary { display: block; color: #3f3f3b; }
ol.toc .files { font-size: 0.85rem; }
p.exercise { margin: 0.2rem 0; font-weight: 600; color: #7a4b00; }
p.mark { font-weight: 600; }
p.mark.right { color: #1b6b2a; }
p.mark.wrong, p.mark.not-run, p.mark.not-graded { color: #a3261b; }
p.mark.partial { color: #7a4b00; }
details.exercise summary { cursor: pointer; color: #5b5b57; font-size: 0.9rem; }
"#;

fn stylesheet() -> &'static str {
    static CSS: OnceLock<String> = OnceLock::new();
    CSS.get_or_init(|| format!("{STYLE}{}", highlight::css()))
}

fn markdown_html(md: &str) -> String {
    let mut out = String::new();
    push_html(
        &mut out,
        Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH),
    );
    out
}

/// The document around a page's body.
pub(crate) fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"puzzlebook report\">\n\
         <title>{}</title>\n<style>{}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        html_escape(title),
        stylesheet()
    )
}

fn nav(book: &Book, chapter: &Chapter) -> String {
    let n = book.nav(&chapter.stem);
    let link = |c: Option<&Chapter>, rel: &str, text: &dyn Fn(&str) -> String| match c {
        Some(c) => format!(
            "<a rel=\"{rel}\" href=\"{}\">{}</a>",
            html_escape(&c.page()),
            text(&html_escape(&c.title))
        ),
        None => "<span></span>".to_string(),
    };
    format!(
        "<nav class=\"book\">{}<a href=\"{INDEX}\">Contents</a>{}</nav>\n",
        link(n.prev, "prev", &|t| format!("← {t}")),
        link(n.next, "next", &|t| format!("{t} →")),
    )
}

/// An SVG figure inline, with its caption (escaped here), and a newline.
///
/// A caption the SVG draws as a line of its own (a figure's title, as
/// plotters writes a text element) is not written again under it: it labels
/// the figure for a screen reader instead. Any other caption is shown.
pub fn figure(svg: &str, caption: &str) -> String {
    let svg = svg.trim_end();
    let caption = html_escape(caption);
    // As SVG text escapes it: plotters writes `'` as `&apos;`.
    let drawn = |text: &str| svg.contains(&format!(">\n{text}\n</text>"));
    if !caption.is_empty() && (drawn(&caption) || drawn(&caption.replace("&#39;", "&apos;"))) {
        format!(
            "<figure class=\"figure\" role=\"img\" aria-label=\"{caption}\">\n{svg}\n</figure>\n"
        )
    } else {
        format!("<figure class=\"figure\">\n{svg}\n<figcaption>{caption}</figcaption>\n</figure>\n")
    }
}

/// A code cell's outputs as HTML, in order: printed text, and each display
/// and the value as a table, an inline figure, or text.
fn outputs_html(outputs: &[Output]) -> String {
    let mut out = String::new();
    for o in outputs {
        match o {
            Output::Stream { name, text } if name == "stdout" => {
                let text = text.trim_end_matches('\n');
                if !text.is_empty() {
                    let _ = writeln!(out, "<pre class=\"output\">{}</pre>", html_escape(text));
                }
            }
            Output::Stream { .. } => {}
            Output::ExecuteResult { data } | Output::DisplayData { data } => {
                if let Some(svg) = data.get(SVG_MIME) {
                    let caption = data
                        .get("text/plain")
                        .map(|t| {
                            t.trim()
                                .trim_start_matches("[figure: ")
                                .trim_end_matches(']')
                        })
                        .unwrap_or_default();
                    out.push_str(&figure(svg, caption));
                } else if let Some(table) = data.get("text/html") {
                    let _ = writeln!(out, "<div class=\"table\">\n{}</div>", table);
                } else if let Some(text) = data.get("text/plain") {
                    let _ = writeln!(
                        out,
                        "<pre class=\"output\">{}</pre>",
                        html_escape(text.trim_end_matches('\n'))
                    );
                }
            }
        }
    }
    out
}

/// The chapter's page: the narrative, each code cell highlighted with its
/// result's name and hash and its outputs, links to the notebook, the org
/// report, the contents and the neighbouring chapters.
pub fn page(nb: &Notebook, chapter: &Chapter, book: &Book) -> String {
    let mut body = String::new();
    let top = nav(book, chapter);
    body.push_str(&top);
    let notebook = format!(
        "<a href=\"{}{}\">{}</a>",
        html_escape(&book.root_from_reports),
        html_escape(&chapter.source),
        html_escape(&chapter.source),
    );
    let sources = match book.edition {
        Edition::Teacher => format!(
            "Generated by <code>puzzlebook report</code> from {notebook}; also as an <a href=\"{}\">org report</a>.",
            html_escape(&chapter.org()),
        ),
        Edition::Student => format!(
            "{STUDENT_EDITION}, from {notebook}: open the notebook in Jupyter to write the exercises."
        ),
    };
    let _ = write!(
        body,
        "<header>\n<h1>{}</h1>\n<p class=\"sources\">{sources}</p>\n</header>\n<main>\n",
        html_escape(&chapter.title),
    );
    for part in chapter::body(nb).parts {
        match part {
            Part::Narrative(md) => body.push_str(&markdown_html(&md)),
            Part::Code(c) => {
                let id = html_escape(&c.name);
                let code = format!(
                    "<pre class=\"code\"><code>{}</code></pre>\n",
                    highlight::rust_html(c.cell.source.trim_end())
                );
                let _ = writeln!(body, "<section class=\"cell\" id=\"{id}\">");
                // An exercise's solution and tests are folded: the page is
                // the teacher's edition, and a student reading it should
                // choose to look.
                match nbgrader::nbgrader(c.cell, c.position).ok().flatten() {
                    Some(meta) if meta.solution || meta.grade => {
                        body.push_str(&exercise_html(&meta, &code, book.edition));
                    }
                    _ => body.push_str(&code),
                }
                // A cell that shows nothing gets no result block: an empty
                // "Result … <hash>" header says nothing to a reader. The org
                // report keeps it, as org-babel writes it.
                let shown = outputs_html(&c.cell.outputs);
                if let (Some(hash), false) = (&c.cell.hash, shown.is_empty()) {
                    let _ = write!(
                        body,
                        "<div class=\"results\" data-name=\"{id}\" data-hash=\"{hash}\">\n\
                         <p class=\"result-name\">Result <a href=\"#{id}\">{id}</a> \
                         <span class=\"hash\" title=\"SHA-1 of the crate and the cells up to this one\">{hash}</span></p>\n{shown}</div>\n"
                    );
                }
                body.push_str("</section>\n");
            }
        }
    }
    body.push_str("</main>\n");
    body.push_str(&top);
    document(&format!("{} · puzzlebook", chapter.title), &body)
}

/// An exercise cell: its name and points, and its code: folded in the
/// teacher's edition, where it holds the solution or the hidden tests; as
/// it is in the student's, where it holds the stub or the visible tests.
fn exercise_html(meta: &Nbgrader, code: &str, edition: Edition) -> String {
    let id = html_escape(&meta.grade_id);
    let points = meta
        .points
        .filter(|_| meta.grade)
        .map(|p| format!(" · {p} point{}", if p == 1.0 { "" } else { "s" }));
    if edition == Edition::Student {
        let what = if meta.solution {
            " · write your answer in the notebook, in place of the stub"
        } else {
            " (tests)"
        };
        return format!(
            "<p class=\"exercise\">Exercise {id}{what}{}</p>\n{code}",
            points.unwrap_or_default()
        );
    }
    let (what, fold) = if meta.solution {
        ("", "The solution")
    } else {
        (" (tests)", "The tests, hidden ones included")
    };
    format!(
        "<p class=\"exercise\">Exercise {id}{what}{}</p>\n<details class=\"exercise\">\n<summary>{fold}</summary>\n{code}</details>\n",
        points.unwrap_or_default()
    )
}

/// The table of contents: each chapter with its summary and its files.
pub fn index(book: &Book) -> String {
    let generated = match book.edition {
        Edition::Teacher => "Generated by <code>puzzlebook report</code>.".to_string(),
        Edition::Student => format!(
            "{STUDENT_EDITION}, generated by <code>puzzlebook exercises release --pages</code>: \
             the exercises without their solutions."
        ),
    };
    let mut body = format!(
        "<header>\n<h1>puzzlebook</h1>\n<p class=\"sources\">Constraint solving with Z3, in Rust: \
         four published write-ups reproduced step for step. {generated}</p>\n</header>\n<main>\n<ol class=\"toc\">\n",
    );
    for c in &book.chapters {
        let org = match book.edition {
            Edition::Teacher => format!(" · <a href=\"{}\">org report</a>", html_escape(&c.org())),
            Edition::Student => String::new(),
        };
        let _ = writeln!(
            body,
            "<li><a href=\"{}\">{}</a>\n<span class=\"summary\">{}</span>\n\
             <span class=\"files\"><a href=\"{}{}\">notebook</a>{org}</span></li>",
            html_escape(&c.page()),
            html_escape(&c.title),
            html_escape(&c.summary),
            html_escape(&book.root_from_reports),
            html_escape(&c.source),
        );
    }
    body.push_str("</ol>\n</main>\n");
    document("puzzlebook", &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::ipynb::{CellKind, NotebookCell};

    fn chapter(stem: &str) -> Chapter {
        Chapter {
            stem: stem.into(),
            source: format!("notebooks/{stem}.ipynb"),
            title: format!("Title <{stem}>"),
            summary: "One line.".into(),
        }
    }

    #[test]
    fn a_page_holds_narrative_code_results_and_links() {
        let mut nb = Notebook::parse(r#"{"nbformat": 4, "cells": []}"#).unwrap();
        let mut code = NotebookCell::new(CellKind::Code, "let t = 1;\nt");
        code.name = Some("start".into());
        code.hash = Some("abc".into());
        code.outputs = vec![
            Output::Stream {
                name: "stdout".into(),
                text: "a < b\n".into(),
            },
            Output::ExecuteResult {
                data: [("text/html".to_string(), "<table></table>\n".to_string())].into(),
            },
        ];
        nb.cells = vec![
            NotebookCell::new(CellKind::Markdown, "# T\n\nSome *text*."),
            code,
        ];
        let book = Book {
            chapters: vec![chapter("a"), chapter("b")],
            root_from_reports: "../".into(),
            edition: Default::default(),
        };
        let html = page(&nb, &book.chapters[1], &book);
        assert!(html.contains("<p>Some <em>text</em>.</p>"), "{html}");
        assert!(
            html.contains("data-name=\"start\" data-hash=\"abc\""),
            "{html}"
        );
        assert!(
            html.contains("<pre class=\"output\">a &lt; b</pre>"),
            "{html}"
        );
        assert!(
            html.contains("<div class=\"table\">\n<table></table>"),
            "{html}"
        );
        assert!(html.contains("href=\"../notebooks/b.ipynb\""), "{html}");
        assert!(html.contains("href=\"b.org\""), "{html}");
        assert!(
            html.contains("<a rel=\"prev\" href=\"a.html\">← Title &lt;a&gt;</a>"),
            "{html}"
        );
        assert!(!html.contains("rel=\"next\""), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "nothing fetched"
        );
    }

    #[test]
    fn a_caption_the_figure_draws_labels_it_and_any_other_is_shown() {
        // A figure of the crate draws its title as a line of text.
        let title = "a < b, \"I don't\"";
        let drawn = puzzlebook::figure::bars(title, &[("won".into(), 1)]).unwrap();
        let html = figure(drawn.svg(), title);
        assert!(
            html.starts_with(
                "<figure class=\"figure\" role=\"img\" aria-label=\"a &lt; b, &quot;I don&#39;t&quot;\">\n<svg"
            ),
            "{html}"
        );
        assert!(!html.contains("figcaption"), "{html}");
        // A caption it does not draw, or draws only inside a longer line, is
        // shown under it.
        for caption in ["Another title", "a <"] {
            let html = figure(drawn.svg(), caption);
            assert!(
                html.starts_with("<figure class=\"figure\">\n<svg"),
                "{html}"
            );
            assert!(
                html.ends_with(&format!(
                    "</svg>\n<figcaption>{}</figcaption>\n</figure>\n",
                    html_escape(caption)
                )),
                "{html}"
            );
        }
    }

    #[test]
    fn a_cell_that_shows_nothing_has_no_result_block() {
        let mut nb = Notebook::parse(r#"{"nbformat": 4, "cells": []}"#).unwrap();
        let mut quiet = NotebookCell::new(CellKind::Code, "let t = 1;");
        quiet.name = Some("quiet".into());
        quiet.hash = Some("abc".into());
        // Standard error is not shown on a page, so it does not count.
        quiet.outputs = vec![Output::Stream {
            name: "stderr".into(),
            text: "a warning\n".into(),
        }];
        let mut loud = NotebookCell::new(CellKind::Code, "t");
        loud.name = Some("loud".into());
        loud.hash = Some("def".into());
        loud.outputs = vec![Output::ExecuteResult {
            data: [("text/plain".to_string(), "1".to_string())].into(),
        }];
        nb.cells = vec![quiet, loud];
        let book = Book {
            chapters: vec![chapter("a")],
            root_from_reports: "../".into(),
            edition: Default::default(),
        };
        let html = page(&nb, &book.chapters[0], &book);
        assert!(
            html.contains("<section class=\"cell\" id=\"quiet\">"),
            "{html}"
        );
        assert!(!html.contains("data-name=\"quiet\""), "{html}");
        assert!(!html.contains(">abc<"), "{html}");
        assert!(
            html.contains("data-name=\"loud\" data-hash=\"def\""),
            "{html}"
        );
    }

    #[test]
    fn an_exercise_shows_its_name_and_points_with_its_code_folded() {
        let nb = Notebook::parse(
            &serde_json::json!({"nbformat": 4, "cells": [
                {"cell_type": "code", "metadata": {"name": "answer",
                  "nbgrader": {"grade_id": "01-1", "solution": true, "grade": false, "schema_version": 3}},
                 "source": "fn exercise_01_1() -> i64 {\n    // BEGIN SOLUTION\n    42\n    // END SOLUTION\n}", "outputs": []},
                {"cell_type": "code", "metadata": {"name": "check",
                  "nbgrader": {"grade_id": "01-1-test", "grade": true, "points": 2, "locked": true}},
                 "source": "assert_eq!(exercise_01_1(), 42);", "outputs": []},
                {"cell_type": "code", "metadata": {"name": "plain"}, "source": "1 + 1", "outputs": []}
            ]})
            .to_string(),
        )
        .unwrap();
        let book = Book {
            chapters: vec![chapter("a")],
            root_from_reports: "../".into(),
            edition: Default::default(),
        };
        let html = page(&nb, &book.chapters[0], &book);
        assert!(html.contains("<p class=\"exercise\">Exercise 01-1</p>\n<details class=\"exercise\">\n<summary>The solution</summary>"), "{html}");
        assert!(
            html.contains("<p class=\"exercise\">Exercise 01-1-test (tests) · 2 points</p>"),
            "{html}"
        );
        // The plain cell is not folded.
        let plain = &html[html.find("id=\"plain\"").unwrap()..];
        assert!(
            plain.starts_with("id=\"plain\">\n<pre class=\"code\">"),
            "{plain}"
        );
        assert_eq!(html.matches("<details").count(), 2);

        // The student edition shows the released cells as they are, and
        // links no org report.
        let released = crate::course::release::release(&nb).unwrap();
        let book = Book {
            edition: Edition::Student,
            root_from_reports: String::new(),
            ..book
        };
        let html = page(&released, &book.chapters[0], &book);
        assert_eq!(html.matches("<details").count(), 0, "{html}");
        assert!(html.contains("<p class=\"exercise\">Exercise 01-1 · write your answer in the notebook, in place of the stub</p>\n<pre class=\"code\">"), "{html}");
        assert!(html.contains("unsolved"), "{html}");
        // What a reader sees of the page's body: the tags taken out.
        let mut seen = String::new();
        let mut in_tag = false;
        for ch in html[html.find("<main>").unwrap()..].chars() {
            match ch {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => seen.push(c),
                _ => {}
            }
        }
        assert!(
            seen.contains("fn exercise_01_1() -&gt; i64 {\n    puzzlebook::unsolved!()\n}"),
            "{seen}"
        );
        assert!(!seen.contains("SOLUTION"), "{seen}");
        assert!(!html.contains(".org"), "{html}");
        assert!(
            html.contains("The student edition, from <a href=\"notebooks/a.ipynb\">"),
            "{html}"
        );
        assert!(!index(&book).contains("org report"));
    }

    #[test]
    fn the_index_lists_every_chapter_with_its_summary() {
        let book = Book {
            chapters: vec![chapter("a"), chapter("b")],
            root_from_reports: "../".into(),
            edition: Default::default(),
        };
        let html = index(&book);
        assert_eq!(html.matches("<li>").count(), 2);
        assert!(
            html.contains("<a href=\"b.html\">Title &lt;b&gt;</a>"),
            "{html}"
        );
        assert!(html.contains("One line."));
    }
}
