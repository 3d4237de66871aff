//! A student's feedback page, in the book's HTML style: each exercise with
//! its points, the student's solution, what the tests said and its
//! answer sheets drawn.

use std::fmt::Write as _;

use puzzlebook::table::html_escape;

use crate::course::gradebook::{number, Graded};
use crate::render::highlight;
use crate::render::html::{document, figure};

/// The feedback page for `graded`, a submission of the chapter `title`.
pub fn page(title: &str, graded: &Graded) -> String {
    let mut body = String::new();
    let _ = write!(
        body,
        "<header>\n<h1>{}: feedback for {}</h1>\n<p class=\"sources\">Graded by <code>puzzlebook grade</code> from <code>{}</code>.</p>\n</header>\n<main>\n",
        html_escape(title),
        html_escape(&graded.student),
        html_escape(&graded.file),
    );
    match &graded.marks {
        Err(why) => {
            let _ = writeln!(
                body,
                "<p class=\"mark not-graded\">Not graded</p>\n<pre class=\"output\">{}</pre>",
                html_escape(why)
            );
        }
        Ok(marks) => {
            let (got, max): (f64, f64) = marks
                .iter()
                .fold((0.0, 0.0), |(g, m), k| (g + k.score, m + k.max));
            let _ = writeln!(
                body,
                "<p class=\"mark\">{} of {} points</p>",
                number(got),
                number(max)
            );
            if !graded.changed.is_empty() {
                body.push_str("<ul class=\"changed\">\n");
                for c in &graded.changed {
                    let _ = writeln!(body, "<li>{}</li>", html_escape(c));
                }
                body.push_str("</ul>\n");
            }
            for m in marks {
                let class = m.status.as_str().replace(' ', "-");
                let _ = writeln!(
                    body,
                    "<section class=\"cell\" id=\"{id}\">\n<h2>Exercise {id}</h2>\n<p class=\"mark {class}\">{} of {} points: {}</p>",
                    number(m.score),
                    number(m.max),
                    m.status.as_str(),
                    id = html_escape(&m.exercise),
                );
                if let Some(code) = graded.answers.get(&m.exercise) {
                    let _ = writeln!(
                        body,
                        "<p class=\"result-name\">Your solution</p>\n<pre class=\"code\"><code>{}</code></pre>",
                        highlight::rust_html(code.trim_end())
                    );
                }
                if !m.feedback.is_empty() {
                    let _ = writeln!(
                        body,
                        "<p class=\"result-name\">What the tests said</p>\n<pre class=\"output said\">{}</pre>",
                        html_escape(m.feedback.trim_end())
                    );
                }
                for f in graded.sheets.get(&m.exercise).into_iter().flatten() {
                    body.push_str(&figure(f.svg(), f.title()));
                }
                body.push_str("</section>\n");
            }
        }
    }
    body.push_str("</main>\n");
    document(
        &format!("{title} · feedback for {} · puzzlebook", graded.student),
        &body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::scoring::{Mark, Status};
    use std::collections::BTreeMap;

    #[test]
    fn the_page_shows_each_exercise_its_points_the_answer_and_the_feedback_escaped() {
        let graded = Graded {
            student: "alice".into(),
            file: "in/alice.ipynb".into(),
            marks: Ok(vec![Mark {
                exercise: "09-1".into(),
                score: 0.0,
                max: 2.0,
                status: Status::Wrong,
                feedback: "Not yet: your model allows x<y".into(),
            }]),
            changed: vec!["the locked cell 09-1-test was edited".into()],
            answers: BTreeMap::from([("09-1".to_string(), "fn f() {}".to_string())]),
            sheets: BTreeMap::from([(
                "09-1".to_string(),
                vec![puzzlebook::figure::bars("x<y", &[("won".into(), 1)]).unwrap()],
            )]),
        };
        let html = page("Nine", &graded);
        assert!(html.contains("<h1>Nine: feedback for alice</h1>"), "{html}");
        assert!(html.contains("<p class=\"mark\">0 of 2 points</p>"));
        assert!(html
            .contains("<h2>Exercise 09-1</h2>\n<p class=\"mark wrong\">0 of 2 points: wrong</p>"));
        assert!(html.contains("Not yet: your model allows x&lt;y"));
        assert!(html.contains("<li>the locked cell 09-1-test was edited</li>"));
        assert!(html.contains("Your solution"));
        // The exercise's figure, in its section, after what the tests said.
        let section = html
            .split("<section class=\"cell\" id=\"09-1\">")
            .nth(1)
            .unwrap();
        let said = section.find("What the tests said").unwrap();
        // Its text wraps on the page, so that a long line is read whole.
        assert!(
            section.contains("<pre class=\"output said\">Not yet"),
            "{section}"
        );
        // The figure draws its title, which labels it rather than being
        // written again as a caption.
        let drawn = section
            .find("<figure class=\"figure\" role=\"img\" aria-label=\"x&lt;y\">\n<svg")
            .expect("the figure");
        assert!(said < drawn, "{section}");
        assert!(
            section.contains("</svg>\n</figure>\n</section>"),
            "{section}"
        );
        assert!(!section.contains("figcaption"), "{section}");
    }

    #[test]
    fn a_submission_not_graded_says_why() {
        let graded = Graded {
            student: "bob".into(),
            file: "bob.ipynb".into(),
            marks: Err("bob.ipynb is not a usable notebook: not valid JSON".into()),
            changed: vec![],
            answers: BTreeMap::new(),
            sheets: BTreeMap::new(),
        };
        let html = page("Nine", &graded);
        assert!(html.contains("Not graded"));
        assert!(html.contains("not valid JSON"));
    }
}
