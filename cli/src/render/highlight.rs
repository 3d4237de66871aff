//! Rust syntax highlighting for the HTML pages, with syntect: spans with CSS
//! classes, and the stylesheet for them from one of syntect's bundled themes.

use std::sync::OnceLock;

use syntect::highlighting::ThemeSet;
use syntect::html::{css_for_theme_with_class_style, ClassStyle, ClassedHTMLGenerator};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

/// Class names get this prefix, so they cannot clash with the page's own.
const CLASS_STYLE: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "hl-" };

/// The theme the stylesheet is made from (light, high contrast).
const THEME: &str = "InspiredGitHub";

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// Rust source as HTML: `<span class="hl-…">` runs, text escaped, ready to go
/// inside `<pre><code>`.
///
/// ```
/// let html = puzzlebook_cli::render::highlight::rust_html("let x = 1; // one");
/// assert!(html.contains(r#"<span class="hl-storage hl-type hl-rust">let</span>"#), "{html}");
/// assert!(html.contains("hl-comment"));
/// ```
pub fn rust_html(source: &str) -> String {
    let ss = syntaxes();
    let syntax = ss
        .find_syntax_by_extension("rs")
        .unwrap_or_else(|| ss.find_syntax_plain_text());
    let mut gen = ClassedHTMLGenerator::new_with_class_style(syntax, ss, CLASS_STYLE);
    for line in LinesWithEndings::from(source) {
        if gen
            .parse_html_for_line_which_includes_newline(line)
            .is_err()
        {
            // The grammar failed on this input: show the rest unhighlighted
            // rather than lose it.
            return puzzlebook::table::html_escape(source);
        }
    }
    gen.finalize()
}

/// The stylesheet for [`rust_html`]'s classes.
pub fn css() -> String {
    let themes = ThemeSet::load_defaults();
    themes
        .themes
        .get(THEME)
        .and_then(|t| css_for_theme_with_class_style(t, CLASS_STYLE).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_code_is_escaped() {
        let html = rust_html("let s = \"<b>\" ;\n");
        assert!(!html.contains("<b>"), "{html}");
        assert!(html.contains("&lt;b&gt;"), "{html}");
    }

    #[test]
    fn the_stylesheet_covers_the_classes() {
        let css = css();
        assert!(css.contains(".hl-comment"), "{css}");
    }
}
