//! Rich output for notebooks: the `EVCXR_BEGIN_CONTENT` protocol and our org MIME type.

use std::fmt::Write as _;

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
