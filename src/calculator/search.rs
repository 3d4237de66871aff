//! Exhaustive search over the simulator, shortest first.

use super::level::{Level, Solution};

/// Every solution of the fewest presses that reach the goal within the level's
/// moves, sorted; empty when there is none. With `all == false`, only the first.
///
/// The search walks every sequence of each length in turn (buttons^length), so
/// it is meant for the game's small levels.
pub fn search(level: &Level, all: bool) -> Vec<Solution> {
    if level.start == level.goal {
        return vec![Solution {
            start: level.start,
            presses: vec![],
            values: vec![],
        }];
    }
    for len in 1..=level.moves {
        let mut found = Vec::new();
        let mut presses = Vec::with_capacity(len);
        walk(level, level.start, len, &mut presses, &mut found, all);
        if !found.is_empty() {
            found.sort();
            return found;
        }
    }
    Vec::new()
}

fn walk(
    level: &Level,
    value: i64,
    left: usize,
    presses: &mut Vec<usize>,
    found: &mut Vec<Solution>,
    all: bool,
) {
    if !all && !found.is_empty() {
        return;
    }
    if left == 0 {
        if value == level.goal {
            let seq = presses.iter().map(|i| level.buttons[*i].clone()).collect();
            if let Some(s) = level.verify(seq) {
                found.push(s);
            }
        }
        return;
    }
    for (i, b) in level.buttons.iter().enumerate() {
        if let Some(next) = b.apply(value) {
            presses.push(i);
            walk(level, next, left - 1, presses, found, all);
            presses.pop();
        }
    }
}
