//! Figures for the chapters, drawn with plotters' SVG backend: grids of coloured
//! cells, expression trees, bar charts and value paths.
//!
//! A [`Figure`] shows itself in a notebook as `image/svg+xml`, which Jupyter
//! draws; the `puzzlebook report` command writes the same SVG to
//! `reports/figures/` and inlines it in the HTML page. Figures are byte-identical
//! on every run: plotters' SVG backend writes text as `<text>` elements, and
//! without its `ttf` feature it measures text with a fixed estimate instead of
//! the machine's fonts, so nothing depends on what is installed.
//!
//! The drawing functions take plain data (labels, category numbers, values), so a
//! notebook computes what to show in its own cells and only the drawing lives here.
//!
//! ```
//! use puzzlebook::figure::{bars, Figure};
//! let f: Figure = bars("Outcomes", &[("won".to_string(), 3), ("lost".to_string(), 1)]).unwrap();
//! assert!(f.svg().starts_with("<svg"));
//! assert!(f.svg().contains("\nwon\n"));
//! ```

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use thiserror::Error;

use crate::rich::{Rendering, RichDisplay};

/// The MIME type of a figure in a notebook.
pub const SVG_MIME: &str = "image/svg+xml";

/// A figure that could not be drawn.
#[derive(Debug, Error)]
pub enum FigureError {
    /// The SVG backend failed (it writes to memory, so this is unexpected).
    #[error("drawing the figure failed: {0}")]
    Draw(String),
    /// The data does not fit the figure, e.g. rows of different lengths.
    #[error("cannot draw {what}: {why}")]
    Data {
        /// Which figure.
        what: String,
        /// What is wrong with the data.
        why: String,
    },
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for FigureError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        FigureError::Draw(e.to_string())
    }
}

/// A drawn figure: its title and SVG text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    title: String,
    svg: String,
}

impl Figure {
    /// The title, as drawn at the top.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The SVG document (an `<svg>` element with `width`, `height` and `viewBox`).
    pub fn svg(&self) -> &str {
        &self.svg
    }
}

impl RichDisplay for Figure {
    fn renderings(&self) -> Vec<Rendering> {
        vec![
            Rendering {
                mime: SVG_MIME,
                content: self.svg.clone(),
            },
            Rendering {
                mime: "text/plain",
                content: format!("[figure: {}]", self.title),
            },
        ]
    }
}

crate::impl_evcxr_display!(Figure);

/// Colours for categories 0, 1, …: the Okabe–Ito palette, distinguishable with
/// the common colour-vision deficiencies, then darker tones.
pub const PALETTE: [RGBColor; 12] = [
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xF0, 0xE4, 0x42),
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x99, 0x99, 0x99),
    RGBColor(0x66, 0x44, 0x00),
    RGBColor(0x11, 0x55, 0x33),
    RGBColor(0x55, 0x22, 0x66),
    RGBColor(0x33, 0x33, 0x33),
];

/// The colour of category `k` (the palette repeats past its end).
pub fn colour(k: usize) -> RGBColor {
    PALETTE[k % PALETTE.len()]
}

const FONT: &str = "sans-serif";
const MARGIN: i32 = 12;
const TITLE_HEIGHT: i32 = 30;
/// A generous width of one character of a sans-serif font, per pixel of size,
/// for layout (browsers render the text with the fonts they have).
const CHAR_WIDTH: f64 = 0.62;

/// Text of `size` pixels (plotters' SVG backend writes `size / 1.24`).
fn text_style(size: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from((FONT, size * 1.24).into_font())
        .color(&BLACK)
        .pos(Pos::new(h, v))
}

/// The width `s` takes at `size` pixels.
fn text_width(s: &str, size: f64) -> i32 {
    (s.chars().count() as f64 * size * CHAR_WIDTH).ceil() as i32
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Draws into a fresh SVG of `size` with a white background and `title` on top.
fn draw(
    title: &str,
    size: (u32, u32),
    body: impl FnOnce(&Area) -> Result<(), FigureError>,
) -> Result<Figure, FigureError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        root.draw(&Text::new(
            title.to_string(),
            (MARGIN, MARGIN),
            text_style(18.0, HPos::Left, VPos::Top),
        ))?;
        body(&root)?;
        root.present()?;
    }
    Ok(Figure {
        title: title.to_string(),
        svg,
    })
}

/// One panel of a grid figure: rows × columns of cells, each empty or in a
/// category (a colour of [`PALETTE`]), some of them marked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// The panel's caption, drawn above it.
    pub caption: String,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub columns: Vec<String>,
    /// `cells[row][column]`: `None` for an empty cell, else its category.
    pub cells: Vec<Vec<Option<usize>>>,
    /// Cells `(row, column)` marked with a ring.
    pub marks: Vec<(usize, usize)>,
}

impl Grid {
    fn check(&self) -> Result<(), FigureError> {
        let bad = |why: String| FigureError::Data {
            what: format!("grid {:?}", self.caption),
            why,
        };
        if self.cells.len() != self.rows.len() {
            return Err(bad(format!(
                "{} rows of cells for {} row labels",
                self.cells.len(),
                self.rows.len()
            )));
        }
        if let Some((i, r)) = self
            .cells
            .iter()
            .enumerate()
            .find(|(_, r)| r.len() != self.columns.len())
        {
            return Err(bad(format!(
                "row {i} has {} cells for {} columns",
                r.len(),
                self.columns.len()
            )));
        }
        if let Some(m) = self
            .marks
            .iter()
            .find(|(r, c)| *r >= self.rows.len() || *c >= self.columns.len())
        {
            return Err(bad(format!("mark {m:?} is outside the grid")));
        }
        Ok(())
    }

    /// The side of one cell: large for small grids, at least 8 pixels.
    fn cell_size(&self) -> i32 {
        let n = self.rows.len().max(self.columns.len()).max(1) as i32;
        (400 / n).clamp(8, 34)
    }

    fn label_width(&self) -> i32 {
        self.rows
            .iter()
            .map(|r| text_width(r, 12.0))
            .max()
            .unwrap_or(0)
            + 8
    }

    fn size(&self) -> (i32, i32) {
        let cs = self.cell_size();
        let w = self.label_width() + cs * self.columns.len() as i32;
        let w = w.max(text_width(&self.caption, 14.0));
        // Caption, column labels, cells.
        (w, 22 + 18 + cs * self.rows.len() as i32)
    }

    fn draw_at(&self, area: &Area, x0: i32, y0: i32) -> Result<(), FigureError> {
        let cs = self.cell_size();
        let lw = self.label_width();
        let small = text_style(12.0, HPos::Center, VPos::Center);
        // Label every cell when they are wide enough, else every fifth.
        let every = if cs >= 16 { 1 } else { 5 };
        area.draw(&Text::new(
            self.caption.clone(),
            (x0, y0),
            text_style(14.0, HPos::Left, VPos::Top),
        ))?;
        let top = y0 + 22 + 18;
        let left = x0 + lw;
        for (c, label) in self.columns.iter().enumerate() {
            if c % every == 0 || c + 1 == self.columns.len() {
                area.draw(&Text::new(
                    label.clone(),
                    (left + c as i32 * cs + cs / 2, top - 9),
                    small.clone(),
                ))?;
            }
        }
        for (r, label) in self.rows.iter().enumerate() {
            if r % every == 0 || r + 1 == self.rows.len() {
                area.draw(&Text::new(
                    label.clone(),
                    (left - 6, top + r as i32 * cs + cs / 2),
                    text_style(12.0, HPos::Right, VPos::Center),
                ))?;
            }
            for (c, cell) in self.cells[r].iter().enumerate() {
                let (x, y) = (left + c as i32 * cs, top + r as i32 * cs);
                let corners = [(x, y), (x + cs, y + cs)];
                match cell {
                    Some(k) => area.draw(&Rectangle::new(corners, colour(*k).filled()))?,
                    None => area.draw(&Rectangle::new(
                        corners,
                        RGBColor(0xF4, 0xF4, 0xF4).filled(),
                    ))?,
                }
                area.draw(&Rectangle::new(corners, WHITE.stroke_width(1)))?;
            }
        }
        for (r, c) in &self.marks {
            let centre = (
                left + *c as i32 * cs + cs / 2,
                top + *r as i32 * cs + cs / 2,
            );
            let radius = (cs / 2 - 2).max(3);
            area.draw(&Circle::new(centre, radius, BLACK.stroke_width(3)))?;
            area.draw(&Circle::new(centre, radius, WHITE.stroke_width(1)))?;
        }
        Ok(())
    }
}

/// The legend's entries laid out in lines no wider than `width`: `(x, y, k, label)`.
fn legend_layout(legend: &[String], width: i32) -> Vec<(i32, i32, usize, &str)> {
    let mut out = Vec::new();
    let (mut x, mut y) = (0, 0);
    for (k, label) in legend.iter().enumerate() {
        let w = 14 + 6 + text_width(label, 13.0) + 18;
        if x > 0 && x + w > width {
            x = 0;
            y += 22;
        }
        out.push((x, y, k, label.as_str()));
        x += w;
    }
    out
}

fn draw_legend(
    area: &Area,
    legend: &[String],
    x0: i32,
    y0: i32,
    width: i32,
) -> Result<(), FigureError> {
    for (x, y, k, label) in legend_layout(legend, width) {
        let (x, y) = (x0 + x, y0 + y);
        area.draw(&Rectangle::new(
            [(x, y), (x + 14, y + 14)],
            colour(k).filled(),
        ))?;
        area.draw(&Text::new(
            label.to_string(),
            (x + 20, y + 7),
            text_style(13.0, HPos::Left, VPos::Center),
        ))?;
    }
    Ok(())
}

fn legend_height(legend: &[String], width: i32) -> i32 {
    legend_layout(legend, width)
        .last()
        .map(|(_, y, _, _)| y + 22 + 8)
        .unwrap_or(0)
}

/// Grid panels side by side under one title, with a legend naming the
/// categories (`legend[k]` for category `k`) below them.
pub fn grids(title: &str, panels: &[Grid], legend: &[String]) -> Result<Figure, FigureError> {
    for p in panels {
        p.check()?;
    }
    const GAP: i32 = 28;
    let sizes: Vec<(i32, i32)> = panels.iter().map(Grid::size).collect();
    let inner_w = sizes.iter().map(|s| s.0).sum::<i32>() + GAP * (panels.len() as i32 - 1).max(0);
    let inner_w = inner_w.max(text_width(title, 18.0) + 20).max(360);
    let panels_h = sizes.iter().map(|s| s.1).max().unwrap_or(0);
    let legend_h = legend_height(legend, inner_w);
    let w = inner_w + 2 * MARGIN;
    let h = MARGIN + TITLE_HEIGHT + panels_h + 12 + legend_h + MARGIN;
    draw(title, (w as u32, h as u32), |area| {
        let mut x = MARGIN;
        for (p, (pw, _)) in panels.iter().zip(&sizes) {
            p.draw_at(area, x, MARGIN + TITLE_HEIGHT)?;
            x += pw + GAP;
        }
        draw_legend(
            area,
            legend,
            MARGIN,
            MARGIN + TITLE_HEIGHT + panels_h + 12,
            inner_w,
        )
    })
}

/// A node of a tree figure: a label and its children, left to right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The text in the node's circle.
    pub label: String,
    /// The children, left to right; none for a leaf.
    pub children: Vec<Node>,
}

impl Node {
    /// A leaf.
    pub fn leaf(label: impl Into<String>) -> Node {
        Node {
            label: label.into(),
            children: Vec::new(),
        }
    }

    /// A node with children.
    pub fn branch(label: impl Into<String>, children: Vec<Node>) -> Node {
        Node {
            label: label.into(),
            children,
        }
    }

    fn depth(&self) -> usize {
        1 + self.children.iter().map(Node::depth).max().unwrap_or(0)
    }

    fn leaves(&self) -> usize {
        if self.children.is_empty() {
            1
        } else {
            self.children.iter().map(Node::leaves).sum()
        }
    }
}

/// Positions of the tree's nodes, in slots: leaves at 0, 1, 2, … left to right,
/// each parent centred over its children. Returns `(x, depth, label, parent)`.
fn tree_layout(root: &Node) -> Vec<(f64, usize, String, Option<usize>)> {
    fn walk(
        n: &Node,
        depth: usize,
        parent: Option<usize>,
        next_leaf: &mut usize,
        out: &mut Vec<(f64, usize, String, Option<usize>)>,
    ) -> f64 {
        let me = out.len();
        out.push((0.0, depth, n.label.clone(), parent));
        let x = if n.children.is_empty() {
            *next_leaf += 1;
            (*next_leaf - 1) as f64
        } else {
            let xs: Vec<f64> = n
                .children
                .iter()
                .map(|c| walk(c, depth + 1, Some(me), next_leaf, out))
                .collect();
            (xs[0] + xs[xs.len() - 1]) / 2.0
        };
        out[me].0 = x;
        x
    }
    let mut out = Vec::new();
    walk(root, 0, None, &mut 0, &mut out);
    out
}

/// A tree, root on top: inner nodes shaded blue, leaves yellow.
pub fn tree(title: &str, root: &Node) -> Result<Figure, FigureError> {
    const SLOT: i32 = 64;
    const LEVEL: i32 = 70;
    const R: i32 = 20;
    let layout = tree_layout(root);
    let width = (root.leaves() as i32 * SLOT)
        .max(text_width(title, 18.0) + 20)
        .max(240);
    let offset = (width - root.leaves() as i32 * SLOT) / 2;
    let w = width + 2 * MARGIN;
    let h = MARGIN + TITLE_HEIGHT + root.depth() as i32 * LEVEL + MARGIN;
    let at = |x: f64, d: usize| {
        (
            MARGIN + offset + (x * SLOT as f64) as i32 + SLOT / 2,
            MARGIN + TITLE_HEIGHT + d as i32 * LEVEL + LEVEL / 2,
        )
    };
    draw(title, (w as u32, h as u32), |area| {
        for (x, d, _, parent) in &layout {
            if let Some(p) = parent {
                let (px, pd, _, _) = &layout[*p];
                area.draw(&PathElement::new(
                    vec![at(*px, *pd), at(*x, *d)],
                    RGBColor(0x55, 0x55, 0x55).stroke_width(2),
                ))?;
            }
        }
        for (i, (x, d, label, _)) in layout.iter().enumerate() {
            let leaf = !layout.iter().any(|n| n.3 == Some(i));
            let fill = if leaf {
                RGBColor(0xFF, 0xF1, 0xB8)
            } else {
                RGBColor(0xCF, 0xE6, 0xF7)
            };
            let c = at(*x, *d);
            area.draw(&Circle::new(c, R, fill.filled()))?;
            area.draw(&Circle::new(
                c,
                R,
                RGBColor(0x33, 0x33, 0x33).stroke_width(2),
            ))?;
            area.draw(&Text::new(
                label.clone(),
                c,
                text_style(16.0, HPos::Center, VPos::Center),
            ))?;
        }
        Ok(())
    })
}

/// Horizontal bars, one per `(label, count)`, each with its count written after it.
pub fn bars(title: &str, data: &[(String, u64)]) -> Result<Figure, FigureError> {
    const BAR: i32 = 26;
    const LENGTH: i32 = 320;
    let label_w = data
        .iter()
        .map(|(l, _)| text_width(l, 14.0))
        .max()
        .unwrap_or(0)
        + 12;
    let most = data.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let width = (label_w + LENGTH + 60).max(text_width(title, 18.0) + 20);
    let w = width + 2 * MARGIN;
    let h = MARGIN + TITLE_HEIGHT + data.len() as i32 * (BAR + 10) + MARGIN;
    draw(title, (w as u32, h as u32), |area| {
        for (i, (label, n)) in data.iter().enumerate() {
            let y = MARGIN + TITLE_HEIGHT + i as i32 * (BAR + 10);
            let x = MARGIN + label_w;
            area.draw(&Text::new(
                label.clone(),
                (x - 8, y + BAR / 2),
                text_style(14.0, HPos::Right, VPos::Center),
            ))?;
            let len = ((*n as f64 / most as f64) * LENGTH as f64).round() as i32;
            area.draw(&Rectangle::new(
                [(x, y), (x + len.max(1), y + BAR)],
                colour(i).filled(),
            ))?;
            area.draw(&Text::new(
                n.to_string(),
                (x + len + 6, y + BAR / 2),
                text_style(14.0, HPos::Left, VPos::Center),
            ))?;
        }
        Ok(())
    })
}

/// The titles of a [`path`] figure's two axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axes<'a> {
    /// What the step labels under the plot are (`"button pressed"`).
    pub steps: &'a str,
    /// What the values at the points are (`"display"`).
    pub values: &'a str,
}

/// A value after each step: `start` at step 0, then `(label, value)` for each
/// step, joined by a line, each point labelled with its value and each step with
/// its label under the axis. `axes` names both, so a label is not read as a
/// value. The goal, when given, is drawn as a dashed line.
pub fn path(
    title: &str,
    axes: Axes<'_>,
    start: i64,
    steps: &[(String, i64)],
    goal: Option<i64>,
) -> Result<Figure, FigureError> {
    const STEP: i32 = 90;
    const PLOT_H: i32 = 240;
    let values: Vec<i64> = std::iter::once(start)
        .chain(steps.iter().map(|(_, v)| *v))
        .collect();
    let lo = values
        .iter()
        .chain(goal.iter())
        .copied()
        .min()
        .unwrap_or(0)
        .min(0);
    let hi = values
        .iter()
        .chain(goal.iter())
        .copied()
        .max()
        .unwrap_or(0)
        .max(0);
    let span = (hi - lo).max(1) as f64;
    let width = (steps.len() as i32 * STEP + 80).max(text_width(title, 18.0) + 20);
    let w = width + 2 * MARGIN;
    let top = MARGIN + TITLE_HEIGHT + 40;
    let h = top + PLOT_H + 76 + MARGIN;
    let x_of = |i: usize| MARGIN + 40 + i as i32 * STEP;
    let y_of = |v: i64| top + ((hi - v) as f64 / span * PLOT_H as f64).round() as i32;
    draw(title, (w as u32, h as u32), |area| {
        let grey = RGBColor(0x99, 0x99, 0x99);
        area.draw(&PathElement::new(
            vec![(x_of(0) - 20, y_of(0)), (x_of(steps.len()) + 20, y_of(0))],
            grey.stroke_width(1),
        ))?;
        area.draw(&Text::new(
            "0",
            (x_of(0) - 24, y_of(0)),
            text_style(12.0, HPos::Right, VPos::Center),
        ))?;
        if let Some(g) = goal {
            let y = y_of(g);
            let mut x = x_of(0) - 20;
            while x < x_of(steps.len()) + 20 {
                area.draw(&PathElement::new(
                    vec![(x, y), (x + 8, y)],
                    colour(5).stroke_width(2),
                ))?;
                x += 14;
            }
            area.draw(&Text::new(
                format!("goal {g}"),
                (x_of(steps.len()) + 20, y - 10),
                text_style(12.0, HPos::Right, VPos::Bottom),
            ))?;
        }
        // The axes' titles: the values' above the plot on the left, the
        // steps' centred under their labels.
        area.draw(&Text::new(
            axes.values.to_string(),
            (x_of(0) - 20, top - 32),
            text_style(12.0, HPos::Left, VPos::Center),
        ))?;
        area.draw(&Text::new(
            axes.steps.to_string(),
            ((x_of(0) + x_of(steps.len())) / 2, top + PLOT_H + 58),
            text_style(12.0, HPos::Center, VPos::Center),
        ))?;
        let points: Vec<(i32, i32)> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (x_of(i), y_of(*v)))
            .collect();
        area.draw(&PathElement::new(points.clone(), colour(4).stroke_width(3)))?;
        for (i, (p, v)) in points.iter().zip(&values).enumerate() {
            area.draw(&Circle::new(*p, 6, colour(4).filled()))?;
            let above = if i > 0 && values[i - 1] > *v { 14 } else { -14 };
            area.draw(&Text::new(
                v.to_string(),
                (p.0, p.1 + above),
                text_style(14.0, HPos::Center, VPos::Center),
            ))?;
            let label = if i == 0 {
                "start"
            } else {
                steps[i - 1].0.as_str()
            };
            area.draw(&Text::new(
                label.to_string(),
                (p.0, top + PLOT_H + 30),
                text_style(14.0, HPos::Center, VPos::Center),
            ))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        Grid {
            caption: "g".into(),
            rows: vec!["1".into(), "2".into()],
            columns: vec!["a".into(), "b".into(), "c".into()],
            cells: vec![vec![Some(0), None, Some(1)], vec![None, Some(2), None]],
            marks: vec![(1, 1)],
        }
    }

    #[test]
    fn figures_are_deterministic_svg() {
        let legend = vec!["zero".to_string(), "one".into(), "two".into()];
        let a = grids("T", &[grid()], &legend).unwrap();
        let b = grids("T", &[grid()], &legend).unwrap();
        assert_eq!(a, b);
        assert!(a.svg().starts_with("<svg"), "{}", &a.svg()[..40]);
        assert!(a.svg().trim_end().ends_with("</svg>"));
        // Three filled cells, three legend swatches, in the palette's colours.
        assert!(a.svg().contains("#E69F00"), "{}", a.svg());
    }

    #[test]
    fn a_ragged_grid_is_refused_with_its_caption() {
        let mut g = grid();
        g.cells[1].pop();
        let e = grids("T", &[g], &[]).unwrap_err();
        assert!(e.to_string().contains("\"g\""), "{e}");
        assert!(
            e.to_string().contains("row 1 has 2 cells for 3 columns"),
            "{e}"
        );
    }

    #[test]
    fn tree_parents_sit_over_their_children() {
        let t = Node::branch(
            "/",
            vec![
                Node::leaf("8"),
                Node::branch("-", vec![Node::leaf("3"), Node::leaf("8")]),
            ],
        );
        let l = tree_layout(&t);
        let xs: Vec<f64> = l.iter().map(|n| n.0).collect();
        assert_eq!(xs, [0.75, 0.0, 1.5, 1.0, 2.0]);
        assert!(tree("t", &t).unwrap().svg().contains("\n/\n"));
    }

    #[test]
    fn a_path_names_its_axes_apart_from_its_labels() {
        let axes = Axes {
            steps: "button pressed",
            values: "display",
        };
        let f = path("P", axes, 0, &[("x5".into(), 0), ("4".into(), 4)], Some(4)).unwrap();
        let svg = f.svg();
        for text in ["button pressed", "display", "x5", "goal 4"] {
            assert!(svg.contains(&format!(">\n{text}\n<")), "{text} in {svg}");
        }
    }

    #[test]
    fn the_notebook_sees_svg_and_a_plain_caption() {
        let f = bars("B", &[("x".into(), 2)]).unwrap();
        let r = f.renderings();
        assert_eq!(r[0].mime, SVG_MIME);
        assert_eq!(r[1].content, "[figure: B]");
    }
}
