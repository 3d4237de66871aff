//! Markdown narrative to org-mode: headings, emphasis, code, lists, links, tables.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use puzzlebook::table::Table;

/// Converts a Markdown cell to org-mode text (blocks separated by blank lines,
/// ending with a newline; empty input gives the empty string).
///
/// ```
/// use puzzlebook_cli::render::markdown::markdown_to_org;
/// assert_eq!(markdown_to_org("## Step *one*"), "** Step /one/\n");
/// assert_eq!(markdown_to_org("See [z3](https://z3.org) and `x`."),
///            "See [[https://z3.org][z3]] and ~x~.\n");
/// ```
pub fn markdown_to_org(md: &str) -> String {
    markdown_to_org_shifted(md, 0)
}

/// [`markdown_to_org`] with every heading raised `shift` levels (at least one
/// star stays): with the notebook's `# ` title taken as `#+TITLE:`, its `## `
/// sections become org's top-level `* ` headings.
pub fn markdown_to_org_shifted(md: &str, shift: usize) -> String {
    let mut c = Conv {
        shift,
        ..Conv::default()
    };
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for ev in Parser::new_ext(md, opts) {
        c.event(ev);
    }
    c.blocks.retain(|b| !b.trim().is_empty());
    if c.blocks.is_empty() {
        return String::new();
    }
    let mut out = c.blocks.join("\n\n");
    out.push('\n');
    out
}

/// One open list: its next number (`None` for bullets).
#[derive(Debug)]
struct List {
    next: Option<u64>,
}

#[derive(Debug, Default)]
struct Conv {
    blocks: Vec<String>,
    inline: String,
    code: Option<(String, String)>,
    lists: Vec<List>,
    list_text: String,
    item: Option<(usize, String, String)>,
    table: Option<Vec<Vec<String>>>,
    row: Vec<String>,
    head: Option<Vec<String>>,
    quote: Vec<usize>,
    shift: usize,
}

impl Conv {
    fn event(&mut self, ev: Event<'_>) {
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => match &mut self.code {
                Some((_, body)) => body.push_str(&t),
                None => self.inline.push_str(&t),
            },
            Event::Code(t) => {
                let mark = if t.contains('~') { '=' } else { '~' };
                self.inline.push(mark);
                self.inline.push_str(&t);
                self.inline.push(mark);
            }
            Event::SoftBreak => self.inline.push('\n'),
            Event::HardBreak => self.inline.push_str("\\\\\n"),
            Event::Rule => self.block("-----".to_string()),
            Event::Html(h) | Event::InlineHtml(h) => self.inline.push_str(&h),
            Event::InlineMath(m) => {
                self.inline.push_str("\\(");
                self.inline.push_str(&m);
                self.inline.push_str("\\)");
            }
            Event::DisplayMath(m) => {
                self.inline.push_str("\\[");
                self.inline.push_str(&m);
                self.inline.push_str("\\]");
            }
            Event::FootnoteReference(r) => {
                self.inline.push_str(&format!("[fn:{r}]"));
            }
            Event::TaskListMarker(done) => {
                self.inline.push_str(if done { "[X] " } else { "[ ] " });
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::Heading { .. } => self.inline.clear(),
            Tag::Emphasis => self.inline.push('/'),
            Tag::Strong => self.inline.push('*'),
            Tag::Strikethrough => self.inline.push('+'),
            Tag::Link { dest_url, .. } => {
                self.inline.push_str("[[");
                self.inline.push_str(&dest_url);
                self.inline.push_str("][");
            }
            Tag::Image { dest_url, .. } => {
                self.inline.push_str("[[");
                self.inline.push_str(&dest_url);
                self.inline.push_str("]]");
                // The alt text follows as Text events; drop it by marking.
                self.inline.push('\u{0}');
            }
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => {
                        l.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                self.flush_item();
                self.lists.push(List { next: start });
            }
            Tag::Item => {
                self.flush_item();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(List { next: Some(n) }) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "- ".to_string(),
                };
                self.inline.clear();
                self.item = Some((depth, marker, String::new()));
            }
            Tag::Table(_) => self.table = Some(Vec::new()),
            Tag::TableHead => self.row.clear(),
            Tag::TableRow => self.row.clear(),
            Tag::TableCell => self.inline.clear(),
            Tag::BlockQuote(_) => self.quote.push(self.blocks.len()),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.end_paragraph(),
            TagEnd::Heading(level) => self.end_heading(level),
            TagEnd::Emphasis => self.inline.push('/'),
            TagEnd::Strong => self.inline.push('*'),
            TagEnd::Strikethrough => self.inline.push('+'),
            TagEnd::Link => self.inline.push_str("]]"),
            TagEnd::Image => {
                if let Some(p) = self.inline.rfind('\u{0}') {
                    self.inline.truncate(p);
                }
            }
            TagEnd::CodeBlock => self.end_code_block(),
            TagEnd::Item => self.flush_item(),
            TagEnd::List(_) => self.end_list(),
            TagEnd::TableCell => {
                let text = std::mem::take(&mut self.inline).replace('\n', " ");
                self.row.push(text);
            }
            TagEnd::TableHead => self.head = Some(std::mem::take(&mut self.row)),
            TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    t.push(std::mem::take(&mut self.row));
                }
            }
            TagEnd::Table => self.end_table(),
            TagEnd::BlockQuote(_) => self.end_quote(),
            _ => {}
        }
    }

    /// A paragraph joins the open list item, or is a block of its own.
    fn end_paragraph(&mut self) {
        let text = std::mem::take(&mut self.inline);
        if let Some((_, _, body)) = &mut self.item {
            if !body.is_empty() {
                body.push_str("\n\n");
            }
            body.push_str(&text);
        } else {
            self.block(text);
        }
    }

    /// A heading: stars by level, less the shift under a title.
    fn end_heading(&mut self, level: HeadingLevel) {
        let stars: usize = match level {
            HeadingLevel::H1 => 1,
            HeadingLevel::H2 => 2,
            HeadingLevel::H3 => 3,
            HeadingLevel::H4 => 4,
            HeadingLevel::H5 => 5,
            HeadingLevel::H6 => 6,
        };
        let stars = stars.saturating_sub(self.shift).max(1);
        let text = std::mem::take(&mut self.inline).replace('\n', " ");
        self.block(format!("{} {text}", "*".repeat(stars)));
    }

    /// A fenced block with a language is a source block, else an example.
    fn end_code_block(&mut self) {
        if let Some((lang, body)) = self.code.take() {
            let body = body.strip_suffix('\n').unwrap_or(&body).to_string();
            let b = if lang.is_empty() {
                format!("#+BEGIN_EXAMPLE\n{body}\n#+END_EXAMPLE")
            } else {
                format!("#+BEGIN_SRC {lang}\n{body}\n#+END_SRC")
            };
            self.block(b);
        }
    }

    /// The end of the outermost list makes its text one block.
    fn end_list(&mut self) {
        self.flush_item();
        self.lists.pop();
        if self.lists.is_empty() {
            let text = std::mem::take(&mut self.list_text);
            self.block(text.trim_end().to_string());
        }
    }

    /// A table becomes an aligned org table, short rows padded.
    fn end_table(&mut self) {
        if let Some(rows) = self.table.take() {
            let mut full = Table::new(self.head.take().unwrap_or_default());
            let width = full.header().len();
            for mut r in rows {
                r.resize(width, String::new());
                full.push_row(r);
            }
            self.block(full.to_org().trim_end().to_string());
        }
    }

    /// The blocks since the quote opened go inside `#+BEGIN_QUOTE`.
    fn end_quote(&mut self) {
        if let Some(from) = self.quote.pop() {
            let inner = self.blocks.split_off(from.min(self.blocks.len()));
            self.blocks.push(format!(
                "#+BEGIN_QUOTE\n{}\n#+END_QUOTE",
                inner.join("\n\n")
            ));
        }
    }

    /// Ends the open list item, if any: its text goes into the list's text.
    fn flush_item(&mut self) {
        if let Some((depth, marker, mut body)) = self.item.take() {
            let rest = std::mem::take(&mut self.inline);
            if !rest.trim().is_empty() {
                if !body.is_empty() {
                    body.push('\n');
                }
                body.push_str(&rest);
            }
            let indent = "  ".repeat(depth);
            let cont = " ".repeat(indent.len() + marker.len());
            let mut first = true;
            for line in body.lines() {
                if first {
                    self.list_text
                        .push_str(&format!("{indent}{marker}{line}\n"));
                    first = false;
                } else if line.is_empty() {
                    self.list_text.push('\n');
                } else {
                    self.list_text.push_str(&format!("{cont}{line}\n"));
                }
            }
            if first {
                self.list_text
                    .push_str(&format!("{indent}{}\n", marker.trim_end()));
            }
        }
    }

    fn block(&mut self, text: String) {
        if self.item.is_some() || !self.lists.is_empty() {
            // A block inside a list item (a code block, say) joins the item.
            if let Some((_, _, body)) = &mut self.item {
                if !body.is_empty() {
                    body.push('\n');
                }
                body.push_str(&text);
                return;
            }
        }
        self.blocks.push(text);
    }
}

#[cfg(test)]
mod tests {
    use super::markdown_to_org as org;

    #[test]
    fn headings_and_emphasis() {
        assert_eq!(org("# One\n\n### Three"), "* One\n\n*** Three\n");
        assert_eq!(org("a *b* **c** ~~d~~"), "a /b/ *c* +d+\n");
    }

    #[test]
    fn headings_shift_under_a_title() {
        assert_eq!(
            super::markdown_to_org_shifted("## Two\n\n# One", 1),
            "* Two\n\n* One\n"
        );
    }

    #[test]
    fn code_blocks() {
        assert_eq!(
            org("```rust\nlet x = 1;\n```"),
            "#+BEGIN_SRC rust\nlet x = 1;\n#+END_SRC\n"
        );
        assert_eq!(
            org("    plain\n"),
            "#+BEGIN_EXAMPLE\nplain\n#+END_EXAMPLE\n"
        );
        assert_eq!(org("`a~b`"), "=a~b=\n");
    }

    #[test]
    fn lists_nest_and_number() {
        assert_eq!(org("- a\n- b\n  - c\n- d"), "- a\n- b\n  - c\n- d\n");
        assert_eq!(org("1. x\n2. y"), "1. x\n2. y\n");
        assert_eq!(org("3. x\n4. y"), "3. x\n4. y\n");
        assert_eq!(org("- a\n\n  more\n- b"), "- a\n\n  more\n- b\n");
    }

    #[test]
    fn tables_become_aligned_org_tables() {
        assert_eq!(
            org("| a | bb |\n|---|---|\n| 1 | x |\n"),
            "| a | bb |\n|---+----|\n| 1 | x  |\n"
        );
    }

    #[test]
    fn links_images_quotes_rules() {
        assert_eq!(org("[t](http://x)"), "[[http://x][t]]\n");
        assert_eq!(org("![alt](p.png)"), "[[p.png]]\n");
        assert_eq!(org("> q"), "#+BEGIN_QUOTE\nq\n#+END_QUOTE\n");
        assert_eq!(org("a\n\n---\n\nb"), "a\n\n-----\n\nb\n");
        assert_eq!(org(""), "");
    }
}
