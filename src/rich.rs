//! Rich output for notebooks: the `EVCXR_BEGIN_CONTENT` protocol, our org
//! MIME type, and displays and clears a cell shows as it runs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;

/// The MIME type under which values publish their org-mode rendering.
///
/// The report renderer reads this MIME type to write org tables into reports.
pub const ORG_MIME: &str = "text/x-org";

/// One rendering of a value under a MIME type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendering {
    /// The MIME type, e.g. `text/html`.
    pub mime: &'static str,
    /// The content, as it should be shown.
    pub content: String,
}

/// Formats renderings in evcxr's rich-output protocol.
///
/// evcxr reads blocks of the form `EVCXR_BEGIN_CONTENT <mime>` … `EVCXR_END_CONTENT`
/// from a cell's standard output and turns them into display data.
///
/// ```
/// use puzzlebook::rich::{evcxr_blocks, Rendering};
/// let text = evcxr_blocks(&[Rendering { mime: "text/plain", content: "hi".into() }]);
/// assert_eq!(text, "EVCXR_BEGIN_CONTENT text/plain\nhi\nEVCXR_END_CONTENT\n");
/// ```
pub fn evcxr_blocks(renderings: &[Rendering]) -> String {
    let mut out = String::new();
    for r in renderings {
        let body = r.content.strip_suffix('\n').unwrap_or(&r.content);
        let _ = writeln!(
            out,
            "EVCXR_BEGIN_CONTENT {}\n{}\nEVCXR_END_CONTENT",
            r.mime, body
        );
    }
    out
}

/// A value that can show itself in a notebook as HTML, plain text and org.
///
/// Types implementing this get their `evcxr_display` method from a one-line
/// inherent method that calls [`RichDisplay::print_rich`] (evcxr looks for an
/// inherent-looking method call named `evcxr_display`).
pub trait RichDisplay {
    /// The renderings to publish, in order.
    fn renderings(&self) -> Vec<Rendering>;

    /// Prints the renderings to standard output in evcxr's protocol.
    fn print_rich(&self) {
        print!("{}", evcxr_blocks(&self.renderings()));
    }
}

/// Implements `evcxr_display` for types that implement [`RichDisplay`].
#[macro_export]
macro_rules! impl_evcxr_display {
    ($($t:ty),* $(,)?) => {$(
        impl $t {
            /// Shows this value in an evcxr notebook (HTML, plain text and org).
            pub fn evcxr_display(&self) {
                $crate::rich::RichDisplay::print_rich(self)
            }
        }
    )*};
}

/// The start of a line of a cell's standard output that shows renderings at
/// once (see [`display`]); the rest of the line is a JSON object, MIME type
/// to content.
pub const DISPLAY_LINE: &str = "PUZZLEBOOK_DISPLAY_DATA ";

/// The start of a line that clears what the cell has shown (see
/// [`clear_output`]); ` wait` may follow.
pub const CLEAR_LINE: &str = "PUZZLEBOOK_CLEAR_OUTPUT";

/// What a line of a cell's standard output asks the kernel and the runner to
/// show, besides text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// Renderings to show now, below what the cell printed so far, as
    /// Jupyter's `display_data`: MIME type to content.
    Display(BTreeMap<String, String>),
    /// Clear what the cell has shown so far, as Jupyter's `clear_output`;
    /// with `wait`, only once it shows something new.
    Clear {
        /// Whether to wait for the next output.
        wait: bool,
    },
}

impl Shown {
    /// The line `self` is printed as, without its newline.
    ///
    /// ```
    /// use puzzlebook::rich::Shown;
    /// let d = Shown::Display([("text/plain".to_string(), "a\nb".to_string())].into());
    /// assert_eq!(d.line(), r#"PUZZLEBOOK_DISPLAY_DATA {"text/plain":"a\nb"}"#);
    /// assert_eq!(Shown::parse(&d.line()), Some(d));
    /// ```
    pub fn line(&self) -> String {
        match self {
            Shown::Display(data) => format!(
                "{DISPLAY_LINE}{}",
                serde_json::to_string(data).expect("strings serialize")
            ),
            Shown::Clear { wait: false } => CLEAR_LINE.to_string(),
            Shown::Clear { wait: true } => format!("{CLEAR_LINE} wait"),
        }
    }

    /// What `line` (without its newline) asks to show, if it is a line
    /// [`Shown::line`] wrote; any other line is text.
    pub fn parse(line: &str) -> Option<Shown> {
        if let Some(json) = line.strip_prefix(DISPLAY_LINE) {
            let data: BTreeMap<String, String> = serde_json::from_str(json).ok()?;
            return (!data.is_empty()).then_some(Shown::Display(data));
        }
        match line.strip_prefix(CLEAR_LINE)? {
            "" => Some(Shown::Clear { wait: false }),
            " wait" => Some(Shown::Clear { wait: true }),
            _ => None,
        }
    }
}

/// Prints `shown` on a line of its own and flushes, so that it comes in
/// order with what the cell prints around it.
fn print_shown(shown: &Shown) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", shown.line());
    let _ = out.flush();
}

/// Shows `value` now, below what the cell has printed so far, and goes on:
/// so a cell can show several tables or figures, or one as it works. In
/// Jupyter it is a `display_data` message; in the notebook the runner writes,
/// a `display_data` output; in the reports, shown as a cell's value is.
///
/// It is a line of the cell's standard output ([`DISPLAY_LINE`]), so it
/// starts a line: end a `print!` with a newline before it.
pub fn display(value: &impl RichDisplay) {
    let data = value
        .renderings()
        .into_iter()
        .map(|r| {
            let body = r.content.strip_suffix('\n').unwrap_or(&r.content);
            (r.mime.to_string(), body.to_string())
        })
        .collect();
    print_shown(&Shown::Display(data));
}

/// Clears what the cell has shown so far, printed text and displays, as
/// Jupyter's `clear_output`. With `wait`, the old output stays until the cell
/// shows something new, so that a display updated in place does not flicker.
/// The runner's notebook keeps what comes after the last clear (the cell's
/// standard error, which it keeps apart, stays).
pub fn clear_output(wait: bool) {
    print_shown(&Shown::Clear { wait });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_line_reads_back_as_itself_and_other_lines_as_text() {
        let data: BTreeMap<String, String> = [
            ("text/html", "<table>\n<tr><td>\"a\"</td></tr>\n</table>"),
            ("text/plain", "PUZZLEBOOK_CLEAR_OUTPUT\n\tü ✓"),
        ]
        .map(|(m, c)| (m.to_string(), c.to_string()))
        .into();
        for shown in [
            Shown::Display(data),
            Shown::Clear { wait: false },
            Shown::Clear { wait: true },
        ] {
            let line = shown.line();
            assert!(!line.contains('\n'), "{line}");
            assert_eq!(Shown::parse(&line), Some(shown));
        }
        for text in [
            "",
            "a line",
            " PUZZLEBOOK_CLEAR_OUTPUT",
            "PUZZLEBOOK_CLEAR_OUTPUT  wait",
            "PUZZLEBOOK_DISPLAY_DATA ",
            "PUZZLEBOOK_DISPLAY_DATA {}",
            "PUZZLEBOOK_DISPLAY_DATA {\"text/plain\": 1}",
            "PUZZLEBOOK_DISPLAY_DATA [\"text/plain\"]",
        ] {
            assert_eq!(Shown::parse(text), None, "{text:?}");
        }
    }
}
