//! The notebook reader against mutated `.ipynb` files: it never panics, and
//! `check` on a mutated notebook never writes a file. The kernel's message
//! parser against random frames: it never panics either. Bounded in cases
//! and in time; the inputs come from fixed seeds, so a failure reproduces.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{puzzlebook, root_dir, text};
use bytes::Bytes;
use puzzlebook_cli::kernel::wire;
use puzzlebook_cli::notebook::chapter::{Book, Chapter};
use puzzlebook_cli::notebook::ipynb::Notebook;
use puzzlebook_cli::render::book;

/// xorshift64*: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Characters that matter to JSON and to nbformat.
const PIECES: [&str; 16] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "null",
    "0",
    "-1",
    "\"code\"",
    "\"cells\"",
    "\"source\"",
    "\u{0}",
    "é",
];

/// One to four random edits of `text`: delete, insert, duplicate or swap a span.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(4) {
        let at = rng.below(chars.len());
        match rng.below(4) {
            0 => {
                let end = (at + 1 + rng.below(40)).min(chars.len());
                chars.drain(at..end);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                chars.splice(at..at, piece.chars());
            }
            2 => {
                let end = (at + 1 + rng.below(200)).min(chars.len());
                let span: Vec<char> = chars[at..end].to_vec();
                let to = rng.below(chars.len());
                chars.splice(to..to, span);
            }
            _ => {
                let other = rng.below(chars.len());
                if at < chars.len() && other < chars.len() {
                    chars.swap(at, other);
                }
            }
        }
    }
    chars.into_iter().collect()
}

fn seeds() -> Vec<String> {
    let mut out = Vec::new();
    for dir in [
        root_dir().join("notebooks"),
        root_dir().join("cli/tests/fixtures/notebooks"),
    ] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ipynb") {
                out.push(std::fs::read_to_string(p).unwrap());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn mutated_notebooks_never_panic_the_reader() {
    let seeds = seeds();
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let started = Instant::now();
    let (mut cases, mut parsed) = (0, 0);
    while cases < 5000 && started.elapsed() < Duration::from_secs(20) {
        let text = mutate(&seeds[rng.below(seeds.len())], &mut rng);
        let outcome = catch_unwind(AssertUnwindSafe(|| match Notebook::parse(&text) {
            Ok(nb) => {
                // A notebook the reader accepts also renders (its org report,
                // page and figures) and saves.
                let book = Book {
                    chapters: vec![],
                    root_from_reports: "../".into(),
                    edition: Default::default(),
                };
                let _ = book::files(&nb, &Chapter::of(&nb, "notebooks/fuzz.ipynb"), &book);
                let again = Notebook::parse(&nb.to_json()).expect("its own output parses");
                assert_eq!(again.to_json(), nb.to_json(), "saving is stable");
                true
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                false
            }
        }));
        match outcome {
            Ok(ok) => parsed += usize::from(ok),
            Err(_) => panic!("the reader panicked on case {cases}:\n{text}"),
        }
        cases += 1;
    }
    assert!(cases >= 200, "only {cases} cases ran");
    // The mutations must not all break the JSON, or nothing past it is tested.
    assert!(parsed > 0, "no mutated notebook parsed in {cases} cases");
}

/// Every file under `dir` with its contents.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn check_on_mutated_notebooks_never_writes_and_never_crashes() {
    let seeds = seeds();
    let mut rng = Rng(0x5EED_1234_ABCD_0002);
    let d = tempfile::tempdir().unwrap();
    for f in ["Cargo.toml", "Cargo.lock"] {
        std::fs::copy(root_dir().join(f), d.path().join(f)).unwrap();
    }
    std::fs::create_dir_all(d.path().join("src")).unwrap();
    std::fs::write(d.path().join("src/lib.rs"), "").unwrap();
    std::fs::create_dir_all(d.path().join("notebooks")).unwrap();
    std::fs::create_dir_all(d.path().join("reports")).unwrap();
    for case in 0..12 {
        let mutated = mutate(&seeds[rng.below(seeds.len())], &mut rng);
        std::fs::write(d.path().join("notebooks/n.ipynb"), &mutated).unwrap();
        let before = snapshot(d.path());
        let o = puzzlebook(&["check", "--root"])
            .arg(d.path())
            .output()
            .unwrap();
        let code = o.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "case {case}: exit {code:?}, a crash:\n{}\n{mutated}",
            text(&o.stderr)
        );
        assert_eq!(
            snapshot(d.path()),
            before,
            "case {case}: check wrote a file"
        );
    }
}

/// A Jupyter message's frames, signed with `key` as the wire format says:
/// an identity, the delimiter, the signature over the four JSON parts, the
/// parts.
fn signed(key: &wire::HmacSha256, parts: &[&[u8]]) -> Vec<Bytes> {
    use hmac::Mac;
    let mut m = key.clone();
    for p in &parts[..4] {
        m.update(p);
    }
    let sig = hex::encode(m.finalize().into_bytes());
    let mut frames = vec![
        Bytes::from_static(b"id"),
        Bytes::from_static(wire::DELIMITER),
    ];
    frames.push(Bytes::from(sig.into_bytes()));
    frames.extend(parts.iter().map(|p| Bytes::copy_from_slice(p)));
    frames
}

/// Frames made of pieces that matter to the kernel's parser: the delimiter,
/// hex, JSON of every kind, random bytes; in random numbers and orders, with
/// and without a key, some correctly signed so that the object check is
/// reached with odd JSON too. Nothing may panic, and only a correctly signed
/// message of four objects may pass both steps.
#[test]
fn random_frames_never_panic_the_kernels_parser() {
    use hmac::digest::KeyInit;
    const PIECES: [&[u8]; 12] = [
        wire::DELIMITER,
        b"",
        b"{}",
        b"[]",
        b"{\"msg_type\":1}",
        b"null",
        b"00ff",
        b"zz",
        b"{",
        b"\xff\xfe",
        b"<IDS|MSG",
        b"\"s\"",
    ];
    let mut rng = Rng(0x5EED_1234_ABCD_0003);
    let key = wire::HmacSha256::new_from_slice(b"secret").unwrap();
    let mut passed = 0;
    for case in 0..20_000 {
        let n = rng.below(10);
        let mut frames: Vec<Bytes> = (0..n)
            .map(|_| {
                if rng.below(4) == 0 {
                    let len = rng.below(24);
                    Bytes::from((0..len).map(|_| rng.next() as u8).collect::<Vec<u8>>())
                } else {
                    Bytes::from_static(PIECES[rng.below(PIECES.len())])
                }
            })
            .collect();
        if case % 3 == 0 && frames.len() >= 4 {
            let parts: Vec<&[u8]> = frames[frames.len() - 4..].iter().map(|b| &b[..]).collect();
            frames = signed(&key, &parts);
        } else if case % 3 == 1 {
            // A well-formed message, then one random edit of its frames.
            let mut good = signed(&key, &[b"{\"msg_type\":\"x\"}", b"{}", b"{}", b"{}"]);
            if rng.below(2) == 0 {
                let at = rng.below(good.len());
                good[at] = Bytes::from_static(PIECES[rng.below(PIECES.len())]);
            }
            frames = good;
        }
        let with_key = rng.below(2) == 0;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            wire::split(frames.clone(), with_key.then_some(&key))
                .and_then(|(_, parts)| wire::objects(&parts))
                .is_ok()
        }));
        match outcome {
            Ok(ok) => passed += usize::from(ok),
            Err(_) => panic!("the parser panicked on case {case}: {frames:?}"),
        }
    }
    // Some inputs must get through, or the object check is never reached.
    assert!(passed > 0, "no frames passed in 20,000 cases");
}
