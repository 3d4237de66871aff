//! The book assembled: every file a chapter renders to (its org report, its
//! page and its figures) and the table of contents, from the [`chapter`]
//! model through the [`report`] and [`html`] renderers.

use std::collections::BTreeMap;

use crate::notebook::chapter::{Book, Chapter, Edition, INDEX};
use crate::notebook::ipynb::{figure_name, Notebook};
use crate::render::html;
use crate::render::org;
use puzzlebook::figure::SVG_MIME;

/// Every file `chapter` (of `nb`) renders to, relative to the reports folder,
/// sorted: the org report, the HTML page, and one SVG per figure.
pub fn files(nb: &Notebook, chapter: &Chapter, book: &Book) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    out.insert(chapter.org(), org::render(nb, chapter));
    out.insert(chapter.page(), html::page(nb, chapter, book));
    for (name, svg) in figures(nb) {
        out.insert(chapter.figure(&name), svg);
    }
    out
}

/// The student edition of the book: a page per released notebook (each
/// `(notebook, file name)`), in that order, then the table of contents;
/// each as (path relative to the release folder, text). The pages carry
/// their figures inline, so no SVG files.
pub fn student_edition(released: &[(&Notebook, &str)]) -> Vec<(String, String)> {
    let edition: Vec<(&Notebook, Chapter)> = released
        .iter()
        .map(|(nb, name)| (*nb, Chapter::of(nb, name)))
        .collect();
    let mut chapters: Vec<Chapter> = edition.iter().map(|(_, c)| c.clone()).collect();
    chapters.sort_by(|x, y| x.stem.cmp(&y.stem));
    let book = Book {
        chapters,
        root_from_reports: String::new(),
        edition: Edition::Student,
    };
    let mut out: Vec<(String, String)> = edition
        .iter()
        .map(|(nb, chapter)| (chapter.page(), html::page(nb, chapter, &book)))
        .collect();
    out.push((INDEX.to_string(), html::index(&book)));
    out
}

/// The figures of a notebook: `(figure name, SVG)` for each SVG image a
/// code cell displayed or gave as its value, named by [`figure_name`].
pub fn figures(nb: &Notebook) -> Vec<(String, String)> {
    nb.code_cells()
        .flat_map(|c| {
            c.cell
                .outputs
                .iter()
                .filter_map(|o| o.rich()?.get(SVG_MIME))
                .enumerate()
                .map(move |(k, svg)| (figure_name(&c.name, k), svg.clone()))
        })
        .collect()
}

/// The table of contents page.
pub fn index(book: &Book) -> String {
    html::index(book)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::ipynb::{CellKind, Output};

    fn nb(cells: &[(CellKind, &str)]) -> Notebook {
        Notebook::of_cells(cells)
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
            edition: Default::default(),
        };
        let f = files(&n, &Chapter::of(&n, "notebooks/n.ipynb"), &book);
        let names: Vec<&str> = f.keys().map(String::as_str).collect();
        assert_eq!(names, ["figures/n/grid.svg", "n.html", "n.org"]);
    }

    #[test]
    fn a_cell_that_displays_figures_has_a_file_for_each() {
        let mut n = nb(&[(CellKind::Code, "grids()")]);
        n.cells[0].name = Some("grid".into());
        let svg = |s: &str| [(SVG_MIME.to_string(), s.to_string())].into();
        n.cells[0].outputs = vec![
            Output::DisplayData {
                data: svg("<svg>1</svg>"),
            },
            Output::DisplayData {
                data: svg("<svg>2</svg>"),
            },
            Output::ExecuteResult {
                data: svg("<svg>3</svg>"),
            },
        ];
        assert_eq!(
            figures(&n),
            [
                ("grid".to_string(), "<svg>1</svg>".to_string()),
                ("grid.2".to_string(), "<svg>2</svg>".to_string()),
                ("grid.3".to_string(), "<svg>3</svg>".to_string()),
            ]
        );
    }
}
