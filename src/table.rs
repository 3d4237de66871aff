//! `Table`: a header and rows of cells, rendered as org, terminal, HTML and TSV.

use std::fmt;

use crate::rich::{Rendering, RichDisplay, ORG_MIME};

/// One cell of a [`Table`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cell {
    /// An integer, right-aligned in org and terminal tables.
    Int(i64),
    /// Any text. Text that looks like a number is right-aligned as org does.
    Text(String),
}

impl Cell {
    /// Whether org-table-align would treat this cell as a number.
    pub fn is_number(&self) -> bool {
        match self {
            Cell::Int(_) => true,
            Cell::Text(s) => looks_numeric(s),
        }
    }
}

/// The org notion of "looks like a number": optional sign, digits, and `.`/`/`/`e`.
fn looks_numeric(s: &str) -> bool {
    let t = s.trim();
    let t = t.strip_prefix(['-', '+']).unwrap_or(t);
    t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | 'e' | 'E'))
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Int(i) => write!(f, "{i}"),
            Cell::Text(s) => f.write_str(s),
        }
    }
}

macro_rules! cell_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Cell {
            fn from(v: $t) -> Self { Cell::Int(v as i64) }
        }
    )*};
}
cell_from_int!(i8, i16, i32, i64, u8, u16, u32, usize);

impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.to_string())
    }
}
impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}
impl From<char> for Cell {
    fn from(v: char) -> Self {
        Cell::Text(v.to_string())
    }
}
impl From<bool> for Cell {
    fn from(v: bool) -> Self {
        Cell::Text(if v { "yes" } else { "no" }.to_string())
    }
}

/// A table of results: a header and rows, each row as long as the header.
///
/// ```
/// use puzzlebook::Table;
/// let mut t = Table::new(["m", "s"]);
/// t.push_row([9, 10]);
/// assert_eq!(t.to_org(), "| m |  s |\n|---+----|\n| 9 | 10 |\n");
/// assert_eq!(t.to_tsv(), "m\ts\n9\t10\n");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table with this header and no rows.
    pub fn new<I, S>(header: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Table {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    ///
    /// # Panics
    /// When the row's length differs from the header's: that is a bug in the caller.
    pub fn push_row<I, C>(&mut self, row: I)
    where
        I: IntoIterator<Item = C>,
        C: Into<Cell>,
    {
        let row: Vec<Cell> = row.into_iter().map(Into::into).collect();
        assert_eq!(
            row.len(),
            self.header.len(),
            "a row of {} cells in a table of {} columns",
            row.len(),
            self.header.len()
        );
        self.rows.push(row);
    }

    /// Builder form of [`Table::push_row`].
    pub fn with_row<I, C>(mut self, row: I) -> Self
    where
        I: IntoIterator<Item = C>,
        C: Into<Cell>,
    {
        self.push_row(row);
        self
    }

    /// The column names.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The rows.
    pub fn rows(&self) -> &[Vec<Cell>] {
        &self.rows
    }

    /// The number of rows (the header not counted).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Whether column `c` is numeric the way org-table-align decides it:
    /// at least half of its non-empty body cells look like numbers.
    fn numeric_column(&self, c: usize) -> bool {
        let cells: Vec<&Cell> = self
            .rows
            .iter()
            .map(|r| &r[c])
            .filter(|cell| !cell.to_string().trim().is_empty())
            .collect();
        !cells.is_empty() && cells.iter().filter(|c| c.is_number()).count() * 2 >= cells.len()
    }

    /// Renders as an org table, aligned as `org-table-align` leaves it.
    ///
    /// A `|` inside a cell is written as the org entity `\vert{}` so it does not
    /// split the cell. A table without columns renders as the empty string.
    pub fn to_org(&self) -> String {
        if self.header.is_empty() {
            return String::new();
        }
        let esc = |s: &str| s.replace('|', "\\vert{}").replace('\n', " ");
        let header: Vec<String> = self.header.iter().map(|h| esc(h)).collect();
        let body: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| esc(&c.to_string())).collect())
            .collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|c| {
                body.iter()
                    .map(|r| width(&r[c]))
                    .chain([width(&header[c])])
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let numeric: Vec<bool> = (0..header.len()).map(|c| self.numeric_column(c)).collect();
        let line = |cells: &[String], out: &mut String| {
            out.push('|');
            for (c, cell) in cells.iter().enumerate() {
                let pad = widths[c] - width(cell);
                out.push(' ');
                if numeric[c] {
                    out.push_str(&" ".repeat(pad));
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    out.push_str(&" ".repeat(pad));
                }
                out.push_str(" |");
            }
            out.push('\n');
        };
        let mut out = String::new();
        line(&header, &mut out);
        out.push('|');
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(w + 2)).collect();
        out.push_str(&rule.join("+"));
        out.push_str("|\n");
        for r in &body {
            line(r, &mut out);
        }
        out
    }

    /// Renders as a Markdown (GitHub) table: the org table with `|---|---|` as
    /// its rule and `|` inside a cell escaped as `\|`.
    ///
    /// ```
    /// use puzzlebook::Table;
    /// let t = Table::new(["m", "s"]).with_row([9, 10]);
    /// assert_eq!(t.to_markdown(), "| m |  s |\n|---|----|\n| 9 | 10 |\n");
    /// ```
    pub fn to_markdown(&self) -> String {
        let escaped = Table {
            header: self.header.iter().map(|h| h.replace('|', "\\|")).collect(),
            rows: self
                .rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|c| match c {
                            Cell::Text(s) => Cell::Text(s.replace('|', "\\|")),
                            other => other.clone(),
                        })
                        .collect()
                })
                .collect(),
        };
        let org = escaped.to_org();
        let mut lines: Vec<String> = org.lines().map(str::to_string).collect();
        if lines.len() > 1 {
            lines[1] = lines[1].replace('+', "|");
        }
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// Renders as tab-separated text, header first, one line per row.
    pub fn to_tsv(&self) -> String {
        let mut out = String::new();
        if self.header.is_empty() {
            return out;
        }
        out.push_str(&self.header.join("\t"));
        out.push('\n');
        for r in &self.rows {
            let cells: Vec<String> = r.iter().map(|c| c.to_string()).collect();
            out.push_str(&cells.join("\t"));
            out.push('\n');
        }
        out
    }

    /// Renders as a boxed terminal table through prettytable-rs.
    pub fn to_terminal(&self) -> String {
        use prettytable::{format, Cell as PCell, Row};
        if self.header.is_empty() {
            return String::new();
        }
        let mut t = prettytable::Table::new();
        t.set_format(*format::consts::FORMAT_NO_LINESEP_WITH_TITLE);
        t.set_titles(Row::new(
            self.header.iter().map(|h| PCell::new(h)).collect(),
        ));
        let numeric: Vec<bool> = (0..self.header.len())
            .map(|c| self.numeric_column(c))
            .collect();
        for r in &self.rows {
            t.add_row(Row::new(
                r.iter()
                    .enumerate()
                    .map(|(c, cell)| {
                        let pc = PCell::new(&cell.to_string());
                        if numeric[c] {
                            pc.style_spec("r")
                        } else {
                            pc
                        }
                    })
                    .collect(),
            ));
        }
        t.to_string().replace("\r\n", "\n")
    }

    /// Renders as an HTML `<table>`, every header and cell escaped. A table
    /// without columns renders as the empty string.
    pub fn to_html(&self) -> String {
        if self.header.is_empty() {
            return String::new();
        }
        let mut out = String::from("<table>\n<thead>\n<tr>");
        for h in &self.header {
            out.push_str(&format!("<th>{}</th>", html_escape(h)));
        }
        out.push_str("</tr>\n</thead>\n<tbody>\n");
        for r in &self.rows {
            out.push_str("<tr>");
            for c in r {
                let attr = if c.is_number() {
                    " style=\"text-align: right\""
                } else {
                    ""
                };
                out.push_str(&format!("<td{attr}>{}</td>", html_escape(&c.to_string())));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
        out
    }
}

/// The display width of a cell: characters, counting East Asian wide ones twice.
fn width(s: &str) -> usize {
    s.chars()
        .map(|c| match c as u32 {
            0x1100..=0x115F
            | 0x2E80..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFF00..=0xFF60 => 2,
            _ => 1,
        })
        .sum()
}

/// Escapes `& < > " '` for HTML text and attributes.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

impl fmt::Display for Table {
    /// Displays as the terminal rendering.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_terminal())
    }
}

impl RichDisplay for Table {
    fn renderings(&self) -> Vec<Rendering> {
        vec![
            Rendering {
                mime: "text/html",
                content: self.to_html(),
            },
            Rendering {
                mime: "text/plain",
                content: self.to_terminal(),
            },
            Rendering {
                mime: ORG_MIME,
                content: self.to_org(),
            },
        ]
    }
}

crate::impl_evcxr_display!(Table);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_detection_follows_org() {
        assert!(Cell::from("-12").is_number());
        assert!(Cell::from("3.5").is_number());
        assert!(Cell::from("1/5").is_number());
        assert!(!Cell::from("D").is_number());
        assert!(!Cell::from("").is_number());
        assert!(!Cell::from("-").is_number());
    }

    #[test]
    fn mixed_column_is_numeric_when_half_are_numbers() {
        let t = Table::new(["x"]).with_row(["1"]).with_row(["ab"]);
        assert_eq!(t.to_org(), "|  x |\n|----|\n|  1 |\n| ab |\n");
        let t = Table::new(["x"])
            .with_row(["1"])
            .with_row(["ab"])
            .with_row(["cd"]);
        assert_eq!(t.to_org(), "| x  |\n|----|\n| 1  |\n| ab |\n| cd |\n");
    }

    #[test]
    #[should_panic(expected = "a row of 1 cells in a table of 2 columns")]
    fn short_rows_are_a_bug() {
        Table::new(["a", "b"]).push_row([1]);
    }

    #[test]
    fn wide_characters_count_twice() {
        assert_eq!(width("排列"), 4);
        assert_eq!(width("ab"), 2);
    }
}
