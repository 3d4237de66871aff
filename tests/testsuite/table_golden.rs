//! Every `Table` rendering compared byte for byte with golden files.

use crate::common::assert_golden;
use puzzlebook::rich::RichDisplay;
use puzzlebook::Table;

fn cases() -> Vec<(&'static str, Table)> {
    vec![
        (
            "numbers",
            Table::new(["m", "s", "x", "y"])
                .with_row([9, 10, 1, 9])
                .with_row([-120, 8, 1, 7])
                .with_row([81, 18, 9, 9]),
        ),
        (
            "mixed",
            Table::new(["Q", "answer", "note"])
                .with_row(["1", "D", "first B is Q4"])
                .with_row(["12", "A", "even"]),
        ),
        ("empty", Table::new(["m", "s", "x", "y"])),
        ("no_columns", Table::new(Vec::<String>::new())),
        (
            "escapes",
            Table::new(["expr", "a|b", "html"])
                .with_row(["x | y", "<b>", "\"q\" & 'a'"])
                .with_row(["||", "1 < 2", "ok"]),
        ),
        (
            "wide",
            Table::new(["", "permutation()", "Function"])
                .with_row(["排列", "短", "稍长"])
                .with_row(["length", "shorter", "slightly longer"]),
        ),
    ]
}

#[test]
fn org_renderings_match_golden_files() {
    for (name, t) in cases() {
        assert_golden(&format!("table/{name}.org"), &t.to_org());
    }
}

#[test]
fn terminal_renderings_match_golden_files() {
    for (name, t) in cases() {
        assert_golden(&format!("table/{name}.txt"), &t.to_terminal());
    }
}

#[test]
fn html_renderings_match_golden_files() {
    for (name, t) in cases() {
        assert_golden(&format!("table/{name}.html"), &t.to_html());
    }
}

#[test]
fn tsv_renderings_match_golden_files() {
    for (name, t) in cases() {
        assert_golden(&format!("table/{name}.tsv"), &t.to_tsv());
    }
}

#[test]
fn evcxr_display_publishes_html_plain_and_org() {
    let t = Table::new(["a"]).with_row([1]);
    let text = puzzlebook::rich::evcxr_blocks(&t.renderings());
    assert_golden("table/evcxr_display.txt", &text);
}
